#!/usr/bin/env python3
"""How the learned chooser carries from one DSTC2 dialog system's dialogs to the other's.

    python benchmarks/transfer_chooser.py --manifest BUILD/manifest.json \\
        [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt] \\
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--iterations N] [--l2 L]

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

Three ways of keeping the chooser nearer the rules on a system it was not trained on are
scored beside it, each from the same trained chooser:
- "margin M": the chooser's answer only where it scores M or more above the rules' choice
  (in log-odds), else the rules';
- "rules' wording": the chooser decides the kind of response (offer, ask_food, ...; as
  `score` names them) and the rules say it, with their first proposal of that kind when
  they have one (api_calls are taken as the chooser chose them);
- "per-dialog pick": in each dialog, the answer of whichever of the three (the chooser,
  the rules, the rules' wording) gave the dialog's earlier gold turns the most probability
  (the rules and the rules' wording: 0.95 when right, 0.05 when wrong; the chooser first,
  then the rules, when none has the lead).
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
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--l2", type=float)
    args = parser.parse_args()

    import numpy as np
    from script import read_by_system

    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.settings import Settings
    from dstc2conv.systems.chooser.system import training_views as views
    from dstc2conv.systems.chooser.training import scores, train
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_file

    ruleset = load_rules(args.rules)
    _, turns, of_dialog = read_by_system(args.train, args.manifest)
    systems = [of_dialog[t.dialog] for t in turns]
    names = sorted(set(systems))
    given = {k: v for k, v in (("iterations", args.iterations), ("l2", args.l2)) if v is not None}
    settings = Settings(**given)
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
    dialog_of = {name: [t.dialog for t, s in zip(turns, systems) if s == name] for name in names}
    if "dev" in tests:
        dialog_of["dev"] = [t.dialog for t in read_file(args.dev)[1]]
    for on in [*names, "+".join(names)]:
        train_views = all_views if "+" in on else parts[on]
        vocab = build(train_views)
        batch, _ = encode(train_views, vocab)
        W, u, _ = train(vocab.shape, batch, len(vocab.features), len(vocab.columns), settings)
        kinds = action_kinds(train_views, vocab)
        cells, ceiling = [], []
        variants = {f"margin {m:g}": [] for m in MARGINS} | {"rules' wording": [], "per-dialog pick": []}
        for name, vs in tests.items():
            b, extras = encode(vs, vocab)
            Z = scores(W, u, vocab.shape, b)
            right = outcomes(Z, b, extras, vs, vocab, kinds)
            # the chosen column is right when it is the gold's (a column's text is the gold's only there)
            cells.append(float(np.mean(right["chooser"])))
            ceiling.append(float(np.mean(b.gold >= 0)))
            for m in MARGINS:
                keep = right["gap"] >= m
                variants[f"margin {m:g}"].append(float(np.mean(np.where(keep, right["chooser"], right["rules"]))))
            variants["rules' wording"].append(float(np.mean(right["wording"])))
            variants["per-dialog pick"].append(per_dialog_pick(right, dialog_of[name]))
        rows.append(("rules+learned", on, cells))
        rows.extend((f"  {label}", on, values) for label, values in variants.items())
        ceilings.append(("ceiling, + templates", on, ceiling))
        print(f"transfer_chooser: trained on {on} ({len(train_views)} turns), {time.monotonic() - start:.0f} s",
              file=sys.stderr)
    heads = ["system", "trained on", *tests]
    table = [heads] + [[a, b] + [f"{x:.2%}" for x in cells] for a, b, cells in rows + ceilings]
    widths = [max(len(r[i]) for r in table) for i in range(len(heads))]
    for row in table:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return 0


MARGINS = (1.0, 3.0)


def action_kinds(train_views, vocab) -> list[str]:
    """Each action's kind of response: the commonest kind of the gold turns it stands for."""
    from collections import Counter

    from dstc2conv.evaluate.response_kinds import kind_of

    seen: dict = {}
    for view in train_views:
        if view.gold_action.template:
            seen.setdefault(view.gold_action, Counter())[kind_of(view.gold)] += 1
    return [seen[a].most_common(1)[0][0] for a in vocab.actions]


def outcomes(Z, batch, extras, views, vocab, kinds) -> dict:
    """Per turn: whether the chooser, the rules and the rules' wording are right; the
    chooser's probability of the gold; how far the chooser's best is above the rules' choice."""
    import numpy as np

    from dstc2conv.evaluate.response_kinds import kind_of

    A = len(vocab.actions)
    n = len(views)
    best = Z.argmax(axis=1)
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    out = {key: np.zeros(n, dtype=bool) for key in ("chooser", "rules", "wording")}
    out["p"] = np.zeros(n)
    out["gap"] = np.full(n, np.inf)
    for t, view in enumerate(views):
        gold, col = batch.gold[t], best[t]
        out["chooser"][t] = col == gold
        out["p"][t] = P[t, gold] if gold >= 0 else 0.0
        if not view.proposals:
            out["wording"][t] = out["chooser"][t]
            continue
        first = view.proposals[0]
        out["rules"][t] = first.text == view.gold
        at = vocab.action_index.get(first.action) if first.action.template else None
        if at is None or not np.isfinite(Z[t, at]):
            at = A + extras[t].index(first.text) if first.text in extras[t] else None
        if at is not None:
            out["gap"][t] = Z[t, col] - Z[t, at]
        kind = kind_of(extras[t][col - A]) if col >= A else kinds[col]
        said = next((p for p in view.proposals if kind_of(p.text) == kind), None) if kind != "api_call" else None
        out["wording"][t] = said.text == view.gold if said is not None else out["chooser"][t]
    return out


def per_dialog_pick(right, dialogs, eps=0.05) -> float:
    """The share right when each dialog answers with whichever of the chooser, the rules and
    the rules' wording gave its earlier gold turns the most probability."""
    import numpy as np

    keys = ("chooser", "rules", "wording")
    score = np.zeros(3)
    last = None
    hits = 0
    for t, dialog in enumerate(dialogs):
        if dialog != last:
            last = dialog
            score = np.array([0.0, -1.0, -2.0])      # the chooser first, then the rules
        hits += bool(right[keys[int(np.argmax(score))]][t])
        p = [eps / 10 + (1 - eps) * right["p"][t]] + [1 - eps if right[k][t] else eps for k in keys[1:]]
        score += np.log(p)
    return hits / max(len(dialogs), 1)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
