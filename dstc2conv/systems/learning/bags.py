"""Bags of words as padded id arrays (``(..., L)``, 0 for no word): their embedding (the
sum of the rows of their words) and the gradient of that sum scattered back to the rows.
Both walk only the real words, in a fixed order, so results do not depend on threads."""
from __future__ import annotations

import numpy as np


def embed(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The sum of ``table``'s rows of each bag's words: shape ``ids.shape[:-1] + (d,)``."""
    flat = ids.reshape(-1, ids.shape[-1])
    keep = flat != 0
    counts = keep.sum(axis=1)
    out = np.zeros((len(flat), table.shape[1]), dtype=table.dtype)
    full = np.flatnonzero(counts)
    if len(full):
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))[full]
        out[full] = np.add.reduceat(table[flat[keep]], starts, axis=0)
    return out.reshape(ids.shape[:-1] + (table.shape[1],))


def scatter(target: np.ndarray, ids: np.ndarray, grads: np.ndarray) -> None:
    """``target[w] += grads[bag]`` for each word ``w`` of each bag (the gradient of
    ``embed``); ids ``(..., L)``, grads ``(..., d)``."""
    flat = ids.reshape(-1, ids.shape[-1])
    keep = flat != 0
    words = flat[keep]
    if not len(words):
        return
    bags = np.broadcast_to(np.arange(len(flat))[:, None], flat.shape)[keep]
    order = np.argsort(words, kind="stable")
    words, bags = words[order], bags[order]
    starts = np.flatnonzero(np.concatenate(([True], words[1:] != words[:-1])))
    target[words[starts]] += np.add.reduceat(grads.reshape(-1, grads.shape[-1])[bags], starts, axis=0)
