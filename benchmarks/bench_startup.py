#!/usr/bin/env python3
"""Start-up time of the command line, and what the Python API adds to it.

    python benchmarks/bench_startup.py [--repeat 20]

Prints, best and median of --repeat fresh interpreters: the cumulative import time of
``dstc2conv.cli`` as ``python -X importtime`` reports it (what every command pays before
it starts), the wall time of ``dstc2conv --version``, and the import time of the API's
functions (``dstc2conv.api.functions``) and of its tables (pandas), which only a Python user
pays, on first use.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def import_time(code: str, module: str) -> int:
    """Microseconds, cumulative, of importing ``module`` while running ``code``."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         check=True).stderr
    return sum(int(line.split("|")[1]) for line in err.splitlines() if line.split("|")[-1].strip() == module)


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], capture_output=True, check=True)
    return time.perf_counter() - start


def show(label: str, values: list[float], unit: str) -> None:
    print(f"{label:<48} best {min(values):8.1f} {unit}   median {statistics.median(values):8.1f} {unit}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    wall(["-m", "dstc2conv", "--version"])   # compile the modules once, untimed
    runs = range(args.repeat)
    show("import dstc2conv.cli (cumulative)", [import_time("import dstc2conv.cli", "dstc2conv.cli") / 1000
                                               for _ in runs], "ms")
    show("dstc2conv --version (wall)", [wall(["-m", "dstc2conv", "--version"]) * 1000 for _ in runs], "ms")
    show("the API's functions (dstc2conv.api.functions)", [import_time("import dstc2conv.api.functions",
                                                               "dstc2conv.api.functions") / 1000 for _ in runs], "ms")
    show("the API's tables (pandas)", [import_time("import pandas", "pandas")
                                       / 1000 for _ in runs], "ms")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
