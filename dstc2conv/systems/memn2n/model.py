"""MemN2N as Bordes & Weston (2017, section 4.1) use it on task 6, after Sukhbaatar et al.
(2015): the dialog's earlier utterances in memory, one slot each (a bag of words embedded
with A, plus a time word and a speaker word); the last user utterance as the query,
embedded with the same A; hops p = softmax(qᵀm), o = R·Σ pᵢmᵢ, q ← q + o; a softmax over
the candidates' scores qᵀ·W·Φ(y); cross-entropy. With ``match=True`` a candidate's bag
gains a type word for each of its KB-entity words said earlier in the dialog.

Gradients are written by hand (``loss_grads``) and checked against finite differences
by the tests."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import Dstc2ConvError
from ..ir.words import words
from ..neural.bags import bags_of, embed, scatter
from ..neural.base import Learned
from ..neural.text import BOT, USER, Example
from ..neural.training import softmax
from ..ranking import best
from .match import KBS, choose_kb, kb_entities, kb_types, type_word

NEG = -1e30


def time_word(recency: int) -> str:
    return f"$t{recency}"      # $t1: the most recent slot


@dataclass(frozen=True)
class MemoryBatch:
    texts: np.ndarray         # (U, L) word ids of the distinct utterances in the batch's memories; 0 pads
    slots: np.ndarray         # (B, M, 3) each slot's utterance (a row of texts), time word and speaker word
    mask: np.ndarray          # (B, M) bool: a slot there
    query: np.ndarray         # (B, Lq) word ids
    gold: np.ndarray | None   # (B,) candidate indices
    seen: np.ndarray | None   # (B, E) 1.0 where the entity word was said earlier (match features)


@dataclass
class Encoded:
    texts: np.ndarray         # (T, L) word ids of each distinct utterance (row 0: none)
    memory: list              # per example: (slots, 3) its slots' utterance, time word and speaker word
    query: list               # per example: the query's word ids
    seen: np.ndarray | None   # (N, E)


class MemN2N(Learned):
    """MemN2N; ``match=True``: with match-type features."""

    SETTINGS = {
        "match": False,
        "hops": 1,              # chosen on the published dev file (docs/learned.md)
        "dimension": 64,
        "memory": 20,           # the last M utterances; chosen on dev
        "kb": "",               # the match features' KB: task6, babi, a KB file, or "" (the one the training file uses)
        "typed_memory": False,  # with match: the memory slots and the query gain their KB values' type words too
        "sparse": False,        # the candidates' products by sparse matrices (Learned.embed_candidates)
        "init": 0.1,            # the initial weights' standard deviation
        "seed": 0,
        "epochs": 30,
        "patience": 3,
        "batch": 128,
        "optimizer": "adam",
        "learning_rate": 0.003,
        "clip": 40.0,
    }

    GRID = {"hops": (1, 3), "memory": (20, 50)}     # the defaults are its best on the published dev file

    # with match=True, the defaults that differ (chosen on dev with the match features)
    MATCH_SETTINGS = {"memory": 50}

    def __init__(self, candidates: Sequence[str] | None = None, match: bool = False, hops: int = 1,
                 dimension: int = 64, memory: int | None = None, kb: str = "", typed_memory: bool = False,
                 sparse: bool = False, init: float = 0.1, seed: int = 0, epochs: int = 30, patience: int = 3,
                 batch: int = 128, optimizer: str = "adam", learning_rate: float = 0.003, clip: float = 40.0):
        """``memory`` None: 20, or with ``match`` 50 (each the best on the published dev file).
        ``kb``: the KB of the match features, ``task6`` or ``babi`` (the shipped ones), a KB
        file's path, or "" for the shipped one whose values the training file uses.
        ``typed_memory`` (with ``match``): every utterance the model reads (memory slots and
        query) also gains the type word of each KB value among its words, so an entity the
        training file never uses still counts, as its type."""
        if memory is None:
            memory = self.MATCH_SETTINGS["memory"] if match is True else self.SETTINGS["memory"]
        super().__init__(candidates, match=match, hops=hops, dimension=dimension, memory=memory, kb=kb,
                         typed_memory=typed_memory, sparse=sparse, init=init, seed=seed, epochs=epochs,
                         patience=patience, batch=batch, optimizer=optimizer, learning_rate=learning_rate, clip=clip)
        if typed_memory and not match:
            raise Dstc2ConvError("setting typed_memory: True needs the match features (match=True)")
        self.kb_ = kb if kb in KBS else (kb or None)     # the KB used, once known (None until fit chooses)

    @property
    def name(self) -> str:
        return "memn2n+match" if self.match else "memn2n"

    @property
    def types(self) -> tuple[str, ...]:
        """The match features' types (those of its KB)."""
        return kb_types(self.kb_ or "task6")

    def extra_words(self) -> list[str]:
        words = [USER, BOT] + [time_word(i) for i in range(1, self.memory + 1)]
        if self.match:
            words += [type_word(t) for t in self.types]
        return words

    def fit(self, train, dev=None) -> MemN2N:
        """``Learned.fit``; with match features and no ``kb`` given, the KB is the shipped
        one whose values the training file uses (``match.choose_kb``)."""
        if self.match:
            self.kb_ = self.kb or choose_kb(t for turn in train for t in (*turn.lead, turn.user, turn.gold, *turn.context))
            self.types                  # a KB file named is read (and checked) before any work
        return super().fit(train, dev)

    def state(self) -> tuple[dict, dict]:
        facts, arrays = super().state()
        if self.match:
            facts["kb"] = self.kb_
        return facts, arrays

    def restore(self, facts: dict, arrays: dict) -> None:
        if self.match:
            kb = facts.get("kb", "task6")
            if not isinstance(kb, str) or not kb:
                raise ValueError(f"its KB {kb!r} is not a KB's name or file")
            self.kb_ = kb
        super().restore(facts, arrays)

    BOUNDS = {**Learned.BOUNDS, "hops": (1, 16), "memory": (1, 1000)}

    def working_bytes(self, words: int) -> int:
        # a minibatch's memories embedded, (batch x memory x d), kept at each hop with their gradients
        return 4 * self.batch * self.memory * self.dimension * (4 + 2 * self.hops)

    def param_shapes(self, words: int) -> dict[str, tuple[int, ...]]:
        d = self.dimension
        return {"A": (words, d), "W": (words, d), "R": (d, d)}

    def init_params(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        s, v = self.settings, len(self.vocab)
        d = s["dimension"]
        return {"A": (rng.standard_normal((v, d)) * s["init"]).astype(np.float32),
                "W": (rng.standard_normal((v, d)) * s["init"]).astype(np.float32),
                "R": (np.eye(d) + rng.standard_normal((d, d)) * s["init"]).astype(np.float32)}

    # -- candidates and match features
    def prepare(self, candidates: Sequence[str]) -> None:
        self.cand_bags = bags_of(self.vocab, candidates)            # (C, V) word counts
        if not self.match:
            return
        # every value of the KB, whether the training file uses it or not (the paper's
        # "even words never seen in training"): matched as a word, not through the vocabulary
        entities = kb_entities(self.kb_ or "task6")
        types = self.types
        self.typed_words = {w: [self.vocab.index(type_word(t)) for t in found] for w, found in entities.items()}
        self.entity_column = {w: j for j, w in enumerate(entities)}
        self.entity_count = len(entities)
        entries = []                    # (candidate, type, entity column), by candidate
        for c, text in enumerate(candidates):
            for w in words(text):
                for t in entities.get(w, ()):
                    entries.append((c, types.index(t), self.entity_column[w]))
        self.entries = np.array(entries, dtype=np.int64).reshape(-1, 3)
        self.type_ids = np.array([self.vocab.index(type_word(t)) for t in types], dtype=np.int64)
        cands = self.entries[:, 0]
        self.starts = np.flatnonzero(np.r_[True, cands[1:] != cands[:-1]]) if len(cands) else np.zeros(0, np.int64)
        self.matched = cands[self.starts] if len(cands) else np.zeros(0, np.int64)

    # -- examples
    def encode(self, exs: Sequence[Example]) -> Encoded:
        cache: dict[str, list[int]] = {}
        said: dict[str, list[int]] = {}
        rows: dict[str, int] = {"\0": 0}
        speaker = {USER: self.vocab.index(USER), BOT: self.vocab.index(BOT)}
        times = [self.vocab.index(time_word(i)) for i in range(1, self.memory + 1)]
        size = self.memory
        match = self.match
        memory, query, seen_rows = [], [], []
        previous: tuple = ()
        seen: set[int] = set()

        typed = self.typed_words if self.match and self.typed_memory else None

        def ids(text):
            found = cache.get(text)
            if found is None:
                found = cache[text] = self.vocab.ids(text)
                if typed:
                    found += [i for w in words(text) for i in typed.get(w, ())]
            return found

        def entities(text):             # the columns of the KB values among the text's words
            found = said.get(text)
            if found is None:
                found = said[text] = [j for j in map(self.entity_column.get, words(text)) if j is not None]
            return found

        for ex in exs:
            slots = ex.history[-size:]
            n = len(slots)
            memory.append(np.array([(rows.setdefault(text, len(rows)), times[n - 1 - j], speaker[who])
                                    for j, (who, text) in enumerate(slots)], dtype=np.int64).reshape(-1, 3))
            query.append(ids(ex.user))
            if match:
                h = ex.history
                if not (len(h) >= len(previous) and h[:len(previous)] == previous):
                    previous, seen = (), set()
                for _, text in h[len(previous):]:
                    seen.update(entities(text))
                previous = h
                row = np.zeros(self.entity_count, dtype=np.float32)
                row[list(seen.union(entities(ex.user)))] = 1
                seen_rows.append(row)
        bags = [ids(text) for text in rows]
        bags[0] = []
        texts = np.zeros((len(bags), max(1, max(len(w) for w in bags))), dtype=np.int64)
        for row, found in enumerate(bags):
            texts[row, :len(found)] = found
        seen_matrix = np.stack(seen_rows) if match and seen_rows else None
        return Encoded(texts, memory, query, seen_matrix)

    def minibatch(self, encoded: Encoded, indices: np.ndarray, gold: np.ndarray | None) -> MemoryBatch:
        mems = [encoded.memory[i] for i in indices]
        queries = [encoded.query[i] for i in indices]
        slots = np.zeros((len(indices), max(1, max(len(x) for x in mems)), 3), dtype=np.int64)
        for b, found in enumerate(mems):
            slots[b, :len(found)] = found
        mask = slots[:, :, 1] != 0
        used, inverse = np.unique(slots[:, :, 0], return_inverse=True)
        slots[:, :, 0] = inverse.reshape(slots.shape[:2])
        query = np.zeros((len(indices), max(1, max(len(q) for q in queries))), dtype=np.int64)
        for b, found in enumerate(queries):
            query[b, :len(found)] = found
        seen = encoded.seen[indices] if encoded.seen is not None else None
        return MemoryBatch(encoded.texts[used], slots, mask, query, gold, seen)

    # -- the network
    def forward(self, batch: MemoryBatch, params: dict | None = None):
        """The candidates' scores (B, C) and what the backward pass needs (``params``:
        instead of the model's own)."""
        p = params or self.params
        A, W, R = p["A"], p["W"], p["R"]
        U = embed(A, batch.texts)                             # (U, d)
        E = U[batch.slots[:, :, 0]] + A[batch.slots[:, :, 1]] + A[batch.slots[:, :, 2]]   # (B, M, d)
        q = embed(A, batch.query)                        # (B, d)
        qs, attention, reads = [q], [], []
        for _ in range(self.hops):
            s = np.einsum("bmd,bd->bm", E, q)
            s = np.where(batch.mask, s, NEG)
            e = np.exp(s - s.max(axis=1, keepdims=True)) * batch.mask
            a = e / np.maximum(e.sum(axis=1, keepdims=True), 1e-30)
            u = np.einsum("bm,bmd->bd", a, E)
            q = q + u @ R.T
            attention.append(a)
            reads.append(u)
            qs.append(q)
        Y = self.embed_candidates(W) if params is not None else self.candidate_table("W")   # (C, d)
        logits = q @ Y.T
        G = None
        if self.match and len(self.entries):
            G = q @ W[self.type_ids].T                        # (B, T)
            c, t, j = self.entries.T
            contrib = batch.seen[:, j] * G[:, t]
            logits[:, self.matched] += np.add.reduceat(contrib, self.starts, axis=1)
        return logits, (E, qs, attention, reads, Y, G)

    def scores(self, batch: MemoryBatch) -> np.ndarray:
        return self.forward(batch)[0]

    def loss_grads(self, batch: MemoryBatch, rng=None, params: dict | None = None):
        p = params or self.params
        A, W, R = p["A"], p["W"], p["R"]
        logits, (E, qs, attention, reads, Y, G) = self.forward(batch, p)   # p: not the cache
        n = len(batch.gold)
        probs = softmax(logits)
        rows = np.arange(n)
        loss = float(-np.log(np.maximum(probs[rows, batch.gold], 1e-30)).mean())
        dlogits = probs
        dlogits[rows, batch.gold] -= 1
        dlogits /= n
        q = qs[-1]
        dq = dlogits @ Y
        dY = dlogits.T @ q
        dA, dW, dR = np.zeros_like(A), np.zeros_like(W), np.zeros_like(R)
        if G is not None:
            c, t, j = self.entries.T
            dcontrib = dlogits[:, c] * batch.seen[:, j]       # (B, entries)
            dG = dcontrib @ (t[:, None] == np.arange(len(self.type_ids))).astype(G.dtype)   # (B, T)
            dq += dG @ W[self.type_ids]
            np.add.at(dW, self.type_ids, dG.T @ q)
        dE = np.zeros_like(E)
        for h in range(self.hops - 1, -1, -1):
            a, u, qh = attention[h], reads[h], qs[h]
            du = dq @ R
            dR += dq.T @ u
            da = np.einsum("bmd,bd->bm", E, du)
            dE += a[:, :, None] * du[:, None, :]
            ds = a * (da - (a * da).sum(axis=1, keepdims=True))
            dE += ds[:, :, None] * qh[:, None, :]
            dq = dq + np.einsum("bm,bmd->bd", ds, E)
        dW += self.candidates_grad(dY)
        dU = np.zeros((len(batch.texts) + 1, dE.shape[-1]), dtype=dE.dtype)
        scatter(dU, batch.slots[:, :, :1] + 1, dE)          # rows from 1: scatter leaves id 0 out
        scatter(dA, batch.texts, dU[1:])
        scatter(dA, batch.slots[:, :, 1:2], dE)
        scatter(dA, batch.slots[:, :, 2:], dE)
        scatter(dA, batch.query, dq)
        dA[0] = 0
        dW[0] = 0
        return loss, {"A": dA, "W": dW, "R": dR}

    def attention(self, user: str) -> tuple[list[tuple[str, str]], list[list[float]], str, int]:
        """What the model reads now: the memory slots (speaker, text; the last M
        utterances, oldest first), the attention on each at every hop (a list per hop),
        its best answer, and how many earlier utterances are beyond the memory."""
        slots, attention, logits, beyond = self._read(user)
        weights = [[float(a[0, j]) for j in range(len(slots))] for a in attention]
        return [(who[1:], text) for who, text in slots], weights, self.candidates[best(logits[0], 1)[0]], beyond

    def _read(self, user: str):
        example = Example(tuple(self.history.slots), user, "")
        batch = self.minibatch(self.encode([example]), np.arange(1), None)
        logits, (_, _, attention, _, _, _) = self.forward(batch)
        slots = example.history[-self.memory:]
        return slots, attention, logits, len(example.history) - len(slots)

    def explain(self, user: str, top: int) -> list[str]:
        """The memory slots the model reads now (the last M utterances, oldest first),
        each with its attention at every hop, the user utterance, and its ``top`` best
        answers with their scores."""
        slots, attention, logits, beyond = self._read(user)
        lines = ["  ".join(f"hop {h + 1:<2}" for h in range(self.hops)) + "  memory"]
        if beyond:
            lines.append(f"({beyond} earlier utterances beyond the memory size)")
        for j, (who, text) in enumerate(slots):
            lines.append("  ".join(f"{a[0, j]:.3f} " for a in attention) + f"  {who[1:]:<4} {text}")
        lines.append(f"user:  {user}")
        order = best(logits[0], max(1, top))
        lines.append(f"answer: {self.candidates[order[0]]}  (score {logits[0][order[0]]:.3f})")
        lines += [f"  {n:>2}. {logits[0][i]:8.3f}  {self.candidates[i]}" for n, i in enumerate(order[1:], 2)]
        return lines
