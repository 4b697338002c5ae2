"""The chooser's model: a multinomial logistic regression over the responses a turn
allows (a conditional logit), numpy only, with hand-written gradients.

A turn's columns are the actions of train (``A`` of them), which the action mask limits
to those the state can fill, then one column per rule proposal that is no action of
train (scored with the row ``UNK``). A column's score is ``W[x, a].sum() + u[f].sum()``:
``x`` the turn's features, ``a`` the column's action (``UNK`` for the extra ones), ``f``
the column's own features (which rules propose it, whether it is the rules' choice, ...).
The loss is the mean negative log-likelihood of the gold column over the turns whose gold
is among their columns, plus ``l2 / 2`` times the squared weights.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .settings import Settings


@dataclass(frozen=True)
class Batch:
    """Turns encoded: features in CSR (``x_ptr``, ``x_idx``), the availability bits of each
    source (``avail``, turns x sources), the extra columns per turn (``extra``), the
    columns' own features as triples (``cf_turn``, ``cf_col``, ``cf_feat``; a column at or
    past ``A`` is an extra one), and the gold column (-1: not among the columns)."""
    x_ptr: np.ndarray
    x_idx: np.ndarray
    avail: np.ndarray
    extra: np.ndarray
    cf_turn: np.ndarray
    cf_col: np.ndarray
    cf_feat: np.ndarray
    gold: np.ndarray
    off_turn: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # more masked (turn, column)
    off_col: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.gold)

    def take(self, rows: np.ndarray) -> Batch:
        """The turns ``rows`` (in that order), as a batch of their own."""
        rows = np.asarray(rows, dtype=np.int64)
        lengths = self.x_ptr[rows + 1] - self.x_ptr[rows]
        ptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=ptr[1:])
        idx = np.concatenate([self.x_idx[self.x_ptr[r]:self.x_ptr[r + 1]] for r in rows]) if len(rows) else \
            np.zeros(0, dtype=np.int64)
        where = np.full(len(self.gold), -1, dtype=np.int64)
        where[rows] = np.arange(len(rows))
        keep = where[self.cf_turn] >= 0
        off = where[self.off_turn] >= 0
        return Batch(ptr, idx, self.avail[rows], self.extra[rows], where[self.cf_turn[keep]], self.cf_col[keep],
                     self.cf_feat[keep], self.gold[rows], where[self.off_turn[off]], self.off_col[off])


@dataclass(frozen=True)
class Shape:
    """What the weights' shapes and the mask need: the action count, each action's source
    (an index) and the availability bits it needs."""
    source: np.ndarray     # (A,) int
    needs: np.ndarray      # (A,) int

    @property
    def actions(self) -> int:
        return len(self.source)


def mask(shape: Shape, batch: Batch) -> np.ndarray:
    """(turns, A + max extra) bool: the columns each turn allows."""
    have = batch.avail[:, shape.source]                       # (B, A)
    ok = (have & shape.needs) == shape.needs
    width = int(batch.extra.max()) if len(batch.extra) else 0
    extra = np.arange(width)[None, :] < batch.extra[:, None]
    return np.concatenate([ok, extra], axis=1)


def rows_sum(W: np.ndarray, batch: Batch) -> np.ndarray:
    """(turns, W's columns): each turn's sum of the rows of W its features name."""
    ptr, idx = batch.x_ptr, batch.x_idx
    out = np.zeros((len(batch), W.shape[1]))
    for t in range(len(batch)):
        out[t] = W[idx[ptr[t]:ptr[t + 1]]].sum(axis=0)
    return out


def rows_add(dW: np.ndarray, batch: Batch, dS: np.ndarray) -> None:
    """Add each turn's row of ``dS`` to the rows of ``dW`` its features name (a turn names
    each feature once)."""
    ptr, idx = batch.x_ptr, batch.x_idx
    for t in range(len(batch)):
        dW[idx[ptr[t]:ptr[t + 1]]] += dS[t]


def scores(W: np.ndarray, u: np.ndarray, shape: Shape, batch: Batch) -> np.ndarray:
    """(turns, columns) scores, -inf where the mask forbids."""
    A = shape.actions
    S = rows_sum(W, batch)
    allowed = mask(shape, batch)
    width = allowed.shape[1]
    Z = np.empty((len(batch), width))
    Z[:, :A] = S[:, :A]
    Z[:, A:] = S[:, A:A + 1]
    np.add.at(Z, (batch.cf_turn, batch.cf_col), u[batch.cf_feat])
    Z[~allowed] = -np.inf
    Z[batch.off_turn, batch.off_col] = -np.inf
    return Z


def loss_and_grad(W: np.ndarray, u: np.ndarray, shape: Shape, batch: Batch, l2: float, l2_columns: float | None = None):
    """The loss over the turns with a gold column, and its gradients (dW, du); ``l2``
    penalises W, ``l2_columns`` u (default: ``l2`` too)."""
    l2u = l2 if l2_columns is None else l2_columns
    A = shape.actions
    Z = scores(W, u, shape, batch)
    rows = np.flatnonzero(batch.gold >= 0)
    n = max(len(rows), 1)
    Zr = Z[rows]
    top = Zr.max(axis=1, keepdims=True)
    E = np.exp(Zr - top)
    total = E.sum(axis=1, keepdims=True)
    P = E / total
    gold = batch.gold[rows]
    nll = (np.log(total[:, 0]) + top[:, 0] - Zr[np.arange(len(rows)), gold]).sum() / n
    loss = nll + 0.5 * l2 * np.sum(W * W) + 0.5 * l2u * np.sum(u * u)
    G = np.zeros_like(Z)
    G[rows] = P
    G[rows, gold] -= 1.0
    G /= n
    # through the columns' own features
    du = np.bincount(batch.cf_feat, weights=G[batch.cf_turn, batch.cf_col], minlength=len(u)) + l2u * u
    # through the actions' rows: dS (turns, A + 1), the extra columns all on UNK
    dS = np.empty((len(batch), A + 1))
    dS[:, :A] = G[:, :A]
    dS[:, A] = G[:, A:].sum(axis=1)
    dW = l2 * W
    rows_add(dW, batch, dS)
    return loss, dW, du


def train(shape: Shape, batch: Batch, features: int, cand_features: int, settings: Settings,
          progress=None) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Weights (W, u) fitted by Adam on minibatches in an order drawn from ``seed``;
    the mean loss of each epoch."""
    rng = np.random.default_rng(settings.seed)
    W = np.zeros((features, shape.actions + 1))
    u = np.zeros(cand_features)
    params = [W, u]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    step = 0
    usable = np.flatnonzero(batch.gold >= 0)
    history = []
    for epoch in range(settings.epochs):
        order = usable[rng.permutation(len(usable))]
        total = 0.0
        for start in range(0, len(order), settings.batch):
            part = batch.take(np.sort(order[start:start + settings.batch]))
            loss, dW, du = loss_and_grad(W, u, shape, part, settings.l2, settings.l2_columns)
            total += loss * len(part)
            step += 1
            for p, g, mi, vi in zip(params, (dW, du), m, v):
                mi *= b1
                mi += (1 - b1) * g
                vi *= b2
                vi += (1 - b2) * g * g
                p -= settings.rate * (mi / (1 - b1 ** step)) / (np.sqrt(vi / (1 - b2 ** step)) + eps)
        history.append(total / max(len(usable), 1))
        if progress is not None:
            progress(epoch + 1, settings.epochs, history[-1])
    return W, u, history


__all__ = ["Batch", "Shape", "Settings", "rows_sum", "rows_add", "mask", "scores", "loss_and_grad", "train"]
