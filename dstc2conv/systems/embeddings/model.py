"""Supervised embeddings as Bordes & Weston (2017, section 4.2) describe them: the score
of a candidate y for the conversation so far x is f(x, y) = (A·Φ(x))ᵀ(B·Φ(y)), Φ a bag of
words (x: every utterance of the dialog so far, result lines included, and the user's
last one, as one bag), A = B or not; trained with a margin ranking loss against N
negative candidates drawn at random: max(0, 1 - f(x, y) + f(x, ȳ)) for each.

Gradients are written by hand (``loss_grads``) and checked against finite differences
by the tests."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..neural.bags import bags_of, scatter
from ..neural.base import Learned
from ..neural.text import Example


@dataclass(frozen=True)
class BagBatch:
    bag: np.ndarray            # (B, V) word counts of the conversation
    gold: np.ndarray | None    # (B,) candidate indices


@dataclass
class Encoded:
    bags: list                 # per example: (word ids, counts)


class SupervisedEmbeddings(Learned):
    """Supervised embeddings (a memory network without memory)."""

    name = "embeddings"
    SETTINGS = {
        "dimension": 32,
        "tied": False,          # A = B
        "negatives": 100,       # N
        "margin": 1.0,
        "init": 0.1,
        "seed": 0,
        "epochs": 20,
        "patience": 3,
        "batch": 32,
        "optimizer": "sgd",
        "learning_rate": 0.01,
        "sparse": False,        # the candidates' products by sparse matrices (Learned.embed_candidates)
        "clip": 40.0,
    }

    BOUNDS = {**Learned.BOUNDS, "negatives": (1, 100_000)}

    def __init__(self, candidates: Sequence[str] | None = None, dimension: int = 32, tied: bool = False,
                 negatives: int = 100, margin: float = 1.0, init: float = 0.1, seed: int = 0, epochs: int = 20,
                 patience: int = 3, batch: int = 32, optimizer: str = "sgd", learning_rate: float = 0.01,
                 sparse: bool = False, clip: float = 40.0):
        super().__init__(candidates, dimension=dimension, tied=tied, negatives=negatives, margin=margin, init=init,
                         seed=seed, epochs=epochs, patience=patience, batch=batch, optimizer=optimizer,
                         learning_rate=learning_rate, sparse=sparse, clip=clip)
    GRID = {"tied": (False, True), "negatives": (20, 100)}    # the defaults are its best on the published dev file

    def working_bytes(self, words: int) -> int:
        # a minibatch's bags (batch x words), and its candidates' rows, scores and gradients (batch x (1 + N) x d, thrice)
        return 4 * self.batch * (words + 3 * (1 + self.negatives) * self.dimension)

    def param_shapes(self, words: int) -> dict[str, tuple[int, ...]]:
        d = self.dimension
        return {"A": (words, d)} if self.tied else {"A": (words, d), "B": (words, d)}

    def init_params(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s, v = self.settings, len(self.vocab)
        params = {"A": (rng.standard_normal((v, s["dimension"])) * s["init"]).astype(np.float32)}
        if not s["tied"]:
            params["B"] = (rng.standard_normal((v, s["dimension"])) * s["init"]).astype(np.float32)
        return params

    def prepare(self, candidates: Sequence[str]) -> None:
        self.cand_bags = bags_of(self.vocab, candidates)

    def encode(self, exs: Sequence[Example]) -> Encoded:
        bags = []
        previous: tuple = ()
        counts: Counter = Counter()
        for ex in exs:
            h = ex.history
            if not (len(h) >= len(previous) and h[:len(previous)] == previous):
                previous, counts = (), Counter()
            for _, text in h[len(previous):]:
                counts.update(self.vocab.ids(text))
            previous = h
            bag = counts + Counter(self.vocab.ids(ex.user))
            words = np.array(sorted(bag), dtype=np.int64)
            bags.append((words, np.array([bag[w] for w in words], dtype=np.float32)))
        return Encoded(bags)

    def minibatch(self, encoded: Encoded, indices: np.ndarray, gold: np.ndarray | None) -> BagBatch:
        bag = np.zeros((len(indices), len(self.vocab)), dtype=np.float32)
        for b, i in enumerate(indices):
            words, counts = encoded.bags[i]
            bag[b, words] = counts
        return BagBatch(bag, gold)

    def _tables(self, p: dict) -> tuple[np.ndarray, np.ndarray]:
        return p["A"], p.get("B", p["A"])

    def scores(self, batch: BagBatch) -> np.ndarray:
        A, B = self._tables(self.params)
        return (batch.bag @ A) @ self.candidate_table("B" if "B" in self.params else "A").T

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.integers(0, len(self.candidates), size=(n, self.negatives))

    def loss_grads(self, batch: BagBatch, rng: np.random.Generator, params: dict | None = None, negatives=None):
        p = params or self.params
        A, B = self._tables(p)
        n = len(batch.gold)
        if negatives is None:
            negatives = self.sample(n, rng)
        chosen = np.concatenate([batch.gold[:, None], negatives], axis=1)     # (n, 1 + N)
        Y = self.embed_candidates(B)                                           # (C, d)
        x = batch.bag @ A                                                      # (n, d)
        y = Y[chosen]                                                          # (n, 1 + N, d)
        f = np.einsum("bd,bkd->bk", x, y)
        hinge = self.margin - f[:, :1] + f[:, 1:]
        active = (hinge > 0).astype(A.dtype)
        loss = float((hinge * active).sum() / n)
        df = np.concatenate([-active.sum(axis=1, keepdims=True), active], axis=1) / n
        dx = np.einsum("bk,bkd->bd", df, y)
        dy = df[:, :, None] * x[:, None, :]
        dY = np.zeros((len(Y) + 1, Y.shape[1]), dtype=Y.dtype)
        scatter(dY, chosen[:, :, None] + 1, dy)                                # rows from 1: scatter leaves 0 out
        dB = self.candidates_grad(dY[1:])
        dA = batch.bag.T @ dx
        if "B" not in p:
            dA += dB
            dA[0] = 0
            return loss, {"A": dA}
        dA[0] = 0
        dB[0] = 0
        return loss, {"A": dA, "B": dB}
