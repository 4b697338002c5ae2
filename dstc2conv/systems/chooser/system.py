"""The rules with the learned chooser as a ``System`` (``rules+learned``): the rule
engine tracks the dialog and proposes, the chooser decides. Predicting and training
walk the dialogs through the one loop (``interface.run``): a turn's view is made before
its gold is shown; training then takes the view with its gold (``training_views``)."""
from __future__ import annotations

import os
from collections.abc import Sequence

from ...errors import Dstc2ConvError
from ...reporter import note
from ...task6.turns import BotTurn
from ..interface import System, run
from ..rules.engine import Compiled, propose
from ..rules.ruleset import TASK6_SLOTS, RuleSet, load_rules
from ..rules.system import checked_rules, rule_file
from .settings import Settings

_DEFAULT = Settings()


class RulesDialog:
    """The rules' run over one dialog as the chooser sees it: ``view`` at a bot turn,
    before its gold; ``observe`` once the gold is shown, which gives the view with it."""

    def __init__(self, compiled: Compiled):
        from .features import Viewer

        if tuple(slot.name for slot in compiled.slots) != tuple(slot.name for slot in TASK6_SLOTS):
            raise Dstc2ConvError(f"the learned chooser (rules+learned, hcn) reads task 6's slots (food, area, price); "
                                 f"these rules have {', '.join(slot.name for slot in compiled.slots)}: use rules "
                                 "of task 6's slots, or these rules alone (the rules system)", compiled.ruleset.path)
        self.compiled, self.viewer = compiled, Viewer(compiled)
        self.reset()

    def reset(self) -> None:
        self.state, self.turn, self.seen = self.compiled.new_state(), 0, None
        self.viewer.reset()

    def preface(self, lines: tuple[str, ...]) -> None:
        """The result lines before the dialog's first exchange (bAbI tasks 3 and 4's facts)."""
        self.compiled.preface(self.state, lines)

    def view(self, user: str):
        mentioned = self.compiled.before_response(self.state, user)
        self.seen = self.viewer.view(self.state, user, mentioned, propose(self.compiled, self.state, user, mentioned))
        return self.seen

    def observe(self, user: str, gold: str, context: tuple[str, ...]):
        with_gold = self.viewer.observed(self.seen, self.state, gold)
        self.compiled.observe(self.state, BotTurn(0, self.turn, 0, user, gold, tuple(context)))
        self.turn += 1
        return with_gold


class _Viewing(System):
    """The loop's system while the chooser is trained: it answers nothing (the empty
    response), and keeps each turn's view with its gold once it is shown."""

    def __init__(self, compiled: Compiled):
        self.dialog, self.views = RulesDialog(compiled), []

    def reset(self) -> None:
        self.dialog.reset()

    def preface(self, context: tuple[str, ...]) -> None:
        self.dialog.preface(context)

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        self.dialog.view(user)
        return ("",)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self.views.append(self.dialog.observe(user, gold, context))


def training_views(compiled: Compiled, turns: Sequence[BotTurn]) -> list:
    """Every turn's view with its gold, the dialogs walked through the one loop: what the
    chooser learns from (and nothing that answers)."""
    viewing = _Viewing(compiled)
    run(viewing, turns, 1)
    return viewing.views


def check_number(name: str, value, low, high, kind: type) -> None:
    """A Dstc2ConvError unless ``value`` is a number of ``kind`` (an int is a float too)
    from ``low`` to ``high``."""
    import math

    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
        (isinstance(value, int) or kind is float and math.isfinite(value))
    if not ok or not low <= value <= high:
        raise Dstc2ConvError(f"setting {name}: {value!r} is not {'an integer' if kind is int else 'a number'} from "
                             f"{low} to {high}")


