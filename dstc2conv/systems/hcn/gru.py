"""The recurrent half of ``hcn``: a GRU over a dialog's bot turns, its input the turn's
bag of features embedded (a sum of rows of ``E``), its output a score per action
(``h @ V``). numpy only, forward and backpropagation through time written by hand (the
tests check them against finite differences).

At turn t, with ``x`` the turn's embedded bag (after dropout) and ``h`` the state before it::

    z = sigmoid(x Wx_z + h Wh_z + b_z)          (update gate)
    r = sigmoid(x Wx_r + h Wh_r + b_r)          (reset gate)
    n = tanh(x Wx_n + r * (h Wh_n) + b_n)       (candidate)
    h' = (1 - z) * n + z * h

The three gates' weights sit side by side in ``Wx`` (D x 3H), ``Wh`` (H x 3H), ``b`` (3H).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NAMES = ("E", "Wx", "Wh", "b", "V")       # the recurrent half's arrays, in the model folder's order


def init(rng: np.random.Generator, features: int, dimension: int, hidden: int, outputs: int) -> dict:
    """Weights drawn from ``rng`` (``V`` zero: untrained, the recurrence adds nothing)."""
    return {"E": rng.normal(0.0, 0.1, (features, dimension)),
            "Wx": rng.normal(0.0, 1.0 / np.sqrt(dimension), (dimension, 3 * hidden)),
            "Wh": rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, 3 * hidden)),
            "b": np.zeros(3 * hidden), "V": np.zeros((hidden, outputs))}


def sizes(features: int, dimension: int, hidden: int, outputs: int) -> dict:
    """Each array's shape."""
    return {"E": (features, dimension), "Wx": (dimension, 3 * hidden), "Wh": (hidden, 3 * hidden),
            "b": (3 * hidden,), "V": (hidden, outputs)}


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * a))


def step(p: dict, x: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, tuple]:
    """One turn: the new state (B, H) from the input (B, D) and the state (B, H), and
    what the backward pass needs."""
    H = h.shape[1]
    gx = x @ p["Wx"] + p["b"]
    gh = h @ p["Wh"]
    z = _sigmoid(gx[:, :H] + gh[:, :H])
    r = _sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
    ghn = gh[:, 2 * H:]
    n = np.tanh(gx[:, 2 * H:] + r * ghn)
    return (1.0 - z) * n + z * h, (x, h, z, r, n, ghn)


@dataclass(frozen=True)
class Run:
    """A forward pass over a batch of dialogs (B dialogs, T turns, padded at the end)."""
    states: np.ndarray      # (B, T, H): the state after each turn
    outputs: np.ndarray     # (B, T, outputs): states @ V
    saved: list             # each turn's ``step`` record


def forward(p: dict, inputs: np.ndarray) -> Run:
    """The GRU over ``inputs`` (B, T, D), from a zero state."""
    B, T, _ = inputs.shape
    H = p["Wh"].shape[0]
    h = np.zeros((B, H))
    states = np.empty((B, T, H))
    saved = []
    for t in range(T):
        h, record = step(p, inputs[:, t], h)
        states[:, t] = h
        saved.append(record)
    return Run(states, states @ p["V"], saved)


def backward(p: dict, run: Run, d_outputs: np.ndarray) -> tuple[dict, np.ndarray]:
    """The gradients of the arrays but ``E`` (a dict), and of the inputs (B, T, D),
    given the gradient of the loss with respect to ``run.outputs``."""
    B, T, H = run.states.shape
    grads = {"V": run.states.reshape(B * T, H).T @ d_outputs.reshape(B * T, -1),
             "Wx": np.zeros_like(p["Wx"]), "Wh": np.zeros_like(p["Wh"]), "b": np.zeros_like(p["b"])}
    d_states = d_outputs @ p["V"].T
    d_inputs = np.empty((B, T, p["Wx"].shape[0]))
    dh_next = np.zeros((B, H))
    for t in reversed(range(T)):
        x, h, z, r, n, ghn = run.saved[t]
        dh = d_states[:, t] + dh_next
        dz = dh * (h - n)
        dan = dh * (1.0 - z) * (1.0 - n * n)
        dar = dan * ghn * r * (1.0 - r)
        daz = dz * z * (1.0 - z)
        dgx = np.concatenate((daz, dar, dan), axis=1)
        dgh = np.concatenate((daz, dar, dan * r), axis=1)
        grads["Wx"] += x.T @ dgx
        grads["b"] += dgx.sum(axis=0)
        grads["Wh"] += h.T @ dgh
        dh_next = dh * z + dgh @ p["Wh"].T
        d_inputs[:, t] = dgx @ p["Wx"].T
    return grads, d_inputs


__all__ = ["NAMES", "Run", "init", "sizes", "step", "forward", "backward"]
