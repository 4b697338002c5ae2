#!/usr/bin/env python3
"""The main commands of this checkout, timed side by side with a baseline version.

    python benchmarks/bench.py [--baseline REF|DIR] [--only NAME[,NAME...]] [--repeat 3]
                               [--json] [--markdown FILE] [--max-ratio R] [--list]

Every command runs as the real command line (``python -m dstc2conv ...``, interpreter
start-up included) in a temporary folder, once for this checkout and once for the
baseline, alternately (this, baseline; then baseline, this; ...), ``--repeat`` rounds;
the table shows the best wall time of each version, and the peak resident memory of the
command's whole process tree (the sum over its processes, sampled every 10 ms, or the
largest process's own peak if that is higher), with the ratios this / baseline: above 1,
this checkout is slower or larger.

The baseline (``--baseline``): a git commit, tag or branch of this repository (default:
the latest tag before HEAD if there is one, else HEAD~1), or a folder holding a
dstc2conv source tree. It is installed with pip into a folder of its own
(``$XDG_CACHE_HOME/dstc2conv/bench/`` or ``~/.cache/dstc2conv/bench/``, kept by commit, or
by the folder's content) and run with that folder on PYTHONPATH and the same
interpreter, whose site-packages give it its dependencies. A source tree cannot be put
on PYTHONPATH as it is: pyproject.toml maps packages from other folders (the rule files,
the sample). This checkout runs as the interpreter's own dstc2conv, which must be this
checkout installed in editable mode (``pip install -e .``).

A command the baseline does not have (an older version lacks some commands and options)
is shown as n/a; one that fails is shown as failed, its stderr on stderr. The exit status
is 1 when a command of this checkout failed, or when ``--max-ratio R`` is given and a time
ratio is above R.

Data (the defaults are ``../shared/`` beside the checkout): ``--raw`` the train/dev
tarball, ``--floor`` json_floor.py (the time to parse the corpus's JSON with the
standard library, which a build is compared to), ``--train`` and ``--dev`` the published
task-6 files. ``build --split test`` reads a test-like tarball made from ``--raw`` in the
temporary folder (its dev calls, listed by ``scripts/config/dstc2_test.flist``, and no
ontology, as the official test tarball). The learned systems and the quick ``table2`` run
on the first dialogs of --train and --dev (``--small``), to bound their time; ``rules
learn`` runs once per version, with ``--iterations`` bounded (``--learn-iterations``).
Progress goes to stderr, the table to stdout.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import io
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "reference"

# What a copy of a source folder leaves out before pip installs it
IGNORED = shutil.ignore_patterns(".git", ".venv", "venv", "__pycache__", "*.pyc", "*.egg-info", "build", "dist", "site",
                                 ".pytest_cache", ".ruff_cache", "outputs", "data_raw", "node_modules")


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- the process tree's memory, sampled from /proc (Linux)

def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
            except OSError:
                pass
    return found


def _memory(pid: int) -> tuple[int, int]:
    """The resident memory of a process now and at its highest (VmRSS, VmHWM), bytes."""
    now = high = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    now = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    high = int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return now, high


@dataclasses.dataclass
class Run:
    seconds: float
    peak: int           # bytes
    code: int
    stderr: str


def measure(argv: list[str], env: dict, cwd: str) -> Run:
    """Run ``argv``; its wall time (the main thread waits on the process), and the peak of
    its process tree's summed RSS or of the high-water mark of its largest process
    (VmHWM), whichever is higher, sampled every 10 ms by a thread. (Not the rusage of
    wait4: a child's ru_maxrss counts the memory of the parent it was forked from.)"""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=cwd)
        done = threading.Event()
        sampled = [0]

        def sample() -> None:
            while not done.is_set():
                sizes = [_memory(p) for p in _tree(proc.pid)]
                sampled[0] = max([sampled[0], sum(now for now, _ in sizes)] + [high for _, high in sizes])
                done.wait(0.01)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            _, status = os.waitpid(proc.pid, 0)
        except BaseException:    # interrupted: the command does not outlive the benchmark
            proc.kill()
            proc.wait()
            raise
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return Run(seconds, sampled[0], proc.returncode, stderr)


# -- the two versions

def clean_env() -> dict:
    """The environment of every command: no PYTHONPATH of the caller's, bytecode written
    (an installed package has its modules compiled)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHOME")}


@dataclasses.dataclass
class Version:
    name: str               # "this" or "baseline"
    label: str              # what it is: a commit, a folder
    env: dict
    work: Path              # its outputs
    package: str = ""       # the dstc2conv it imports
    helps: dict = dataclasses.field(default_factory=dict)
    made: dict = dataclasses.field(default_factory=dict)   # producer name -> Run or None (n/a / failed)

    def help(self, words: tuple[str, ...], cwd: str) -> str | None:
        """``dstc2conv WORDS --help``, or None if this version has no such command."""
        if words not in self.helps:
            done = subprocess.run([sys.executable, "-m", "dstc2conv", *words, "--help"], capture_output=True, text=True,
                                  env=self.env, cwd=cwd)
            self.helps[words] = done.stdout if done.returncode == 0 else None
        return self.helps[words]


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def default_baseline() -> str:
    """The latest tag before HEAD (the previous release), else HEAD~1."""
    try:
        return git("describe", "--tags", "--abbrev=0", "HEAD~1")
    except subprocess.CalledProcessError:
        return "HEAD~1"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "dstc2conv" / "bench"


def tree_digest(folder: Path) -> str:
    """A digest of every file's path and content under ``folder``."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def pip_install(source: Path, target: Path) -> None:
    base = [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--disable-pip-version-check",
            "--target", str(target)]
    done = subprocess.run(base + [str(source)], capture_output=True, text=True)
    if done.returncode != 0:   # no package registry: build with this interpreter's setuptools
        shutil.rmtree(target, ignore_errors=True)
        done = subprocess.run(base + ["--no-build-isolation", str(source)], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"pip could not install the baseline from {source}:\n{done.stderr[-3000:]}")


def install_baseline(ref: str, scratch: Path) -> tuple[str, Path]:
    """Install the baseline (a git ref or a source folder) into the cache; its label and
    the folder to put on PYTHONPATH."""
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        source = Path(tmp) / "src"
        if os.path.isdir(ref):
            if not os.path.isfile(os.path.join(ref, "dstc2conv", "cli.py")):
                sys.exit(f"--baseline {ref}: not a dstc2conv source tree (no dstc2conv/cli.py)")
            shutil.copytree(ref, source, ignore=IGNORED, symlinks=True)
            key, label = "dir-" + tree_digest(source), os.path.abspath(ref)
        else:
            try:
                commit = git("rev-parse", "--verify", "--quiet", ref + "^{commit}")
            except subprocess.CalledProcessError:
                sys.exit(f"--baseline {ref}: neither a folder nor a commit of {ROOT}")
            key = commit
            label = f"{ref} ({commit[:7]})" if not commit.startswith(ref) else commit[:7]
        target = cache_root() / key
        if (target / "site" / "dstc2conv" / "cli.py").is_file():
            note(f"baseline {label}: installed in {target} (cached)")
            return label, target / "site"
        if not source.exists():
            source.mkdir()
            archive = subprocess.Popen(["git", "-C", str(ROOT), "archive", key], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", str(source)], stdin=archive.stdout, check=True)
            if archive.wait() != 0:
                sys.exit(f"git archive {key} failed")
        note(f"baseline {label}: installing into {target} (pip, once)")
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.tmp-{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        pip_install(source, partial / "site")
        (partial / "source.json").write_text(json.dumps({"baseline": ref, "label": label}) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        os.replace(partial, target)
    return label, target / "site"


def imported(env: dict, cwd: str) -> str:
    """The dstc2conv package this environment imports."""
    done = subprocess.run([sys.executable, "-c", "import dstc2conv; print(dstc2conv.__file__)"], capture_output=True,
                          text=True, env=env, cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"cannot import dstc2conv:\n{done.stderr}")
    return str(Path(done.stdout.strip()).parent)


# -- the inputs

class Inputs:
    """The data files, and those made from them in the temporary folder on first use."""

    def __init__(self, args, tmp: Path):
        self.args, self.tmp = args, tmp
        self._made: dict[str, str] = {}

    def need(self, path: str, what: str) -> str:
        if not os.path.exists(path):
            raise Missing(f"{what} {path} not found")
        return os.path.abspath(path)

    @property
    def raw(self) -> str:
        return self.need(self.args.raw, "--raw")

    @property
    def floor(self) -> str:
        return self.need(self.args.floor, "--floor")

    @property
    def trn(self) -> str:
        return self.need(self.args.train, "--train")

    @property
    def dev(self) -> str:
        return self.need(self.args.dev, "--dev")

    def _once(self, key: str, make: Callable[[str], None], name: str) -> str:
        if key not in self._made:
            path = str(self.tmp / name)
            note(f"  making {name} (untimed)")
            make(path)
            self._made[key] = path
        return self._made[key]

    def small(self, which: str) -> str:
        """The first --small dialogs of --train (``trn``) or --dev (``dev``)."""
        n = self.args.small[0 if which == "trn" else 1]
        source = self.trn if which == "trn" else self.dev
        return self._once(f"small-{which}", lambda path: first_dialogs(source, n, path), f"{which}-first{n}.txt")

    @property
    def test_tarball(self) -> str:
        raw = self.raw
        return self._once("test", lambda path: test_tarball(raw, path), "dstc2_test.tar.gz")

    @property
    def ranked(self) -> str:
        """Ranked predictions for --dev (ir tfidf --rank 10, by this checkout), for score."""
        trn, dev = self.trn, self.dev

        def make(path: str) -> None:
            subprocess.run([sys.executable, "-m", "dstc2conv", "ir", "tfidf", "--train", trn, "--data", dev,
                            "--out", path, "--rank", "10", "--quiet"], check=True, stdout=subprocess.DEVNULL,
                           env=clean_env(), cwd=str(self.tmp))
        return self._once("ranked", make, "dev-tfidf-ranked.jsonl")


class Missing(Exception):
    """An input file is missing: the command is skipped."""


def first_dialogs(source: str, n: int, path: str) -> None:
    """The first ``n`` dialogs (blocks separated by a blank line) of a task-6 file."""
    with open(source, encoding="utf-8") as fh:
        blocks = fh.read().strip("\n").split("\n\n")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n\n".join(blocks[:n]) + "\n\n")


def test_tarball(raw: str, path: str) -> None:
    """A tarball laid out as DSTC2's test one: the dev calls of ``raw`` and their flist,
    named dstc2_test.flist, and no ontology. Read twice as a stream (the flists come
    last), so that this process stays small: its memory would count in the peak of the
    commands it starts."""
    with tarfile.open(raw, "r|*") as tf:
        flist = next(tf.extractfile(m).read() for m in tf if m.isfile() and m.name.endswith("dstc2_dev.flist"))
    sessions = {line.strip().strip("/") for line in flist.decode().splitlines() if line.strip()}
    with tarfile.open(raw, "r|*") as tf, tarfile.open(path, "w:gz", compresslevel=6) as out:
        for member in tf:
            parts = member.name.split("/")
            if member.isfile() and member.name.endswith(".json") and "/".join(parts[-3:-1]) in sessions:
                out.addfile(member, tf.extractfile(member))
        info = tarfile.TarInfo("scripts/config/dstc2_test.flist")
        info.size, info.mode, info.mtime = len(flist), 0o644, int(time.time())
        out.addfile(info, io.BytesIO(flist))


# -- the commands

@dataclasses.dataclass
class Command:
    name: str
    label: str
    args: Callable        # (inputs, version, out) -> the argv after "python -m dstc2conv", or the whole argv (plain)
    words: tuple = ()     # the sub-command, whose --help must exist in a version
    options: tuple = ()   # options its --help must list
    needs: tuple = ()     # producers whose output it reads (made untimed if not timed before)
    produces: bool = False
    once: bool = False    # timed once per version, whatever --repeat
    plain: bool = False   # not a dstc2conv command: run once a round, not per version
    default: bool = True
    note: str = ""


def dstc2conv(*words: str) -> list[str]:
    return [sys.executable, "-m", "dstc2conv", *words]


def commands(args) -> list[Command]:
    small = f"first {args.small[0]} trn / {args.small[1]} dev dialogs"
    made = lambda v, name: str(v.work / name)   # noqa: E731   what a producer wrote
    cmds = [
        Command("floor", "json floor (json_floor.py)", lambda i, v, o: [sys.executable, i.floor, i.raw], plain=True,
                note="tarfile + json.loads of every call, one process: the floor a build is compared to"),
        Command("build-all", "build --split all", words=("build",),
                args=lambda i, v, o: dstc2conv("build", "--split", "all", "--raw", i.raw, "--out", o, "--quiet")),
        Command("build-test", "build --split test", words=("build",),
                args=lambda i, v, o: dstc2conv("build", "--split", "test", "--raw", i.test_tarball, "--out", o, "--quiet"),
                note="a test-like tarball: the 506 dev calls, listed by dstc2_test.flist, no ontology"),
        Command("rules-score-dev", "rules score dev --no-history", words=("rules", "score"), options=("--no-history",),
                args=lambda i, v, o: dstc2conv("rules", "score", "--data", i.dev, "--no-history")),
        Command("rules-score-trn", "rules score trn --no-history", words=("rules", "score"), options=("--no-history",),
                args=lambda i, v, o: dstc2conv("rules", "score", "--data", i.trn, "--no-history")),
        Command("rules-learn", "rules learn trn, dev", words=("rules", "learn"), produces=True, once=True,
                options=("--iterations",),
                args=lambda i, v, o: dstc2conv("rules", "learn", "--train", i.trn, "--dev", i.dev, "--out", o,
                                               "--iterations", str(args.learn_iterations), "--quiet"),
                note=f"once per version, --iterations {args.learn_iterations}: the chooser M of the --chooser row"),
        Command("rules-predict", "rules predict dev", words=("rules", "predict"),
                args=lambda i, v, o: dstc2conv("rules", "predict", "--data", i.dev, "--out", o, "--quiet")),
        Command("rules-predict-chooser", "rules predict dev --chooser M", words=("rules", "predict"),
                options=("--chooser",), needs=("rules-learn",),
                args=lambda i, v, o: dstc2conv("rules", "predict", "--data", i.dev, "--out", o, "--quiet",
                                               "--chooser", made(v, "rules-learn"))),
        Command("ir-tfidf", "ir tfidf trn -> dev", words=("ir", "tfidf"),
                args=lambda i, v, o: dstc2conv("ir", "tfidf", "--train", i.trn, "--data", i.dev, "--out", o, "--quiet")),
        Command("ir-nn", "ir nn trn -> dev", words=("ir", "nn"),
                args=lambda i, v, o: dstc2conv("ir", "nn", "--train", i.trn, "--data", i.dev, "--out", o, "--quiet")),
        Command("score", "score ranked dev, every metric", words=("score",),
                args=lambda i, v, o: dstc2conv("score", i.ranked, i.dev),
                note="ir tfidf's 10 best of every dev turn: every metric the input allows (hits@k, MRR too)"),
    ]
    for system, flags in (("embeddings", ()), ("memn2n", ()), ("memn2n", ("--match",))):
        name = "-".join((system,) + tuple(f.strip("-") for f in flags))
        shown = " ".join((system,) + flags)
        cmds.append(Command(
            f"{name}-train", f"{shown} train", words=(system, "train"), options=flags, produces=True,
            args=lambda i, v, o, s=system, f=flags: dstc2conv(s, "train", "--train", i.small("trn"), "--dev",
                                                              i.small("dev"), "--model", o, "--quiet", *f),
            note=small))
        cmds.append(Command(
            f"{name}-predict", f"{shown} predict", words=(system, "predict"), needs=(f"{name}-train",),
            args=lambda i, v, o, s=system, n=name: dstc2conv(s, "predict", "--model", made(v, f"{n}-train"), "--data",
                                                             i.small("dev"), "--out", o, "--quiet"),
            note=small))
    cmds.append(Command(
        "table2", "table2 (quick)", words=("table2",),
        args=lambda i, v, o: dstc2conv("table2", "--train", i.small("trn"), "--dev", i.small("dev"), "--test",
                                       i.small("dev"), "--bootstrap", "100", "--quiet"),
        note=f"every system, {small} (the dev part as the test file), --bootstrap 100"))
    cmds.append(Command(
        "table2-full", "table2 (full files)", words=("table2",), default=False,
        args=lambda i, v, o: dstc2conv("table2", "--train", i.trn, "--dev", i.dev, "--test", i.dev, "--quiet"),
        note="every system on the published trn and dev files (dev as the test file): several minutes"))
    return cmds


# -- running them

@dataclasses.dataclass
class Result:
    runs: list = dataclasses.field(default_factory=list)   # Run
    status: str = ""    # "" (measured), "n/a", "failed", "skipped"
    why: str = ""

    @property
    def best(self) -> float | None:
        return min(r.seconds for r in self.runs) if self.runs and not self.status else None

    @property
    def peak_mb(self) -> float | None:
        return max(r.peak for r in self.runs) / 2**20 if self.runs and not self.status else None


class Bench:
    def __init__(self, args, versions: list[Version], inputs: Inputs, tmp: Path):
        self.args, self.versions, self.inputs, self.tmp = args, versions, inputs, tmp
        self.by_name = {c.name: c for c in commands(args)}
        self.cwd = str(tmp / "cwd")
        os.makedirs(self.cwd, exist_ok=True)

    def available(self, cmd: Command, v: Version) -> str:
        """Why ``v`` cannot run ``cmd`` ("" if it can)."""
        if cmd.plain:
            return ""
        text = v.help(cmd.words, self.cwd)
        if text is None:
            return f"no 'dstc2conv {' '.join(cmd.words)}'"
        missing = [o for o in cmd.options if o not in text.split()]
        if missing:
            return f"'dstc2conv {' '.join(cmd.words)}' has no {', '.join(missing)}"
        for need in cmd.needs:
            why = self.available(self.by_name[need], v)
            if why:
                return why
        return ""

    def once(self, cmd: Command, v: Version) -> Run:
        """One run of ``cmd`` by ``v``, its output in a fresh place."""
        out = v.work / cmd.name
        shutil.rmtree(out, ignore_errors=True)
        if out.exists():
            out.unlink()
        argv = cmd.args(self.inputs, v, str(out))
        run = measure(argv, v.env if not cmd.plain else clean_env(), self.cwd)
        if run.code != 0:
            note(f"  {v.name}: failed ({run.code}): {shlex.join(argv)}\n" + "\n".join(run.stderr.splitlines()[-8:]))
        if cmd.produces:
            v.made[cmd.name] = run if run.code == 0 else None
        return run

    def prepare(self, cmd: Command, v: Version) -> str:
        """Make what ``cmd`` reads (untimed) if no timed run made it; "" or why not."""
        for need in cmd.needs:
            if need not in v.made:
                note(f"  {v.name}: {self.by_name[need].label} first (untimed, for {cmd.label})")
                self.once(self.by_name[need], v)
            if v.made[need] is None:
                return f"{self.by_name[need].label} failed"
        return ""

    def time(self, cmd: Command) -> dict[str, Result]:
        versions = self.versions[:1] if cmd.plain else self.versions
        results = {v.name: Result() for v in versions}
        for v in versions:
            why = self.available(cmd, v)
            if why:
                results[v.name].status, results[v.name].why = "n/a", why
                note(f"  {v.name}: n/a ({why})")
        rounds = 1 if cmd.once else self.args.repeat
        for i in range(rounds):
            order = versions if i % 2 == 0 else versions[::-1]
            for v in order:
                result = results[v.name]
                if result.status:
                    continue
                why = self.prepare(cmd, v)
                if why:
                    result.status, result.why = "failed", why
                    continue
                run = self.once(cmd, v)
                if run.code != 0:
                    result.status, result.why = "failed", f"exit {run.code}"
                    continue
                result.runs.append(run)
                note(f"  round {i + 1}/{rounds} {v.name:8s} {run.seconds:7.2f} s  {run.peak / 2**20:6.0f} MB")
        return results


# -- the table

def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def cell(value, digits: int = 2, status: str = "") -> str:
    if status:
        return status
    return "-" if value is None else f"{value:.{digits}f}"


def rows_of(report: dict) -> list[list[str]]:
    """The table's rows: command | this s | baseline s | ratio | this MB | baseline MB | ratio."""
    rows = []
    for row in report["rows"]:
        this, base = row["this"], row.get("baseline")
        label = row["label"] + (f" [{row['mark']}]" if row.get("mark") else "")
        if row.get("kind") == "ratio":
            rows.append([label, cell(this["x"]) + "x", cell(base and base["x"]) + ("x" if base and base["x"] else ""),
                         cell(row["ratio_seconds"]), "", "", ""])
            continue
        if base is None:     # not a per-version command
            rows.append([label, cell(this["seconds"], status=this["status"]), "", "",
                         cell(this["peak_mb"], 0, this["status"]), "", ""])
            continue
        rows.append([label, cell(this["seconds"], status=this["status"]), cell(base["seconds"], status=base["status"]),
                     cell(row["ratio_seconds"], status="n/a" if this["status"] or base["status"] else ""),
                     cell(this["peak_mb"], 0, this["status"]), cell(base["peak_mb"], 0, base["status"]),
                     cell(row["ratio_mb"], status="n/a" if this["status"] or base["status"] else "")])
    return rows


HEADER = ["command", "this s", "baseline s", "ratio", "this MB", "baseline MB", "ratio"]


def text_table(report: dict) -> str:
    rows = [HEADER] + rows_of(report)
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = []
    for n, r in enumerate(rows):
        lines.append(" | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        if n == 0:
            lines.append("-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def notes_of(report: dict) -> list[str]:
    seen = {row["mark"]: row["note"] for row in report["rows"] if row.get("mark")}
    return [f"[{mark}] {text}" for mark, text in seen.items()]


def markdown(report: dict) -> str:
    lines = ["## This version beside a baseline", "",
             f"`{report['command']}`: this checkout ({report['this']['label']}) beside {report['baseline']['label']}, "
             f"best of {report['repeat']} runs taken alternately, on {report['machine']}. "
             "Wall time of the whole command (interpreter start-up included) and peak resident memory of all its "
             "processes together; a ratio is this / baseline (above 1: slower or larger).", "",
             "| " + " | ".join(HEADER) + " |", "|---|" + "---:|" * (len(HEADER) - 1)]
    for r in rows_of(report):
        lines.append("| " + " | ".join(c.strip().replace("|", "\\|") for c in r) + " |")
    notes = notes_of(report)
    if notes:
        lines += [""] + [f"{n}  " if k < len(notes) - 1 else n for k, n in enumerate(notes)]
    lines += ["", f"The run took {report['total_seconds'] / 60:.1f} min."]
    return "\n".join(lines) + "\n"


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"Python {platform.python_version()}, {os.cpu_count()} cores, "
            f"load average {load:.1f} at the start")


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # the temporary folder removed on kill too
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", metavar="REF|DIR",
                        help="a commit, tag or branch, or a dstc2conv source folder (default: the latest tag before HEAD, "
                             "else HEAD~1)")
    parser.add_argument("--only", metavar="NAME[,NAME...]", help="the commands to time (--list names them)")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each version's best is shown (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--markdown", metavar="FILE", help="also write the figures as a docs page section to FILE")
    parser.add_argument("--max-ratio", type=float, metavar="R", help="exit 1 if a time ratio (this / baseline) is above R")
    parser.add_argument("--list", action="store_true", help="list the commands and exit")
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"), help="the train/dev tarball")
    parser.add_argument("--floor", default=str(SHARED / "tools" / "json_floor.py"), help="json_floor.py")
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--small", default="200,60", metavar="TRN,DEV",
                        help="the learned systems' and the quick table2's data: the first TRN dialogs of --train and DEV "
                             "of --dev (default 200,60)")
    parser.add_argument("--learn-iterations", type=int, default=30, metavar="N",
                        help="rules learn --iterations (default 30; the command's own default is 100)")
    args = parser.parse_args()
    try:
        args.small = tuple(int(n) for n in args.small.split(","))
        assert len(args.small) == 2 and min(args.small) > 0
    except (ValueError, AssertionError):
        parser.error("--small: two whole numbers, TRN,DEV")
    if args.repeat < 1:
        parser.error("--repeat: at least 1")
    every = commands(args)
    if args.list:
        for c in every:
            print(f"{c.name:28s} {c.label}{'' if c.default else '  (only with --only)'}")
        return 0
    names = [c.name for c in every if c.default]
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in {c.name for c in every}]
        if unknown:
            parser.error(f"--only: no command {', '.join(unknown)} (--list names them)")
    chosen = [c for c in every if c.name in names]

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dstc2conv-bench-") as tmp:
        tmp = Path(tmp)
        cwd = tmp / "cwd"
        cwd.mkdir()
        ref = args.baseline or default_baseline()
        label, site = install_baseline(ref, tmp)
        this_env = clean_env()
        base_env = {**clean_env(), "PYTHONPATH": str(site)}
        this = Version("this", "", this_env, tmp / "this", package=imported(this_env, str(cwd)))
        if Path(this.package) != ROOT / "dstc2conv":
            sys.exit(f"this interpreter imports dstc2conv from {this.package}, not from this checkout: "
                     f"pip install -e {ROOT}")
        base = Version("baseline", label, base_env, tmp / "baseline", package=imported(base_env, str(cwd)))
        if not Path(base.package).is_relative_to(site):
            sys.exit(f"the baseline's environment imports dstc2conv from {base.package}, not from {site}")
        try:
            head = git("rev-parse", "--short", "HEAD")
            dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
            this.label = head + (" + changes" if dirty else "")
        except (subprocess.CalledProcessError, FileNotFoundError):
            this.label = str(ROOT)
        note(f"this:     {this.label}, runs {this.package}")
        note(f"baseline: {base.label}, runs {base.package}")
        for v in (this, base):
            v.work.mkdir()
            subprocess.run([sys.executable, "-m", "compileall", "-q", v.package], env=v.env, cwd=str(cwd),
                           stdout=subprocess.DEVNULL)   # the modules compiled, as an installed package has them
        inputs = Inputs(args, tmp)
        bench = Bench(args, [this, base], inputs, tmp)
        shown = [("FILE" if before == "--markdown" else a) for before, a in zip([""] + sys.argv[1:], sys.argv[1:])]
        report = {"command": shlex.join(["python", "benchmarks/bench.py", *shown]), "repeat": args.repeat,
                  "machine": machine(),
                  "this": {"label": this.label, "package": this.package},
                  "baseline": {"ref": ref, "label": base.label, "package": base.package}, "rows": []}
        marks: dict[str, str] = {}
        seconds: dict[tuple[str, str], float | None] = {}
        for n, cmd in enumerate(chosen, 1):
            note(f"[{n}/{len(chosen)}] {cmd.label}")
            try:
                results = bench.time(cmd)
            except Missing as exc:
                note(f"  skipped: {exc}")
                results = {"this": Result(status="skipped", why=str(exc))}
                if not cmd.plain:
                    results["baseline"] = Result(status="skipped", why=str(exc))
            row = {"name": cmd.name, "label": cmd.label}
            if cmd.note:
                mark = marks.setdefault(cmd.note, str(len(marks) + 1))
                row["mark"], row["note"] = mark, cmd.note
            for v, result in results.items():
                row[v] = {"seconds": result.best, "peak_mb": result.peak_mb,
                          "runs": [round(r.seconds, 3) for r in result.runs], "status": result.status,
                          **({"why": result.why} if result.why else {})}
                seconds[(cmd.name, v)] = result.best
            if not cmd.plain:
                row["ratio_seconds"] = ratio(row["this"]["seconds"], row["baseline"]["seconds"])
                row["ratio_mb"] = ratio(row["this"]["peak_mb"], row["baseline"]["peak_mb"])
            report["rows"].append(row)
        floor = seconds.get(("floor", "this"))
        if floor and ("build-all", "this") in seconds:
            x = {v: ratio(seconds[("build-all", v)], floor) for v in ("this", "baseline")}
            at = next(k for k, r in enumerate(report["rows"]) if r["name"] == "build-all") + 1
            report["rows"].insert(at, {"name": "build-all/floor", "label": "  build --split all / json floor",
                                       "kind": "ratio", "this": {"x": x["this"]}, "baseline": {"x": x["baseline"]},
                                       "ratio_seconds": ratio(x["this"], x["baseline"])})
        report["total_seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"this:     {report['this']['label']} ({report['this']['package']})")
        print(f"baseline: {report['baseline']['label']} ({report['baseline']['package']})")
        print(f"best of {args.repeat}, alternately; {report['machine']}; ratio = this / baseline")
        print(text_table(report))
        for line in notes_of(report):
            print(line)
        print(f"total {report['total_seconds']:.0f} s")
    if args.markdown:
        Path(args.markdown).write_text(markdown(report), encoding="utf-8")
        note(f"wrote {args.markdown}")
    failed = [r["label"] for r in report["rows"] if r.get("this", {}).get("status") == "failed"]
    if failed:
        note("failed in this checkout: " + ", ".join(failed))
    over = [r["label"] for r in report["rows"] if args.max_ratio is not None and r.get("kind") != "ratio"
            and (r.get("ratio_seconds") or 0) > args.max_ratio]
    if over:
        note(f"slower than the baseline by more than {args.max_ratio}x: " + ", ".join(over))
    return 1 if failed or over else 0


if __name__ == "__main__":
    sys.exit(main())
