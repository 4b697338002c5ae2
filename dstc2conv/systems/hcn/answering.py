"""``hcn`` at one turn: the chooser's scores plus the recurrence's, the ranking of the
allowed responses, and the explanation."""
from __future__ import annotations

import numpy as np

from ..chooser.actions import SOURCES, fill
from ..chooser.choosing import Model
from ..chooser.choosing import turn_scores as linear_scores
from . import gru


def turn_scores(linear: Model, weights: dict, view, h: np.ndarray):
    """(scores, extra texts, the state after the turn): the chooser's scores of the
    turn's columns (-inf where masked) plus the recurrent outputs of the state after it."""
    z, extra = linear_scores(linear, view)
    index = linear.vocab.feature_index
    ids = sorted({index[f] for f in view.features if f in index})
    x = weights["E"][ids].sum(axis=0, keepdims=True)
    h_new, _ = gru.step(weights, x, h)
    out = (h_new @ weights["V"])[0]
    A = len(linear.vocab.actions)
    z[:A] += out[:A]
    z[A:] += out[A]
    return z, extra, h_new


def _text(linear: Model, extra: list, col: int, state, spaced: dict) -> str | None:
    A = len(linear.vocab.actions)
    return extra[col - A] if col >= A else fill(spaced, linear.vocab.actions[col], state)


def ranking(linear: Model, z: np.ndarray, extra: list, state, spaced: dict, k: int) -> list:
    """The ``k`` best distinct responses allowed, (text, score), best first (the argmax
    first: the column the stable sort puts first); nothing allowed: the empty response."""
    out: list = []
    seen: set = set()
    for col in np.argsort(-z, kind="stable"):
        if not np.isfinite(z[col]) or len(out) >= k:
            break
        text = _text(linear, extra, int(col), state, spaced)
        if text is None or text in seen:
            continue
        seen.add(text)
        out.append((text, float(z[col])))
    return out or [("", 0.0)]


def explanation(linear: Model, view, z: np.ndarray, extra: list, state, spaced: dict, top: int) -> list[str]:
    """The mask (columns allowed, by source), the ``top`` best responses with their
    probabilities (softmax over the allowed columns) and where they come from, the answer."""
    A = len(linear.vocab.actions)
    allowed = np.isfinite(z)
    by_source = {s or "slots": 0 for s in SOURCES}
    for col in np.flatnonzero(allowed[:A]):
        by_source[linear.vocab.actions[col].source or "slots"] += 1
    parts = ", ".join(f"{n} filled from {s}" for s, n in by_source.items())
    out = [f"mask     {int(allowed.sum())} of {len(z)} columns allowed: {parts}, {len(extra)} proposals of no "
           "template of train"]
    p = np.zeros_like(z)
    if allowed.any():
        p[allowed] = np.exp(z[allowed] - z[allowed].max())
        p /= p.sum()
    best = ranking(linear, z, extra, state, spaced, max(top, 1))
    out.append("best responses (probability, from):")
    chance = {}
    for col in np.flatnonzero(allowed):
        text = _text(linear, extra, int(col), state, spaced)
        if text is not None:
            chance[text] = chance.get(text, 0.0) + float(p[col])
    for text, _ in best:
        rules = [q.rule for q in view.proposals if q.text == text]
        out.append(f"  {chance.get(text, 0.0):7.2%}  {text}  [{', '.join(rules) if rules else 'template'}]")
    out.append(f"answer   {best[0][0] or '(nothing allowed)'}")
    return out


__all__ = ["turn_scores", "ranking", "explanation"]
