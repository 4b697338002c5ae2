#!/usr/bin/env python3
"""How hcn carries from one DSTC2 dialog system's dialogs to the other's: the stand-in
for a held-out test set made by a dialog manager the training dialogs do not have.

    python benchmarks/transfer_hcn.py --manifest BUILD/manifest.json \\
        [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt] \\
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--epochs N] [--set KEY=VALUE ...]

The manifest of a build of the same split (see benchmarks/transfer.py) says which system
each training dialog came from (S0, the MDP system; S1, a POMDP one). hcn is trained on
the S0 dialogs only and on the S1 dialogs only, for ``--epochs`` epochs (default: hcn's
own setting; no early stopping: the dev file is all S0, so choosing on it would favour
the S0-trained model), and scored per response and per dialog, through the dialog loop,
on each system's training dialogs and on the dev file; beside it the same model with its
recurrent outputs set to zero, which is the linear chooser it was built on
(``rules+learned`` with the same settings), and the plain rules. A cell of the system a
row was trained on is a training score.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--manifest", help="the manifest of a build of the same split")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="an hcn setting (JSON value)")
    args = parser.parse_args()

    import json

    from script import read_by_system

    from dstc2conv.systems.hcn.system import HCN
    from dstc2conv.systems.rules.system import Rules
    from dstc2conv.task6.turns import read_file

    _, turns, of_dialog = read_by_system(args.train, args.manifest)
    names = sorted(set(of_dialog))
    parts = {name: [t for t in turns if of_dialog[t.dialog] == name] for name in names}
    tests = dict(parts)
    if Path(args.dev).exists():
        tests["dev"] = read_file(args.dev)[1]
    settings = dict((k, json.loads(v)) for k, _, v in (s.partition("=") for s in args.set))
    if args.epochs is not None:
        settings["epochs"] = args.epochs
    rows = [("rules", "-", [figures(Rules().fit(), vs) for vs in tests.values()])]
    start = time.monotonic()
    for on in names:
        hcn = HCN(**settings).fit(parts[on])
        rows.append(("hcn", on, [figures(hcn, vs) for vs in tests.values()]))
        hcn.weights_ = dict(hcn.weights_, V=0 * hcn.weights_["V"])
        rows.append(("  recurrence off", on, [figures(hcn, vs) for vs in tests.values()]))
        print(f"transfer_hcn: trained on {on} ({len(parts[on])} turns), {time.monotonic() - start:.0f} s",
              file=sys.stderr)
    heads = ["system", "trained on", *(f"{name} turn / dialog" for name in tests)]
    table = [heads] + [[a, b] + [f"{r:.2%} / {d:.2%}" for r, d in cells] for a, b, cells in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(heads))]
    for row in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return 0


def figures(system, turns) -> tuple[float, float]:
    """(per response, per dialog) accuracy of ``system`` on ``turns``, through the loop."""
    from dstc2conv.systems.interface import predict

    answers = predict(system, turns)
    right: dict = {}
    for answer, turn in zip(answers, turns):
        right[turn.dialog] = right.get(turn.dialog, True) and answer.strip() == turn.gold.strip()
    per_turn = sum(a.strip() == t.gold.strip() for a, t in zip(answers, turns)) / max(len(turns), 1)
    return per_turn, sum(right.values()) / max(len(right), 1)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
