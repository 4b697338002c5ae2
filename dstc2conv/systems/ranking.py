"""From scores to a ranking, with the one tie rule every ranking system follows.

Scores within ``TIE`` of the best are tied for first place, and the first of them, in
candidate order, wins. The rest follow by score, highest first, equal scores in
candidate order. ``best(scores, k)`` gives the positions of the ``k`` best; a system
that scores its candidates (TF-IDF, the learned models) ranks with it.
"""
from __future__ import annotations

import numpy as np

TIE = 1e-9


def first_best(scores: np.ndarray) -> int:
    """The position of the first score within ``TIE`` of the highest."""
    top = scores.max()
    if np.isnan(top):
        raise ValueError("a score is NaN")
    return int(np.argmax(scores >= top - TIE))


def best(scores: np.ndarray, k: int) -> list[int]:
    """The positions of the ``k`` best scores (all of them when there are fewer), best
    first: ``first_best``, then the others by score, highest first, ties in order."""
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or not len(scores):
        raise ValueError("give a non-empty one-dimensional array of scores")
    first = first_best(scores)
    if k <= 1:
        return [first]
    if k >= len(scores):
        kept = np.arange(len(scores))
    else:   # every position scoring at least the k-th highest score: the k-1 best of the others are among them
        kept = np.flatnonzero(scores >= -np.partition(-scores, k - 1)[k - 1])
    order = kept[np.argsort(-scores[kept], kind="stable")]
    return [first, *(int(i) for i in order[order != first][:k - 1])]


__all__ = ["TIE", "first_best", "best"]
