"""How ``hcn``'s recurrent half is trained: the chooser's scores of each turn held fixed
(``Turns.base``), a GRU over each dialog's turns adds ``h_t @ V`` to them (an action's
column takes its own output, every extra proposal the shared last one), the softmax over
the columns the mask allows; the loss is the mean negative log-likelihood of the gold
column. Adam on minibatches of dialogs (padded at the end, drawn in an order ``seed``
draws), dropout on the recurrent input and, with ``turn_dropout``, whole turns' input
zeroed; after each epoch the dev accuracy, the best weights kept (the epoch before the
first, V zero, is the chooser alone), stopping after ``patience`` epochs without better.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import gru

CLIP = 5.0        # the gradient's norm at the most (clipped above)
EVAL_DIALOGS = 256


@dataclass(frozen=True)
class Settings:
    hidden: int = 32
    dimension: int = 32
    epochs: int = 12
    patience: int = 3
    batch: int = 16
    lr: float = 0.002
    dropout: float = 0.2
    turn_dropout: float = 0.0
    seed: int = 0


@dataclass(frozen=True)
class Turns:
    """A file's turns, dialog after dialog: their features (CSR, turns x features), the
    chooser's scores (turns x columns, -inf where masked), the gold column (-1: none
    allowed), and where each dialog starts (``starts[d]`` to ``starts[d + 1]``)."""
    X: object
    base: np.ndarray
    gold: np.ndarray
    starts: np.ndarray
    actions: int

    @property
    def dialogs(self) -> int:
        return len(self.starts) - 1


def grid(turns: Turns, dialogs: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The turns of ``dialogs`` laid out B x T (T their longest): (turn ids, their flat
    positions in the grid, B, T)."""
    lengths = turns.starts[dialogs + 1] - turns.starts[dialogs]
    T = int(lengths.max()) if len(lengths) else 0
    rows = np.concatenate([np.arange(turns.starts[d], turns.starts[d + 1]) for d in dialogs])
    pos = np.concatenate([b * T + np.arange(n) for b, n in enumerate(lengths)])
    return rows, pos, len(dialogs), T


def scores(base: np.ndarray, outputs: np.ndarray, actions: int) -> np.ndarray:
    """The chooser's scores plus the recurrent outputs (an action's own, the last one
    for every extra column)."""
    out = base.copy()
    out[:, :actions] += outputs[:, :actions]
    out[:, actions:] += outputs[:, actions:actions + 1]
    return out


def _inputs(p: dict, X, rows: np.ndarray, pos: np.ndarray, B: int, T: int, keep: np.ndarray | None):
    bags = X[rows]
    flat = np.zeros((B * T, p["E"].shape[1]))
    flat[pos] = bags @ p["E"]
    inputs = flat.reshape(B, T, -1)
    return bags, inputs if keep is None else inputs * keep


def loss_and_grads(p: dict, turns: Turns, dialogs: np.ndarray, keep: np.ndarray | None = None):
    """The mean negative log-likelihood of the gold columns of ``dialogs``' turns (those
    with one), and its gradients; ``keep``: the input's dropout, (B, T, D) factors."""
    rows, pos, B, T = grid(turns, dialogs)
    bags, inputs = _inputs(p, turns.X, rows, pos, B, T, keep)
    run = gru.forward(p, inputs)
    outputs = run.outputs.reshape(B * T, -1)
    gold = turns.gold[rows]
    has = np.flatnonzero(gold >= 0)
    A = turns.actions
    G = scores(turns.base[rows[has]], outputs[pos[has]], A)
    G -= G.max(axis=1, keepdims=True)
    picked = G[np.arange(len(has)), gold[has]]
    np.exp(G, out=G)
    total = G.sum(axis=1)
    n = max(len(has), 1)
    loss = float((np.log(total) - picked).sum()) / n
    G /= total[:, None]
    G[np.arange(len(has)), gold[has]] -= 1.0
    G /= n
    d_out = np.zeros_like(outputs)
    d_out[pos[has], :A] = G[:, :A]
    d_out[pos[has], A] = G[:, A:].sum(axis=1)
    grads, d_inputs = gru.backward(p, run, d_out.reshape(B, T, -1))
    if keep is not None:
        d_inputs = d_inputs * keep
    grads["E"] = np.asarray(bags.T @ d_inputs.reshape(B * T, -1)[pos])
    return loss, grads


