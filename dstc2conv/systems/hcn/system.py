"""``hcn``: Hybrid Code Networks (Williams, Asadi & Zweig 2017) over the rules. The rule
engine tracks the dialog and gives the action mask (the chooser's: the templates of
train its state can fill, and the rules' proposals); a turn's score per column is the
chooser's linear one (its weights learned first, by L-BFGS, then held) plus a GRU's over
the dialog's bot turns (``hcn.training``); the best allowed column is filled by the
rules' state. ``turn_dropout`` drops whole turns' recurrent input in training (Shalyminov
& Lee 2018)."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from ...errors import DataRefused, Dstc2ConvError
from ...limits import MB
from ...reporter import note
from ...task6.turns import BotTurn
from ..chooser.settings import Settings as ChooserSettings
from ..chooser.system import RulesDialog, check_number, training_views
from ..interface import System
from ..rules.engine import Compiled
from ..rules.ruleset import RuleSet, load_rules
from ..rules.system import checked_rules, rule_file
from . import gru
from .tracker import TRACKERS, KbTracker
from .training import Settings

MAX_BYTES = 512 * MB      # what the learned arrays (and Adam's two copies of the recurrent ones) may take
_D, _C = Settings(), ChooserSettings()
_BOUNDS = (("hidden", 1, 1024, int), ("dimension", 1, 1024, int), ("epochs", 0, 10_000, int),
           ("patience", 1, 10_000, int), ("batch", 1, 100_000, int), ("lr", 0, 10, float), ("dropout", 0, 0.95, float),
           ("turn_dropout", 0, 0.95, float), ("seed", 0, 2**63 - 1, int), ("iterations", 1, 10**6, int),
           ("l2", 0, 10**6, float), ("l2_columns", 0, 10**6, float), ("min_count", 1, 10**6, int))


def footprint(features: int, columns: int, actions: int, hidden: int, dimension: int) -> int:
    """The bytes of the learned arrays, and Adam's moments of the recurrent ones."""
    recurrent = sum(int(_prod(s)) for s in gru.sizes(features, dimension, hidden, actions + 1).values())
    return 8 * (features * (actions + 1) + columns + 3 * recurrent)


def _prod(shape) -> int:
    out = 1
    for n in shape:
        out *= n
    return out


