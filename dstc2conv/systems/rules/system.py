"""The rule baseline as a system of the one interface (``systems.interface``): the engine
(``engine.py``) driven turn by turn by the package's dialog loop."""
from __future__ import annotations

import os
from collections.abc import Sequence

from ...task6.turns import BotTurn
from ..interface import System
from .engine import Compiled, State, choose
from .ruleset import RuleSet, load_rules


class Rules(System):
    """The rule baseline. Settings: ``rules``, a rule file or a loaded ``RuleSet`` (None:
    the rule file shipped with dstc2conv). It learns nothing: ``fit`` loads and compiles
    the rules, and the first dialog does it when ``fit`` was not called. At each turn the
    state takes the user utterance, then the first response rule that renders answers
    (``engine.choose``); ranked, the responses of every rule that renders, in rule order,
    each once. No rule answering: the empty response."""

    name = "rules"

    def __init__(self, rules: str | os.PathLike | RuleSet | None = None):
        self.rules = rules

    def fit(self, train: Sequence[BotTurn] = (), dev: Sequence[BotTurn] | None = None) -> Rules:
        from .cli import shipped_rules

        rules = self.rules if self.rules is not None else shipped_rules()
        self.ruleset_ = rules if isinstance(rules, RuleSet) else load_rules(os.fspath(rules))
        self.compiled_ = Compiled(self.ruleset_)
        self.reset()
        return self

    def reset(self) -> None:
        if not hasattr(self, "compiled_"):
            self.fit()
        self._state = State()
        self._turn = 0

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        """The state takes the user utterance (once a turn: the loop asks once)."""
        state = self._state
        mentioned = self.compiled_.before_response(state, user)
        responders = self.compiled_.responders
        if k == 1:
            won = choose(responders, state, user, mentioned)
            return ("" if won is None else won[1],)
        found: dict[str, str] = {}
        for _, respond in responders:
            text = respond(state, user, mentioned)
            if text is not None:
                found.setdefault(text.strip(), text)
                if len(found) == k:
                    break
        return tuple(found.values()) or ("",)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.compiled_.observe(self._state, BotTurn(0, self._turn, 0, user, gold, tuple(context)))
        self._turn += 1


__all__ = ["Rules"]
