"""The chooser: its weights learned from the training turns' views (``learn``), then at
each bot turn the responses the turn allows (a rule's proposal, or a template of train
filled from the rules' state) scored and ranked (``rank_view``), and why (``explained``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DataRefused
from ...reporter import Steps, note
from .actions import fill
from .encode import Vocabulary, build, encode, turn_columns
from .features import TurnView
from .settings import Settings
from .training import Batch, train


@dataclass(frozen=True)
class Model:
    vocab: Vocabulary
    W: np.ndarray          # (turn features, actions + 1)
    u: np.ndarray          # (column features,)
    info: dict             # how training went (turns, usable turns, sizes, the loss), for the record


@dataclass(frozen=True)
class Choice:
    """The chooser's answer at one turn."""
    text: str
    rule: str | None           # the first rule (in priority order) proposing ``text``; None: a template alone
    rules_text: str            # the rules' own choice ("" when no rule answers)
    rules_rule: str | None     # the rule behind it
    ranking: tuple             # (text, score), best first, distinct texts


def learn(views: list[TurnView], settings: Settings = Settings()) -> Model:
    """A chooser trained on the views of the training turns, gold included (the list is
    emptied: the weights need the memory more)."""
    turns = len(views)
    vocab = build(views, settings.min_count)
    batch, _ = encode(views, vocab, settings.hide, settings.seed)
    views.clear()
    usable = int((batch.gold >= 0).sum())
    if not usable:
        raise DataRefused("no training turn has its gold among the responses the rules allow: nothing to learn")
    note(f"rules+learned: {len(vocab.actions)} actions, {len(vocab.features)} turn features, {len(vocab.columns)} "
         f"column features; {usable} of {turns} training turns have their gold among the responses allowed")
    with Steps(settings.iterations, "rules+learned: L-BFGS", "iteration") as steps:
        W, u, history = train(vocab.shape, batch, len(vocab.features), len(vocab.columns), settings,
                              lambda done, most, loss: steps.update(1, f"loss {loss:.4f}"))
    note(f"rules+learned: trained in {len(history)} iterations, loss {history[-1] if history else float('nan'):.4f}")
    info = dict(turns=turns, usable=usable, actions=len(vocab.actions), features=len(vocab.features),
                columns=len(vocab.columns), loss=[round(x, 6) for x in history])
    return Model(vocab, W, u, info)


def saved(model: Model) -> tuple[dict, dict]:
    """What a model folder keeps of the chooser: the vocabularies and the training record
    as facts, W and u as float64 arrays (``restored`` reads them back)."""
    vocab = model.vocab
    facts = {"actions": [a.key for a in vocab.actions], "features": list(vocab.features),
             "columns": list(vocab.columns), "trained": model.info}
    return facts, {"W": model.W.astype(np.float64), "u": model.u.astype(np.float64)}


def restored(facts: dict, arrays: dict) -> Model:
    """The chooser a model folder keeps (``saved``'s facts and arrays)."""
    from .actions import Action

    actions = tuple(Action.from_key(k) for k in facts["actions"])
    features = tuple(str(f) for f in facts["features"])
    if not features or features[0] != "bias":
        raise ValueError("the first turn feature is not 'bias'")
    vocab = Vocabulary(actions, features, tuple(str(f) for f in facts["columns"]))
    return Model(vocab, arrays["W"], arrays["u"], dict(facts.get("trained") or {}))


def turn_scores(model: Model, view: TurnView) -> tuple[np.ndarray, list[str]]:
    """One turn's scores (the actions', then its extra columns'; -inf where the mask
    forbids) and its extra texts: what ``model.scores`` gives a batch of that turn alone,
    the same numbers, without building one."""
    vocab, u = model.vocab, model.u
    A = len(vocab.actions)
    fi, ci = vocab.feature_index, vocab.column_index
    row = model.W[sorted({fi[f] for f in view.features if f in fi})].sum(axis=0)   # the rows in order, as X @ W adds them
    cols, extra, _ = turn_columns(view, vocab.action_index)
    z = np.concatenate((row[:A], np.full(len(extra), row[A]))) if extra else row[:A]
    for key, feats in cols:
        at = [ci[f] for f in feats if f in ci]
        if at:
            total = 0.0
            for f in at:
                total += float(u[f])
            z[A + key[1] if isinstance(key, tuple) else key] += total
    shape = vocab.shape
    z[:A][(np.asarray(view.available)[shape.source] & shape.needs) != shape.needs] = -np.inf
    return z, extra


