"""The one reporter of notes and progress: Python's ``logging``, configured by the CLI.

Library code says what it read, chose or derived with ``note`` (the ``dstc2conv``
logger) and how far long work has got with ``progress`` (``dstc2conv.progress``); it
never prints. Nothing is shown unless a caller asks: the CLI wraps a command in
``reporting``, which shows notes on stderr unless ``--quiet``, and progress only when
stderr is a terminal. A library user may attach handlers of their own to these loggers.

Counted work (epochs, iterations) reports through ``Steps``: progress lines where a
reporter is set up (the command line), a tqdm bar on stderr where none is (the Python
API: a notebook shows it under the cell).
"""
from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

NOTES = logging.getLogger("dstc2conv")
PROGRESS = logging.getLogger("dstc2conv.progress")
_OFF = logging.CRITICAL + 1
_active = 0          # reporting blocks open: the command line, or a caller's reporting_to


def note(message: str) -> None:
    """A note for the user: what was read, chosen or derived."""
    NOTES.info(message)


def progress(message: str) -> None:
    """A line on how far long work has got."""
    PROGRESS.info(message)


class _Stderr(logging.Handler):
    """Each message as it is, a line on whatever ``sys.stderr`` is when it is written."""

    def emit(self, record: logging.LogRecord) -> None:
        print(record.getMessage(), file=sys.stderr, flush=True)


class _Call(logging.Handler):
    """Each message handed to a function."""

    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def emit(self, record: logging.LogRecord) -> None:
        self.function(record.getMessage())


@contextmanager
def reporting_to(notes=None, progress=None) -> Iterator[None]:
    """Within the block, hand each note to ``notes`` and each progress line to
    ``progress`` (functions of one text; None: not shown); then as it was before."""
    handlers = [(logger, _Call(function)) for logger, function in ((NOTES, notes), (PROGRESS, progress))
                if function is not None]
    saved = NOTES.level, NOTES.propagate, PROGRESS.level, PROGRESS.propagate
    global _active
    for logger, handler in handlers:
        logger.addHandler(handler)
    NOTES.setLevel(logging.INFO if notes else _OFF)
    NOTES.propagate = PROGRESS.propagate = False
    PROGRESS.setLevel(logging.INFO if progress else _OFF)
    _active += 1
    try:
        yield
    finally:
        _active -= 1
        for logger, handler in handlers:
            logger.removeHandler(handler)
        NOTES.setLevel(saved[0])
        NOTES.propagate = saved[1]
        PROGRESS.setLevel(saved[2])
        PROGRESS.propagate = saved[3]


@contextmanager
def reporting(notes: bool = True, progress: bool | None = None) -> Iterator[None]:
    """Within the block, show notes (``notes``) and progress (``progress``; None: when
    stderr is a terminal and notes are shown) on stderr; then as it was before."""
    if progress is None:
        progress = notes and sys.stderr.isatty()
    global _active
    handler = _Stderr()
    saved = NOTES.level, NOTES.propagate, PROGRESS.level
    NOTES.addHandler(handler)
    NOTES.setLevel(logging.INFO if notes else _OFF)
    NOTES.propagate = False
    PROGRESS.setLevel(logging.INFO if progress else _OFF)
    _active += 1
    try:
        yield
    finally:
        _active -= 1
        NOTES.removeHandler(handler)
        NOTES.setLevel(saved[0])
        NOTES.propagate = saved[1]
        PROGRESS.setLevel(saved[2])


class _Stopwatch(logging.Filter):
    def __init__(self, name: str):
        super().__init__()
        self.label, self.started = name, time.perf_counter()

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = f"{self.label}: {record.getMessage()} ({time.perf_counter() - self.started:.1f} s)", ()
        return True


@contextmanager
def stopwatch(name: str) -> Iterator[None]:
    """Within the block, each progress line reads ``<name>: <message> (<seconds> s)``,
    the seconds since the block began."""
    watch = _Stopwatch(name)
    PROGRESS.addFilter(watch)
    try:
        yield
    finally:
        PROGRESS.removeFilter(watch)


class Steps:
    """Counted progress: ``with Steps(total, "memn2n: epochs") as steps: steps.update(1,
    "loss 0.51")``. Where a reporter is set up (the command line, ``reporting_to``), each
    update is a progress line; where none is and no handler of the user's listens (the
    Python API), a tqdm bar on stderr."""

    def __init__(self, total: int, label: str, unit: str = "step"):
        self.total, self.label, self.done = total, label, 0
        self.bar = None
        if not _active and not NOTES.handlers and not PROGRESS.handlers:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=label, unit=unit, leave=False, file=sys.stderr)

    def update(self, n: int = 1, status: str = "") -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
            if status:
                self.bar.set_postfix_str(status, refresh=False)
        else:
            progress(f"{self.label} {self.done}/{self.total}" + (f": {status}" if status else ""))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
