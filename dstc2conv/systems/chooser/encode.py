"""Turn views into the model's arrays: the vocabularies (actions, turn features, column
features) taken from train, and each turn's columns with their own features."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .actions import SOURCES, Action
from .features import TurnView
from .training import Batch, Shape

RANKS = 3     # a proposal's rank among the rules' proposals: 0, 1, 2, 3 or more


@dataclass(frozen=True)
class Vocabulary:
    actions: tuple[Action, ...]        # the columns' actions, in order
    features: tuple[str, ...]          # the turn features, "bias" first
    columns: tuple[str, ...]           # the columns' own features
    action_index: dict = field(init=False, repr=False, compare=False)
    feature_index: dict = field(init=False, repr=False, compare=False)
    column_index: dict = field(init=False, repr=False, compare=False)
    shape: Shape = field(init=False, repr=False, compare=False)    # the actions' sources and needs, once

    def __post_init__(self):
        object.__setattr__(self, "action_index", {a: i for i, a in enumerate(self.actions)})
        object.__setattr__(self, "feature_index", {f: i for i, f in enumerate(self.features)})
        object.__setattr__(self, "column_index", {f: i for i, f in enumerate(self.columns)})
        sources = np.array([SOURCES.index(a.source) for a in self.actions], dtype=np.int64)
        object.__setattr__(self, "shape", Shape(sources, np.array([a.needs for a in self.actions], dtype=np.int64)))


def build(views: list[TurnView], min_count: int = 2) -> Vocabulary:
    """The vocabularies of the training turns: every gold action (that fills back to the
    gold), the turn features seen ``min_count`` times or more, every column feature."""
    actions = sorted({v.gold_action for v in views if v.gold_action.template})
    counts = Counter(f for v in views for f in v.features)
    features = ["bias"] + sorted(f for f, n in counts.items() if n >= min_count and f != "bias")
    index = {a: i for i, a in enumerate(actions)}
    names = set()
    for view in views:
        for _, feats in turn_columns(view, index)[0]:
            names.update(feats)
    return Vocabulary(tuple(actions), tuple(features), tuple(sorted(names)))


def turn_columns(view: TurnView, action_index: dict, hide=None):
    """The turn's columns with their own features: ([(column key, feature names)], extra
    texts, hidden actions). A key is an action's index, or ("extra", k) for the k-th
    proposal that is no action of the vocabulary (its text ``extra texts[k]``).
    ``hide(action index)``: whether to treat a proposal as if its action were not in the
    vocabulary (training only: so that the model learns to take a rule's proposal in a
    wording it has never seen); its action's column is then masked."""
    cols: dict = {}
    extra: list[str] = []
    hidden: list[int] = []
    for rank, proposal in enumerate(view.proposals):
        at = action_index.get(proposal.action) if proposal.action.template else None
        if at is not None and hide is not None and (at in hidden or hide(at)):
            if at not in hidden:
                hidden.append(at)
            at = None
        if at is None:
            if proposal.text not in extra:
                extra.append(proposal.text)
            at = ("extra", extra.index(proposal.text))
        feats = cols.setdefault(at, {"prop": None, f"rank:{min(rank, RANKS)}": None})
        if rank == 0:
            feats["top"] = None
            feats[f"top&missed:{view.missed}"] = None
        feats[f"rule:{proposal.rule}"] = None
    if view.prev_action is not None:
        at = action_index.get(view.prev_action)
        if at is not None:
            cols.setdefault(at, {})["repeat"] = None
    return [(key, tuple(feats)) for key, feats in cols.items()], extra, hidden


def encode(views: list[TurnView], vocab: Vocabulary, hide: float = 0.0, seed: int = 0,
           ) -> tuple[Batch, list[list[str]]]:
    """The turns as a batch, and each turn's extra texts. ``hide``: the share of the
    proposals treated as wordings the vocabulary lacks (drawn from ``seed``; training only)."""
    A = len(vocab.actions)
    rng = np.random.default_rng(seed)
    hider = (lambda _: bool(rng.random() < hide)) if hide > 0 else None
    off_t, off_c = [], []
    fi, ci = vocab.feature_index, vocab.column_index
    ptr, idx, avail, extra_n, cf_t, cf_c, cf_f, gold, extras = [0], [], [], [], [], [], [], [], []
    for t, view in enumerate(views):
        ids = sorted({fi[f] for f in view.features if f in fi})
        idx.extend(ids)
        ptr.append(len(idx))
        avail.append(view.available)
        cols, extra, hidden = turn_columns(view, vocab.action_index, hider)
        off_t.extend([t] * len(hidden))
        off_c.extend(hidden)
        extras.append(extra)
        extra_n.append(len(extra))
        for key, feats in cols:
            col = A + key[1] if isinstance(key, tuple) else key
            for f in feats:
                if f in ci:
                    cf_t.append(t)
                    cf_c.append(col)
                    cf_f.append(ci[f])
        g = vocab.action_index.get(view.gold_action, -1) if view.gold_action.template else -1
        if g >= 0 and (g in hidden or not _allowed(vocab.actions[g], view.available)):
            g = -1
        if g < 0 and view.gold in extra:
            g = A + extra.index(view.gold)
        gold.append(g)
    as_int = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    batch = Batch(as_int(ptr), as_int(idx), np.asarray(avail, dtype=np.int64).reshape(len(views), len(SOURCES)),
                  as_int(extra_n), as_int(cf_t), as_int(cf_c), as_int(cf_f), as_int(gold), as_int(off_t), as_int(off_c))
    return batch, extras


def _allowed(action: Action, available: tuple) -> bool:
    needs = action.needs
    return available[SOURCES.index(action.source)] & needs == needs


__all__ = ["Vocabulary", "build", "turn_columns", "encode"]
