"""The paper's Table 2 for task 6: every system of the registry fitted on a training file
(choices made on a dev file), run on a test file through the one dialog loop, scored by
the registry's accuracy, beside the paper's figure, and compared with the rules by the
paired bootstrap over dialogs.

Candidates, for the systems that rank them: every distinct bot utterance of the train,
dev and test files (the paper's set), or those of a candidates file.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..errors import Dstc2ConvError
from ..evaluate import metrics
from ..evaluate.published import by_name, published, row_of, source
from ..evaluate.responses import Bootstrap, paired_bootstrap
from ..files import sha256_file
from ..reporter import note, stopwatch
from ..task6.candidates import distinct, read_candidates
from ..task6.turns import read_turns
from . import registry
from .interface import clone, progress_lines, run
from .mistakes import check_data
from .task_settings import settings_for

BASE = "rules"     # the system the others are compared with


@dataclass(frozen=True)
class DataFile:
    path: str
    sha256: str
    turns: int
    published: str | None       # the published file it is (by its SHA-256), else None
    split: str | None           # that file's split

    def to_dict(self) -> dict:
        return {"file": self.path, "sha256": self.sha256, "turns": self.turns, "published": self.published}


@dataclass(frozen=True)
class Run:
    """One training of a system and its figures on TST."""
    seed: int | None                      # None: a system that draws nothing at random
    accuracy: dict                        # the registry's accuracy figures
    outcomes: tuple[bool, ...] = field(repr=False)
    fit_seconds: float
    predict_seconds: float

    def to_dict(self) -> dict:
        keys = ("per_response", "per_dialog", "correct", "dialogs_correct")
        return {"seed": self.seed, **{k: self.accuracy[k] for k in keys},
                "seconds": {"fit": round(self.fit_seconds, 3), "predict": round(self.predict_seconds, 3)}}


FIGURES = ("per_response", "per_dialog")


@dataclass(frozen=True)
class Row:
    """A system's row: its runs (one per seed for a system whose training draws random
    numbers, else one); its figures are their mean, and the first run's outcomes go into
    the comparison with the rules."""
    name: str
    description: str
    paper: tuple[float | None, float | None]   # the reported per-response and per-dialog accuracy, in percent; None: none
    runs: tuple[Run, ...]
    versus: Bootstrap | None = None       # against the rules: the paired bootstrap (the first run's outcomes)
    difference: float | None = None       # per-response accuracy, the first run's - the rules'

    @property
    def seeded(self) -> bool:
        return self.runs[0].seed is not None

    @property
    def accuracy(self) -> dict:
        """The first run's accuracy figures, but per response and per dialog: the mean of the runs'."""
        return {**self.runs[0].accuracy, **self.mean}

    @property
    def outcomes(self) -> tuple[bool, ...]:
        return self.runs[0].outcomes

    @property
    def fit_seconds(self) -> float:
        return self.runs[0].fit_seconds

    @property
    def predict_seconds(self) -> float:
        return self.runs[0].predict_seconds

    @property
    def mean(self) -> dict:
        return {k: sum(r.accuracy[k] for r in self.runs) / len(self.runs) for k in FIGURES}

    @property
    def low(self) -> dict:
        return {k: min(r.accuracy[k] for r in self.runs) for k in FIGURES}

    @property
    def high(self) -> dict:
        return {k: max(r.accuracy[k] for r in self.runs) for k in FIGURES}

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.accuracy.items()}
        out["paper"] = {key: None if figure is None else round(figure / 100, 4)
                        for key, figure in zip(("per_response", "per_dialog"), self.paper)}
        if self.versus is not None:
            out["vs_rules"] = {"difference": self.difference, **self.versus.to_dict()}
        out["seconds"] = {"fit": round(self.fit_seconds, 3), "predict": round(self.predict_seconds, 3)}
        out["description"] = self.description
        out["seeds"] = [run.to_dict() for run in self.runs] if self.seeded else None
        out.update(mean=self.mean, min=self.low, max=self.high)
        return out


@dataclass(frozen=True)
class Table2:
    train: DataFile
    dev: DataFile
    test: DataFile
    candidates: int
    candidates_from: str          # the candidates file, or "TRN, DEV and TST"
    missing_gold: int             # distinct gold utterances of TST not among the candidates
    rows: tuple[Row, ...]
    unavailable: tuple[tuple[str, str], ...]   # (name, why)
    note: str                     # what the figures may be compared with
    signature: str
    seeds: tuple[int, ...] = (0,)     # the seeds each system whose training draws random numbers is fitted with
    row: str = "T6"                   # the paper's Table 2 row of TST (``evaluate.published.row_of``) its column shows

    def to_dict(self) -> dict:
        return {"test": self.test.to_dict(), "train": self.train.to_dict(), "dev": self.dev.to_dict(),
                "candidates": {"count": self.candidates, "from": self.candidates_from,
                               "missing_gold": self.missing_gold},
                "note": self.note, "paper": source(self.row), "signature": self.signature,
                "systems": {row.name: row.to_dict() for row in self.rows},
                "unavailable": dict(self.unavailable), "seeds": list(self.seeds)}


def _data(path: str, turns: Sequence) -> DataFile:
    sha = sha256_file(path)
    known = published(sha)
    return DataFile(os.fspath(path), sha, len(turns), known and known[0], known and known[1])


def paper_row(test: DataFile) -> str:
    """The paper's row whose figures the table shows beside TST's: TST's own
    (``evaluate.published.row_of``, by its SHA-256 or its name), else task 6's."""
    return row_of(test.path, test.sha256) or "T6"


