"""``check_system``: whether a system keeps the contract of ``systems.interface``, as
scikit-learn's ``check_estimator`` says it of an estimator. Each property is checked on
small task-6 files (by default a few dialogs written here), on copies of the system, and
the first that fails raises one ``SystemCheckFailed`` naming it:

- settings: constructor keywords, kept as attributes of those names (``get_params``),
  the same in a copy (``clone``), the same after ``fit``;
- fit: it returns the system; it takes a path, the dialogs or the bot turns alike;
- fitted: a system that says it is not fitted is refused by ``run``; one that says it is
  fitted answers; after ``fit`` it is fitted, and a copy of it is not;
- rank: at least one response and at most ``k``, each a non-empty string;
- the gold: a turn's answers do not change when the gold and the result lines of that
  turn and of every later turn are changed (the system answers before it is shown them);
- explain (where the system explains): lines of text;
- save and load: the model folder loads (``systems.registry.load``) as a system that
  answers the same;
- determinism: two fits with the same settings (and seed) answer the same, and save the
  same bytes.
"""
from __future__ import annotations

import contextlib
import inspect
import os
import tempfile
from collections.abc import Sequence
from dataclasses import replace

from ..errors import Dstc2ConvError
from ..task6.candidates import distinct
from ..task6.format import Context, Dialog, Exchange, read, serialize
from ..task6.turns import BotTurn, turns_of
from .interface import System, as_turns, clone, explain_turn, run

K = 3        # the rankings' length asked for

GREETING = ("Hello , welcome to the Cambridge restaurant system . You can ask for restaurants by area , "
            "price range or food type . How may I help you ?")
PLACES = (("pasta_palace", "italian", "north", "cheap"), ("golden_dragon", "chinese", "centre", "expensive"),
          ("bistro_nova", "modern_european", "south", "moderate"), ("curry_house", "indian", "east", "cheap"),
          ("thai_garden", "thai", "west", "moderate"), ("la_mimosa", "mediterranean", "centre", "expensive"))


class SystemCheckFailed(Dstc2ConvError):
    """A system that does not keep the contract: ``property`` names what it broke."""

    def __init__(self, label: str, property: str, detail: str):
        super().__init__(f"{label} does not keep the contract: {property}: {detail}")
        self.property = property
        self.detail = detail


# ---------------------------------------------------------------- the tiny files

def _facts(name: str, food: str, area: str, price: str) -> list[Context]:
    return [Context(f"{name} R_{attr} {value}") for attr, value in (
        ("post_code", f"{name}_post_code"), ("cuisine", food), ("location", area), ("phone", f"{name}_phone"),
        ("address", f"{name}_address"), ("price", price), ("rating", "7"))]


