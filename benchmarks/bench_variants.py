#!/usr/bin/env python3
"""Options of `dstc2conv build --split all` beside the default build, in one run.

    python benchmarks/bench_variants.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz] [--repeat 3]
                                        [--variant '--user asr' ...]

Runs the default build and each ``--variant`` (the build with those options added,
repeatable; default: ``--user asr`` and ``--partition random``) alternately, ``--repeat``
rounds after one untimed run of each (which compiles the modules and brings the tarball
into the page cache), each a whole command into a temporary folder. Prints, for each,
the best wall time, the best CPU time (user + system of all its processes: steadier than
the wall time on a busy machine), the peak resident memory of its largest process
(``ru_maxrss``), and the ratio of its best wall time to the default build's.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEFAULT_VARIANTS = ("--user asr", "--partition random")


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS in MB (the largest process) of a command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stderr.read().decode()}")
    proc.stderr.close()
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss >> 10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--variant", action="append", metavar="OPTIONS",
                        help="options added to the build, as one string (repeatable)")
    args = parser.parse_args()
    if not os.path.exists(args.raw):
        sys.exit(f"{args.raw}: not found")
    variants = ["(default)", *(args.variant or DEFAULT_VARIANTS)]
    runs: dict[str, list[tuple[float, float, int]]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")

        def command(variant: str) -> list[str]:
            extra = [] if variant == "(default)" else shlex.split(variant)
            return [sys.executable, "-m", "dstc2conv", "build", "--split", "all", "--raw", args.raw,
                    "--out", os.path.join(tmp, f"out{variants.index(variant)}"), "--quiet", *extra]

        for variant in variants:
            timed(command(variant), env)   # untimed
        for i in range(args.repeat):
            for variant in variants[::-1] if i % 2 else variants:   # each first in every other round
                runs[variant].append(timed(command(variant), env))
    base = min(r[0] for r in runs["(default)"])
    print(f"build --split all on {args.raw}, best of {args.repeat} taken alternately")
    print(f"{'options':<40} {'wall':>7} {'CPU':>7} {'peak RSS':>9} {'/ default':>9}")
    for variant in variants:
        wall = min(r[0] for r in runs[variant])
        print(f"{variant:<40} {wall:6.2f}s {min(r[1] for r in runs[variant]):6.2f}s "
              f"{max(r[2] for r in runs[variant]):6d} MB {wall / base:9.2f}")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
