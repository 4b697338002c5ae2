"""Everything the report shows, gathered once: each system's figures with their 95%
intervals and differences from the baseline (``evaluate.intervals``), accuracy by
response kind and by dialog system, agreement between systems and their oracle, the
answers outside the candidates, entity F1 by slot, the model folders' curves and
attention, and every dialog's turns for the browser."""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..errors import Dstc2ConvError


@dataclass(frozen=True)
class ReportOptions:
    data: str
    systems: tuple[tuple[str, str], ...]     # (NAME, PREDS)
    models: tuple[tuple[str, str], ...] = ()  # (NAME, DIR)
    baseline: str | None = None
    manifest: str | None = None
    candidates: str | None = None
    kb: str | None = None
    resamples: int = 1000
    seed: int = 0
    attention: int = 100                      # turns with attention, per model folder


@dataclass(frozen=True)
class Report:
    options: ReportOptions
    names: tuple[str, ...]
    baseline: int
    turns: tuple = field(repr=False)
    dialogs: tuple = field(repr=False)
    predictions: tuple = field(repr=False)    # per system, a prediction per turn
    scored: tuple = field(repr=False)         # per system, metrics.Scored
    intervals: tuple = field(repr=False)      # per system, intervals.Intervals
    signature: str = ""
    dialog_systems: tuple | None = None       # per dialog of the file, S0, S1 ... (a manifest names them)
    outside: tuple | None = None              # per system, answers not among the candidates
    slots: tuple | None = None                # per system, entity F1 by slot
    models: tuple = ()                        # models.ModelView
    published: tuple | None = None


def _pairs(given, flag: str) -> tuple[tuple[str, str], ...]:
    out = []
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or not name or not path:
            raise Dstc2ConvError(f"{flag} {text!r}: give NAME=PATH")
        if name in (n for n, _ in out):
            raise Dstc2ConvError(f"{flag} {name}: the name is given twice")
        out.append((name, path))
    return tuple(out)


def parse_pairs(systems, models) -> tuple[tuple, tuple]:
    return _pairs(systems, "--system"), _pairs(models or (), "--model")


def _predictions(path: str, ref: str, turns) -> tuple[str, ...]:
    from ..evaluate import responses as r
    from ..evaluate.rankings import looks_ranked, read_rankings

    found = tuple(ranked[0] for ranked in read_rankings(path)) if looks_ranked(path) else r.read_predictions(path)
    r.check_count(path, found, ref, turns)
    return found


def _check(o: ReportOptions) -> int:
    names = [n for n, _ in o.systems]
    if not names:
        raise Dstc2ConvError("give one --system NAME=PREDS or more")
    for name, _ in o.models:
        if name not in names:
            raise Dstc2ConvError(f"--model {name}: no --system of that name (given: {', '.join(names)})")
    if o.baseline is not None and o.baseline not in names:
        raise Dstc2ConvError(f"--baseline {o.baseline}: no such system (given: {', '.join(names)})")
    return names.index(o.baseline) if o.baseline is not None else 0


def collect(o: ReportOptions) -> Report:
    from ..evaluate import metrics as m
    from ..evaluate.entities import find_kb
    from ..evaluate.intervals import bootstrap
    from ..evaluate.published import published
    from ..evaluate.sessions import read_sessions
    from ..files import sha256_file
    from ..task6.format import read_dialogs
    from ..task6.turns import turns_of

    base = _check(o)
    dialogs = read_dialogs(o.data)
    turns = tuple(turns_of(dialogs))
    if not turns:
        raise Dstc2ConvError("no bot turns", o.data)
    predictions = tuple(_predictions(path, o.data, turns) for _, path in o.systems)
    sessions = read_sessions(o.data, len(dialogs), o.manifest)
    kb = find_kb(o.kb, o.data, sessions)
    names = m.choose(None, "text", kb is not None)
    scored = tuple(m.compute(m.Inputs(turns, p, "text", None, "strip", kb), names) for p in predictions)
    found = tuple(bootstrap(list(scored), o.resamples, o.seed, base if len(scored) > 1 else None))
    data_sha = sha256_file(o.data)
    return Report(o, tuple(n for n, _ in o.systems), base, turns, tuple(dialogs), predictions, scored, found,
                  m.signature(data_sha, [], scored[0].inputs, names),
                  None if sessions is None else sessions.systems, _outside(o.candidates, predictions),
                  _slots(scored) if kb is not None else None, _models(o, turns, scored), published(data_sha))


def _outside(candidates: str | None, predictions) -> tuple | None:
    if candidates is None:
        return None
    from ..task6.candidates import read_candidates

    known = {c.strip() for c in read_candidates(candidates)}
    return tuple({"outside": sum(1 for p in found if p.strip() not in known), "answers": len(found)}
                 for found in predictions)


def _slots(scored) -> tuple:
    from .slots import by_slot

    return tuple(by_slot(s.inputs.predictions, s.inputs.turns, s.inputs.lookups) for s in scored)


def _models(o: ReportOptions, turns, scored) -> tuple:
    from .models import view

    index = {n: i for i, (n, _) in enumerate(o.systems)}
    out = []
    for name, folder in o.models:
        if not os.path.isdir(folder):
            raise Dstc2ConvError("no such model folder", folder)
        out.append(view(name, folder, turns, scored[index[name]].outcomes, o.attention))
    return tuple(out)