def tiny_dialog(n: int) -> Dialog:
    """The ``n``-th of the small dialogs ``check_system`` trains and tests on: a greeting,
    a request (at once, or slot by slot), the api_call and its results (or none), an offer,
    a question about the restaurant, the goodbye."""
    name, food, area, price = PLACES[(n + n // len(PLACES)) % len(PLACES)]    # no two of the 14 a check writes alike
    lines: list = [Exchange("<SILENCE>", GREETING)]
    if n % 3 == 0:
        lines.append(Exchange(f"i want a {price} restaurant in the {area} serving {food} food",
                              f"api_call {food} {area} {price}"))
    else:
        lines += [Exchange("<SILENCE>", "What kind of food would you like?"),
                  Exchange(f"{food} food in the {area}",
                           "Would you like something in the cheap , moderate , or expensive price range?"),
                  Exchange(price, f"api_call {food} {area} {price}")]
    if n % 4 == 3:
        lines += [Context("api_call no result"), Exchange(
            "<SILENCE>", f"Sorry there is no {food} restaurant in the {price} price range")]
    else:
        lines += [*_facts(name, food, area, price), Exchange(
            "<SILENCE>", f"{name} is a nice restaurant in the {area} of town serving {food} food")]
        lines.append(Exchange("whats the phone number", f"The phone number of {name} is {name}_phone")
                     if n % 2 else Exchange("what is the address", f"Sure , {name} is on {name}_address"))
    lines.append(Exchange("thank you good bye", "you are welcome"))
    return Dialog(tuple(lines))


def tiny_dialogs(start: int, count: int) -> list[Dialog]:
    return [tiny_dialog(n) for n in range(start, start + count)]


def _dialogs_of(turns: Sequence[BotTurn]) -> list[Dialog]:
    """Dialogs that have these bot turns."""
    out: dict[int, list] = {}
    for t in turns:
        out.setdefault(t.dialog, []).extend([Exchange(t.user, t.gold), *(Context(c) for c in t.context)])
    return [Dialog(tuple(lines)) for lines in out.values()]


def _as_dialogs(data, what: str) -> list[Dialog]:
    if isinstance(data, (str, os.PathLike)):
        return read(data)
    items = list(data)
    return items if items and isinstance(items[0], Dialog) else _dialogs_of(as_turns(items, what))


class _Data:
    """The train, dev and test files of a check, each as a path, dialogs and bot turns
    (dev may be None)."""

    def __init__(self, folder: str, train, dev, test):
        if train is None:
            train, dev, test = tiny_dialogs(0, 8), tiny_dialogs(8, 3) if dev is None else dev, \
                tiny_dialogs(11, 3) if test is None else test
        elif test is None:
            test = dev if dev is not None else train
        self.paths, self.dialogs, self.turns = {}, {}, {}
        for what, data in (("train", train), ("dev", dev), ("test", test)):
            if data is None:
                self.paths[what] = self.dialogs[what] = self.turns[what] = None
                continue
            path = os.path.join(folder, f"{what}.txt")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(serialize(_as_dialogs(data, what)))
            self.paths[what] = path
            self.dialogs[what] = read(path)
            self.turns[what] = turns_of(self.dialogs[what])
            if not self.turns[what]:
                raise Dstc2ConvError(f"check_system: the {what} data has no bot turns")

    def candidates(self) -> tuple[str, ...]:
        """Every distinct bot utterance of the three, as ``table2`` gives a system by name."""
        return distinct(t.gold for what in ("train", "dev", "test") for t in self.turns[what] or ())


# ---------------------------------------------------------------- the check

def check_system(system: System | str, train=None, dev=None, test=None, k: int = K) -> None:
    """Check that ``system`` keeps the contract of ``dstc2conv.System`` (see the module);
    raise ``SystemCheckFailed`` (a ``Dstc2ConvError``) naming the first property it
    breaks. ``system``: an instance (copies of it are fitted; it is left as it is), or a
    name (the registry's, a plugin's, ``module:Class``) built as ``table2`` builds it.
    ``train``, ``dev``, ``test``: task-6 files, dialogs or bot turns (default: a few
    small dialogs written for the check; ``test`` defaults to ``dev``). Every turn of
    ``test`` is run once per turn for the gold check: keep it small."""
    with tempfile.TemporaryDirectory(prefix="dstc2conv-check-") as folder:
        data = _Data(folder, train, dev, test)
        if isinstance(system, str):
            from . import registry

            system = registry.build(system, data.candidates())
        elif not isinstance(system, System):
            raise TypeError(f"check_system: give a dstc2conv System or a system's name, not a {type(system).__name__}")
        _Checks(system, data, folder, k).run_all()


class _Checks:
    def __init__(self, system: System, data: _Data, folder: str, k: int):
        self.given, self.data, self.folder, self.k = system, data, folder, k
        self.label = system.label()

    def fail(self, property: str, detail: str) -> SystemCheckFailed:
        return SystemCheckFailed(self.label, property, detail)

    @contextlib.contextmanager
    def failing(self, property: str, doing: str):
        """An exception of the system's while ``doing`` is a failure of ``property``."""
        try:
            yield
        except SystemCheckFailed:
            raise
        except Exception as exc:   # whatever the system raised is the failure reported
            raise self.fail(property, f"{doing} raised {type(exc).__name__}: {exc}") from exc

    def run_all(self) -> None:
        params = self.settings()
        self.fresh = self.copy()
        self.before_fit()
        fitted = self.fit(params)
        answers = self.rankings(fitted)
        self.same_answers(self.fit_with("turns"), answers, "determinism",
                          "two fits with the same settings (and seed) answer differently")
        for form in ("path", "dialogs"):
            self.same_answers(self.fit_with(form), answers, "fit accepts a path, dialogs or turns",
                              f"fitted on the {form if form == 'dialogs' else 'file'}, it answers otherwise than "
                              "fitted on the bot turns")
        self.gold(fitted, answers)
        self.explains(fitted)
        self.saved(fitted, answers)

    # -- settings
    def settings(self) -> dict:
        cls = type(self.given)
        takes = () if cls.__init__ is object.__init__ else inspect.signature(cls.__init__).parameters.values()
        for p in takes:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise self.fail("settings", f"the constructor takes {'*' if p.kind == p.VAR_POSITIONAL else '**'}"
                                f"{p.name}: name each setting as a keyword of its own, kept as an attribute of that "
                                "name, so that get_params lists it and clone copies it")
        try:
            params = self.given.get_params()
        except TypeError as exc:
            raise self.fail("settings", str(exc)) from None
        with self.failing("settings", "clone (the constructor given get_params())"):
            copy = clone(self.given)
        if not _equal(copy.get_params(), params):
            raise self.fail("settings", f"a copy (clone) has other settings: {_differ(params, copy.get_params())}; "
                                        "keep each setting as it is given")
        return params

    def copy(self) -> System:
        with self.failing("settings", "clone"):
            return clone(self.given)

    # -- fit, fitted
    def before_fit(self) -> None:
        system = clone(self.fresh)
        with self.failing("fitted", "fitted()"):
            said = system.fitted()
        if not isinstance(said, bool):
            raise self.fail("fitted", f"fitted() gives a {type(said).__name__}, not True or False")
        if said:
            with self.failing("fitted", "before fit, it says it is fitted, but run"):
                run(system, self.data.turns["test"], 1)
        else:
            try:
                run(system, self.data.turns["test"], 1)
            except Dstc2ConvError:
                return
            raise self.fail("fitted", "run answered with a system that says it is not fitted")

    def fit(self, params: dict) -> System:
        system = clone(self.fresh)
        try:
            result = system.fit(self.data.turns["train"], self.data.turns["dev"])
        except TypeError as exc:
            if "not the system itself" in str(exc):
                raise self.fail("fit returns the system", str(exc)) from None
            raise self.fail("fit", f"fit raised TypeError: {exc}") from exc
        except Exception as exc:   # whatever the system raised is the failure reported
            raise self.fail("fit", f"fit raised {type(exc).__name__}: {exc}") from exc
        if result is not system:
            raise self.fail("fit returns the system", f"fit returned {type(result).__name__}")
        after = system.get_params()
        if not _equal(after, params):
            raise self.fail("settings", f"fit changed {_differ(params, after)}: what fit learns belongs in other "
                                        "attributes (e.g. name_), the settings stay as given")
        if system.fitted() is not True:
            raise self.fail("fitted", "fitted() is not True after fit")
        if not self.fresh.fitted() and clone(system).fitted():
            raise self.fail("fitted", "a copy (clone) of a fitted system says it is fitted: the constructor must "
                                      "not share what fit learned")
        return system

    def fit_with(self, form: str) -> System:
        system = clone(self.fresh)
        given = {"turns": self.data.turns, "path": self.data.paths, "dialogs": self.data.dialogs}[form]
        with self.failing("fit accepts a path, dialogs or turns", f"fit given the {form}"):
            return system.fit(given["train"], given["dev"])

    # -- rank
    def rankings(self, system: System) -> list[tuple[str, ...]]:
        """Its rankings of the test turns, each checked as ``rank`` gave it (``k`` of them,
        then the best alone)."""
        turns = self.data.turns["test"]
        for k in (1, self.k):
            found = self.answers(system, turns, k, checked=True)
        return found

    def answers(self, system: System, turns: Sequence[BotTurn], k: int, checked: bool = False,
                property: str = "rank", doing: str = "run") -> list[tuple[str, ...]]:
        """``run(system, turns, k)``, with every ranking checked as ``rank`` returns it."""
        if not checked:
            with self.failing(property, doing):
                return run(system, turns, k)
        rank = system.rank
        here = iter(turns)

        def checking(user: str, k: int):
            out = rank(user, k)
            self.check_ranking(out, k, next(here))
            return out

        try:
            system.rank = checking
        except AttributeError:           # a class with __slots__: run's own check alone
            pass
        try:
            with self.failing(property, doing):
                return run(system, turns, k)
        finally:
            system.__dict__.pop("rank", None) if hasattr(system, "__dict__") else None

    def check_ranking(self, out, k: int, turn: BotTurn) -> None:
        where = f"at turn {turn.index + 1} of dialog {turn.dialog + 1}, rank(user, {k})"
        if not isinstance(out, (tuple, list)):
            raise self.fail("rank", f"{where} gave a {type(out).__name__}, not a tuple of responses")
        if not 1 <= len(out) <= k:
            raise self.fail("rank", f"{where} gave {len(out)} responses: give at least one, at most k")
        for text in out:
            if not isinstance(text, str) or not text.strip():
                raise self.fail("rank", f"{where} gave {text!r}: each response is a non-empty string")

    def same_answers(self, system: System, answers: list, property: str, detail: str) -> None:
        again = self.answers(system, self.data.turns["test"], self.k, property=property)
        turns = self.data.turns["test"]
        for turn, a, b in zip(turns, answers, again):
            if a != b:
                raise self.fail(property, f"{detail}: at turn {turn.index + 1} of dialog {turn.dialog + 1}, "
                                          f"{a[0]!r} and then {b[0]!r}")

    # -- the gold
    def gold(self, system: System, answers: list) -> None:
        """For every turn, the test file with the gold and results of that turn and the later
        ones changed: the rankings up to that turn must be the same."""
        turns = self.data.turns["test"]
        for at in range(len(turns)):
            changed = [*turns[:at], *(_poisoned(t) for t in turns[at:])]
            found = self.answers(system, changed, self.k, property="the gold",
                                 doing="run on turns whose gold and results were changed")
            for i in range(at + 1):
                if found[i] != answers[i]:
                    turn, poison = turns[i], _poisoned(turns[i]).gold
                    seen = ("it answered with the changed gold itself" if poison in found[i] else
                            f"{answers[i][0]!r} became {found[i][0]!r}")
                    which = "its own gold" if i == at else f"the gold of turn {turns[at].index + 1}"
                    raise self.fail("the gold", f"at turn {turn.index + 1} of dialog {turn.dialog + 1}, changing "
                                                f"{which} (and the later turns') changed its answer: {seen}; a "
                                                "system answers before it is shown a turn's gold (observe)")

    # -- explain
    def explains(self, system: System) -> None:
        turns = self.data.turns["test"]
        try:
            lines = explain_turn(system, turns, min(1, len(turns) - 1), 3)
        except Dstc2ConvError as exc:
            if str(exc).endswith("does not explain its answers"):
                return
            raise self.fail("explain", f"explain raised {exc}") from exc
        except Exception as exc:   # whatever the system raised is the failure reported
            raise self.fail("explain", f"explain raised {type(exc).__name__}: {exc}") from exc
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise self.fail("explain", f"explain gave {type(lines).__name__}, not a list of lines (strings)")

    # -- save and load
    def saved(self, system: System, answers: list) -> None:
        from .folder import system_name
        from .registry import load

        if "<locals>" in type(system).__qualname__:
            raise self.fail("save and load", f"{type(system).__qualname__} is defined inside a function, so a "
                                             "model folder cannot name it: define it at the top level of a module")
        first, second = os.path.join(self.folder, "model"), os.path.join(self.folder, "again")
        with self.failing("save and load", "save"):
            system.save(first)
        with self.failing("save and load", "load"):
            loaded = load(first, system=system_name(system))
        if loaded.fitted() is not True:
            raise self.fail("save and load", "the loaded system says it is not fitted")
        self.same_answers(loaded, answers, "save and load", "loaded, it answers otherwise than before it was saved")
        other = self.fit_with("turns")
        with self.failing("save and load", "save"):
            other.save(second)
        for name in sorted(os.listdir(first)):
            with open(os.path.join(first, name), "rb") as a, open(os.path.join(second, name), "rb") as b:
                if a.read() != b.read():
                    raise self.fail("determinism", f"two fits with the same settings (and seed) saved different "
                                                   f"{name}: the same model must give the same bytes")


def _poisoned(turn: BotTurn) -> BotTurn:
    """The turn with another gold, and other restaurants in its results."""
    from ..task6.format import Fact

    context = []
    for line in turn.context:
        fact = Fact.match(line)
        context.append(line if fact is None else
                       f"poisoned_place R_{fact.attribute[2:]} {fact.value if fact.value.isdigit() else 'poisoned'}")
    return replace(turn, gold=f"poisoned gold of turn {turn.index + 1}", context=tuple(context))


def _equal(a: dict, b: dict) -> bool:
    try:
        return bool(a == b)
    except Exception:     # arrays among the settings: compared by their text
        return repr(a) == repr(b)


def _differ(before: dict, after: dict) -> str:
    keys = [key for key in {**before, **after} if key not in before or key not in after
            or not _equal({0: before[key]}, {0: after[key]})]
    return ", ".join(f"{key}={before.get(key)!r} became {after.get(key)!r}" for key in keys)


__all__ = ["check_system", "SystemCheckFailed", "tiny_dialog", "tiny_dialogs", "K"]
