"""The one contract every system keeps, and the one dialog loop that drives it.

A system is built with its settings (constructor keyword arguments and nothing else:
``get_params`` lists them, ``clone`` builds an unfitted copy), learns from data in
``fit(train, dev)`` and returns itself, then answers dialogs turn by turn. The loop
(``run``) owns the dialogs: at each bot turn it gives the system the user utterance and
asks for its ranking of responses, best first, and only then shows it the gold bot
utterance and the result lines that follow; a new dialog starts with ``reset()``. So no
system can see the answer it is predicting.

A system that keeps what it learned says so in ``state()`` (JSON-able facts and numpy
arrays) and takes it back in ``restore``; ``save(folder)`` and ``registry.load``
write and read it as one model folder, whatever the system.

``fit`` accepts the bot turns, the dialogs, or the path of a task-6 file: every
subclass's ``fit`` is given bot turns, on one BLAS thread (the command line's speed,
and answers that do not depend on the machine's threads).
"""
from __future__ import annotations

import functools
import inspect
import os
import time
from collections.abc import Callable, Sequence

from ..errors import Dstc2ConvError
from ..task6.turns import BotTurn


class System:
    """The base of every system: override ``rank`` (and ``reset``, ``observe``, ``fit``
    where the system keeps state or learns; ``state`` / ``restore`` where what it learned
    can be saved)."""

    name = ""      # its name in tables; the registry's name when built through it

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "fit" in cls.__dict__ and not getattr(cls.__dict__["fit"], "_contract", False):
            cls.fit = _fitting(cls.__dict__["fit"])

    # -- settings
    def get_params(self) -> dict:
        """The settings, as the constructor takes them: each keyword parameter of
        ``__init__``, read from the attribute of the same name."""
        out = {}
        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if not hasattr(self, name):
                raise TypeError(f"{type(self).__name__}: the setting {name!r} is not kept as an attribute of "
                                "that name, so the system cannot be copied or saved")
            out[name] = getattr(self, name)
        return out

    def seeded(self) -> bool:
        """Whether ``fit`` draws random numbers from the system's ``seed`` setting, so that
        another seed gives another model (``table2 --seeds`` fits such a system once per
        seed): by default, whether it has a ``seed`` setting."""
        return "seed" in self.get_params()

    def label(self) -> str:
        """The name the system is shown by."""
        return self.name or type(self).__name__

    # -- learning and answering
    def fitted(self) -> bool:
        """Whether the system can answer (``run`` refuses one that cannot): a system that
        learns answers False until ``fit`` (or a load) has run."""
        return True

    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> System:
        """Learn from ``train`` (choices made on ``dev``); returns the system itself."""
        return self

    def reset(self) -> None:
        """A new dialog starts: forget the last one."""

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        """The system's ``k`` best responses (at least one) to the user utterance, best first."""
        raise NotImplementedError

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        """The turn as it happened: the user utterance, the gold bot utterance and the
        context lines (results) that followed it."""

    def observe_lead(self, lead: tuple[str, ...]) -> None:
        """A new dialog's context lines before its first turn (``BotTurn.lead``: bAbI
        tasks 3 and 4 open with the KB's facts), shown after ``reset``."""

    def explain(self, user: str, top: int) -> list[str]:
        """Why the system would answer ``user`` as it does, at this point of the dialog,
        as lines of text (``top``: how many responses, memories or features to show). A
        system that cannot say raises NotImplementedError."""
        raise NotImplementedError

    # -- what it learned, for a model folder
    def state(self) -> tuple[dict, dict]:
        """What ``fit`` learned: JSON-able facts and numpy arrays by name (nothing, for a
        system that learns nothing)."""
        return {}, {}

    def restore(self, facts: dict, arrays: dict) -> None:
        """Take back what ``state`` gave (the system is built from the saved settings);
        raise ValueError (or KeyError, TypeError) where it does not fit."""

    def expected_arrays(self, facts: dict) -> dict | None:
        """The arrays ``restore`` takes, name -> (shape, dtype), for ``facts``; checked
        against the weights' headers before any array is read. None: any arrays, within
        the bound a model folder may hold."""
        return None

    def save(self, folder: str | os.PathLike, about: dict | None = None) -> None:
        """Write the system (its settings and what it learned) as a model folder, whole
        or not at all; ``about``: facts for the record (the files it was trained on)."""
        from .folder import save

        save(self, os.fspath(folder), about or {})


def clone(system: System, **settings) -> System:
    """An unfitted system with the same settings (but ``settings``, changed)."""
    copy = type(system)(**{**system.get_params(), **settings})
    if getattr(system, "built_as", None):
        copy.built_as = system.built_as
    return copy


