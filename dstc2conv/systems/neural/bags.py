"""Bags of words as padded id arrays (``(..., L)``, 0 for no word): their embedding (the
sum of the rows of their words) and the gradient of that sum scattered back to the rows.
Both walk only the real words, in a fixed order, so results do not depend on threads."""
from __future__ import annotations

import numpy as np

from .text import Vocabulary


def bags_of(vocab: Vocabulary, texts) -> np.ndarray:
    """The texts' word counts, (texts, vocabulary) float32; unknown words left out."""
    ids = [vocab.ids(t) for t in texts]
    out = np.zeros((len(ids), len(vocab)), dtype=np.float32)
    np.add.at(out, (np.repeat(np.arange(len(ids)), [len(i) for i in ids]),
                    np.fromiter((w for i in ids for w in i), dtype=np.int64)), 1)
    return out


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


def plan(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How ``scatter`` walks the bags ``ids`` (``(..., L)``): their words sorted, the bag
    of each, where each word's run starts. Worth keeping for bags that do not change."""
    flat = ids.reshape(-1, ids.shape[-1])
    keep = flat != 0
    words = flat[keep]
    bags = np.broadcast_to(np.arange(len(flat))[:, None], flat.shape)[keep]
    order = np.argsort(words, kind="stable")
    words, bags = words[order], bags[order]
    starts = np.flatnonzero(np.concatenate(([True], words[1:] != words[:-1]))) if len(words) else words
    return words[starts], bags, starts


def scatter(target: np.ndarray, ids: np.ndarray | tuple, grads: np.ndarray) -> None:
    """``target[w] += grads[bag]`` for each word ``w`` of each bag (the gradient of
    ``embed``); ids ``(..., L)`` or their ``plan``, grads ``(..., d)``."""
    words, bags, starts = plan(ids) if isinstance(ids, np.ndarray) else ids
    if len(words):
        target[words] += np.add.reduceat(grads.reshape(-1, grads.shape[-1])[bags], starts, axis=0)
