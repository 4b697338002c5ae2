"""The one interface every system answers through, and the one dialog loop that drives it.

A system is built with its settings (constructor arguments and nothing else), learns
from data in ``fit(train, dev)`` and returns itself, then answers dialogs turn by turn.
The loop (``run``) owns the dialogs: at each bot turn it gives the system the user
utterance and asks for its ranking of responses, best first, and only then shows it the
gold bot utterance and the result lines that follow; a new dialog starts with
``reset()``. So no system can see the answer it is predicting.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..errors import Dstc2ConvError
from ..task6.turns import BotTurn


class System:
    """The base of every system: override ``rank`` (and ``reset``, ``observe``, ``fit``
    where the system keeps state or learns)."""

    name = ""

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


def run(system: System, turns: Sequence[BotTurn], k: int = 1,
        progress: Callable[[int, int], None] | None = None) -> list[tuple[str, ...]]:
    """Every turn's ranking by ``system`` (``k`` best, best first), the dialogs in order:
    ``reset`` at each new dialog, ``rank`` before the turn's gold is shown, ``observe``
    after. ``progress(done, total)`` is called once a dialog is over. A system that is
    not fitted is refused (Dstc2ConvError)."""
    if not system.fitted():
        raise Dstc2ConvError(f"{system.name or type(system).__name__}: not fitted: call fit(train, dev) first "
                             "(or load a model)")
    out: list[tuple[str, ...]] = []
    dialog = None
    for i, turn in enumerate(turns):
        if turn.dialog != dialog:
            if progress is not None and dialog is not None:
                progress(i, len(turns))
            system.reset()
            dialog = turn.dialog
        ranking = tuple(system.rank(turn.user, k))
        if not ranking:
            raise ValueError(f"{system.name or type(system).__name__}: no response at turn {turn.index} of dialog {turn.dialog}")
        out.append(ranking)
        system.observe(turn.user, turn.gold, turn.context)
    if progress is not None:
        progress(len(turns), len(turns))
    return out


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


__all__ = ["System", "run", "predict", "progress_lines"]
