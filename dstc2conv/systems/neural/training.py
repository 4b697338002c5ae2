"""The one training loop: minibatches in a seeded order, SGD or Adam, one dev accuracy an
epoch, early stopping that keeps the best epoch's weights. Each epoch is a step of the
reporter's ``Steps`` (a progress line under the command line, a tqdm bar from Python)
and a note (shown under the command line)."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...reporter import Steps, note

Params = dict[str, np.ndarray]


@dataclass(frozen=True)
class Schedule:
    epochs: int = 30            # at most
    patience: int = 5           # stop after this many epochs without a better dev accuracy
    batch: int = 32
    optimizer: str = "adam"     # adam | sgd
    learning_rate: float = 0.001
    clip: float = 40.0          # the gradient's global norm is cut to this (0: not cut)


@dataclass(frozen=True)
class Epoch:
    epoch: int
    loss: float          # the mean training loss of the epoch
    dev: float           # dev accuracy after it
    seconds: float = 0.0  # since training began (not saved: a model's bytes do not depend on the time)

    def as_dict(self) -> dict:
        return {"epoch": self.epoch, "loss": round(self.loss, 6), "dev": round(self.dev, 6)}


class Optimizer:
    def __init__(self, params: Params, schedule: Schedule):
        self.schedule = schedule
        self.t = 0
        if schedule.optimizer not in ("adam", "sgd"):
            raise ValueError(f"unknown optimizer {schedule.optimizer!r}")
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: Params, grads: Params) -> None:
        s = self.schedule
        if s.clip:
            norm = float(np.sqrt(sum(float(np.vdot(g, g)) for g in grads.values())))
            if norm > s.clip:
                grads = {k: g * (s.clip / norm) for k, g in grads.items()}
        if s.optimizer == "sgd":
            for k, g in grads.items():
                params[k] -= s.learning_rate * g
            return
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        rate = s.learning_rate * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for k, g in grads.items():
            self.m[k] *= b1
            self.m[k] += (1 - b1) * g
            self.v[k] *= b2
            self.v[k] += (1 - b2) * g * g
            params[k] -= (rate * self.m[k] / (np.sqrt(self.v[k]) + eps)).astype(params[k].dtype)


def fit(params: Params, n: int, step: Callable[[np.ndarray], tuple[float, Params]],
        dev_accuracy: Callable[[], float], schedule: Schedule, rng: np.random.Generator,
        label: str = "", after_step: Callable[[], None] | None = None) -> tuple[Params, list[Epoch]]:
    """Train ``params`` in place on ``n`` examples: ``step(indices)`` gives a minibatch's
    loss and gradients; after each epoch ``dev_accuracy()`` is measured (None: no dev
    data, every epoch runs and the last is kept); returns the best epoch's parameters
    (copies) and the curve."""
    optimizer = Optimizer(params, schedule)
    start = time.perf_counter()
    best, best_params, curve, waited = -1.0, {k: v.copy() for k, v in params.items()}, [], 0
    with Steps(schedule.epochs, f"{label}epochs", "epoch") as steps:
        for epoch in range(1, schedule.epochs + 1):
            total = _epoch(params, n, step, optimizer, rng, schedule.batch, after_step)
            accuracy = dev_accuracy()
            curve.append(Epoch(epoch, total / max(n, 1), accuracy or 0.0, time.perf_counter() - start))
            dev = "no dev data" if accuracy is None else f"dev {accuracy:.2%}"
            steps.update(1, f"loss {total / max(n, 1):.4f}, {dev}")
            note(f"{label}epoch {epoch}/{schedule.epochs}: loss {total / max(n, 1):.4f}, {dev}, "
                 f"{curve[-1].seconds:.1f} s")
            if accuracy is None or accuracy > best:
                best, waited = (accuracy or 0.0), 0
                best_params = {k: v.copy() for k, v in params.items()}
            else:
                waited += 1
                if waited >= schedule.patience:
                    break
    return best_params, curve


def _epoch(params: Params, n: int, step, optimizer: Optimizer, rng: np.random.Generator, size: int,
           after_step) -> float:
    """One pass over the examples in a seeded order; the summed loss."""
    order = rng.permutation(n)
    total = 0.0
    for at in range(0, n, size):
        batch = order[at:at + size]
        loss, grads = step(batch)
        total += loss * len(batch)
        optimizer.step(params, grads)
        if after_step is not None:
            after_step()
    return total


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)

