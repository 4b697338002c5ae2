"""The rules with the learned chooser as a ``System`` (``rules+learned``): the rule
engine tracks the dialog and proposes, the chooser decides."""
from __future__ import annotations

import os
from collections.abc import Sequence

from ...task6.turns import BotTurn
from ..interface import System
from .settings import Settings


class RulesLearned(System):
    """``RulesLearned(rules=None, model=None, settings=Settings())``: ``rules`` a rule
    file or a loaded ``RuleSet`` (None: the shipped rules), ``model`` a chooser's model
    folder to load (else ``fit`` trains one on its train turns, with ``settings``)."""

    name = "rules+learned"

    def __init__(self, rules=None, model: str | None = None, settings: Settings = Settings()):
        from importlib import resources

        from ..rules.engine import Compiled
        from ..rules.ruleset import RuleSet, load_rules
        from .features import Viewer
        from .store import load

        if isinstance(rules, RuleSet):
            self.ruleset = rules
        else:
            self.ruleset = load_rules(os.fspath(rules) if rules is not None else
                                      str(resources.files("dstc2conv.rulefiles") / "dstc2.yaml"))
        self.compiled = Compiled(self.ruleset)
        self.settings = settings
        self.model = load(model) if model is not None else None
        self.viewer = Viewer(self.compiled)
        self._state = None
        self._view = None
        self._turn = 0

    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> RulesLearned:
        from .learned import fit

        if self.model is None:
            self.model = fit(self.ruleset, list(train), self.settings)
        return self

    def fitted(self) -> bool:
        return self.model is not None

    def reset(self) -> None:
        from ..rules.engine import State

        self._state = State()
        self._turn = 0
        self.viewer.reset()

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        from .learned import rank_view

        if self.model is None:
            raise ValueError("rules+learned: fit it, or give it a model folder, before it ranks")
        if self._state is None:
            self.reset()
        state = self._state
        mentioned = self.compiled.before_response(state, user)
        found = {}
        for rule, respond in self.compiled.responders:
            text = respond(state, user, mentioned)
            if text is not None:
                found[rule.id] = text
        self._view = self.viewer.view(state, user, mentioned, found)
        choice = rank_view(self.model, self._view, state, self.compiled.spaced, k)
        return tuple(text for text, _ in choice.ranking)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.viewer.observed(self._view, self._state, gold)
        self.compiled.observe(self._state, BotTurn(0, self._turn, 0, user, gold, tuple(context)))
        self._turn += 1


__all__ = ["RulesLearned"]
