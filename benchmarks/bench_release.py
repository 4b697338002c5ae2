#!/usr/bin/env python3
"""The whole table's time and memory: `dstc2conv table2 --release` on a stand-in of the
published bAbI dialog release (its test files are held out), with the time per task and
the run's peak memory.

    python benchmarks/bench_release.py [--out DIR] [--tar] [--systems NAME,...] [--reference DIR]

The stand-in, OUT/dialog-bAbI-tasks/ (OUT: --out, else a temporary folder), holds, for tasks 1-5, the published train and dev files,
the dev file again as the test file, and the dev file's out-of-vocabulary stand-in
(benchmarks/babi_standin.py) as the OOV test file; the shared candidates and KB files;
and for task 6 its published train, dev and KB files, the dev file again as the test
file. The files come from ``--reference`` (default ../shared/reference beside the
checkout, with tasks 1-5 in its babi/ folder). ``--tar`` packs the folder as
OUT/dialog_babi.tar.gz and runs on the archive. Figures on it are dev figures (and the
OOV stand-in's), never test figures; nothing of it belongs in the project. Prints the
table as the command does, then the time per task, the whole run's wall time and its
peak resident memory (the command runs as a child process).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
STEMS = ("dialog-babi-task1-API-calls", "dialog-babi-task2-API-refine", "dialog-babi-task3-options",
         "dialog-babi-task4-phone-address", "dialog-babi-task5-full-dialogs")


def write(out: str, reference: str) -> str:
    """The stand-in release folder under ``out``; its path."""
    from babi_standin import write_standin

    from dstc2conv.errors import Dstc2ConvError

    babi = os.path.join(reference, "babi")
    root = os.path.join(out, "dialog-bAbI-tasks")
    os.makedirs(root, exist_ok=True)

    def copy(source: str, name: str) -> None:
        if not os.path.isfile(source):
            raise Dstc2ConvError("not found: give the folder of the published files with --reference", source)
        shutil.copyfile(source, os.path.join(root, name))

    for stem in STEMS:
        copy(os.path.join(babi, f"{stem}-trn.txt"), f"{stem}-trn.txt")
        copy(os.path.join(babi, f"{stem}-dev.txt"), f"{stem}-dev.txt")
        copy(os.path.join(babi, f"{stem}-dev.txt"), f"{stem}-tst.txt")
        write_standin(os.path.join(babi, f"{stem}-dev.txt"), os.path.join(root, f"{stem}-tst-OOV.txt"))
    for name in ("dialog-babi-candidates.txt", "dialog-babi-kb-all.txt"):
        copy(os.path.join(babi, name), name)
    six = "dialog-babi-task6-dstc2"
    for part in ("trn", "dev", "kb"):
        copy(os.path.join(reference, f"{six}-{part}.txt"), f"{six}-{part}.txt")
    copy(os.path.join(reference, f"{six}-dev.txt"), f"{six}-tst.txt")
    return root


def run(release: str, systems: str | None) -> dict:
    """``table2 --release`` on ``release`` as a child process: its JSON, wall seconds and peak MB."""
    argv = [sys.executable, "-m", "dstc2conv", "table2", "--release", release, "--json"]
    if systems:
        argv += ["--systems", systems]
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"bench_release.py: table2 --release exited {done.returncode}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"result": json.loads(done.stdout), "wall": wall, "peak_mb": peak}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="the folder to write the stand-in release in (default: a temporary one)")
    parser.add_argument("--reference", default=os.path.join(HERE, "..", "..", "shared", "reference"),
                        help="the published files (default ../shared/reference beside the checkout)")
    parser.add_argument("--tar", action="store_true", help="pack it as OUT/dialog_babi.tar.gz and run on that")
    parser.add_argument("--systems", help="table2's --systems (default: the paper's six columns)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or scratch
        root = write(out, args.reference)
        release = root
        if args.tar:
            release = os.path.join(out, "dialog_babi.tar.gz")
            with tarfile.open(release, "w:gz") as tar:
                tar.add(root, arcname="dialog-bAbI-tasks")
        print(f"stand-in release: {release}", file=sys.stderr)
        measured = run(release, args.systems)
    result = measured["result"]
    systems = result["systems"]
    print(f"{'row':<8}" + "".join(f"{s:>16}" for s in systems))
    for row, table in result["tasks"].items():
        cells = [table["systems"].get(s) for s in systems]
        print(f"{row:<8}" + "".join(f"{'n/a':>16}" if c is None else
                                    f"{100 * c['per_response']:>8.2f} ({100 * c['per_dialog']:5.1f})" for c in cells))
    print("seconds per task: " + ", ".join(f"{t} {s:.1f}" for t, s in result["seconds"].items()))
    print(f"wall {measured['wall']:.1f} s, peak memory {measured['peak_mb']:.0f} MB")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
