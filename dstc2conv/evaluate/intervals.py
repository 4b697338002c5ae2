"""95% intervals of every metric by the bootstrap over dialogs, and the paired difference
of two systems' figures with its interval.

The turns of a dialog are not independent (a wrong api_call takes the offers after it
along), so a resample draws dialogs, not turns: D dialogs with replacement out of the D
dialogs of the file. Each metric's figure is a function of sums of per-turn statistics
(the registry computes them in two steps, as sacrebleu does), so each dialog is reduced
once to the sums of its turns (``dialog_sums``), a resample is a vector of how often each
dialog is drawn, and the figures of every resample are the same function of the
weighted sums: one matrix product for all metrics and systems, no turn re-read and no
text re-tokenised (sacrebleu's paired bootstrap for BLEU works on sufficient statistics
the same way).

The draws: ``numpy.random.default_rng(seed).integers(0, D, size=(resamples, D))``; row r
is resample r. The interval runs from the (k+1)-th smallest to the (k+1)-th largest
figure over the resamples, k = floor(0.025 * resamples), as the paired bootstrap of
``responses.paired_bootstrap``. The figure itself is the one on the file, not a mean of
the resamples.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import Dstc2ConvError
from .metrics import SLOTS

RESAMPLES = 1000


def _div(a, b):
    """a / b elementwise, 0 where b is 0."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = np.zeros(np.broadcast(a, b).shape)
    np.divide(a, b, out=out, where=b != 0)
    return out


def _f1(tp, fp, fn) -> dict:
    precision, recall = _div(tp, tp + fp), _div(tp, tp + fn)
    return {"precision": precision, "recall": recall, "f1": _div(2 * precision * recall, precision + recall)}


def _bleu(s) -> dict:
    """multi-bleu.perl's figure (``bleu.corpus_bleu``) of each row of summed statistics:
    hyp_len, ref_len, matched 1..4, total 1..4."""
    hyp, ref, matched, total = s[..., 0], s[..., 1], s[..., 2:6], s[..., 6:10]
    precisions = _div(matched, total)
    bp = np.where(hyp < ref, np.exp(1 - _div(ref, np.maximum(hyp, 1))), 1.0)
    ok = (precisions.min(axis=-1) > 0) & (hyp > 0)
    logs = np.log(np.where(precisions > 0, precisions, 1.0)).mean(axis=-1)
    return {"bleu": np.where(ok, 100 * bp * np.exp(logs), 0.0)}


def _columns(name: str, stats: Sequence, turns) -> list[tuple]:
    """Per turn, the numbers whose sums give the metric's figures (see ``_FIGURES``)."""
    if name == "bleu":
        return [(s.hyp_len, s.ref_len, *s.matched, *s.total) for s in stats]
    if name == "entity_f1_mem2seq":
        from .metrics import _f1 as f1
        return [(f1(tp, fp, fn)[2] if has else 0.0, int(has), tp, fn) for tp, fp, fn, has in stats]
    if name == "entity_micro":
        return [(tp, fp, fn) for tp, fp, fn, _ in stats]
    if name == "entity_recall":
        return [(tp, fn) for tp, _, fn, _ in stats]
    if name == "api_call":
        return [(0, 0, 0, 0, 0) if s is None else (int(s[0]), 1, *map(int, s[1:])) for s in stats]
    if name == "mrr":
        return [(1 / r if r else 0.0, 1) for r in stats]
    if name.startswith(("hits@", "p@")):
        k = int(name.split("@")[1])
        return [(int(r is not None and r <= k), 1) for r in stats]
    raise Dstc2ConvError(f"no interval for the metric {name}")


_FIGURES = {
    "bleu": _bleu,
    "entity_f1_mem2seq": lambda s: {"f1": _div(s[..., 0], s[..., 1]), "recall": _div(s[..., 2], s[..., 2] + s[..., 3])},
    "entity_micro": lambda s: _f1(s[..., 0], s[..., 1], s[..., 2]),
    "entity_recall": lambda s: {"recall": _div(s[..., 0], s[..., 0] + s[..., 1])},
    "api_call": lambda s: {"accuracy": _div(s[..., 0], s[..., 1]),
                           **{slot: _div(s[..., 2 + i], s[..., 1]) for i, slot in enumerate(SLOTS)}},
    "mrr": lambda s: {"mrr": _div(s[..., 0], s[..., 1])},
    "accuracy": lambda s: {"per_response": _div(s[..., 0], s[..., 1]), "per_dialog": _div(s[..., 2], s[..., 3])},
    "task_success": lambda s: {"success": _div(s[..., 0], s[..., 1])},
}


def figures_of(name: str, sums: np.ndarray) -> dict[str, np.ndarray]:
    """The metric's figures from summed per-dialog statistics (the last axis)."""
    if name in _FIGURES:
        return _FIGURES[name](sums)
    key = "hits" if name.startswith("hits@") else "precision"
    return {key: _div(sums[..., 0], sums[..., 1])}


def dialog_index(turns) -> tuple[np.ndarray, int]:
    """The position of each turn's dialog among the dialogs that have bot turns (in file
    order), and their count."""
    order = {d: i for i, d in enumerate(dict.fromkeys(t.dialog for t in turns))}
    return np.fromiter((order[t.dialog] for t in turns), dtype=np.intp, count=len(turns)), len(order)


