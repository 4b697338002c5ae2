"""How the chooser is trained: the loss of a multinomial logistic regression over the
responses a turn allows (a conditional logit), numpy only, with hand-written gradients,
minimised by the trainer's own L-BFGS.

A turn's columns are the actions of train (``A`` of them), which the action mask limits
to those the state can fill, then one column per rule proposal that is no action of
train (scored with the row ``UNK``). A column's score is ``W[x, a].sum() + u[f].sum()``:
``x`` the turn's features, ``a`` the column's action (``UNK`` for the extra ones), ``f``
the column's own features (which rules propose it, whether it is the rules' choice, ...).
The loss is the mean negative log-likelihood of the gold column over the turns whose gold
is among their columns, plus ``l2 / 2`` times the squared weights: convex, and minimised
by L-BFGS over all the training turns at once.
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


@dataclass(frozen=True)
class Prepared:
    """What the scores of a batch need, whatever the weights: its features as a sparse
    matrix (turns x features), the columns it allows, and where the columns' own features
    fall in the scores (each (turn, column) pair once: ``pairs``, flat indices; ``of_pair``,
    each triple's pair)."""
    X: object          # scipy.sparse.csr_matrix
    allowed: np.ndarray
    pairs: np.ndarray
    of_pair: np.ndarray
    cf_feat: np.ndarray
    actions: int


def prepare(shape: Shape, batch: Batch, features: int) -> Prepared:
    from scipy import sparse

    X = sparse.csr_matrix((np.ones(len(batch.x_idx)), batch.x_idx, batch.x_ptr), shape=(len(batch), features))
    allowed = mask(shape, batch)
    allowed[batch.off_turn, batch.off_col] = False
    flat = batch.cf_turn * allowed.shape[1] + batch.cf_col
    pairs, of_pair = np.unique(flat, return_inverse=True)
    return Prepared(X, allowed, pairs, of_pair.reshape(-1), batch.cf_feat, shape.actions)


def _scores(W: np.ndarray, u: np.ndarray, p: Prepared) -> np.ndarray:
    A = p.actions
    S = p.X @ W                                               # (turns, A + 1)
    Z = np.empty(p.allowed.shape)
    Z[:, :A] = S[:, :A]
    Z[:, A:] = S[:, A:A + 1]
    Z.ravel()[p.pairs] += np.bincount(p.of_pair, weights=u[p.cf_feat], minlength=len(p.pairs))
    Z[~p.allowed] = -np.inf
    return Z


def scores(W: np.ndarray, u: np.ndarray, shape: Shape, batch: Batch) -> np.ndarray:
    """(turns, columns) scores, -inf where the mask forbids."""
    return _scores(W, u, prepare(shape, batch, W.shape[0]))


def _summed(W: np.ndarray, u: np.ndarray, p: Prepared, gold: np.ndarray):
    """The negative log-likelihood summed over the turns whose gold column is ``gold``
    (-1: none), and its gradients (dW, du): no mean, no penalty."""
    A = p.actions
    has = gold >= 0
    rows, cols = np.flatnonzero(has), gold[has]
    G = _scores(W, u, p)                    # the scores, made the gradient in place
    with np.errstate(invalid="ignore", divide="ignore"):     # a turn that allows nothing has no gold
        G -= G.max(axis=1, keepdims=True)
        picked = G[rows, cols]
        np.exp(G, out=G)
        total = G.sum(axis=1)
        nll = float((np.log(total[rows]) - picked).sum())
        G /= total[:, None]
    G[~has] = 0.0
    G[rows, cols] -= 1.0
    # through the columns' own features
    du = np.bincount(p.cf_feat, weights=G.ravel()[p.pairs][p.of_pair], minlength=len(u))
    # through the actions' rows: dS (turns, A + 1), the extra columns all on UNK
    dS = np.empty((G.shape[0], A + 1))
    dS[:, :A] = G[:, :A]
    dS[:, A] = G[:, A:].sum(axis=1)
    return nll, np.asarray(p.X.T @ dS), du


def _penalised(nll: float, dW: np.ndarray, du: np.ndarray, n: int, W: np.ndarray, u: np.ndarray, l2: float,
               l2u: float):
    """The mean over ``n`` turns plus the penalties, and its gradients."""
    n = max(n, 1)
    loss = nll / n + 0.5 * l2 * np.dot(W.ravel(), W.ravel()) + 0.5 * l2u * np.dot(u, u)
    return float(loss), dW / n + l2 * W, du / n + l2u * u


def loss_and_grad(W: np.ndarray, u: np.ndarray, shape: Shape, batch: Batch, l2: float, l2_columns: float | None = None):
    """The loss over the turns with a gold column, and its gradients (dW, du); ``l2``
    penalises W, ``l2_columns`` u (default: ``l2`` too)."""
    l2u = l2 if l2_columns is None else l2_columns
    nll, dW, du = _summed(W, u, prepare(shape, batch, W.shape[0]), batch.gold)
    return _penalised(nll, dW, du, int((batch.gold >= 0).sum()), W, u, l2, l2u)


BLOCK = 2048       # turns scored at once in training: the memory of the scores stays small
MEMORY = 5         # L-BFGS's last steps kept (in float32: each half the size of the weights in float64)


def lbfgs(objective, x: np.ndarray, iterations: int, memory: int = MEMORY, step=None):
    """Minimise ``objective`` (x -> (value, gradient)) from ``x`` (updated in place) by
    L-BFGS: the direction from the last ``memory`` steps and gradient changes, kept in
    float32 to halve their memory; the step halved until the value falls enough (Armijo).
    At most ``iterations`` iterations; it stops sooner where the gradient vanishes or the
    value no longer falls. ``step(value)`` after each iteration. The x found."""
    value, grad = objective(x)
    steps: list = []            # (s, y, 1 / s.y), oldest first
    for _ in range(iterations):
        if np.abs(grad).max() <= 1e-5:
            break
        q = grad.astype(np.float32)
        alphas = []
        for s, y, rho in reversed(steps):
            alpha = rho * float(np.dot(s, q))
            q -= np.float32(alpha) * y
            alphas.append(alpha)
        if steps:
            s, y, rho = steps[-1]
            q *= np.float32(1.0 / (rho * float(np.dot(y, y))))       # s.y / y.y
        for (s, y, rho), alpha in zip(steps, reversed(alphas)):
            q += np.float32(alpha - rho * float(np.dot(y, q))) * s
        np.negative(q, out=q)                                       # the direction
        slope = float(np.dot(grad, q))
        if not slope < 0:       # not a descent direction (rounding): start again from the gradient
            steps.clear()
            q = -grad.astype(np.float32)
            slope = float(np.dot(grad, q))
            if not slope < 0:   # (a gradient that is not a number: nothing to follow)
                break
        t = 1.0 if steps else 1.0 / max(float(np.sqrt(-slope)), 1.0)
        x += t * q
        while True:
            new_value, new_grad = objective(x)
            if new_value <= value + 1e-4 * t * slope or t < 1e-10:
                break
            x -= (t / 2) * q     # back to half the step
            t /= 2
        if not new_value <= value:   # (higher, or not a number: back to where it was)
            x -= t * q
            break
        q *= np.float32(t)      # the step taken
        y = new_grad - grad
        grad = new_grad
        sy = float(np.dot(y, q))
        if sy > 1e-12:
            steps.append((q, y.astype(np.float32), 1.0 / sy))
            del steps[:-memory]
        del q, y
        done = value - new_value <= 2.2e-9 * max(abs(value), abs(new_value), 1.0)
        value = new_value
        if step is not None:
            step(value)
        if done:
            break
    return x


def train(shape: Shape, batch: Batch, features: int, cand_features: int, settings: Settings,
          progress=None) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Weights (W, u) that minimise the loss over the turns with a gold column, by L-BFGS
    (``lbfgs``) on all of them at once, from zero: the loss is convex, so the weights
    depend on the data and the settings alone, not on an order of minibatches. At most
    ``settings.iterations`` iterations; the loss after each."""
    usable = np.flatnonzero(batch.gold >= 0)
    blocks = [batch.take(usable[start:start + BLOCK]) for start in range(0, len(usable), BLOCK)]
    prepared = [(prepare(shape, block, features), block.gold) for block in blocks]
    A = shape.actions
    size = features * (A + 1)
    history: list[float] = []
    n = max(len(usable), 1)

    def objective(theta):
        W, u = theta[:size].reshape(features, A + 1), theta[size:]
        grad = np.zeros_like(theta)
        dW, du = grad[:size].reshape(features, A + 1), grad[size:]
        nll = 0.0
        for p, gold in prepared:
            part = _summed(W, u, p, gold)
            nll += part[0]
            dW += part[1]
            du += part[2]
            del part
        grad /= n
        dW += settings.l2 * W
        du += settings.l2_columns * u
        flat = theta[:size]
        loss = nll / n + 0.5 * settings.l2 * float(np.dot(flat, flat)) + 0.5 * settings.l2_columns * float(np.dot(u, u))
        return loss, grad

    def step(loss):
        history.append(float(loss))
        if progress is not None:
            progress(len(history), settings.iterations, history[-1])

    x = lbfgs(objective, np.zeros(size + cand_features), settings.iterations, step=step)
    return x[:size].reshape(features, A + 1).copy(), x[size:].copy(), history


__all__ = ["Batch", "Shape", "Settings", "Prepared", "prepare", "mask", "scores", "loss_and_grad", "lbfgs", "train"]
