#!/usr/bin/env python3
"""Re-run every figure of the docs: each benchmark the docs cite, in turn, with the
arguments the docs give it.

    python benchmarks/all.py [--list] [--only NAME[,NAME...]] [--dry-run]

Each benchmark runs as a command of its own (this interpreter, from the checkout's root),
its output as it comes, under a line naming it, its command and the pages that cite it;
a failed one is named at the end and the others still run (exit status 1 if any failed).
``{manifest}`` in a command is the manifest of ``dstc2conv build --split all`` on the
train/dev tarball, built once into a temporary folder for the benchmarks that need it.
The whole run takes an hour or two on a 2-core machine (``bench``: two baselines
installed and timed; ``memory``: the largest files the limits let in). The runs that
compare with an older version's source tree (``bench_dstc6.py --baseline DIR``,
``bench_memory.py --python``) need that tree: run them by hand.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TRN = "../shared/reference/dialog-babi-task6-dstc2-trn.txt"
RAW = SHARED / "dstc2" / "dstc2_traindev.tar.gz"
D29_ONLY = "floor,build-all,build-test,rules-score-dev,rules-score-trn,rules-predict,ir-tfidf,ir-nn,score"


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the docs: its name here, what it measures, the script in
    benchmarks/ and its arguments, and the pages that cite its figures."""
    name: str
    what: str
    script: str
    args: tuple[str, ...]
    docs: tuple[str, ...]

    def command(self, manifest: str = "{manifest}") -> list[str]:
        return [sys.executable, f"benchmarks/{self.script}", *(a.replace("{manifest}", manifest) for a in self.args)]

    def shown(self) -> str:
        return " ".join(["python", f"benchmarks/{self.script}", *self.args])


BENCHMARKS = (
    Benchmark("bench-abde890", "the main commands beside abde890", "bench.py",
              ("--baseline", "abde890", "--repeat", "3"), ("performance.md",)),
    Benchmark("bench-d29e1c3", "the main commands beside d29e1c3", "bench.py",
              ("--baseline", "d29e1c3", "--repeat", "5", "--only", D29_ONLY), ("performance.md",)),
    Benchmark("build", "the build against the JSON and decompression floors", "bench_build.py",
              ("--repeat", "7"), ("performance.md", "design.md", "building.md")),
    Benchmark("variants", "build options beside the default build", "bench_variants.py",
              ("--variant", "--user asr", "--variant", "--partition random",
               "--variant", "--export jsonl --export deeppavlov"), ("performance.md", "exports.md")),
    Benchmark("counts", "the build on calls whose system acts hold numbers (inform(count=3)), beside d29e1c3",
              "bench_counts.py", ("--baseline", "d29e1c3", "--repeat", "5"), ("performance.md",)),
    Benchmark("rules", "the rules' scoring loop, rules score and rules tune", "bench_rules.py", (),
              ("performance.md", "reliability.md")),
    Benchmark("watch", "rules score --watch: the rescore after a save", "bench_watch.py",
              ("--data", TRN, "--saves", "5"), ("rules-loop.md",)),
    Benchmark("limits", "what the limits guard against, and the shipped files beside them", "bench_limits.py",
              (), ("reliability.md", "performance.md")),
    Benchmark("ir", "TF-IDF Match beside the JSON floor and the dict vectors", "bench_ir.py", (),
              ("performance.md", "ir.md")),
    Benchmark("dstc6", "export dstc6 on one long dialog", "bench_dstc6.py", (),
              ("performance.md", "evaluation.md")),
    Benchmark("memory", "stats and score on the worst files the limits let in", "bench_memory.py", ("--long",),
              ("performance.md", "reliability.md")),
    Benchmark("startup", "the command line's start-up, and the API's imports", "bench_startup.py",
              ("--repeat", "10"), ("performance.md",)),
    Benchmark("chooser", "training the learned chooser, stage by stage", "bench_chooser.py", (), ("chooser.md",)),
    Benchmark("learned", "training and prediction of the learned systems", "bench_learned.py", (), ()),
    Benchmark("simulate", "100,000 task-5 dialogs by dstc2conv simulate, beside writing the same bytes",
              "bench_simulate.py", (), ("simulate.md",)),
    Benchmark("sweep-babi", "the learned systems on bAbI tasks 1-5 with their chosen settings: dev and OOV stand-in",
              "sweep_babi.py", (), ("babi-learned.md",)),
    Benchmark("simulate-standin", "memn2n+match trained on generated files against trained on the published ones",
              "simulate_standin.py", (), ("simulate.md",)),
    Benchmark("release", "table2 --release, the whole table, on a stand-in release: time per task, peak memory",
              "bench_release.py", (), ("table2.md",)),
    Benchmark("api", "a fit from Python against the command line's", "bench_api.py", ("--system", "memn2n"),
              ("learned.md",)),
    Benchmark("api-readings", "other readings of the api_call values", "api_readings.py", (),
              ("design.md", "building.md")),
    Benchmark("transfer", "rules tuned on one DSTC2 system, scored on the other", "transfer.py",
              ("--manifest", "{manifest}"), ("rules.md",)),
    Benchmark("transfer-chooser", "the chooser trained on one DSTC2 system, scored on the other",
              "transfer_chooser.py", ("--manifest", "{manifest}"), ("chooser.md",)),
    Benchmark("transfer-hcn", "hcn trained on one DSTC2 system, scored on the other", "transfer_hcn.py",
              ("--manifest", "{manifest}", "--epochs", "2"), ("hcn.md",)),
    Benchmark("sweep-hcn", "hcn's recurrence under several settings, its dev curve", "sweep_hcn.py",
              ("{}", '{"seed": 1}', '{"seed": 2}', '{"turn_dropout": 0.1}'), ("hcn.md",)),
    Benchmark("transfer-dialogs", "per dialog: the chooser trained on one DSTC2 system, scored on the other",
              "transfer_dialogs.py", ("--manifest", "{manifest}", "--both"), ("chooser.md",)),
)


