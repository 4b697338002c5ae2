#!/usr/bin/env python3
"""Time `dstc2conv build --split all` against the JSON-parsing floor, in one run.

    python benchmarks/bench_build.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz] [--repeat 3]

Runs, alternately and `--repeat` times each, the floor script (read and parse every JSON
file of the tarball with the standard library, nothing else) and a full build into a
temporary folder; prints the best wall time of each, their ratio, and the build's peak
memory (max RSS of the child process).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def timed(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, usage.ru_maxrss // 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--floor", default=str(SHARED / "tools" / "json_floor.py"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for path in (args.raw, args.floor):
        if not os.path.exists(path):
            sys.exit(f"{path}: not found")
    floor_times, build_times, peak = [], [], 0
    with tempfile.TemporaryDirectory() as out:
        for _ in range(args.repeat):
            floor_times.append(timed([sys.executable, args.floor, args.raw])[0])
            seconds, _ = timed([sys.executable, "-m", "dstc2conv", "build", "--split", "all",
                                "--raw", args.raw, "--out", out])
            build_times.append(seconds)
    # RUSAGE_CHILDREN's max RSS is the largest of all children so far: measure the build alone
    with tempfile.TemporaryDirectory() as out:
        code = ("import resource,subprocess,sys;"
                "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024)")
        peak = int(subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "dstc2conv", "build",
                                   "--split", "all", "--raw", args.raw, "--out", out],
                                  check=True, capture_output=True, text=True).stdout)
    floor, build = min(floor_times), min(build_times)
    print(f"input            {args.raw}")
    print(f"json floor       {floor:.2f} s   (best of {args.repeat})")
    print(f"build --split all {build:.2f} s   (best of {args.repeat}, including interpreter start-up)")
    print(f"ratio            {build / floor:.2f} x the floor")
    print(f"build peak RSS   {peak} MB")


if __name__ == "__main__":
    main()
