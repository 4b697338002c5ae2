"""``hcn``'s training: the linear chooser first (``chooser.choosing.learn``: L-BFGS, its
weights depend on the data alone), its scores of every turn then held, and the recurrent
half trained over them (``hcn.training``)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...reporter import Steps, note
from ...task6.turns import BotTurn
from ..chooser.choosing import Model
from ..chooser.choosing import learn as learn_linear
from ..chooser.encode import build, encode
from ..chooser.settings import Settings as ChooserSettings
from ..chooser.training import scores
from .training import Settings, Turns, train


def as_turns(views: list, turns: Sequence[BotTurn], linear: Model) -> Turns:
    """The views (one per bot turn of ``turns``, in order) encoded with the chooser's
    vocabulary, scored by it."""
    from scipy import sparse

    vocab = linear.vocab
    batch, _ = encode(views, vocab)
    X = sparse.csr_matrix((np.ones(len(batch.x_idx)), batch.x_idx, batch.x_ptr), shape=(len(batch), len(vocab.features)))
    base = scores(linear.W, linear.u, vocab.shape, batch)
    ids = np.array([t.dialog for t in turns], dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.zeros(0, dtype=np.int64)
    return Turns(X, base, batch.gold, np.r_[starts, len(ids)].astype(np.int64), len(vocab.actions))


def learn(views: list, train_turns: Sequence[BotTurn], dev_views: list | None, dev_turns: Sequence[BotTurn],
          chooser: ChooserSettings, settings: Settings, check: Callable[[int, int, int], None],
          ) -> tuple[Model, dict, list]:
    """(the linear chooser, the recurrent weights, the curve) learned from the training
    turns' views (with their gold), the epochs chosen on dev's. ``check(features,
    columns, actions)`` refuses a model too large, before any training."""
    vocab = build(views, chooser.min_count)
    check(len(vocab.features), len(vocab.columns), len(vocab.actions))
    linear = learn_linear(list(views), chooser)
    turns = as_turns(views, train_turns, linear)
    views.clear()
    dev = as_turns(dev_views, dev_turns, linear) if dev_views else None
    with Steps(settings.epochs, "hcn: epochs", "epoch") as steps:
        weights, curve = train(turns, dev, settings, lambda e, loss, acc: steps.update(1, _progress(loss, acc)))
    if dev is not None:
        best = max(curve, key=lambda c: (c[2][0], -c[0]))
        note(f"hcn: dev per turn by epoch (0: the chooser alone): {', '.join(f'{c[2][0]:.2%}' for c in curve)}; "
             f"epoch {best[0]} kept ({best[2][0]:.2%} per turn, {best[2][1]:.2%} per dialog)")
    return linear, weights, curve


def _progress(loss: float, acc) -> str:
    return f"loss {loss:.4f}" + ("" if acc is None else f", dev {acc[0]:.2%} per turn, {acc[1]:.2%} per dialog")


__all__ = ["as_turns", "learn"]