def comparable(train: DataFile, dev: DataFile, test: DataFile, candidates_sha: str | None) -> str:
    """What figures on TST may be compared with: the paper's, when TST is a published
    test (or OOV test) file, TRN and DEV the published train and dev files of its task, and
    the candidates the paper's set. The paper column's row is said when it is not task 6's."""
    row = paper_row(test)
    shown = "" if row == "T6" else f"; the paper column is row {row}'s"
    if test.split not in ("test", "test-OOV"):
        if test.published:
            return (f"TST is the published {test.split} file ({test.published}), not the test file: the paper's "
                    f"figures are on the test file; compare with figures on this file only{shown}")
        if row != "T6" and by_name(test.path, test.sha256):
            return (f"TST is no published file, recognised by its name only as one of row {row}: its figures "
                    f"compare only with figures on the same file{shown} (recognised by the file name)")
        return "TST is no published task-6 file: its figures compare only with figures on the same file"
    task = row.partition("-")[0]
    differ = [f"{label} is not the published {split} file{'' if row == 'T6' else ' of ' + task}"
              for label, data, split in (("TRN", train, "train"), ("DEV", dev, "dev"))
              if data.split != split or row_of(data.path, data.sha256) != task]
    if row == "T6":
        if candidates_sha is not None and published(candidates_sha) is None:
            differ.append("the candidates are not the published candidates file")
    elif candidates_sha is None or published(candidates_sha) != ("dialog-babi-candidates.txt", "candidates"):
        differ.append("the candidates are not the published candidates file of tasks 1-5 (the paper's set)")
    where = f"TST is the published {'OOV test' if test.split == 'test-OOV' else 'test'} file ({test.published})"
    if differ:
        return (f"{where}, but {'; '.join(differ)}: the paper's figures are a guide, not a like-for-like "
                f"comparison{shown}")
    return (f"{where}, TRN and DEV the published ones, the candidates the paper's set: comparable with the paper's "
            f"row{'' if row == 'T6' else ' ' + row}")