def _one(view: TurnView, model: Model) -> tuple[Batch, list[str], np.ndarray]:
    batch, extras = encode([view], model.vocab)
    return batch, extras[0], turn_scores(model, view)[0]


def rank_view(model: Model, view: TurnView, state, spaced: dict, k: int = 1) -> Choice:
    """The chooser's ``k`` best responses at a turn (its view, the engine's state there)."""
    z, extra = turn_scores(model, view)
    A = len(model.vocab.actions)
    ranking: list = []
    if k == 1:      # the first best column (argmax: the one the stable sort puts first), when it fills
        col = int(np.argmax(z))
        text = extra[col - A] if col >= A else fill(spaced, model.vocab.actions[col], state)
        if text is not None and np.isfinite(z[col]):
            ranking.append((text, float(z[col])))
    seen = set()
    for col in [] if ranking else np.argsort(-z, kind="stable"):
        if not np.isfinite(z[col]) or len(ranking) >= k:
            break
        text = extra[col - A] if col >= A else fill(spaced, model.vocab.actions[col], state)
        if text is None or text in seen:
            continue
        seen.add(text)
        ranking.append((text, float(z[col])))
    props = view.proposals
    if not ranking:       # nothing allowed: the rules' choice, else nothing
        ranking = [(props[0].text if props else "", 0.0)]
    best = ranking[0][0]
    rule = next((p.rule for p in props if p.text == best), None)
    return Choice(best, rule, props[0].text if props else "", props[0].rule if props else None, tuple(ranking))


@dataclass(frozen=True)
class Explained:
    view: TurnView
    choice: Choice
    columns: tuple        # (text, score, how: proposing rules or "template"), best first
    reasons: tuple        # (feature, weight for the best, weight for the runner-up), largest gap first


def explained(model: Model, view: TurnView, state, spaced: dict, top: int) -> Explained:
    """One turn (its view before the gold, the engine's state there) explained: every
    allowed response with its score, and the features that most separate the chosen one
    from the runner-up."""
    batch, extra, z = _one(view, model)
    vocab, A = model.vocab, len(model.vocab.actions)
    choice = rank_view(model, view, state, spaced, k=top)
    by_text: dict = {}
    for col in np.argsort(-z, kind="stable"):
        if not np.isfinite(z[col]):
            break
        text = extra[col - A] if col >= A else fill(spaced, vocab.actions[col], state)
        if text is None or text in by_text:
            continue
        rules = [p.rule for p in view.proposals if p.text == text]
        by_text[text] = (text, float(z[col]), ", ".join(rules) if rules else "template", int(col))
        if len(by_text) >= top:
            break
    cols = list(by_text.values())
    reasons: list = []
    if cols:
        best = cols[0][3]
        second = cols[1][3] if len(cols) > 1 else None
        feats = batch.x_idx
        row = lambda col: min(col, A)  # noqa: E731  (an extra column scores with UNK's row)
        for f in feats:
            a = float(model.W[f, row(best)])
            b = float(model.W[f, row(second)]) if second is not None else 0.0
            reasons.append((vocab.features[f], a, b))
        for col, who in ((best, 0), (second, 1)):
            if col is None:
                continue
            pick = (batch.cf_col == col)
            for f in batch.cf_feat[pick]:
                w = float(model.u[f])
                reasons.append((f"column {vocab.columns[f]}", w if who == 0 else 0.0, w if who == 1 else 0.0))
        reasons.sort(key=lambda r: -abs(r[1] - r[2]))
    return Explained(view, choice, tuple((t, s, how) for t, s, how, _ in cols), tuple(reasons[:top]))


__all__ = ["Model", "Choice", "Explained", "learn", "saved", "restored", "turn_scores", "rank_view", "explained"]
