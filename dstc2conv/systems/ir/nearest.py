"""Nearest Neighbor, the information-retrieval baseline of Bordes & Weston (2017),
section 4.3, as a system of the one interface (``systems.interface``).

It takes the training (user utterance, bot utterance) pairs and answers with the bot
utterance of the pair whose user utterance shares the most word types (``words``) with
the last user utterance; ties (a score of 0 included) go to the pair first in the
training file. (Pure Python: it loads neither numpy nor scipy.)
"""
from __future__ import annotations

from collections.abc import Sequence

from ...errors import DataRefused
from ...task6.turns import BotTurn
from ..interface import System
from .words import words


class NearestNeighbor(System):
    """Nearest Neighbor: no settings. Learned: the training pairs, indexed by the word
    types of their user utterances (one pair per distinct set of user words, the first);
    saved and restored (``state``)."""

    name = "nn"

    def fitted(self) -> bool:
        return hasattr(self, "responses_")

    def fit(self, train: Sequence[BotTurn], dev: Sequence[BotTurn] | None = None) -> NearestNeighbor:
        if not train:
            raise DataRefused("no training pairs")
        self.responses_: list[str] = []
        self.postings_: dict[str, list[int]] = {}
        seen: set[frozenset] = set()
        for turn in train:
            types = frozenset(words(turn.user))
            if types in seen:
                continue
            seen.add(types)
            for w in types:
                self.postings_.setdefault(w, []).append(len(self.responses_))
            self.responses_.append(turn.gold)
        self._cache: dict[frozenset, str] = {}
        return self

    def state(self) -> tuple[dict, dict]:
        """The training pairs kept: each one's user word types (in order) and bot utterance."""
        users = [[] for _ in self.responses_]
        for w, indices in self.postings_.items():
            for i in indices:
                users[i].append(w)
        return {"pairs": [[sorted(types), response] for types, response in zip(users, self.responses_)]}, {}

    def restore(self, facts: dict, arrays: dict) -> None:
        pairs = facts["pairs"]
        if not isinstance(pairs, list) or not pairs:
            raise ValueError("no training pairs")
        self.responses_, self.postings_ = [], {}
        for types, response in pairs:
            if not isinstance(response, str) or not all(isinstance(w, str) for w in types):
                raise ValueError("a training pair is not (word types, response)")
            for w in types:
                self.postings_.setdefault(w, []).append(len(self.responses_))
            self.responses_.append(response)
        self._cache = {}

    def expected_arrays(self, facts: dict) -> dict:
        return {}

    def _shared(self, types: frozenset) -> list[int]:
        shared = [0] * len(self.responses_)
        for w in types:
            for i in self.postings_.get(w, ()):
                shared[i] += 1
        return shared

    def rank(self, user: str, k: int) -> tuple[str, ...]:
        """The ``k`` best distinct bot utterances, best first: the training pairs by shared
        word types, ties to the pair first in the training file."""
        types = frozenset(words(user))
        if k == 1:
            found = self._cache.get(types)
            if found is None:
                shared = self._shared(types)
                found = self._cache[types] = self.responses_[shared.index(max(shared))]
            return (found,)
        shared = self._shared(types)
        out: dict[str, str] = {}
        for i in sorted(range(len(shared)), key=lambda i: (-shared[i], i)):
            out.setdefault(self.responses_[i].strip(), self.responses_[i])
            if len(out) == k:
                break
        return tuple(out.values())


__all__ = ["NearestNeighbor"]
