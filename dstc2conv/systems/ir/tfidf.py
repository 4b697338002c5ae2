"""TF-IDF Match, the information-retrieval baseline of Bordes & Weston (2017), section
4.3, as a system of the one interface (``systems.interface``).

It ranks every candidate response by the TF-IDF weighted cosine similarity between its
bag of words (``words``) and the input's, and answers with the best. The documents are
the candidates: idf(w) = ln(N / df(w)), N candidates, df(w) of them holding w; a weight
is tf * idf, tf the count of the word in the text. The input is either the last user
utterance (``last``) or the whole conversation so far (``conversation``): every earlier
user utterance, gold bot utterance and result line of the dialog, and the last user
utterance. The ranking follows ``systems.ranking``: scores within TIE of the best are
tied, the first candidate among them wins.

The cosines are one sparse product (scipy): the candidates' unit vectors are the rows of
a matrix, its columns the words in alphabetical order; a row's products are added in
the order of its columns, word by word as the words of the input, in alphabetical order,
would add them one at a time, so every cosine is the same float, to the last bit.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.sparse import csr_array

from ...errors import Dstc2ConvError
from ...evaluate.metrics import accuracy
from ...evaluate.responses import outcomes
from ...task6.candidates import distinct, read_candidates
from ...task6.turns import BotTurn
from .. import ranking
from ..interface import System, predict
from .words import words

INPUTS = ("last", "conversation")
TIE = ranking.TIE


def train_candidates(train: Sequence[BotTurn]) -> tuple[str, ...]:
    """The distinct bot utterances of a training file, in order of first occurrence."""
    return distinct(t.gold for t in train)


class TfIdf:
    """The candidates' TF-IDF vectors, each of length 1, as the rows of a sparse matrix
    whose columns are the words that weigh something (in no candidate's every word)."""

    def __init__(self, candidates: Sequence[str]):
        if not candidates:
            raise Dstc2ConvError("no candidates")
        self.candidates = tuple(candidates)
        counts = [_counts(words(c)) for c in self.candidates]
        df: dict[str, int] = {}
        for bag in counts:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = len(self.candidates)
        self.idf = {w: math.log(n / d) for w, d in df.items()}
        vocabulary = sorted(w for w, x in self.idf.items() if x)
        self.vocabulary = tuple(vocabulary)
        self.columns = {w: j for j, w in enumerate(vocabulary)}
        self._idf = np.array([self.idf[w] for w in vocabulary], dtype=float)
        data: list[float] = []
        indices: list[int] = []
        starts = [0]
        for bag in counts:
            weights = {w: tf * self.idf[w] for w, tf in sorted(bag.items())}
            norm = math.sqrt(sum(x * x for x in weights.values()))
            for w, x in weights.items():
                if x:
                    indices.append(self.columns[w])
                    data.append(x / norm)
            starts.append(len(indices))
        self._matrix = csr_array((np.array(data, dtype=float), np.array(indices, dtype=np.int64),
                                  np.array(starts, dtype=np.int64)), shape=(n, len(vocabulary)))

    def counts(self, text: Sequence[str]) -> np.ndarray:
        """The counts of a text's words that weigh something, as a vector over the columns."""
        columns = self.columns
        return np.bincount([j for j in (columns.get(w) for w in text) if j is not None],
                           minlength=len(self.vocabulary)).astype(float)

    def cosines(self, counts: np.ndarray) -> np.ndarray:
        """The cosine of every candidate with a bag of words (``counts``), as an array.
        The input's squared weights are added in column order, as the candidates'
        products are."""
        weights = counts * self._idf
        squares = np.cumsum(weights * weights)   # one after the other, in column order
        if not len(squares) or not squares[-1]:
            return np.zeros(len(self.candidates))
        return (self._matrix @ weights) / math.sqrt(squares[-1])

    def scores(self, text: Sequence[str]) -> list[float]:
        """The cosine of every candidate with a text's words."""
        return self.cosines(self.counts(text)).tolist()

    def best(self, text: Sequence[str]) -> str:
        return self.candidates[ranking.first_best(self.cosines(self.counts(text)))]


def _counts(text: list[str]) -> dict[str, int]:
    bag: dict[str, int] = {}
    for w in text:
        bag[w] = bag.get(w, 0) + 1
    return bag


class TfIdfMatch(System):
    """TF-IDF Match. Settings: ``candidates`` (None: the distinct bot utterances of the
    training file) and ``input`` (``last`` or ``conversation``; None: the one with the
    higher per-response accuracy on the dev file, a tie the conversation, and without a
    dev file the conversation). Learned: ``index_``, ``input_``, ``dev_`` (each input's
    accuracy on dev, when it chose); saved and restored (``state``)."""

    name = "tfidf"

    def __init__(self, candidates: Sequence[str] | None = None, input: str | None = None):
        if input is not None and input not in INPUTS:
            raise ValueError(f"input={input!r}: give one of {', '.join(INPUTS)}, or None")
        self.candidates = None if candidates is None else tuple(candidates)
        self.input = input

    def fitted(self) -> bool:
        return hasattr(self, "index_")

    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> TfIdfMatch:
        self.index_ = TfIdf(train_candidates(train) if self.candidates is None else self.candidates)
        self._cache: dict[tuple[str, int], tuple[str, ...]] = {}   # input last: user utterance, k -> ranking
        self.dev_: dict[str, dict] = {}
        self.input_ = self.input or "conversation"
        if self.input is None and dev:
            for variant in INPUTS:
                self.input_ = variant
                self.dev_[variant] = accuracy(outcomes(predict(self, dev), dev), dev)
            better = self.dev_["last"]["correct"] > self.dev_["conversation"]["correct"]
            self.input_ = "last" if better else "conversation"
        self.reset()
        return self

    def reset(self) -> None:
        self._history = np.zeros(len(self.index_.vocabulary))

    def state(self) -> tuple[dict, dict]:
        """The indexed candidates, the input chosen and each input's accuracy on dev (the
        TF-IDF vectors are the candidates', computed again on restore)."""
        return {"candidates": list(self.index_.candidates), "input": self.input_, "dev": self.dev_}, {}

    def restore(self, facts: dict, arrays: dict) -> None:
        candidates, chosen, dev = facts["candidates"], facts["input"], facts["dev"]
        if not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates):
            raise ValueError("the candidates are not a list of strings")
        if chosen not in INPUTS or not isinstance(dev, dict):
            raise ValueError(f"input {chosen!r} is not one of {', '.join(INPUTS)}")
        self.index_ = TfIdf(candidates)
        self._cache = {}
        self.input_, self.dev_ = chosen, dev
        self.reset()

    def expected_arrays(self, facts: dict) -> dict:
        return {}

    def _counts(self, user: str) -> np.ndarray:
        counts = self.index_.counts(words(user))
        return counts + self._history if self.input_ == "conversation" else counts

    def input_words(self, user: str) -> dict[str, int]:
        """The input at this turn: its words that weigh something, with their counts."""
        counts = self._counts(user)
        return {self.index_.vocabulary[j]: int(counts[j]) for j in np.flatnonzero(counts)}

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        if self.input_ == "last":   # the same user utterances come back often
            found = self._cache.get((user, k))
            if found is None:
                found = self._cache[user, k] = self._rank(self._counts(user), k)
            return found
        return self._rank(self._counts(user), k)

    def _rank(self, counts: np.ndarray, k: int) -> tuple[str, ...]:
        candidates = self.index_.candidates
        return tuple(candidates[i] for i in ranking.best(self.index_.cosines(counts), k))

    def preface(self, context: tuple[str, ...]) -> None:
        if self.input_ == "conversation":
            self._history += self.index_.counts([w for text in context for w in words(text)])

    def observe(self, user: str, gold: str, context: tuple[str, ...]) -> None:
        if self.input_ == "conversation":
            self._history += self.index_.counts([w for text in (user, gold, *context) for w in words(text)])


__all__ = ["INPUTS", "TIE", "read_candidates", "train_candidates", "TfIdf", "TfIdfMatch"]