def as_turns(data, what: str = "data") -> list[BotTurn]:
    """Bot turns from a task-6 file's path, its dialogs, or its bot turns."""
    if data is None:
        return []
    if isinstance(data, (str, os.PathLike)):
        from ..task6.turns import read_turns

        return read_turns(os.fspath(data))
    items = list(data)
    if items and not isinstance(items[0], BotTurn):
        from ..task6.format import Dialog
        from ..task6.turns import turns_of

        if isinstance(items[0], Dialog):
            return turns_of(items)
        raise TypeError(f"{what}: give a task-6 file, its dialogs or its bot turns, not {type(items[0]).__name__}s")
    return items


def _fitting(fit):
    """``fit`` given bot turns whatever it was called with, on one BLAS thread; it must
    return the system."""
    @functools.wraps(fit)
    def wrapper(self, train=(), dev=None, *args, **kwargs):
        train_turns = as_turns(train, "train")
        dev_turns = None if dev is None else as_turns(dev, "dev")
        if isinstance(train, (str, os.PathLike)):     # files: the data mistakes are caught (systems.mistakes)
            from .mistakes import check_data

            check_data(os.fspath(train), os.fspath(dev) if isinstance(dev, (str, os.PathLike)) else None,
                       train_turns, dev_turns)
        with one_thread():
            result = fit(self, train_turns, dev_turns, *args, **kwargs)
        if result is not self:
            raise TypeError(f"{type(self).__name__}.fit returned {type(result).__name__}, not the system itself")
        return result
    wrapper._contract = True
    return wrapper


def one_thread():
    """BLAS on one thread for the block, where numpy is loaded (threadpoolctl)."""
    import contextlib
    import sys

    if "numpy" not in sys.modules:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(1)


def run(system: System, turns: Sequence[BotTurn], k: int = 1,
        progress: Callable[[int, int], None] | None = None) -> list[tuple[str, ...]]:
    """Every turn's ranking by ``system`` (``k`` best, best first), the dialogs in order:
    ``reset`` at each new dialog, ``rank`` before the turn's gold is shown, ``observe``
    after. ``progress(done, total)`` is called once a dialog is over. A system that is
    not fitted is refused (Dstc2ConvError)."""
    if not system.fitted():
        raise Dstc2ConvError(f"{system.label()}: not fitted: call fit(train, dev) first (or load a model)")
    turns = as_turns(turns, "turns")
    out: list[tuple[str, ...]] = []
    dialog = None
    with one_thread():
        for i, turn in enumerate(turns):
            if turn.dialog != dialog:
                if progress is not None and dialog is not None:
                    progress(i, len(turns))
                system.reset()
                dialog = turn.dialog
                lead = getattr(turn, "lead", ())      # a turn of one's own may have none
                if lead:
                    system.observe_lead(lead)
            ranking = tuple(system.rank(turn.user, k))
            if not ranking:
                raise Dstc2ConvError(f"{system.label()}: no response at turn {turn.index + 1} of dialog {turn.dialog + 1}")
            out.append(ranking)
            system.observe(turn.user, turn.gold, turn.context)
    if progress is not None:
        progress(len(turns), len(turns))
    return out


def explain_turn(system: System, turns: Sequence[BotTurn], index: int, top: int = 8) -> list[str]:
    """``system.explain`` at ``turns[index]``: its dialog run through the loop up to that
    turn (each earlier turn ranked, then shown), then explained before its gold is shown."""
    if not system.fitted():
        raise Dstc2ConvError(f"{system.label()}: not fitted: call fit(train, dev) first (or load a model)")
    target = turns[index]
    system.reset()
    with one_thread():
        for turn in turns:
            if turn.dialog != target.dialog:
                continue
            if getattr(turn, "lead", ()):
                system.observe_lead(turn.lead)
            if turn.index == target.index:
                try:
                    return system.explain(turn.user, top)
                except NotImplementedError:
                    raise Dstc2ConvError(f"{system.label()} does not explain its answers") from None
            system.rank(turn.user, 1)
            system.observe(turn.user, turn.gold, turn.context)
    raise Dstc2ConvError(f"no turn {target.index + 1} in dialog {target.dialog + 1}")


def progress_lines(label: str, every: float = 1.0) -> Callable[[int, int], None]:
    """A ``progress`` for ``run`` that reports ``<label>: <done>/<total> turns`` through
    the reporter, at most once every ``every`` seconds, and at the end."""
    from ..reporter import progress

    last = time.perf_counter()

    def report(done: int, total: int) -> None:
        nonlocal last
        now = time.perf_counter()
        if now - last >= every or done == total:
            last = now
            progress(f"{label}: {done}/{total} turns")
    return report


def predict(system: System, turns: Sequence[BotTurn], **kwargs) -> list[str]:
    """Every turn's best response by ``system``."""
    return [ranking[0] for ranking in run(system, turns, 1, **kwargs)]


__all__ = ["System", "clone", "as_turns", "one_thread", "run", "explain_turn", "predict", "progress_lines"]
