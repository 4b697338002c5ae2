"""`dstc2conv rules learn | explain`: the chooser's commands, added to the rule
baseline's (``add_parsers``, called by the command line above both)."""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

from ...errors import Dstc2ConvError, naming
from ...reporter import reporting
from ..needs import numpy_ready
from .settings import Settings


@dataclass(frozen=True)
class LearnOptions:
    rules: str
    train: str
    dev: str | None
    out: str
    iterations: int
    l2: float
    quiet: bool


@dataclass(frozen=True)
class ExplainOptions:
    rules: str
    data: str
    chooser: str
    dialog: int
    turn: int
    top: int


def _cmd_learn(args) -> int:
    return learn(LearnOptions(args.rules, args.train, args.dev, args.out, args.iterations, args.l2, args.quiet))


def learn(o: LearnOptions) -> int:
    """Train the chooser over the rules on --train into the model folder --out; print its
    files and, with --dev, the rules' per-response accuracy there with and without it."""
    numpy_ready()
    from ...files import sha256_file
    from ...task6.turns import read_turns
    from ..folder import META, WEIGHTS, check_writable
    from ..mistakes import check_data
    from ..rules.ruleset import load_rules
    from .system import RulesLearned, dev_accuracy

    check_writable(o.out, (o.train, o.dev, o.rules))
    train, dev = read_turns(o.train), read_turns(o.dev) if o.dev else None
    check_data(o.train, o.dev, train, dev)
    ruleset = load_rules(o.rules)
    about = {"rules_sha256": ruleset.sha256, "train": os.path.basename(o.train), "train_sha256": sha256_file(o.train)}
    with reporting(notes=not o.quiet), naming(o.train):
        system = RulesLearned(_rules_setting(o.rules), iterations=o.iterations, l2=o.l2).fit(train)
        system.save(o.out, about)
        line = dev_accuracy(system, dev, f"dev {os.path.basename(o.dev)}") if o.dev else None
    print(os.path.join(o.out, WEIGHTS))
    print(os.path.join(o.out, META))
    if line:
        print(line)
    return 0


def _rules_setting(path: str) -> str | None:
    """The rules as the model folder names them: None for the shipped rules (wherever
    dstc2conv is installed), else the rule file's absolute path."""
    from ..rules.shipped import shipped_rules

    try:
        if os.path.samefile(path, shipped_rules()):
            return None
    except OSError:
        pass
    return os.path.abspath(path)


def _cmd_explain(args) -> int:
    return explain(ExplainOptions(args.rules, args.data, args.chooser, args.dialog, args.turn, args.top))


def explain(o: ExplainOptions) -> int:
    """One turn: the rules' choice and the chooser's, the proposals, the scores, the
    features that decided (``RulesLearned.explain``, at the turn of the one loop)."""
    numpy_ready()
    from ...task6.turns import read_file
    from ..interface import explain_turn
    from ..registry import load
    from ..rules.ruleset import load_rules
    from ..rules.system import over_rules

    ruleset = load_rules(o.rules)
    system = over_rules(load(o.chooser), ruleset)
    dialogs, turns = read_file(o.data)
    if not 1 <= o.dialog <= len(dialogs):
        raise Dstc2ConvError(f"--dialog {o.dialog}: the file has dialogs 1 to {len(dialogs)}", o.data)
    of_dialog = [i for i, t in enumerate(turns) if t.dialog == o.dialog - 1]
    if not 1 <= o.turn <= len(of_dialog):
        raise Dstc2ConvError(f"--turn {o.turn}: dialog {o.dialog} has bot turns 1 to {len(of_dialog)}", o.data)
    index = of_dialog[o.turn - 1]
    turn = turns[index]
    out = [f"dialog {o.dialog} turn {o.turn} (line {turn.line})", f"user     {turn.user}",
           f"gold     {turn.gold.strip()}", *explain_turn(system, turns, index, o.top)]
    print("\n".join(out))
    return 0


def _problems_one_a_line(command):
    """Run a command; print every problem of a rule file, one a line (exit code 2)."""
    from ..rules.problems import RuleFileError, print_problems

    def run(args) -> int:
        try:
            return command(args)
        except RuleFileError as exc:
            print_problems(exc)
            return 2
    return run


def _rules_parser(sub) -> argparse._SubParsersAction:
    """The actions of ``dstc2conv rules`` in the command line's ``sub``."""
    rules = sub.choices["rules"]
    return next(a for a in rules._actions if isinstance(a, argparse._SubParsersAction))


def _common(p, data: bool = True) -> None:
    from ..rules.shipped import DEFAULT_RULES, default_rules

    p.add_argument("--rules", default=default_rules(), metavar="FILE",
                   help=f"rule file (default: {DEFAULT_RULES} if it is in the current folder, "
                        "else the rules shipped with dstc2conv)")
    if data:
        p.add_argument("--data", required=True, metavar="T6FILE", help="a task-6 file")
    p.add_argument("--quiet", action="store_true", help="no progress or notes on stderr (warnings stay)")


def add_parsers(sub) -> None:
    """``rules learn`` and ``rules explain``, added to ``dstc2conv rules`` (in ``sub``, the
    command line's commands)."""
    from ...arguments import at_least

    actions, default = _rules_parser(sub), Settings()
    p = actions.add_parser("learn", help="train a chooser among the rules' proposals into a model folder")
    _common(p, data=False)
    p.add_argument("--train", required=True, metavar="T6FILE", help="the task-6 file to train on")
    p.add_argument("--dev", metavar="T6FILE", help="a task-6 file to report per-response accuracy on")
    p.add_argument("--out", required=True, metavar="DIR", help="the model folder (made if missing)")
    p.add_argument("--iterations", type=at_least(1), default=default.iterations, metavar="N",
                   help=f"L-BFGS iterations at the most (default {default.iterations})")
    p.add_argument("--l2", type=_non_negative, default=default.l2, metavar="L",
                   help=f"the actions' weights' L2 penalty (default {default.l2})")
    p.set_defaults(func=_problems_one_a_line(_cmd_learn))

    p = actions.add_parser("explain", help="one turn: the proposals, the chooser's scores, the features that decided")
    _common(p)
    p.add_argument("--chooser", required=True, metavar="DIR", help="the chooser's model folder (rules learn)")
    p.add_argument("--dialog", type=at_least(1), required=True, metavar="D", help="the dialog's number, from 1")
    p.add_argument("--turn", type=at_least(1), required=True, metavar="N",
                   help="the bot turn's number in the dialog, from 1")
    p.add_argument("--top", type=at_least(1), default=8, metavar="N", help="responses and features shown (default 8)")
    p.set_defaults(func=_problems_one_a_line(_cmd_explain))


def _number(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text}: give a finite number")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: give 0 or more")
    return value


__all__ = ["LearnOptions", "ExplainOptions", "learn", "explain", "add_parsers"]