def chosen(only: str | None) -> list[Benchmark]:
    if not only:
        return list(BENCHMARKS)
    names = [n.strip() for n in only.split(",") if n.strip()]
    unknown = [n for n in names if n not in {b.name for b in BENCHMARKS}]
    if unknown:
        sys.exit(f"all.py: error: no benchmark named {', '.join(unknown)} (--list names them)")
    return [b for b in BENCHMARKS if b.name in names]


def build_manifest(folder: str) -> str:
    """The manifest of a build of the train/dev tarball into ``folder``."""
    subprocess.run([sys.executable, "-m", "dstc2conv", "build", "--split", "all", "--raw", str(RAW),
                    "--out", folder, "--quiet"], check=True, cwd=ROOT)
    return os.path.join(folder, "manifest.json")


def run_all(benchmarks: list[Benchmark]) -> int:
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        manifest = "{manifest}"
        for bench in benchmarks:
            cited = ", ".join(f"docs/{d}" for d in bench.docs) or "no page yet"
            print(f"== {bench.name}: {bench.shown()}   ({bench.what}; {cited})", flush=True)
            if "{manifest}" in bench.args and manifest == "{manifest}":
                manifest = build_manifest(os.path.join(scratch, "build"))
            start = time.perf_counter()
            code = subprocess.run(bench.command(manifest), cwd=ROOT).returncode
            print(f"== {bench.name}: exit {code}, {time.perf_counter() - start:.0f} s\n", flush=True)
            if code:
                failed.append(bench.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="name each benchmark, its command and its pages")
    parser.add_argument("--only", metavar="NAME[,NAME...]", help="run these benchmarks only")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run none")
    args = parser.parse_args()
    benchmarks = chosen(args.only)
    if args.list or args.dry_run:
        for bench in benchmarks:
            line = f"{bench.name:<18} {bench.shown()}"
            print(line if args.dry_run else f"{line}\n{'':<18} {bench.what} ({', '.join(bench.docs) or '-'})")
        return 0
    return run_all(benchmarks)


if __name__ == "__main__":
    sys.exit(main())