def predictions(p: dict, turns: Turns) -> np.ndarray:
    """Every turn's best column (no dropout)."""
    out = np.empty(len(turns.gold), dtype=np.int64)
    for start in range(0, turns.dialogs, EVAL_DIALOGS):
        dialogs = np.arange(start, min(start + EVAL_DIALOGS, turns.dialogs))
        rows, pos, B, T = grid(turns, dialogs)
        _, inputs = _inputs(p, turns.X, rows, pos, B, T, None)
        outputs = gru.forward(p, inputs).outputs.reshape(B * T, -1)
        out[rows] = np.argmax(scores(turns.base[rows], outputs[pos], turns.actions), axis=1)
    return out


def accuracy(p: dict, turns: Turns) -> tuple[float, float]:
    """(per turn, per dialog): the share of turns whose best column is the gold's, and
    of dialogs all of whose turns are."""
    right = predictions(p, turns) == turns.gold
    whole = np.logical_and.reduceat(right, turns.starts[:-1]) if len(right) else right
    return float(right.mean()) if len(right) else 0.0, float(whole.mean()) if len(whole) else 0.0


def _keep(rng: np.random.Generator, settings: Settings, B: int, T: int) -> np.ndarray | None:
    if not settings.dropout and not settings.turn_dropout:
        return None
    keep = np.ones((B, T, settings.dimension))
    if settings.dropout:
        keep *= (rng.random((B, T, settings.dimension)) >= settings.dropout) / (1.0 - settings.dropout)
    if settings.turn_dropout:
        keep *= (rng.random((B, T, 1)) >= settings.turn_dropout) / (1.0 - settings.turn_dropout)
    return keep


class Adam:
    def __init__(self, params: dict, lr: float, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8):
        self.lr, self.beta1, self.beta2, self.eps, self.t = lr, beta1, beta2, eps, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def update(self, params: dict, grads: dict) -> None:
        norm = np.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
        scale = CLIP / norm if norm > CLIP else 1.0
        self.t += 1
        rate = self.lr * np.sqrt(1.0 - self.beta2 ** self.t) / (1.0 - self.beta1 ** self.t)
        for k in gru.NAMES:
            g = grads[k] * scale
            self.m[k] *= self.beta1
            self.m[k] += (1.0 - self.beta1) * g
            self.v[k] *= self.beta2
            self.v[k] += (1.0 - self.beta2) * g * g
            params[k] -= rate * self.m[k] / (np.sqrt(self.v[k]) + self.eps)


def train(turns: Turns, dev: Turns | None, settings: Settings,
          progress: Callable[[int, float, tuple | None], None] | None = None) -> tuple[dict, list]:
    """The recurrent half's weights (the best on ``dev``'s per-turn accuracy, or the last
    without dev), and the curve: per epoch (epoch, training loss, dev (per turn, per
    dialog) or None); epoch 0 is the untrained recurrence (V zero: the chooser alone)."""
    rng = np.random.default_rng(settings.seed)
    p = gru.init(rng, turns.X.shape[1], settings.dimension, settings.hidden, turns.actions + 1)
    adam = Adam(p, settings.lr)
    best = {k: v.copy() for k, v in p.items()}
    curve = [(0, float("nan"), accuracy(p, dev) if dev is not None else None)]
    best_at = 0
    for epoch in range(1, settings.epochs + 1):
        order = rng.permutation(turns.dialogs)
        losses = []
        for start in range(0, len(order), settings.batch):
            dialogs = order[start:start + settings.batch]
            lengths = turns.starts[dialogs + 1] - turns.starts[dialogs]
            loss, grads = loss_and_grads(p, turns, dialogs, _keep(rng, settings, len(dialogs), int(lengths.max())))
            adam.update(p, grads)
            losses.append(loss)
        curve.append((epoch, float(np.mean(losses)), accuracy(p, dev) if dev is not None else None))
        if progress is not None:
            progress(epoch, curve[-1][1], curve[-1][2])
        if dev is None or curve[-1][2][0] > curve[best_at][2][0]:
            best, best_at = {k: v.copy() for k, v in p.items()}, epoch
        elif epoch - best_at >= settings.patience:
            break
    return best, curve


__all__ = ["Settings", "Turns", "Adam", "grid", "scores", "loss_and_grads", "predictions", "accuracy", "train"]
