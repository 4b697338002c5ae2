"""The rule baseline as a system of the one interface (``systems.interface``): the engine
(``engine.py``) driven turn by turn by the one dialog loop (``interface.run``); and the
answers of a system over the rules with the rule behind each (``answers``)."""
from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from ...errors import Dstc2ConvError
from ...task6.turns import BotTurn
from ..interface import System, clone, run
from .engine import Compiled, Prediction, choose, propose
from .ruleset import RuleSet, load_rules
from .shipped import shipped_for, shipped_rules


def rule_file(rules, turns: Sequence[BotTurn] = ()) -> str:
    """The path of the rule file ``rules`` names (None: the shipped one for ``turns``,
    ``shipped.shipped_for``); a Dstc2ConvError where it names something other than a
    regular file (a pipe would hold the system until something writes to it)."""
    path = (shipped_for(None, turns, installed=True)[0] if turns else shipped_rules()) if rules is None \
        else os.fspath(rules)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return path          # load_rules says what is wrong
    if not stat.S_ISREG(mode):
        raise Dstc2ConvError("a rule file is a regular file, and this is not one", path)
    return path


def checked_rules(rules):
    """The setting ``rules`` as given: a rule file's path, a loaded RuleSet or None (the
    shipped rules); a Dstc2ConvError for anything else."""
    if rules is not None and not isinstance(rules, (str, os.PathLike, RuleSet)):
        raise Dstc2ConvError(f"setting rules: give a rule file's path or a RuleSet, not a {type(rules).__name__}")
    return rules


class Rules(System):
    """The rule baseline. Settings: ``rules``, a rule file or a loaded ``RuleSet`` (None:
    a rule file shipped with dstc2conv, chosen at ``fit`` for the training turns: bAbI
    tasks 1-5's for theirs, ``shipped.shipped_for``, else task 6's). It learns nothing:
    ``fit`` loads and compiles the rules, and the first dialog does it when ``fit`` was not called. At each turn the
    state takes the user utterance, then the first response rule that renders answers
    (``engine.choose``); ranked, the responses of every rule that renders, in rule order,
    each once. No rule answering: the empty response. ``last_rule``: the id of the rule
    behind its last answer (None: no rule answered)."""

    name = "rules"

    def __init__(self, rules: str | os.PathLike | RuleSet | None = None):
        self.rules = checked_rules(rules)

    def fit(self, train: Sequence[BotTurn] = (), dev: Sequence[BotTurn] | None = None) -> Rules:
        rules = self.rules
        self.ruleset_ = rules if isinstance(rules, RuleSet) else load_rules(rule_file(rules, train))
        self.compiled_ = Compiled(self.ruleset_)
        self.reset()
        return self

    def reset(self) -> None:
        if not hasattr(self, "compiled_"):
            self.fit()
        self._state = self.compiled_.new_state()
        self._turn = 0
        self.last_rule = None

    def preface(self, context: tuple[str, ...]) -> None:
        self.compiled_.preface(self._state, context)

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        """The state takes the user utterance (once a turn: the loop asks once)."""
        state = self._state
        mentioned = self.compiled_.before_response(state, user)
        if k == 1:
            won = choose(self.compiled_.responders, state, user, mentioned)
            self.last_rule = None if won is None else won[0].id
            return ("" if won is None else won[1],)
        found: dict[str, str] = {}
        self.last_rule = None
        for rule, text in propose(self.compiled_, state, user, mentioned).items():
            if not found:
                self.last_rule = rule
            found.setdefault(text.strip(), text)
            if len(found) == k:
                break
        return tuple(found.values()) or ("",)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.compiled_.observe(self._state, BotTurn(0, self._turn, 0, user, gold, tuple(context)))
        self._turn += 1


class _Noting(System):
    """A system over the rules as the loop drives it, noting after each answer the rule
    behind it (the system's ``last_rule``)."""

    def __init__(self, system: System):
        self.system = system
        self.rules: list[str | None] = []

    def fitted(self) -> bool:
        return self.system.fitted()

    def label(self) -> str:
        return self.system.label()

    def reset(self) -> None:
        self.system.reset()

    def preface(self, context: tuple[str, ...]) -> None:
        self.system.preface(context)

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        ranking = self.system.rank(user, k)
        self.rules.append(self.system.last_rule)
        return ranking

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.system.observe(user, gold, context)


def answers(system: System, turns: Sequence[BotTurn]) -> list[Prediction]:
    """Every turn's answer by ``system`` (the rules, or a system over them that keeps
    ``last_rule`` likewise), through the one dialog loop, with the rule behind it."""
    noting = _Noting(system)
    texts = [ranking[0] for ranking in run(noting, turns, 1)]
    return [Prediction(text, rule) for text, rule in zip(texts, noting.rules)]


def over_rules(system: System, ruleset: RuleSet) -> System:
    """A fitted system over the rules (its setting ``rules``), built again over
    ``ruleset`` with what it learned: its settings but the rules, then ``restore`` of its
    ``state``."""
    again = clone(system, rules=ruleset)
    again.restore(*system.state())
    return again


__all__ = ["Rules", "answers", "over_rules"]
