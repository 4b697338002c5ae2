"""The information-retrieval baselines of Bordes & Weston (2017), section 4.3.

Words are the whitespace-separated tokens of the task-6 text, lowercased.

TF-IDF Match ranks every candidate response by the TF-IDF weighted cosine similarity
between its bag of words and the input's, and answers with the best. The documents are
the candidates: idf(w) = ln(N / df(w)), N candidates, df(w) of them holding w; a weight
is tf * idf, tf the count of the word in the text. The input is either the last user
utterance (``last``) or the whole conversation so far (``conversation``): every earlier
user utterance, gold bot utterance and result line of the dialog, and the last user
utterance. Scores within TIE of the best are tied; the first candidate among them wins.

Nearest Neighbor takes the training (user utterance, bot utterance) pairs and answers
with the bot utterance of the pair whose user utterance shares the most word types with
the last user utterance; ties (a score of 0 included) go to the pair first in the
training file.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from ...errors import Dstc2ConvError
from ...evaluate.responses import Score, outcomes, score
from ...task6.candidates import distinct, read_candidates
from ...task6.turns import BotTurn

INPUTS = ("last", "conversation")
TIE = 1e-9


def words(text: str) -> list[str]:
    return text.lower().split()


# ---------------------------------------------------------------- candidates

def train_candidates(train: list[BotTurn]) -> tuple[str, ...]:
    """The distinct bot utterances of a training file, in order of first occurrence."""
    return distinct(t.gold for t in train)


# ---------------------------------------------------------------- inputs

def inputs(turns: list[BotTurn], variant: str) -> Iterator[list[str]]:
    """The input words of every turn, one turn at a time: its user utterance (``last``), or
    the dialog up to it (``conversation``: earlier user and bot utterances, result lines,
    then the user's). One turn's words at a time: a long dialog's would fill the memory."""
    if variant not in INPUTS:
        raise ValueError(variant)
    history: list[str] = []
    dialog = None
    for turn in turns:
        if turn.dialog != dialog:
            history, dialog = [], turn.dialog
        user = words(turn.user)
        if variant == "last":
            yield user
            continue
        yield history + user
        history += user + words(turn.gold)
        for line in turn.context:
            history += words(line)


# ---------------------------------------------------------------- TF-IDF Match

class TfIdf:
    """An inverted index of the candidates' TF-IDF vectors, each of length 1."""

    def __init__(self, candidates: tuple[str, ...]):
        if not candidates:
            raise Dstc2ConvError("no candidates")
        self.candidates = candidates
        counts = [_counts(words(c)) for c in candidates]
        df: dict[str, int] = {}
        for bag in counts:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = len(candidates)
        self.idf = {w: math.log(n / d) for w, d in df.items()}
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, bag in enumerate(counts):
            weights = {w: tf * self.idf[w] for w, tf in sorted(bag.items())}
            norm = math.sqrt(sum(x * x for x in weights.values()))
            for w, x in weights.items():
                if x:
                    self.postings.setdefault(w, []).append((i, x / norm))

    def scores(self, text: list[str]) -> list[float]:
        """The cosine of every candidate with a bag of words."""
        bag = {w: tf * self.idf[w] for w, tf in sorted(_counts(text).items()) if self.idf.get(w)}
        dots = [0.0] * len(self.candidates)
        if not bag:
            return dots
        norm = math.sqrt(sum(x * x for x in bag.values()))
        for w, x in bag.items():
            for i, y in self.postings[w]:
                dots[i] += x * y
        return [d / norm for d in dots]

    def best(self, text: list[str]) -> str:
        return self.candidates[_first_best(self.scores(text))]

    def ranked(self, text: list[str], k: int) -> tuple[str, ...]:
        """The ``k`` best candidates, best first: ``best`` first, then by score, ties in
        candidate order."""
        scores = self.scores(text)
        first = _first_best(scores)
        rest = sorted((i for i in range(len(scores)) if i != first), key=lambda i: (-scores[i], i))
        return tuple(self.candidates[i] for i in [first, *rest[:k - 1]])


def _counts(text: list[str]) -> dict[str, int]:
    bag: dict[str, int] = {}
    for w in text:
        bag[w] = bag.get(w, 0) + 1
    return bag


def _first_best(scores: list[float]) -> int:
    top = max(scores)
    return next(i for i, s in enumerate(scores) if s >= top - TIE)


# Inputs of at most this many words are remembered with their answer (the same user
# utterances come back often); longer ones, whole conversations, seldom do.
CACHED_WORDS = 64


def tfidf_predict(index: TfIdf, turns: list[BotTurn], variant: str) -> list[str]:
    cache: dict[tuple[str, ...], str] = {}
    out = []
    for text in inputs(turns, variant):
        if len(text) > CACHED_WORDS:
            out.append(index.best(text))
            continue
        key = tuple(sorted(text))
        if key not in cache:
            cache[key] = index.best(text)
        out.append(cache[key])
    return out


def tfidf_rank(index: TfIdf, turns: list[BotTurn], variant: str, k: int) -> list[tuple[str, ...]]:
    """The ``k`` best candidates of every turn, best first (the first is ``tfidf_predict``'s)."""
    cache: dict[tuple[str, ...], tuple[str, ...]] = {}
    out = []
    for text in inputs(turns, variant):
        if len(text) > CACHED_WORDS:
            out.append(index.ranked(text, k))
            continue
        key = tuple(sorted(text))
        if key not in cache:
            cache[key] = index.ranked(text, k)
        out.append(cache[key])
    return out


@dataclass(frozen=True)
class Choice:
    variant: str
    dev: dict   # variant -> its Score on the dev file


def choose_input(index: TfIdf, dev: list[BotTurn]) -> Choice:
    """The input variant with the higher per-response accuracy on ``dev`` (a tie: the
    whole conversation)."""
    scores = {variant: evaluate(tfidf_predict(index, dev, variant), dev) for variant in INPUTS}
    better = scores["last"].correct > scores["conversation"].correct
    return Choice("last" if better else "conversation", scores)


def evaluate(predictions: list[str], turns: list[BotTurn], sig: str = "") -> Score:
    """Per-response and per-dialog accuracy of predictions against the turns' gold."""
    return score(outcomes(predictions, turns), turns, sig)


# ---------------------------------------------------------------- Nearest Neighbor

class NearestNeighbor:
    """The training pairs, indexed by the word types of their user utterances."""

    def __init__(self, train: list[BotTurn]):
        if not train:
            raise Dstc2ConvError("no training pairs")
        self.responses: list[str] = []   # one per distinct set of user words, first pair's
        self.postings: dict[str, list[int]] = {}
        seen: set[frozenset] = set()
        for turn in train:
            types = frozenset(words(turn.user))
            if types in seen:
                continue
            seen.add(types)
            for w in types:
                self.postings.setdefault(w, []).append(len(self.responses))
            self.responses.append(turn.gold)
        self._cache: dict[frozenset, str] = {}

    def best(self, user: str) -> str:
        types = frozenset(words(user))
        found = self._cache.get(types)
        if found is None:
            shared = [0] * len(self.responses)
            for w in types:
                for i in self.postings.get(w, ()):
                    shared[i] += 1
            found = self._cache[types] = self.responses[shared.index(max(shared))]
        return found

    def ranked(self, user: str, k: int) -> tuple[str, ...]:
        shared = [0] * len(self.responses)
        for w in frozenset(words(user)):
            for i in self.postings.get(w, ()):
                shared[i] += 1
        out: dict[str, str] = {}
        for i in sorted(range(len(shared)), key=lambda i: (-shared[i], i)):
            out.setdefault(self.responses[i].strip(), self.responses[i])
            if len(out) == k:
                break
        return tuple(out.values())


def nn_predict(index: NearestNeighbor, turns: list[BotTurn]) -> list[str]:
    return [index.best(t.user) for t in turns]


def nn_rank(index: NearestNeighbor, turns: list[BotTurn], k: int) -> list[tuple[str, ...]]:
    """The ``k`` best distinct bot utterances of every turn, best first: the training
    pairs by shared word types, ties to the pair first in the training file (the first
    is ``nn_predict``'s)."""
    return [index.ranked(t.user, k) for t in turns]


__all__ = ["INPUTS", "words", "read_candidates", "train_candidates", "inputs", "TfIdf", "tfidf_predict",
           "Choice", "choose_input", "evaluate", "NearestNeighbor", "nn_predict", "tfidf_rank", "nn_rank"]
