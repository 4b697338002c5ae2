#!/usr/bin/env python3
"""Peak memory of `stats` and `score` on the worst task-6 files the limits let in.

    python benchmarks/bench_memory.py [--lines N] [--python PYTHON] [--long]

Writes, in a temporary folder, files of the shortest lines there are (the worst case for
memory: the most Python objects per byte read), with ``--lines`` lines (default: the
limit, ``limits.MAX_LINES``):

- one-line dialogs ``1 \\t`` (two lines each, with the empty line after it);
- one-line dialogs ``1 N\\tbot N`` with N distinct, so that every token and every bot
  utterance is new (what ``stats`` must hold to count them);
- dialogs of 100 new tokens a side, ``limits.MAX_VOCABULARY`` tokens in all;
- and for ``score``, predictions of one token a line for the first file; with
  ``--long``, also dialogs whose lines are 125 characters (a 60 MB file), and their
  predictions.

Each command runs in a fresh interpreter of its own (``--python``: another checkout's),
and its peak resident memory (``ru_maxrss`` of that child) and wall time are printed.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def peak(argv: list[str], cwd: str) -> tuple[float, float, int]:
    """(peak RSS in MB, wall seconds, exit code) of ``argv`` run in a child of its own, in
    ``cwd`` (not the checkout, whose dstc2conv ``-m`` would import whatever ``--python``)."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode; "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, rc)")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True,
                         cwd=cwd).stdout
    kb, wall, rc = out.split()
    return int(kb) / 1024, float(wall), int(rc)


def write(path: str, lines) -> float:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.writelines(lines)
    return os.path.getsize(path) / (1 << 20)


def main() -> None:
    from dstc2conv.limits import MAX_LINES, MAX_VOCABULARY

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=MAX_LINES)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose dstc2conv is measured")
    parser.add_argument("--long", action="store_true", help="also score a file of long lines (about 60 MB; minutes)")
    args = parser.parse_args()
    dialogs = args.lines // 2
    command = [args.python, "-m", "dstc2conv"]
    with tempfile.TemporaryDirectory() as tmp:
        empty, distinct, preds = (os.path.join(tmp, name) for name in ("empty.txt", "distinct.txt", "preds.txt"))
        tokens, long, long_preds = (os.path.join(tmp, name) for name in ("tokens.txt", "long.txt", "long-preds.txt"))
        words = 100   # new tokens a line, up to the vocabulary limit
        sizes = {
            empty: write(empty, ("1 \t\n\n" for _ in range(dialogs))),
            distinct: write(distinct, (f"1 {i}\tbot{i}\n\n" for i in range(dialogs))),
            preds: write(preds, ("x\n" for _ in range(dialogs))),
            tokens: write(tokens, ("1 " + " ".join(f"u{i}.{k}" for k in range(words)) + "\t"
                                   + " ".join(f"b{i}.{k}" for k in range(words)) + "\n\n"
                                   for i in range(MAX_VOCABULARY // (2 * words)))),
        }
        runs = [
            ("stats, one-line dialogs '1 <TAB>'", command + ["stats", empty], empty),
            ("stats, every token and bot utterance new", command + ["stats", distinct], distinct),
            ("stats, 1,000,000 distinct tokens", command + ["stats", tokens], tokens),
            ("score, one-line dialogs '1 <TAB>'", command + ["score", preds, empty], empty),
        ]
        if args.long:
            text = " ".join(["word"] * 24)   # 119 characters
            sizes[long] = write(long, (f"1 {i} {text}\t{i} {text}\n\n" for i in range(dialogs)))
            sizes[long_preds] = write(long_preds, (f"{text} {i}\n" for i in range(dialogs)))
            runs.append(("score, lines of 125 characters", command + ["score", long_preds, long], long))
        print(f"{dialogs:,} one-line dialogs, {args.lines:,} lines a file")
        for label, argv, data in runs:
            mb, wall, rc = peak(argv, tmp)
            print(f"{label:<44} {sizes[data]:6.1f} MB file  peak RSS {mb:7.0f} MB  {wall:6.1f} s  exit {rc}")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