class RulesLearned(System):
    """The rule baseline's proposals, and a chooser learned on train. Settings: ``rules``
    (a rule file or a loaded ``RuleSet``; None: the shipped rules), and training's:
    ``iterations`` (L-BFGS's, at the most), ``l2`` (on the actions' weights),
    ``l2_columns`` (on the columns' own features' weights), ``hide`` (the share of
    training proposals shown as wordings never seen, drawn from ``seed``), ``min_count``
    (a turn feature is kept when train has it that many times). ``last_rule``: the first
    rule proposing its last answer (None: a template of train no rule proposed)."""

    name = "rules+learned"

    def __init__(self, rules: str | os.PathLike | RuleSet | None = None, iterations: int = _DEFAULT.iterations,
                 l2: float = _DEFAULT.l2, l2_columns: float = _DEFAULT.l2_columns, seed: int = _DEFAULT.seed,
                 hide: float = _DEFAULT.hide, min_count: int = _DEFAULT.min_count):
        self.rules = checked_rules(rules)
        self.iterations, self.l2, self.l2_columns = iterations, l2, l2_columns
        self.seed, self.hide, self.min_count = seed, hide, min_count
        for name, low, high, kind in (("iterations", 1, 10**6, int), ("l2", 0, 10**6, float),
                                      ("l2_columns", 0, 10**6, float), ("seed", 0, 2**63 - 1, int),
                                      ("hide", 0, 1, float), ("min_count", 1, 10**6, int)):
            check_number(name, getattr(self, name), low, high, kind)
        self.model_ = None
        self.last_rule = None
        self._dialog = None       # the rules compiled, at the first dialog (or in fit)

    def seeded(self) -> bool:
        """The seed draws only the proposals ``hide`` hides: with ``hide`` 0 (the default)
        training is the same whatever the seed."""
        return self.hide > 0

    def settings(self) -> Settings:
        return Settings(self.iterations, self.l2, self.l2_columns, self.seed, self.hide, self.min_count)

    def _compile(self) -> None:
        rules = self.rules
        self.ruleset_ = rules if isinstance(rules, RuleSet) else load_rules(rule_file(rules))
        self.compiled_ = Compiled(self.ruleset_)
        self._dialog = RulesDialog(self.compiled_)

    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> RulesLearned:
        from .choosing import learn

        self._compile()
        note(f"rules+learned: the rules {self.ruleset_.path} over {len(train)} training turns")
        self.model_ = learn(training_views(self.compiled_, train), self.settings())
        if dev:
            note(dev_accuracy(self, dev))
        return self

    def fitted(self) -> bool:
        return self.model_ is not None

    def reset(self) -> None:
        if self._dialog is None:
            self._compile()
        self._dialog.reset()
        self.last_rule = None

    def preface(self, context: tuple[str, ...]) -> None:
        self._dialog.preface(context)

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        from .choosing import rank_view

        view = self._dialog.view(user)
        choice = rank_view(self.model_, view, self._dialog.state, self.compiled_.spaced, k)
        self.last_rule = choice.rule
        return tuple(text for text, _ in choice.ranking)

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        self._dialog.observe(user, gold, context)

    def explain(self, user: str, top: int) -> list[str]:
        """The rules' choice and the chooser's, every rule's proposal, the best responses
        with their scores, and the features that decided between the best two."""
        from .choosing import explained

        view = self._dialog.view(user)
        found = explained(self.model_, view, self._dialog.state, self.compiled_.spaced, top)
        choice = found.choice
        out = [f"rules    {choice.rules_text or '(nothing)'}  [{choice.rules_rule or 'no rule'}]",
               f"chooser  {choice.text}  [{choice.rule or 'template'}]",
               "proposals (rule: response):"]
        out += [f"  {p.rule}: {p.text}" for p in view.proposals] or ["  (none)"]
        out.append("best responses (score, from):")
        out += [f"  {score:8.3f}  {text}  [{how}]" for text, score, how in found.columns]
        out.append("features that decided (weight for the best, for the runner-up):")
        out += [f"  {a:+8.3f} {b:+8.3f}  {name}" for name, a, b in found.reasons]
        return out

    # -- the model folder: the vocabularies and the training record as facts, W and u as arrays
    def state(self) -> tuple[dict, dict]:
        from .choosing import saved

        return saved(self.model_)

    def expected_arrays(self, facts: dict) -> dict:
        return {"W": ((len(facts["features"]), len(facts["actions"]) + 1), "float64"),
                "u": ((len(facts["columns"]),), "float64")}

    def restore(self, facts: dict, arrays: dict) -> None:
        from .choosing import restored

        self._dialog = None
        self.model_ = restored(facts, arrays)


def dev_accuracy(system: RulesLearned, dev: Sequence[BotTurn], name: str = "dev") -> str:
    """The per-response accuracy on ``dev`` of the rules alone and with the chooser, as a
    line: ``dev NAME: rules 60.71%, rules+learned 67.40% per response (4159 turns)``."""
    from ...evaluate.responses import outcomes
    from ..interface import predict
    from ..rules.system import Rules

    dev = list(dev)
    rules = outcomes(predict(Rules(system.ruleset_).fit(), dev), dev)
    learned = outcomes(predict(system, dev), dev)
    n = len(dev)
    return f"{name}: rules {sum(rules) / n:.2%}, rules+learned {sum(learned) / n:.2%} per response ({n} turns)"


__all__ = ["RulesLearned", "training_views", "dev_accuracy"]
