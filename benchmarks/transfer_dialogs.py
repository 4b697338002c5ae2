#!/usr/bin/env python3
"""Per dialog: which dialogs the rules finish (every bot turn right) that the learned
chooser breaks, on a DSTC2 dialog system it was not trained on, and where and why.

    python benchmarks/transfer_dialogs.py --manifest BUILD/manifest.json \\
        [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt] \\
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--both] \\
        [--setting NAME=VALUE ...]

The manifest of a build of the same split (see benchmarks/transfer.py) says which system
each training dialog came from (S0, the MDP system, whose dialogs also make the dev file;
S1, a POMDP one). The chooser is trained on one system's dialogs and scored on the
other's, both ways, and on the dev file; with --both, also trained on both and scored on
dev. For each, per response and per dialog: the dialogs finished by the rules only, by
the chooser only, by both, by neither; then, in the dialogs the rules finish and the
chooser breaks, the bot turn of the first wrong answer, every wrong turn grouped by
(the rules' kind of response -> the chooser's; as `score` names them), and the first
wrong turn against what the training system says in the same state (the rules' first
rule, the previous bot turn's template, the slots, whether the user was silent, the
results): mostly as the chooser answered (a policy or wording of the training system
the other lacks), mostly as the gold, as often each, or never in that state. First, per
system, how often the rules' choice is right by its record in the dialog so far (the
chooser's features `missed:N`).
`--setting hide=0.3` (any field of the chooser's Settings) trains with other settings.
Counted right when the chosen column is the gold's, as in benchmarks/transfer_chooser.py.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"
SHOWN = 8       # the (rules' kind -> chooser's kind) pairs shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--manifest", help="the manifest of a build of the same split")
    parser.add_argument("--both", action="store_true", help="also train on both systems and score on dev")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a training setting of the chooser (iterations, l2, hide, ...)")
    args = parser.parse_args()

    from script import read_by_system

    from dstc2conv.systems.chooser.system import training_views as views
    from dstc2conv.systems.rules.engine import Compiled
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_file

    settings = _settings(args.setting)
    ruleset = load_rules(args.rules)
    _, turns, of_dialog = read_by_system(args.train, args.manifest)
    systems = [of_dialog[t.dialog] for t in turns]
    names = sorted(set(systems))
    every = views(Compiled(ruleset), turns)
    parts = {name: ([v for v, s in zip(every, systems) if s == name],
                    [t.dialog for t, s in zip(turns, systems) if s == name]) for name in names}
    if Path(args.dev).exists():
        dev_turns = read_file(args.dev)[1]
        parts["dev"] = (views(Compiled(ruleset), dev_turns), [t.dialog for t in dev_turns])
    plan = [(on, [n for n in parts if n != on]) for on in names]
    if args.both and "dev" in parts:
        parts["+".join(names)] = (every, [t.dialog for t in turns])
        plan.append(("+".join(names), ["dev"]))
    for name in names:
        print(f"{name}: the rules' choice right after 0, 1, 2 or more of the dialog's bot turns it got wrong: "
              + ", ".join(record(parts[name][0])))
    start = time.monotonic()
    for on, tests in plan:
        model = _trained(parts[on][0], settings)
        print(f"transfer_dialogs: trained on {on}, {time.monotonic() - start:.0f} s", file=sys.stderr)
        for name in tests:
            for line in study(model, parts[on][0], *parts[name]):
                print(line.replace("{on}", on).replace("{name}", name))
    return 0


def _settings(given: list[str]):
    from dataclasses import fields

    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.systems.chooser.settings import Settings

    types = {f.name: f.type for f in fields(Settings)}
    out = {}
    for item in given:
        name, _, value = item.partition("=")
        if name not in types or not value:
            raise Dstc2ConvError(f"--setting {item!r}: not NAME=VALUE of one of {', '.join(types)}")
        out[name] = int(value) if types[name] in ("int", int) else float(value)
    return Settings(**out)


def _trained(train_views, settings):
    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.training import train

    vocab = build(train_views, settings.min_count)
    batch, _ = encode(train_views, vocab, settings.hide, settings.seed)
    W, u, _ = train(vocab.shape, batch, len(vocab.features), len(vocab.columns), settings)
    return vocab, W, u


def chosen(model, vs, train_views):
    """Per turn: the chooser right, the rules right, the rules' kind, the chooser's kind,
    and what the chooser said (its action's key, or the text of a proposal no action holds)."""
    import numpy as np
    from transfer_chooser import action_kinds

    from dstc2conv.evaluate.response_kinds import kind_of
    from dstc2conv.systems.chooser.encode import encode
    from dstc2conv.systems.chooser.training import scores

    vocab, W, u = model
    A = len(vocab.actions)
    kinds = action_kinds(train_views, vocab)
    batch, extras = encode(vs, vocab)
    best = scores(W, u, vocab.shape, batch).argmax(axis=1)
    chooser = best == batch.gold
    rules = np.array([(v.proposals[0].text if v.proposals else "") == v.gold for v in vs])
    rules_kind = [kind_of(v.proposals[0].text) if v.proposals else "(none)" for v in vs]
    chooser_kind = [kind_of(extras[t][c - A]) if c >= A else kinds[c] for t, c in enumerate(best)]
    said = [extras[t][c - A] if c >= A else vocab.actions[c].key for t, c in enumerate(best)]
    return chooser, rules, rules_kind, chooser_kind, said


def what(view) -> str:
    """What a gold bot turn says: its action's key, or its text when no template gives it back."""
    return view.gold_action.key if view.gold_action.template else view.gold


def record(vs) -> list[str]:
    """The share of turns the rules' choice is right at, by the rules' record in the dialog so far."""
    right, seen = Counter(), Counter()
    for view in vs:
        seen[view.missed] += 1
        right[view.missed] += (view.proposals[0].text if view.proposals else "") == view.gold
    return [f"{right[m] / seen[m]:.0%} of {seen[m]}" for m in sorted(seen)]


def state_of(view) -> tuple:
    """The coarse state a view is in: the rules' first rule, the previous bot turn's
    template, the slots, the silence and the results."""
    keep = ("top:", "prev:", "slot:", "said:", "silent", "results:", "remaining:")
    return tuple(f for f in view.features if f.startswith(keep))


def study(model, train_views, vs, dialogs) -> list[str]:
    """The lines of one (trained on, scored on) pair."""
    chooser, rules, rules_kind, chooser_kind, says = chosen(model, vs, train_views)
    per: dict = {}
    for t, dialog in enumerate(dialogs):
        per.setdefault(dialog, []).append(t)
    count, first, pairs, against = Counter(), Counter(), Counter(), Counter()
    said: dict = {}
    for view in train_views:
        said.setdefault(state_of(view), Counter())[what(view)] += 1
    for turns in per.values():
        count[bool(rules[turns].all()), bool(chooser[turns].all())] += 1
        if not rules[turns].all() or chooser[turns].all():
            continue
        wrong = [t for t in turns if not chooser[t]]
        first[turns.index(wrong[0]) + 1] += 1
        pairs.update((rules_kind[t], chooser_kind[t]) for t in wrong)
        there = said.get(state_of(vs[wrong[0]]), Counter())
        a, b = there[says[wrong[0]]], there[what(vs[wrong[0]])]
        against["never in that state" if not there else "as the chooser" if a > b else "as the gold" if b > a
                else "as often each"] += 1
    n = len(per)
    out = [f"trained on {{on}}, scored on {{name}} ({len(vs)} turns, {n} dialogs): per response rules "
           f"{rules.mean():.2%}, rules+learned {chooser.mean():.2%}; per dialog rules "
           f"{count[True, True] + count[True, False]}, rules+learned {count[True, True] + count[False, True]}",
           f"  dialogs finished by the rules only {count[True, False]}, the chooser only {count[False, True]}, "
           f"both {count[True, True]}, neither {count[False, False]}"]
    if first:
        out.append("  the first wrong bot turn of those the rules finish: " +
                   ", ".join(f"turn {k}: {v}" for k, v in sorted(first.items())))
        out.append("  there, the training system in the same state answers: " +
                   ", ".join(f"{k} {v}" for k, v in against.most_common()))
        out.append("  their wrong turns, rules' kind -> chooser's: " +
                   ", ".join(f"{a} -> {b} {v}" for (a, b), v in pairs.most_common(SHOWN)))
    return out


if __name__ == "__main__":
    from script import run_main

    run_main(main)
