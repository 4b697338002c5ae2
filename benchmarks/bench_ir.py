#!/usr/bin/env python3
"""Speed of TF-IDF Match (`dstc2conv ir tfidf`), side by side with the pure-Python
implementation it replaced and with the JSON floor, in the same run.

    python benchmarks/bench_ir.py [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt]
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--data FILE]
        [--floor ../shared/dstc2/dstc2_traindev.tar.gz] [--repeat 3] [--input conversation]

The data (--data, else a test-size file: the first 1117 dialogs of --train, as many as
the held-out test file has) is ranked against the paper's kind of candidate set: every
distinct bot utterance of --train and --dev, written as a candidates file. Prints the
JSON floor (`../shared/tools/json_floor.py` on the train/dev tarball) and the whole `ir
tfidf` command (interpreter start-up included, its modules compiled beforehand), each
the best of --repeat runs taken alternately; then the fit and the predictions in-process;
then the old implementation (tests/ir_oracle.py) on the same input, once, and whether
its predictions are the command's, line for line.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "reference"
TEST_DIALOGS = 1117


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--data", help=f"the file to rank (default: the first {TEST_DIALOGS} dialogs of --train)")
    parser.add_argument("--floor", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--input", choices=("last", "conversation"), default="conversation")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT / "tests"))
    import ir_oracle

    from dstc2conv.files import read_lines
    from dstc2conv.systems.interface import predict
    from dstc2conv.systems.ir.tfidf import TfIdfMatch
    from dstc2conv.task6 import format as task6
    from dstc2conv.task6.candidates import distinct
    from dstc2conv.task6.turns import read_turns, turns_of

    train = read_turns(args.train)
    candidates = distinct(t.gold for t in (*train, *read_turns(args.dev)))
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        if args.data is None:
            dialogs = task6.read(args.train)[:TEST_DIALOGS]
            data = folder / "data.txt"
            data.write_text(task6.serialize(dialogs), encoding="utf-8")
            described = f"the first {len(dialogs)} dialogs of {Path(args.train).name}"
        else:
            data, described = Path(args.data), args.data
        turns = turns_of(task6.read(data))
        cands = folder / "candidates.txt"
        cands.write_text("".join(f"1 {c}\n" for c in candidates), encoding="utf-8")
        print(f"data           {described}: {len(turns)} bot turns")
        print(f"candidates     {len(candidates)} (the distinct bot utterances of --train and --dev)")

        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        preds = folder / "preds.txt"
        command = [sys.executable, "-m", "dstc2conv", "ir", "tfidf", "--train", args.train, "--data", str(data),
                   "--candidates", str(cands), "--input", args.input, "--out", str(preds), "--quiet"]
        floor = [sys.executable, str(SHARED / "tools" / "json_floor.py"), args.floor]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)     # compiles the modules
        walls, floors = [], []
        for _ in range(args.repeat):
            found = re.search(r"seconds=([\d.]+)", subprocess.run(floor, check=True, capture_output=True,
                                                                   text=True).stdout)
            floors.append(float(found.group(1)))
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
            walls.append(time.perf_counter() - start)
        print(f"json floor     {min(floors):.2f} s (best of {args.repeat}: json_floor.py on {Path(args.floor).name})")
        print(f"ir tfidf       {min(walls):.2f} s wall (best of {args.repeat}, whole command, input {args.input}); "
              f"{min(walls) / min(floors):.2f} x the json floor")

        start = time.perf_counter()
        system = TfIdfMatch(candidates, args.input).fit(train)
        fitted = time.perf_counter()
        new = predict(system, turns)
        done = time.perf_counter()
        print(f"  in-process   fit {fitted - start:.2f} s, predict {done - fitted:.2f} s "
              f"({len(turns) / (done - fitted):,.0f} turns/s)")
        start = time.perf_counter()
        old = ir_oracle.rank(candidates, turns, args.input)
        seconds = time.perf_counter() - start
        print(f"old (dicts)    {seconds:.2f} s in-process, predictions only; {seconds / min(walls):.1f} x the command")
        written = list(read_lines(str(preds), "predictions"))
        same = written == [p.replace("\n", " ") for p in old] and new == old
        print(f"predictions    {'the same' if same else 'DIFFERENT'} ({len(old)} turns, old and new)")
        return 0 if same else 1


if __name__ == "__main__":
    from script import run_main

    run_main(main)