class HCN(System):
    """Settings: ``rules`` (a rule file or a RuleSet; None: the shipped rules), ``tracker``
    ("rules": the rules' state among the features; "kb": HCN's own, the KB's values
    matched in the user's words), the recurrence's ``hidden`` and ``dimension`` (of the
    embedded bag), training's ``epochs``, ``patience``, ``batch`` (dialogs), ``lr``,
    ``dropout`` (on the recurrent input), ``turn_dropout`` and ``seed``; the linear
    chooser's ``iterations``, ``l2``, ``l2_columns``, ``min_count``."""

    name = "hcn"

    def __init__(self, rules: str | os.PathLike | RuleSet | None = None, tracker: str = "rules",
                 hidden: int = _D.hidden, dimension: int = _D.dimension, epochs: int = _D.epochs,
                 patience: int = _D.patience, batch: int = _D.batch, lr: float = _D.lr, dropout: float = _D.dropout,
                 turn_dropout: float = _D.turn_dropout, seed: int = _D.seed, iterations: int = _C.iterations,
                 l2: float = _C.l2, l2_columns: float = _C.l2_columns, min_count: int = _C.min_count):
        self.rules = checked_rules(rules)
        self.tracker, self.hidden, self.dimension, self.epochs = tracker, hidden, dimension, epochs
        self.patience, self.batch, self.lr, self.dropout = patience, batch, lr, dropout
        self.turn_dropout, self.seed, self.iterations, self.l2 = turn_dropout, seed, iterations, l2
        self.l2_columns, self.min_count = l2_columns, min_count
        if tracker not in TRACKERS:
            raise Dstc2ConvError(f"setting tracker: {tracker!r} is not one of {', '.join(TRACKERS)}")
        for name, low, high, kind in _BOUNDS:
            check_number(name, getattr(self, name), low, high, kind)
        self._check_footprint(1, 1, 1)
        self.linear_ = None
        self.weights_: dict = {}
        self.curve_: list = []
        self._dialog = None

    def training_settings(self) -> Settings:
        return Settings(self.hidden, self.dimension, self.epochs, self.patience, self.batch, self.lr, self.dropout,
                        self.turn_dropout, self.seed)

    def chooser_settings(self) -> ChooserSettings:
        return ChooserSettings(self.iterations, self.l2, self.l2_columns, self.seed, 0.0, self.min_count)

    def _check_footprint(self, features: int, columns: int, actions: int) -> None:
        need = footprint(features, columns, actions, self.hidden, self.dimension)
        if need > MAX_BYTES:
            raise DataRefused(f"hcn: {features} features, {actions} actions, hidden {self.hidden} and dimension "
                              f"{self.dimension} would take about {need // MB} MB, more than the "
                              f"{MAX_BYTES // MB} MB allowed: give a smaller hidden or dimension")

    def _compile(self) -> None:
        rules = self.rules
        self.ruleset_ = rules if isinstance(rules, RuleSet) else load_rules(rule_file(rules))
        self.compiled_ = Compiled(self.ruleset_)
        self._dialog = RulesDialog(self.compiled_)
        self._kb = KbTracker() if self.tracker == "kb" else None
        self._h = self._pending = None

    # -- learning
    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> HCN:
        from .learning import learn

        self._compile()
        note(f"hcn: the rules {self.ruleset_.path} over {len(train)} training turns, tracker {self.tracker}")
        views = self.views(train)
        dev_views = self.views(dev) if dev else None
        self.linear_, self.weights_, self.curve_ = learn(views, train, dev_views, list(dev or ()),
                                                         self.chooser_settings(), self.training_settings(),
                                                         self._check_footprint)
        self._compile()
        return self

    def views(self, turns: Sequence[BotTurn]) -> list:
        """Every turn's view with its gold, the features as the tracker gives them."""
        views = training_views(self.compiled_, turns)
        if self._kb is None:
            return views
        out, dialog = [], None
        for view, turn in zip(views, turns):
            if turn.dialog != dialog:
                self._kb.reset()
                dialog = turn.dialog
            out.append(replace(view, features=self._kb.features(view.features, turn.user)))
            self._kb.observe(turn.user)
        return out

    def fitted(self) -> bool:
        return self.linear_ is not None

    # -- answering
    def reset(self) -> None:
        import numpy as np

        if self._dialog is None:
            self._compile()
        self._dialog.reset()
        if self._kb is not None:
            self._kb.reset()
        self._h = np.zeros((1, self.weights_["Wh"].shape[0]))
        self._pending = self._h

    def preface(self, context: tuple[str, ...]) -> None:
        self._dialog.preface(context)

    def _turn(self, user: str):
        """The turn's view, its scores (-inf: masked), its extra texts, the state after it."""
        from .answering import turn_scores

        view = self._dialog.view(user)
        if self._kb is not None:
            view = replace(view, features=self._kb.features(view.features, user))
        z, extra, self._pending = turn_scores(self.linear_, self.weights_, view, self._h)
        return view, z, extra

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        from .answering import ranking

        _, z, extra = self._turn(user)
        return tuple(text for text, _ in ranking(self.linear_, z, extra, self._dialog.state,
                                                  self.compiled_.spaced, k))

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self._dialog.observe(user, gold, context)
        if self._kb is not None:
            self._kb.observe(user)
        self._h = self._pending

    def explain(self, user: str, top: int) -> list[str]:
        """The action mask (how many columns it allows, from which sources), the best
        responses with their probabilities, and the answer."""
        from .answering import explanation

        view, z, extra = self._turn(user)
        return explanation(self.linear_, view, z, extra, self._dialog.state, self.compiled_.spaced, top)

    # -- the model folder
    def state(self) -> tuple[dict, dict]:
        import numpy as np

        from ..chooser.choosing import saved

        facts, arrays = saved(self.linear_)
        facts["curve"] = [[e, None if loss != loss else round(loss, 6), None if acc is None else list(acc)]
                          for e, loss, acc in self.curve_]
        arrays.update((k, self.weights_[k].astype(np.float64)) for k in gru.NAMES)
        return facts, arrays

    def expected_arrays(self, facts: dict) -> dict:
        F, A, C = len(facts["features"]), len(facts["actions"]), len(facts["columns"])
        self._check_footprint(F, C, A)
        out = {"W": ((F, A + 1), "float64"), "u": ((C,), "float64")}
        out.update((k, (s, "float64")) for k, s in gru.sizes(F, self.dimension, self.hidden, A + 1).items())
        return out

    def restore(self, facts: dict, arrays: dict) -> None:
        from ..chooser.choosing import restored

        self._dialog = None
        self.linear_ = restored(facts, arrays)
        self.weights_ = {k: arrays[k] for k in gru.NAMES}
        self.curve_ = [(e, float("nan") if loss is None else loss, None if acc is None else tuple(acc))
                       for e, loss, acc in facts.get("curve") or []]


__all__ = ["HCN", "footprint", "MAX_BYTES"]