def _fit_and_run(name: str, system, seed: int | None, trn, dv, tests: Sequence,
                 rows_of: Sequence[str] = ()) -> tuple[Run, ...]:
    """``system`` fitted once on TRN (choices on DEV) and run on each file of ``tests``:
    one Run a test file, all with the one fit's time. With more than one test file, each
    one's progress line names its row of ``rows_of``."""
    shown = name if seed is None else f"{name} (seed {seed})"
    with stopwatch(f"table2: {shown}"):
        start = time.perf_counter()
        system.fit(trn, dv)
        fit = time.perf_counter() - start
        out = []
        for i, tst in enumerate(tests):
            on = f" on {rows_of[i]}" if len(tests) > 1 and i < len(rows_of) else ""
            begun = time.perf_counter()
            predictions = [r[0] for r in run(system, tst, 1, progress=progress_lines("predicting"))]
            predict = time.perf_counter() - begun
            scored = metrics.compute(metrics.Inputs(tuple(tst), tuple(predictions)), ["accuracy"])
            accuracy = scored.figures["accuracy"]
            note(f"table2: {shown}{on}: {accuracy['per_response']:.2%} per response "
                 f"(fit {fit:.1f} s, predict {predict:.1f} s)")
            out.append(Run(seed, accuracy, tuple(scored.outcomes), fit, predict))
    return tuple(out)


def _fitted_rows(names: Sequence[str], pool: tuple[str, ...], trn, dv, tests: Sequence,
                 seeds: Sequence[int] = (0,), settings: Callable[[str], dict] | None = None,
                 rows_of: Sequence[str] = ("T6",)) -> tuple[list[list[Row]], list[tuple[str, str]]]:
    """Each system fitted on TRN (choices on DEV), once per seed if its training draws
    random numbers (``System.seeded``), and scored on each file of ``tests``: a list of
    rows per test file; and the systems not installed, with why. ``settings(name)``: the
    settings a system is built with beyond its registry entry's; ``rows_of``: the row of
    the paper's Table 2 of each test file, whose figures are shown beside it."""
    rows: list[list[Row]] = [[] for _ in tests]
    unavailable: list[tuple[str, str]] = []
    for name in names:
        entry = registry.entry(name)
        try:
            system = entry.build(pool, **(settings(name) if settings else {}))
        except registry.NotAvailable as exc:
            unavailable.append((name, str(exc).partition(": ")[2]))
            continue
        if system.seeded():
            per_seed = [_fit_and_run(name, clone(system, seed=s), s, trn, dv, tests, rows_of) for s in seeds]
        else:
            per_seed = [_fit_and_run(name, system, None, trn, dv, tests, rows_of)]
        for i in range(len(tests)):
            rows[i].append(Row(name, entry.description, entry.reported(rows_of[i]),
                               tuple(runs[i] for runs in per_seed)))
    return rows, unavailable


def _compared(rows: list[Row], tst, resamples: int, seed: int) -> tuple[Row, ...]:
    """The rows, each but the rules' with its paired bootstrap against the rules (when
    the rules are among them)."""
    base = next((row for row in rows if row.name == BASE), None)
    if base is None:
        return tuple(rows)
    compared = []
    for row in rows:
        if row is base:
            compared.append(row)
            continue
        boot = paired_bootstrap(base.outcomes, row.outcomes, tst, resamples, seed)
        difference = (sum(row.outcomes) - sum(base.outcomes)) / len(tst)
        compared.append(replace(row, versus=boot, difference=difference))
    return tuple(compared)


def checked_names(systems: Sequence[str] | None) -> list[str]:
    """The systems' names (default: the whole registry), each known and none twice."""
    names = list(registry.NAMES if systems is None else systems)
    if not names:
        raise Dstc2ConvError(f"no system named: give some of {', '.join(registry.NAMES)}")
    for name in names:
        registry.entry(name)
    if len(set(names)) != len(names):
        raise Dstc2ConvError(f"a system is named twice: {', '.join(names)}")
    return names


def table2(train: str, dev: str, test: str, candidates: str | None = None, systems: Sequence[str] | None = None,
           resamples: int = 1000, seed: int = 0, seeds: Sequence[int] = (0,), task: str | None = None) -> Table2:
    """Every system of ``systems`` (default: the whole registry) fitted on ``train`` with
    ``dev``, run on ``test``; the ones not installed are listed as unavailable. A system
    whose training draws random numbers is fitted once per seed of ``seeds``; ``seed``
    is the bootstrap's. Each system is built with its settings for ``task`` (``T1`` ...
    ``T5``: ``task_settings``, chosen on that task's dev file); by default the task of
    ``train`` (a published bAbI file known by its SHA-256 or its name: ``training_task``),
    none for any other file (the systems' defaults)."""
    task = training_task(train) if task is None else task
    return table2_tests(train, dev, (test,), candidates, systems, resamples, seed, seeds,
                        settings=lambda name: settings_for(name, task))[0]


