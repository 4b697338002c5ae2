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
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..errors import Dstc2ConvError
from ..evaluate import metrics
from ..evaluate.published import SOURCE, published
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
    paper: tuple[float, float | None]     # the reported per-response and per-dialog accuracy, in percent
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
        out["paper"] = {"per_response": round(self.paper[0] / 100, 4),
                        "per_dialog": None if self.paper[1] is None else round(self.paper[1] / 100, 4)}
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

    def to_dict(self) -> dict:
        return {"test": self.test.to_dict(), "train": self.train.to_dict(), "dev": self.dev.to_dict(),
                "candidates": {"count": self.candidates, "from": self.candidates_from,
                               "missing_gold": self.missing_gold},
                "note": self.note, "paper": SOURCE, "signature": self.signature,
                "systems": {row.name: row.to_dict() for row in self.rows},
                "unavailable": dict(self.unavailable), "seeds": list(self.seeds)}


def _data(path: str, turns: Sequence) -> DataFile:
    sha = sha256_file(path)
    known = published(sha)
    return DataFile(os.fspath(path), sha, len(turns), known and known[0], known and known[1])


def comparable(train: DataFile, dev: DataFile, test: DataFile, candidates_sha: str | None) -> str:
    """What figures on TST may be compared with: the paper's, when TST is the published
    test file, TRN and DEV the published train and dev files, and the candidates the
    paper's set."""
    if test.split != "test":
        if test.published:
            return (f"TST is the published {test.split} file ({test.published}), not the test file: the paper's "
                    "figures are on the test file; compare with figures on this file only")
        return "TST is no published task-6 file: its figures compare only with figures on the same file"
    differ = [f"{label} is not the published {split} file" for label, data, split in
              (("TRN", train, "train"), ("DEV", dev, "dev")) if data.split != split]
    if candidates_sha is not None and published(candidates_sha) is None:
        differ.append("the candidates are not the published candidates file")
    where = f"TST is the published test file ({test.published})"
    if differ:
        return f"{where}, but {'; '.join(differ)}: the paper's figures are a guide, not a like-for-like comparison"
    return f"{where}, TRN and DEV the published ones, the candidates the paper's set: comparable with the paper's row"


def _run(name: str, system, seed: int | None, trn, dv, tst) -> Run:
    """``system`` fitted on TRN (choices on DEV) and run on TST."""
    shown = name if seed is None else f"{name} (seed {seed})"
    with stopwatch(f"table2: {shown}"):
        start = time.perf_counter()
        system.fit(trn, dv)
        fitted = time.perf_counter()
        predictions = [r[0] for r in run(system, tst, 1, progress=progress_lines("predicting"))]
        done = time.perf_counter()
    scored = metrics.compute(metrics.Inputs(tuple(tst), tuple(predictions)), ["accuracy"])
    accuracy = scored.figures["accuracy"]
    note(f"table2: {shown}: {accuracy['per_response']:.2%} per response "
         f"(fit {fitted - start:.1f} s, predict {done - fitted:.1f} s)")
    return Run(seed, accuracy, tuple(scored.outcomes), fitted - start, done - fitted)


def _fitted_rows(names: Sequence[str], pool: tuple[str, ...], trn, dv, tst,
                 seeds: Sequence[int] = (0,), task: str | None = None) -> tuple[list[Row], list[tuple[str, str]]]:
    """Each system fitted on TRN (choices on DEV) and scored on TST, once per seed if its
    training draws random numbers (``System.seeded``), with its settings for ``task``
    (``task_settings``); and the ones not installed, with why."""
    rows: list[Row] = []
    unavailable: list[tuple[str, str]] = []
    for name in names:
        entry = registry.entry(name)
        try:
            system = entry.build(pool, **settings_for(name, task))
        except registry.NotAvailable as exc:
            unavailable.append((name, str(exc).partition(": ")[2]))
            continue
        if system.seeded():
            runs = tuple(_run(name, clone(system, seed=seed), seed, trn, dv, tst) for seed in seeds)
        else:
            runs = (_run(name, system, None, trn, dv, tst),)
        rows.append(Row(name, entry.description, entry.reported, runs))
    return rows, unavailable


def table2(train: str, dev: str, test: str, candidates: str | None = None, systems: Sequence[str] | None = None,
           resamples: int = 1000, seed: int = 0, seeds: Sequence[int] = (0,), task: str | None = None) -> Table2:
    """Every system of ``systems`` (default: the whole registry) fitted on ``train`` with
    ``dev``, run on ``test``; the ones not installed are listed as unavailable. A system
    whose training draws random numbers is fitted once per seed of ``seeds``; ``seed``
    is the bootstrap's. ``task`` ("T1" to "T5", a bAbI dialog task): each system is built
    with the settings chosen for it on that task (``task_settings.settings_for``)."""
    seeds = checked_seeds(seeds)
    names = list(registry.NAMES if systems is None else systems)
    if not names:
        raise Dstc2ConvError(f"no system named: give some of {', '.join(registry.NAMES)}")
    for name in names:
        registry.entry(name)
    if len(set(names)) != len(names):
        raise Dstc2ConvError(f"a system is named twice: {', '.join(names)}")
    trn, dv, tst = read_turns(train), read_turns(dev), read_turns(test)
    check_data(os.fspath(train), os.fspath(dev), trn, dv)
    if candidates is not None:
        pool = read_candidates(candidates)
        candidates_from, candidates_sha = os.fspath(candidates), sha256_file(candidates)
    else:
        pool = distinct(t.gold for t in (*trn, *dv, *tst))
        candidates_from, candidates_sha = "TRN, DEV and TST", None
    held = {c.strip() for c in pool}
    missing = len({t.gold.strip() for t in tst} - held)
    rows, unavailable = _fitted_rows(names, pool, trn, dv, tst, seeds, task)
    if not rows:
        raise Dstc2ConvError("none of the systems asked for is available: " +
                             "; ".join(f"{n}: {why}" for n, why in unavailable))
    base = next((row for row in rows if row.name == BASE), None)
    if base is not None:
        compared = []
        for row in rows:
            if row is base:
                compared.append(row)
                continue
            boot = paired_bootstrap(base.outcomes, row.outcomes, tst, resamples, seed)
            difference = (sum(row.outcomes) - sum(base.outcomes)) / len(tst)
            compared.append(replace(row, versus=boot, difference=difference))
        rows = compared
    files = _data(train, trn), _data(dev, dv), _data(test, tst)
    parts = [f"train:{files[0].sha256[:12]}", f"dev:{files[1].sha256[:12]}",
             f"candidates:{candidates_sha[:12] if candidates_sha else 'trn+dev+tst'}"]
    signature = metrics.signature(files[2].sha256, parts, metrics.Inputs(tuple(tst), ()), ["accuracy"])
    return Table2(*files, len(pool), candidates_from, missing, tuple(rows), tuple(unavailable),
                  comparable(*files, candidates_sha), signature, seeds)


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


__all__ = ["Table2", "Row", "Run", "checked_seeds", "DataFile", "table2", "comparable", "BASE"]
