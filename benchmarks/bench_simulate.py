#!/usr/bin/env python3
"""How fast `dstc2conv simulate` writes bAbI dialogs: dialogs/s and MB/s for one task's
file (task 5 by default, 100,000 dialogs), beside the time to write the same bytes
(the floor: its first MB written again and again), and the peak memory of the command
and of its workers.

    python benchmarks/bench_simulate.py [--task 5] [--dialogs 100000] [--jobs 2] [--repeat 1]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

MB = 1 << 20


def _run(args, out: str) -> tuple[float, float]:
    """Wall time and peak memory (MB, the largest of the command's processes) of one run."""
    command = [sys.executable, "-m", "dstc2conv", "simulate", "--task", str(args.task), "--split", "trn",
               "--dialogs", str(args.dialogs), "--jobs", str(args.jobs), "--seed", "0", "--out", out, "--quiet"]
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench_simulate: {' '.join(command)} failed: {done.stderr.strip()}")
    return took, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _floor(path: str, size: int) -> float:
    """The time to write ``size`` bytes (the file's first MB, over and over) to a new file beside it."""
    with open(path, "rb") as fh:
        block = fh.read(MB)
    start = time.perf_counter()
    with open(path + ".floor", "wb") as fh:
        left = size
        while left > 0:
            fh.write(block[:left])
            left -= len(block)
    took = time.perf_counter() - start
    os.unlink(path + ".floor")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", type=int, default=5, choices=range(1, 6))
    parser.add_argument("--dialogs", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs (the best is shown)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "out")
        runs = [_run(args, out) for _ in range(args.repeat)]
        took = min(t for t, _ in runs)
        peak = max(m for _, m in runs)
        name = next(n for n in os.listdir(out) if n.startswith(f"dialog-babi-task{args.task}"))
        size = os.path.getsize(os.path.join(out, name))
        floor = min(_floor(os.path.join(out, name), size) for _ in range(args.repeat))
    print(f"task {args.task}, {args.dialogs:,} dialogs, --jobs {args.jobs}: {size / MB:,.1f} MB ({name})")
    print(f"simulate      {took:7.2f} s  {args.dialogs / took:>10,.0f} dialogs/s  {size / MB / took:8.1f} MB/s")
    print(f"write floor   {floor:7.2f} s  {'':>10}            {size / MB / floor:8.1f} MB/s")
    print(f"simulate / floor {took / floor:.1f}x; peak memory {peak:,.0f} MB (the largest process)")


if __name__ == "__main__":
    main()
