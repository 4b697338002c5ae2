#!/usr/bin/env python3
"""How the learned chooser carries from one DSTC2 dialog system's dialogs to the other's.

    python benchmarks/transfer_chooser.py --manifest BUILD/manifest.json \\
        [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt] \\
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--epochs N] [--seed S]

The manifest of a build of the same split (see benchmarks/transfer.py) says which system
each training dialog came from (S0, the MDP system; S1, a POMDP one). The chooser is
trained on the S0 dialogs only, on the S1 dialogs only, and on both; each is scored per
response on each system's training dialogs and on the dev file (all S0), beside the plain
rules; and, per system, the ceilings: the share of turns whose gold is among the rules'
proposals, and among the responses the turn allows (the proposals and the templates of
the training dialogs). Counted right when the chosen column is the gold's: another column
with the same text would count wrong (on dev, all of train: no difference from `rules
score --chooser`).
A cell of the system a row was trained on is a training score.
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
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--manifest", help="the manifest of a build of the same split")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import numpy as np

    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.evaluate.sessions import read_sessions
    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.features import views
    from dstc2conv.systems.chooser.model import scores, train
    from dstc2conv.systems.chooser.settings import Settings
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_file

    ruleset = load_rules(args.rules)
    dialogs, turns = read_file(args.train)
    sessions = read_sessions(args.train, len(dialogs), args.manifest)
    if sessions is None:
        raise Dstc2ConvError("no manifest.json beside the file lists it: give a build's with --manifest", args.train)
    systems = [sessions.systems[t.dialog] for t in turns]
    names = sorted(set(systems))
    settings = Settings(seed=args.seed) if args.epochs is None else Settings(epochs=args.epochs, seed=args.seed)
    start = time.monotonic()
    all_views = views(Compiled(ruleset), turns)
    parts = {name: [v for v, s in zip(all_views, systems) if s == name] for name in names}
    tests = dict(parts)
    if Path(args.dev).exists():
        tests["dev"] = views(Compiled(ruleset), read_file(args.dev)[1])

    def right_share(chosen_text, vs) -> float:
        return sum(t == v.gold for t, v in zip(chosen_text, vs)) / len(vs)

    rows = [("rules", "-", [right_share([v.proposals[0].text if v.proposals else "" for v in vs], vs)
                           for vs in tests.values()])]
    ceilings = [("ceiling, proposals", "-", [sum(v.gold in {p.text for p in v.proposals} for v in vs) / len(vs)
                                             for vs in tests.values()])]
    for on in [*names, "+".join(names)]:
        train_views = all_views if "+" in on else parts[on]
        vocab = build(train_views)
        batch, _ = encode(train_views, vocab)
        W, u, _ = train(vocab.shape, batch, len(vocab.features), len(vocab.columns), settings)
        cells, ceiling = [], []
        for vs in tests.values():
            b, extras = encode(vs, vocab)
            best = scores(W, u, vocab.shape, b).argmax(axis=1)
            # the chosen column is right when it is the gold's (a column's text is the gold's only there)
            cells.append(float(np.mean(best == b.gold)))
            ceiling.append(float(np.mean(b.gold >= 0)))
        rows.append(("rules+learned", on, cells))
        ceilings.append(("ceiling, + templates", on, ceiling))
        print(f"transfer_chooser: trained on {on} ({len(train_views)} turns), {time.monotonic() - start:.0f} s",
              file=sys.stderr)
    heads = ["system", "trained on", *tests]
    table = [heads] + [[a, b] + [f"{x:.2%}" for x in cells] for a, b, cells in rows + ceilings]
    widths = [max(len(r[i]) for r in table) for i in range(len(heads))]
    for row in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return 0


if __name__ == "__main__":
    from script import run_main

    run_main(main)