def training_task(train: str) -> str | None:
    """The bAbI task (``T1`` ... ``T5``) whose published train or dev file ``train`` is,
    by its SHA-256 or, failing that, its name; None for task 6's or any other file."""
    row = row_of(os.fspath(train), sha256_file(train))
    return row if row in ("T1", "T2", "T3", "T4", "T5") else None


def table2_tests(train: str, dev: str, tests: Sequence[str], candidates: str | None = None,
                 systems: Sequence[str] | None = None, resamples: int = 1000, seed: int = 0,
                 seeds: Sequence[int] = (0,), settings: Callable[[str], dict] | None = None,
                 rows_of: Sequence[str] | None = None) -> tuple[Table2, ...]:
    """``table2`` on each file of ``tests``, every system fitted once (per seed) and
    scored on all of them: one Table2 a test file. ``settings(name)``: a system's
    settings beyond its registry entry's (a task's, say); ``rows_of``: the paper's row of
    each test file (``evaluate.published.ROWS``; default: each file's own, ``paper_row``)."""
    seeds = checked_seeds(seeds)
    names = checked_names(systems)
    if not tests:
        raise Dstc2ConvError("no test file given")
    trn, dv = read_turns(train), read_turns(dev)
    tsts = [read_turns(test) for test in tests]
    if rows_of is None:
        rows_of = [row_of(test, sha256_file(test)) or "T6" for test in tests]
    check_data(os.fspath(train), os.fspath(dev), trn, dv)
    if candidates is not None:
        pool = read_candidates(candidates)
        candidates_from, candidates_sha = os.fspath(candidates), sha256_file(candidates)
    else:
        pool = distinct(t.gold for t in (*trn, *dv, *(t for tst in tsts for t in tst)))
        candidates_from = "TRN, DEV and TST" if len(tests) == 1 else "TRN, DEV and every TST"
        candidates_sha = None
    held = {c.strip() for c in pool}
    per_test, unavailable = _fitted_rows(names, pool, trn, dv, tsts, seeds, settings, rows_of)
    if not per_test[0]:
        raise Dstc2ConvError("none of the systems asked for is available: " +
                             "; ".join(f"{n}: {why}" for n, why in unavailable))
    tables = []
    for test, tst, rows, row in zip(tests, tsts, per_test, rows_of):
        missing = len({t.gold.strip() for t in tst} - held)
        files = _data(train, trn), _data(dev, dv), _data(test, tst)
        parts = [f"train:{files[0].sha256[:12]}", f"dev:{files[1].sha256[:12]}",
                 f"candidates:{candidates_sha[:12] if candidates_sha else 'trn+dev+tst'}"]
        signature = metrics.signature(files[2].sha256, parts, metrics.Inputs(tuple(tst), ()), ["accuracy"])
        tables.append(Table2(*files, len(pool), candidates_from, missing, _compared(rows, tst, resamples, seed),
                             tuple(unavailable), comparable(*files, candidates_sha), signature, seeds, row))
    return tuple(tables)


def checked_seeds(seeds: Sequence[int]) -> tuple[int, ...]:
    """The seeds as a tuple; a Dstc2ConvError for none, one given twice, or one that is no
    whole number from 0."""
    if isinstance(seeds, (str, int)) or not isinstance(seeds, Sequence):
        raise Dstc2ConvError(f"seeds: give a list of whole numbers, e.g. [0, 1, 2], not {seeds!r}")
    if not seeds:
        raise Dstc2ConvError("seeds: give one seed or more")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 2**63:
            raise Dstc2ConvError(f"seeds: {s!r} is not a whole number from 0 to 2**63 - 1")
    if len(set(seeds)) != len(seeds):
        raise Dstc2ConvError(f"seeds: a seed is given twice: {', '.join(map(str, seeds))}")
    return tuple(seeds)


__all__ = ["Table2", "Row", "Run", "checked_seeds", "DataFile", "table2", "table2_tests", "comparable", "paper_row",
           "BASE"]
