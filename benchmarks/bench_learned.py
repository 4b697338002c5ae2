#!/usr/bin/env python3
"""Training and prediction time and peak memory of the learned systems.

    python benchmarks/bench_learned.py [--train TRN] [--dev DEV] [--systems embeddings,memn2n,memn2n+match]

Runs, for each system, `dstc2conv SYSTEM train` (default settings) on --train with --dev,
then `dstc2conv SYSTEM predict` on --dev, each as a command of its own, and prints their
wall time, the peak resident memory of each (the largest of the command's processes)
and the dev accuracy the predictions got.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"
SYSTEMS = {"embeddings": ["embeddings"], "memn2n": ["memn2n"], "memn2n+match": ["memn2n", "--match"]}


def run(command: list[str]) -> tuple[float, float, str]:
    start = time.perf_counter()
    child = subprocess.run([sys.executable, "-c", CHILD, json.dumps(command)], check=True, capture_output=True,
                           text=True)
    seconds = time.perf_counter() - start
    found = json.loads(child.stdout)
    return seconds, found["peak"], found["out"]


CHILD = """
import json, resource, subprocess, sys
out = subprocess.run(json.loads(sys.argv[1]), check=True, capture_output=True, text=True)
print(json.dumps({"peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "out": out.stdout}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    args = parser.parse_args()
    dstc2conv = [sys.executable, "-m", "dstc2conv"]
    print(f"train            {args.train}")
    print(f"dev              {args.dev}")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.systems.split(","):
            command, *flags = SYSTEMS[name]
            model = str(Path(folder) / name)
            seconds, peak, _ = run(dstc2conv + [command, "train", "--train", args.train, "--dev", args.dev,
                                                "--model", model, "--quiet", *flags])
            print(f"{name:<16} train    {seconds:7.1f} s  peak {peak:6.0f} MB")
            seconds, peak, out = run(dstc2conv + [command, "predict", "--model", model, "--data", args.dev,
                                                  "--out", str(Path(folder) / "preds.txt"), "--json", "--quiet"])
            score = json.loads(out)
            print(f"{name:<16} predict  {seconds:7.1f} s  peak {peak:6.0f} MB  "
                  f"dev {score['per_response']:.2%} per response, {score['per_dialog']:.2%} per dialog")


if __name__ == "__main__":
    main()
