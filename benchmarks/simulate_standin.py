#!/usr/bin/env python3
"""How well generated data stands in for the published: a system trained on a file of
`dstc2conv simulate` against the same system trained on the published train file, both
scored on the same published file.

    python benchmarks/simulate_standin.py [--system memn2n+match] [--task N ...] [--dialogs 1000] [--seed 0]
                                          [--score dev|FILE] [--reference DIR]

For each task: `simulate --split trn --split dev` (with the published KB, so that the
candidates are the published ones), then the system (its settings for the task, as
`table2` gives them) fitted on the generated train file with the generated dev file, and
fitted on the published train file with the published dev file; each scored on the
published dev file (the test files are held out: `--score FILE` names another, e.g. a
test file where it is at hand). Prints per response (per dialog) of each and their
difference.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
STEMS = {1: "dialog-babi-task1-API-calls", 2: "dialog-babi-task2-API-refine", 3: "dialog-babi-task3-options",
         4: "dialog-babi-task4-phone-address", 5: "dialog-babi-task5-full-dialogs"}


def _score(system: str, task: int, train: str, dev: str, test: str, candidates: str) -> dict:
    from dstc2conv.reporter import reporting
    from dstc2conv.systems.table2 import table2

    with reporting(notes=False):
        result = table2(train, dev, test, candidates, [system], task=f"T{task}")
    return result.rows[0].accuracy


def main() -> None:
    from dstc2conv.errors import Dstc2ConvError

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--system", default="memn2n+match")
    parser.add_argument("--task", type=int, action="append", choices=range(1, 6), help="default: 1 to 5")
    parser.add_argument("--dialogs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--score", default="dev", help="the published file scored on: dev (default) or a path")
    parser.add_argument("--reference", default=os.path.join(HERE, "..", "..", "shared", "reference", "babi"),
                        help="the published bAbI files (default ../shared/reference/babi)")
    args = parser.parse_args()
    ref = args.reference
    kb, candidates = os.path.join(ref, "dialog-babi-kb-all.txt"), os.path.join(ref, "dialog-babi-candidates.txt")
    for path in (kb, candidates):
        if not os.path.isfile(path):
            raise Dstc2ConvError("not found: give the folder of the published files with --reference", path)
    print(f"{'task':<6}{'generated':>18}{'published':>18}{'difference':>12}")
    with tempfile.TemporaryDirectory() as out:
        for task in args.task or range(1, 6):
            stem = os.path.join(ref, STEMS[task])
            test = f"{stem}-dev.txt" if args.score == "dev" else args.score
            subprocess.run([sys.executable, "-m", "dstc2conv", "simulate", "--task", str(task), "--split", "trn",
                            "--split", "dev", "--dialogs", str(args.dialogs), "--seed", str(args.seed), "--kb", kb,
                            "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
            gen = os.path.join(out, os.path.basename(stem))
            ours = _score(args.system, task, f"{gen}-trn.txt", f"{gen}-dev.txt", test, candidates)
            theirs = _score(args.system, task, f"{stem}-trn.txt", f"{stem}-dev.txt", test, candidates)
            cell = [f"{100 * a['per_response']:.2f} ({100 * a['per_dialog']:.1f})" for a in (ours, theirs)]
            diff = 100 * (ours["per_response"] - theirs["per_response"])
            print(f"T{task:<5}{cell[0]:>18}{cell[1]:>18}{diff:>+12.2f}", flush=True)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
