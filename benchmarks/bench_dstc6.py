#!/usr/bin/env python3
"""Peak memory of `dstc2conv export dstc6` on one long dialog, as it grows.

    python benchmarks/bench_dstc6.py [--turns 1000 2000 4000] [--baseline DIR]

Writes, in a temporary folder, a task-6 file of one dialog of N exchanges (each a user
utterance and a bot answer of some 60 characters, every tenth an api_call with three
result lines) and a candidates file of its bot utterances, then runs `export dstc6 --k
10` on it in a process of its own and prints, for each N, the input's size, the samples
file's size (it grows with N squared: each sample holds the dialog so far), the wall time
and the process's peak resident memory (``ru_maxrss``). With ``--baseline DIR`` the same
command is also run from the dstc2conv source tree in DIR (another version, e.g.
``git archive <commit> | tar -x -C DIR``), side by side.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def dialog(n: int) -> str:
    lines = []
    for i in range(n):
        if i % 10 == 9:
            lines.append(f"i want restaurant number {i} in the north\tapi_call italian north cheap")
            lines += [f"place_{i} R_cuisine italian", f"place_{i} R_location north", f"place_{i} R_rating {i % 10}"]
        else:
            lines.append(f"user utterance number {i} asking about food\tbot answer number {i} about the food asked")
    return "".join(f"{k} {line}\n" for k, line in enumerate(lines, 1)) + "\n"


def run(source: str | None, ref: str, cands: str, out: str) -> tuple[float, int]:
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = source
    code = ("import resource, sys; from dstc2conv.cli import run; rc = run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(rc)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "export", "dstc6", ref, "--candidates", cands, "--k", "10",
                           "--out", out, "--quiet"], capture_output=True, text=True, env=env,
                          cwd=os.path.dirname(ref))   # (not the checkout: its dstc2conv/ would come first)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stderr)
    return seconds, int(done.stderr.split()[-1]) * (1 if sys.platform == "darwin" else 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--baseline", metavar="DIR")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'exchanges':>9}  {'input':>8}  {'samples':>9}  {'time':>7}  {'peak RSS':>9}"
              + (f"  {'baseline time':>13}  {'baseline RSS':>12}" if args.baseline else ""))
        for n in args.turns:
            ref, cands, out = (os.path.join(tmp, name) for name in ("ref.txt", "cands.txt", "samples.json"))
            text = dialog(n)
            with open(ref, "w") as fh:
                fh.write(text)
            bots = sorted({line.split("\t")[1] for line in text.splitlines() if "\t" in line})
            with open(cands, "w") as fh:
                fh.write("".join(f"1 {b}\n" for b in bots))
            seconds, rss = run(None, ref, cands, out)
            row = (f"{n:>9}  {len(text) / 1e6:>6.2f}MB  {os.path.getsize(out) / 1e6:>7.1f}MB  {seconds:>6.1f}s  "
                   f"{rss / 1e6:>7.0f}MB")
            if args.baseline:
                seconds, rss = run(args.baseline, ref, cands, out)
                row += f"  {seconds:>12.1f}s  {rss / 1e6:>10.0f}MB"
            print(row, flush=True)


if __name__ == "__main__":
    main()
