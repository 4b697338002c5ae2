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
from .interface import progress_lines, run
from .mistakes import check_data

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
class Row:
    name: str
    description: str
    paper: tuple[float, float | None]     # the reported per-response and per-dialog accuracy, in percent
    accuracy: dict                        # the registry's accuracy figures
    outcomes: tuple[bool, ...] = field(repr=False)
    fit_seconds: float
    predict_seconds: float
    versus: Bootstrap | None = None       # against the rules: the paired bootstrap
    difference: float | None = None       # per-response accuracy, this system's - the rules'

    def to_dict(self) -> dict:
        out = {k: v for k, v in self.accuracy.items()}
        out["paper"] = {"per_response": round(self.paper[0] / 100, 4),
                        "per_dialog": None if self.paper[1] is None else round(self.paper[1] / 100, 4)}
        if self.versus is not None:
            out["vs_rules"] = {"difference": self.difference, **self.versus.to_dict()}
        out["seconds"] = {"fit": round(self.fit_seconds, 3), "predict": round(self.predict_seconds, 3)}
        out["description"] = self.description
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

    def to_dict(self) -> dict:
        return {"test": self.test.to_dict(), "train": self.train.to_dict(), "dev": self.dev.to_dict(),
                "candidates": {"count": self.candidates, "from": self.candidates_from,
                               "missing_gold": self.missing_gold},
                "note": self.note, "paper": SOURCE, "signature": self.signature,
                "systems": {row.name: row.to_dict() for row in self.rows},
                "unavailable": dict(self.unavailable)}


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


def _fitted_rows(names: Sequence[str], pool: tuple[str, ...], trn, dv, tst) -> tuple[list[Row], list[tuple[str, str]]]:
    """Each system fitted on TRN (choices on DEV) and scored on TST; and the ones not installed, with why."""
    rows: list[Row] = []
    unavailable: list[tuple[str, str]] = []
    for name in names:
        entry = registry.entry(name)
        try:
            system = entry.build(pool)
        except registry.NotAvailable as exc:
            unavailable.append((name, str(exc).partition(": ")[2]))
            continue
        with stopwatch(f"table2: {name}"):
            start = time.perf_counter()
            system.fit(trn, dv)
            fitted = time.perf_counter()
            predictions = [r[0] for r in run(system, tst, 1, progress=progress_lines("predicting"))]
            done = time.perf_counter()
        scored = metrics.compute(metrics.Inputs(tuple(tst), tuple(predictions)), ["accuracy"])
        accuracy = scored.figures["accuracy"]
        note(f"table2: {name}: {accuracy['per_response']:.2%} per response "
             f"(fit {fitted - start:.1f} s, predict {done - fitted:.1f} s)")
        rows.append(Row(name, entry.description, entry.reported, accuracy, tuple(scored.outcomes),
                        fitted - start, done - fitted))
    return rows, unavailable


def table2(train: str, dev: str, test: str, candidates: str | None = None, systems: Sequence[str] | None = None,
           resamples: int = 1000, seed: int = 0) -> Table2:
    """Every system of ``systems`` (default: the whole registry) fitted on ``train`` with
    ``dev``, run on ``test``; the ones not installed are listed as unavailable."""
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
    rows, unavailable = _fitted_rows(names, pool, trn, dv, tst)
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
                  comparable(*files, candidates_sha), signature)


__all__ = ["Table2", "Row", "DataFile", "table2", "comparable", "BASE"]
