#!/usr/bin/env python3
"""Speed of ``rules score --watch``: the rescore after a save of the rule file.

    python benchmarks/bench_watch.py [--data ../shared/reference/dialog-babi-task6-dstc2-trn.txt] [--saves 5]

Copies the shipped rules to a temporary folder, runs ``rules score --watch --against
shipped`` on the data in-process (the history in that folder too), and saves the rule file
``--saves`` times, each with another priority for one rule. Prints, per save, the time from
the poll that sees it to the end of the printed score, flips and history, wall-clock and
CPU (the CPU time tells what the wall time would be on an idle machine); then the medians.
A user waits that plus up to one poll interval (watch.INTERVAL).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--saves", type=int, default=5)
    args = parser.parse_args()

    from dstc2conv.cli import run
    from dstc2conv.systems.rules import watch

    with tempfile.TemporaryDirectory() as folder:
        shipped = resources.files("dstc2conv.rulefiles")
        for name in ("dstc2.yaml", "ontology.yaml"):
            shutil.copyfile(shipped / name, os.path.join(folder, name))
        rules = os.path.join(folder, "dstc2.yaml")
        text = Path(rules).read_text()
        polls = []       # (wall and CPU time the poll returned, whether a save was made before it, at the next)

        def pause(seconds: float) -> None:
            if polls:
                polls[-1] = (polls[-1][0], polls[-1][1], (time.perf_counter(), time.process_time()))
            saves = sum(made for _, made, _ in polls)
            if saves >= args.saves:
                raise KeyboardInterrupt
            # a save: ask-food's priority 40 -> 41, 42, ...
            Path(rules).write_text(text.replace("    priority: 40\n    when: {missing: food}",
                                                f"    priority: {41 + saves}\n    when: {{missing: food}}", 1))
            stat = os.stat(rules)
            os.utime(rules, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
            polls.append(((time.perf_counter(), time.process_time()), True, None))

        watch.pause = pause
        out = io.StringIO()
        os.environ["XDG_CACHE_HOME"] = folder
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = run(["rules", "score", "--rules", rules, "--data", args.data, "--watch", "--against", "shipped",
                        "--manifest", "none"])
        if code != 0:
            sys.exit(f"rules score --watch exited {code}")
        done = [(start, end) for start, made, end in polls if made and end is not None]
    wall = [end[0] - start[0] for start, end in done]
    cpu = [end[1] - start[1] for start, end in done]
    print(f"data             {args.data}")
    print(f"rescore per save {', '.join(f'{s:.2f}' for s in wall)} s wall, {', '.join(f'{s:.2f}' for s in cpu)} s CPU")
    print(f"median           {statistics.median(wall):.2f} s wall, {statistics.median(cpu):.2f} s CPU "
          f"(+ up to {watch.INTERVAL} s until the poll sees the save)")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
