"""The paper's whole Table 2 from the published release: for each task of the release
(tasks 1-5 and task 6), every system fitted once on the task's train file (choices made
on its dev file) and scored on its test file and, for tasks 1-5, its OOV test file: one
``table2.Table2`` a row of the paper's table (``T1`` ... ``T5``, ``T1-OOV`` ...
``T5-OOV``, ``T6``), with that row's paper figures beside each system's.

Candidates: the release's candidates file of the task (``dialog-babi-candidates.txt``
for tasks 1-5, ``dialog-babi-task6-dstc2-candidates.txt`` for task 6), the paper's
protocol; a task without one ranks among every distinct bot utterance of its files."""
from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..errors import Dstc2ConvError, naming
from ..evaluate.published import ROWS
from ..reporter import note
from .table2 import Table2, checked_names, checked_seeds, table2_tests
from .task_settings import settings_for

# the paper's six columns, in its order: what --release runs unless told otherwise
COLUMNS = ("rules", "tfidf", "nn", "embeddings", "memn2n", "memn2n+match")
TASKS = ("T1", "T2", "T3", "T4", "T5", "T6")


@dataclass(frozen=True)
class WholeTable:
    """Every row of the paper's Table 2 that the release has files for."""
    source: str                                  # the release: the archive or the folder given
    systems: tuple[str, ...]                     # the columns, in order
    tables: dict                                 # row ("T1", "T1-OOV", ...) -> Table2, in the paper's order
    seconds: dict                                # task ("T1" ... "T6") -> seconds for all its systems
    skipped: tuple[tuple[str, str], ...]         # (task, why) for a task the release lacks files of

    def to_dict(self) -> dict:
        return {"release": self.source, "systems": list(self.systems),
                "tasks": {row: table.to_dict() for row, table in self.tables.items()},
                "seconds": {task: round(s, 3) for task, s in self.seconds.items()},
                "skipped": dict(self.skipped)}


def columns(spec: str | Sequence[str] | None) -> tuple[str, ...]:
    """The systems of ``--systems``: None gives the paper's six columns; a list of names
    gives those; names written ``+name`` or ``-name`` add to or remove from the six."""
    if spec is None:
        return COLUMNS
    items = [s.strip() for s in spec.split(",")] if isinstance(spec, str) else [str(s).strip() for s in spec]
    items = [s for s in items if s]
    relative = [s for s in items if s[0] in "+-"]
    if relative and len(relative) != len(items):
        raise Dstc2ConvError(f"systems: give names, or changes to the paper's six columns (+name, -name), "
                             f"not both: {','.join(items)}")
    if not relative:
        return tuple(checked_names(items))
    out = list(COLUMNS)
    for item in items:
        name = item[1:]
        if item[0] == "+":
            if name in out:
                raise Dstc2ConvError(f"systems: {name} is a column already")
            out.append(name)
        elif name not in out:
            raise Dstc2ConvError(f"systems: {name} is not a column: the columns are {', '.join(out)}")
        else:
            out.remove(name)
    return tuple(checked_names(out))


def _named(path: str | None, source: str) -> str | None:
    """A file of the release as the user knows it: its path in a folder, ``ARCHIVE:file``
    for one taken out of an archive (the folder it was unpacked into is gone when the run
    ends)."""
    if path is None or os.path.isdir(source) or os.sep not in path:
        return path
    return f"{source}:{os.path.basename(path)}"


def _shown(table: Table2, source: str) -> Table2:
    """The table with its files named as ``_named`` does."""
    def label(path: str) -> str:
        return _named(path, source)
    return replace(table, train=replace(table.train, path=label(table.train.path)),
                   dev=replace(table.dev, path=label(table.dev.path)),
                   test=replace(table.test, path=label(table.test.path)),
                   candidates_from=label(table.candidates_from))


def whole_table(release: str, systems: str | Sequence[str] | None = None, resamples: int = 1000, seed: int = 0,
                seeds: Sequence[int] = (0,)) -> WholeTable:
    """The paper's Table 2 on the release at ``release`` (the published archive or its
    unpacked folder): each task's systems fitted once and scored on its test files."""
    from ..babi.release import open_release

    names = columns(systems)
    seeds = checked_seeds(seeds)
    tables: dict[str, Table2] = {}
    seconds: dict[str, float] = {}
    skipped: list[tuple[str, str]] = []
    with open_release(release) as found:
        for task in TASKS:
            files = found.tasks.get(task)
            lacking = [what for what, path in (("train", files and files.train), ("dev", files and files.dev),
                                               ("test", files and files.test)) if path is None]
            if lacking:
                why = f"no {' or '.join(lacking)} file in the release"
                note(f"table2: {task}: {why}: skipped")
                skipped.append((task, why))
                continue
            tests = [(task, files.test)] + ([(f"{task}-OOV", files.oov_test)] if files.oov_test else [])
            if task != "T6" and files.oov_test is None:
                note(f"table2: {task}-OOV: no OOV test file in the release: skipped")
                skipped.append((f"{task}-OOV", "no OOV test file in the release"))
            if files.candidates is None:
                note(f"table2: {task}: no candidates file in the release: the systems rank every distinct bot "
                     "utterance of its train, dev and test files (not the paper's protocol)")
            counted = f"{len(names)} system{'s' if len(names) != 1 else ''}"
            note(f"table2: {task}: {counted}, fitted on {os.path.basename(files.train)}, scored on "
                 f"{' and '.join(os.path.basename(p) for _, p in tests)}")
            start = time.perf_counter()
            with naming(*(_named(p, os.fspath(release)) for p in (files.train, files.dev, *dict(tests).values(),
                                                                   files.candidates))):
                done = table2_tests(files.train, files.dev, [p for _, p in tests], files.candidates, names,
                                    resamples, seed, seeds, settings=lambda name, task=task: settings_for(name, task),
                                    rows_of=[row for row, _ in tests])
            seconds[task] = time.perf_counter() - start
            note(f"table2: {task}: {seconds[task]:.1f} s")
            for (row, _), table in zip(tests, done):
                tables[row] = _shown(table, os.fspath(release))
    if not tables:
        raise Dstc2ConvError(f"{os.fspath(release)}: no task of the release has train, dev and test files")
    ordered = {row: tables[row] for row in ROWS if row in tables}
    return WholeTable(os.fspath(release), names, ordered, seconds, tuple(skipped))


__all__ = ["WholeTable", "whole_table", "columns", "COLUMNS"]
