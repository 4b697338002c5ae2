#!/usr/bin/env python3
"""Speed of the rule baseline's scoring loop.

    python benchmarks/bench_rules.py [--data ../shared/reference/dialog-babi-task6-dstc2-trn.txt]

Prints bot turns scored per second (rules loaded and the file read beforehand, best of
--repeat runs), then the wall time of the whole `dstc2conv rules score` command on the
same file (interpreter start-up included), and of `rules tune` on --tune-data; then where
the command's time goes: a fresh interpreter importing what it imports, loading the
rules (the first load in this process: ``regex`` caches what it compiled), reading the
file, and predicting its turns (each but the first, best of --repeat). Commands
run with their modules compiled once, as an installed package has them (after an untimed
run), even where PYTHONDONTWRITEBYTECODE is set.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--data", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--tune-data", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    from dstc2conv.evaluate.responses import outcomes, score
    from dstc2conv.systems.rules.engine import Compiled, predict
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6 import format as task6
    from dstc2conv.task6.turns import turns_of

    start = time.perf_counter()
    ruleset = load_rules(args.rules)
    loading = time.perf_counter() - start
    turns = turns_of(task6.read(args.data))
    best = None
    for _ in range(args.repeat):
        start = time.perf_counter()
        results = outcomes([p.text for p in predict(Compiled(ruleset), turns)], turns)
        score(results, turns)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    print(f"data             {args.data} ({len(turns)} bot turns)")
    print(f"scoring          {len(turns) / best:,.0f} turns/s (best of {args.repeat}: {best:.3f} s)")

    command = [sys.executable, "-m", "dstc2conv", "rules", "score", "--rules", args.rules, "--data", args.data,
               "--no-history"]
    with tempfile.TemporaryDirectory() as folder:   # the bytecode; the tuned file and a copy of its ontology
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)     # compiles the modules
        walls = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
            walls.append(time.perf_counter() - start)
        print(f"rules score      {min(walls):.2f} s wall (best of {args.repeat}, whole command)")

        if Path(args.tune_data).exists():
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dstc2conv", "rules", "tune", "--rules", args.rules, "--quiet",
                            "--data", args.tune_data, "--out", str(Path(folder) / "tuned.yaml")],
                           check=True, stdout=subprocess.DEVNULL, env=env)
            print(f"rules tune       {time.perf_counter() - start:.1f} s wall on {Path(args.tune_data).name}")
        stages(args, env, loading, ruleset)


def best_of(repeat: int, work) -> float:
    """The best wall time of ``repeat`` calls of ``work()``."""
    seconds = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - start)
    return min(seconds)


def stages(args, env: dict, loading: float, ruleset) -> None:
    """Where the time of `rules score` goes (best of --repeat, but the rules' first load)."""
    from dstc2conv.systems.rules.engine import Compiled, predict
    from dstc2conv.task6 import format as task6
    from dstc2conv.task6.turns import turns_of

    imports = [sys.executable, "-c", "import dstc2conv.cli, dstc2conv.systems.rules.cli"]
    start_up = best_of(args.repeat, lambda: subprocess.run(imports, check=True, env=env))
    reading = best_of(args.repeat, lambda: turns_of(task6.read(args.data)))
    turns = turns_of(task6.read(args.data))
    predicting = best_of(args.repeat, lambda: sum(1 for _ in predict(Compiled(ruleset), turns)))
    print(f"  interpreter and imports {start_up:.2f} s, loading the rules {loading:.2f} s, "
          f"reading the file {reading:.2f} s, predicting {predicting:.2f} s")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
