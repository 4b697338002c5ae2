#!/usr/bin/env python3
"""A fit from Python against the same training by the command line, side by side.

    python benchmarks/bench_api.py [--system memn2n] [--train TRN] [--dev DEV] [--repeat 2]

Runs, alternately (command line, Python; then Python, command line; ...), ``dstc2conv
train --system NAME`` and a fresh interpreter running ``dstc2conv.system(NAME).fit(TRN,
DEV)`` with paths, and prints each run's wall time and the ratio of the best times
(Python / command line). Both start a new interpreter, so both pay its start-up.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"
FIT = "import sys, dstc2conv; dstc2conv.system(sys.argv[1]).fit(sys.argv[2], sys.argv[3])"


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--system", default="memn2n")
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs = {
            "command line": [sys.executable, "-m", "dstc2conv", "train", "--system", args.system, "--train", args.train,
                             "--dev", args.dev, "--model", str(Path(scratch) / "model"), "--quiet"],
            "Python": [sys.executable, "-c", FIT, args.system, args.train, args.dev],
        }
        times: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(args.repeat):
            for name in (runs if round_ % 2 == 0 else reversed(list(runs))):
                times[name].append(timed(runs[name]))
                print(f"{name:<13} {times[name][-1]:7.1f} s", flush=True)
    best = {name: min(t) for name, t in times.items()}
    print(f"{args.system}: command line {best['command line']:.1f} s, Python {best['Python']:.1f} s (best of "
          f"{args.repeat}); Python / command line = {best['Python'] / best['command line']:.2f}")


if __name__ == "__main__":
    main()
