"""`dstc2conv rules learn | explain`, and the chooser's predictions for `rules score |
predict | report --chooser DIR`."""
from __future__ import annotations

import os

from ...errors import Dstc2ConvError
from ...files import read_bytes
from ...reporter import reporting


def need_numpy() -> None:
    """The chooser computes with numpy: say how to get it when it is missing."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise Dstc2ConvError("the learned chooser needs numpy, a dependency of dstc2conv: install it") from None


def chosen(folder: str, ruleset, turns) -> list:
    """The chooser's choice at each turn, as the rule engine's predictions: the text and
    the first rule proposing it (``learned`` for a template no rule proposed)."""
    need_numpy()
    from ..rules.engine import Compiled, Prediction
    from .learned import decide
    from .store import load

    model = load(folder)
    return [Prediction(c.text, c.rule or "learned") for c in decide(model, Compiled(ruleset), turns)]


def _cmd_learn(args) -> int:
    need_numpy()
    from ...evaluate.responses import outcomes
    from ...task6.turns import read_turns
    from ..rules.engine import Compiled, predict
    from ..rules.ruleset import load_rules
    from .learned import decide, fit
    from .settings import Settings
    from .store import check_folder, save

    name = os.path.basename(args.train).lower()
    if "tst" in name or "test" in name:
        raise Dstc2ConvError("refusing to train on what looks like a test split", args.train)
    check_folder(args.out)
    ruleset = load_rules(args.rules)
    train_turns = read_turns(args.train)
    dev_turns = read_turns(args.dev) if args.dev else None
    settings = Settings(iterations=args.iterations, l2=args.l2)
    info = {"rules_sha256": ruleset.sha256, "train": os.path.basename(args.train),
            "train_sha256": _sha(args.train)}
    with reporting(notes=not args.quiet):
        model = fit(ruleset, train_turns, settings, info=info)
    written = save(model, args.out)
    for path in written:
        print(path)
    if dev_turns is not None:
        compiled = Compiled(ruleset)
        rules = outcomes([p.text for p in predict(compiled, dev_turns)], dev_turns)
        learned = outcomes([c.text for c in decide(model, Compiled(ruleset), dev_turns)], dev_turns)
        n = len(dev_turns)
        print(f"dev {os.path.basename(args.dev)}: rules {sum(rules) / n:.2%}, rules+learned {sum(learned) / n:.2%} "
              f"per response ({n} turns)")
    return 0


def _sha(path: str) -> str:
    import hashlib

    return hashlib.sha256(read_bytes(path, "a task-6 file")).hexdigest()


def _cmd_explain(args) -> int:
    need_numpy()
    from ...task6.turns import read_file
    from ..rules.engine import Compiled
    from ..rules.ruleset import load_rules
    from .learned import explain
    from .store import load

    ruleset = load_rules(args.rules)
    model = load(args.chooser)
    dialogs, turns = read_file(args.data)
    if not 1 <= args.dialog <= len(dialogs):
        raise Dstc2ConvError(f"--dialog {args.dialog}: the file has dialogs 1 to {len(dialogs)}", args.data)
    of_dialog = [i for i, t in enumerate(turns) if t.dialog == args.dialog - 1]
    if not 1 <= args.turn <= len(of_dialog):
        raise Dstc2ConvError(f"--turn {args.turn}: dialog {args.dialog} has bot turns 1 to {len(of_dialog)}",
                             args.data)
    index = of_dialog[args.turn - 1]
    turn = turns[index]
    found = explain(model, Compiled(ruleset), turns, index, args.top)
    out = [f"dialog {args.dialog} turn {args.turn} (line {turn.line})",
           f"user     {turn.user}",
           f"gold     {turn.gold.strip()}",
           f"rules    {found.choice.rules_text or '(nothing)'}  [{found.choice.rules_rule or 'no rule'}]",
           f"chooser  {found.choice.text}  [{found.choice.rule or 'template'}]",
           "proposals (rule: response):"]
    out += [f"  {p.rule}: {p.text}" for p in found.view.proposals] or ["  (none)"]
    out.append("best responses (score, from):")
    out += [f"  {score:8.3f}  {text}  [{how}]" for text, score, how in found.columns]
    out.append("features that decided (weight for the best, for the runner-up):")
    out += [f"  {a:+8.3f} {b:+8.3f}  {name}" for name, a, b in found.reasons]
    print("\n".join(out))
    return 0


def add_parsers(rules_sub, common, reporting_errors) -> None:
    """``rules learn`` and ``rules explain``."""
    from ...arguments import at_least
    from .settings import Settings

    default = Settings()
    p = rules_sub.add_parser("learn", help="train a chooser among the rules' proposals into a model folder")
    common(p, data_required=None)
    p.add_argument("--train", required=True, metavar="T6FILE", help="the task-6 file to train on")
    p.add_argument("--dev", metavar="T6FILE", help="a task-6 file to report per-response accuracy on")
    p.add_argument("--out", required=True, metavar="DIR", help="the model folder (made if missing)")
    p.add_argument("--iterations", type=at_least(1), default=default.iterations, metavar="N",
                   help=f"L-BFGS iterations at the most (default {default.iterations})")
    p.add_argument("--l2", type=_non_negative, default=default.l2, metavar="L",
                   help=f"the actions' weights' L2 penalty (default {default.l2})")
    p.set_defaults(func=reporting_errors(_cmd_learn))

    p = rules_sub.add_parser("explain", help="one turn: the proposals, the chooser's scores, the features that decided")
    common(p)
    p.add_argument("--chooser", required=True, metavar="DIR", help="the chooser's model folder (rules learn)")
    p.add_argument("--dialog", type=at_least(1), required=True, metavar="D", help="the dialog's number, from 1")
    p.add_argument("--turn", type=at_least(1), required=True, metavar="N",
                   help="the bot turn's number in the dialog, from 1")
    p.add_argument("--top", type=at_least(1), default=8, metavar="N", help="responses and features shown (default 8)")
    p.set_defaults(func=reporting_errors(_cmd_explain))


def _number(text: str) -> float:
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text}: give a finite number")
    return value


def _non_negative(text: str) -> float:
    import argparse

    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: give 0 or more")
    return value


__all__ = ["chosen", "add_parsers"]