def dialog_sums(name: str, stats: Sequence, turns, index: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """One row per dialog that has bot turns (in file order): the sums of its turns'
    numbers. Accuracy and task success are decided per dialog too: (right turns, turns,
    1 when every turn is right, 1); (1 when every checked turn is right, 1 when a turn
    is checked)."""
    of, count = index if index is not None else dialog_index(turns)
    if name in ("accuracy", "task_success"):
        checked = np.array([s is not None for s in stats], dtype=bool)
        right = np.array([bool(s) for s in stats], dtype=bool)
        n = np.bincount(of[checked], minlength=count)
        r = np.bincount(of[checked & right], minlength=count)
        every = (n == r).astype(float)
        if name == "accuracy":
            return np.stack([r, n, every, np.ones(count)], axis=1).astype(float)
        return np.stack([every * (n > 0), (n > 0).astype(float)], axis=1)
    rows = np.asarray(_columns(name, stats, turns), dtype=float).reshape(len(turns), -1)
    out = np.zeros((count, rows.shape[1]))
    np.add.at(out, of, rows)
    return out


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion, ``successes`` of ``n`` (independent
    outcomes: whole dialogs). Unlike the bootstrap's, it is not empty at 0 or n."""
    if n < 1 or not 0 <= successes <= n:
        raise Dstc2ConvError(f"{successes} successes of {n}: give 0 to n successes of n >= 1")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


CHUNK = 4_000_000   # draws held at once: resamples are drawn in blocks of rows, so memory stays bounded


def weights(dialogs: int, resamples: int = RESAMPLES, seed: int = 0):
    """How often each dialog is drawn in each resample: blocks of rows of the
    (resamples, dialogs) matrix, in order; together the rows of
    ``default_rng(seed).integers(0, dialogs, size=(resamples, dialogs))`` counted."""
    if resamples < 1 or dialogs < 1:
        raise Dstc2ConvError(f"{resamples} resamples of {dialogs} dialogs: give 1 or more of each")
    rng = np.random.default_rng(seed)
    rows = max(1, CHUNK // dialogs)
    for start in range(0, resamples, rows):
        n = min(rows, resamples - start)
        drawn = rng.integers(0, dialogs, size=(n, dialogs))
        flat = (np.arange(n)[:, None] * dialogs + drawn).ravel()
        yield np.bincount(flat, minlength=n * dialogs).reshape(n, dialogs).astype(float)


def _bounds(values: np.ndarray) -> tuple[float, float]:
    ordered = np.sort(values)
    k = len(ordered) // 40
    return float(ordered[k]), float(ordered[len(ordered) - 1 - k])


@dataclass(frozen=True)
class Intervals:
    """The 95% intervals of one system's figures: ``figures[metric][figure] = (low, high)``;
    with a baseline, ``differences[metric][figure] = (difference, low, high,
    share_not_better)``: this system's figure minus the baseline's."""
    resamples: int
    seed: int
    dialogs: int
    figures: dict
    differences: dict | None = None

    def to_dict(self) -> dict:
        out = {"resamples": self.resamples, "seed": self.seed, "dialogs": self.dialogs,
               "metrics": {m: {f: {"low": lo, "high": hi} for f, (lo, hi) in fs.items()}
                           for m, fs in self.figures.items()}}
        if self.differences is not None:
            out["differences"] = {m: {f: {"difference": d, "low": lo, "high": hi, "share_not_better": nb}
                                      for f, (d, lo, hi, nb) in fs.items()} for m, fs in self.differences.items()}
        return out


def _resampled(scored: Sequence, dialogs: int, resamples: int, seed: int) -> list[dict]:
    """Per system: metric -> figure -> (figure on the file, figures of the resamples).
    Every system's and metric's per-dialog sums side by side in one matrix: one product
    per block of resamples (many small products cost more than one, BLAS threads aside)."""
    index = dialog_index(scored[0].inputs.turns)
    sums = [{name: dialog_sums(name, s.stats[name], s.inputs.turns, index) for name in s.names} for s in scored]
    tables = [table for found in sums for table in found.values()]
    together = np.concatenate(tables, axis=1)
    drawn = np.concatenate([w @ together for w in weights(dialogs, resamples, seed)])
    result, column = [], 0
    for found in sums:
        per = {}
        for name, table in found.items():
            whole = figures_of(name, table.sum(axis=0))
            part = drawn[:, column:column + table.shape[1]]
            column += table.shape[1]
            per[name] = {f: (float(whole[f]), v) for f, v in figures_of(name, part).items()}
        result.append(per)
    return result


def bootstrap(scored: Sequence, resamples: int = RESAMPLES, seed: int = 0,
              baseline: int | None = None) -> list[Intervals]:
    """The intervals of each scored system (``metrics.Scored``, all on the same turns),
    from the same resamples; with ``baseline`` (a position in ``scored``), each other
    system's differences from it (paired: the same dialogs drawn for both)."""
    if not scored:
        return []
    turns = scored[0].inputs.turns
    dialogs = len({t.dialog for t in turns})
    found = _resampled(scored, dialogs, resamples, seed)
    out = []
    for i, f in enumerate(found):
        figures = {m: {k: _bounds(v) for k, (_, v) in fs.items()} for m, fs in f.items()}
        differences = None
        if baseline is not None and i != baseline:
            base = found[baseline]
            differences = {}
            for m, fs in f.items():
                if m not in base:
                    continue
                differences[m] = {}
                for k, (value, v) in fs.items():
                    delta = v - base[m][k][1]
                    differences[m][k] = (value - base[m][k][0], *_bounds(delta), float(np.mean(delta <= 0)))
        out.append(Intervals(resamples, seed, dialogs, figures, differences))
    return out
