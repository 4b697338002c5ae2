#!/usr/bin/env python3
"""How rules tuned on one DSTC2 dialog system's dialogs do on the other's.

    python benchmarks/transfer.py --manifest BUILD/manifest.json \\
        [--data ../shared/reference/dialog-babi-task6-dstc2-trn.txt] \\
        [--held-out ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--budget 20]

The manifest of a build of the same split (`dstc2conv build`, see docs/building.md) tells
which system each dialog of --data came from (default: manifest.json beside --data, if
it lists the file). The published train file holds the MDP system's (S0) dialogs and a
POMDP system's (S1). For the rules (--rules, default the shipped ones) as they are, then
tuned (`rules tune`, --budget seconds each) on the S0 dialogs only, on the S1 dialogs
only, and on all of them for each objective, prints the per-response accuracy on each
system's dialogs of --data, the lower and the mean of them, and, with --held-out, on a
file none of them was tuned on (default: the published dev file, all S0, if it is there).
A file of one system gives the rows that need no other.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def main() -> int:
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.systems.rules.cli import seconds

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--data", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--manifest", help="the manifest of a build of the same split")
    dev = REFERENCE / "dialog-babi-task6-dstc2-dev.txt"
    parser.add_argument("--held-out", default=str(dev) if dev.exists() else "",
                        help="a file to score on too, tuned on by none ('' for none)")
    parser.add_argument("--budget", type=seconds, default=20.0, help="seconds for each tune (default 20; more than 0)")
    args = parser.parse_args()

    try:
        rows, names, held = _rows(args)
    except Dstc2ConvError as exc:
        print(f"transfer: error: {exc}", file=sys.stderr)
        return 2
    heads = ["rule set", "tuned on", *names, "worst", "mean"] + (["held-out"] if held else [])
    table = [heads] + [[rule_set, on] + [f"{v:.2%}" for v in values] for rule_set, on, values in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(heads))]
    for row in table:
        print("  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))))
    if held:
        print(f"held-out: {Path(args.held_out).name}")
    return 0


def _rows(args):
    from script import read_by_system

    from dstc2conv.evaluate.responses import by_system, outcomes, score
    from dstc2conv.systems.rules.engine import Compiled, predict
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.systems.rules.tune import OBJECTIVES, tune
    from dstc2conv.task6.format import read_dialogs
    from dstc2conv.task6.turns import turns_of

    ruleset = load_rules(args.rules)
    dialogs, turns, systems = read_by_system(args.data, args.manifest)
    names = sorted(set(systems))
    held = None
    if args.held_out and Path(args.held_out).resolve() != Path(args.data).resolve():
        held = turns_of(read_dialogs(args.held_out))

    def scores(rules) -> list[float]:
        compiled = Compiled(rules)
        parts = by_system(outcomes([p.text for p in predict(compiled, turns)], turns), turns, systems)
        rates = [parts[name].per_response for name in names]
        out = [*rates, min(rates), sum(rates) / len(rates)]
        if held:
            out.append(score(outcomes([p.text for p in predict(compiled, held)], held), held).per_response)
        return out

    def tuned(on, objective="overall"):
        found = tune(ruleset, on, budget_seconds=args.budget, systems=systems, objective=objective)
        if not found.converged:
            print(f"transfer: the {objective} tune stopped by the time budget after {found.rounds} rounds",
                  file=sys.stderr)
        return scores(replace(ruleset, rules=found.rules))

    start = time.monotonic()
    rows = [("as shipped", "-", scores(ruleset))]
    for name in names:
        rows.append(("tuned, overall", name, tuned([t for t in turns if systems[t.dialog] == name])))
    if len(names) > 1:
        for objective in OBJECTIVES:
            rows.append((f"tuned, {objective}", "+".join(names), tuned(turns, objective)))
    print(f"transfer: {len(rows) - 1} tunes and {len(rows)} scorings in {time.monotonic() - start:.0f} s",
          file=sys.stderr)
    return rows, names, held


if __name__ == "__main__":
    from script import run_main

    run_main(main)
