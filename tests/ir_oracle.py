"""The TF-IDF Match of dstc2conv 0.1.0 before its cosines became one sparse product:
pure-Python dict vectors over an inverted index. Kept only as the oracle that the
fast one must equal, prediction for prediction (tests/test_ir_fast.py) and as the
figure it is timed against (benchmarks/bench_ir.py)."""
from __future__ import annotations

import math

TIE = 1e-9


def words(text):
    return text.lower().split()


def inputs(turns, variant):
    history = []
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


def _counts(text):
    bag = {}
    for w in text:
        bag[w] = bag.get(w, 0) + 1
    return bag


class TfIdf:
    def __init__(self, candidates):
        self.candidates = candidates
        counts = [_counts(words(c)) for c in candidates]
        df = {}
        for bag in counts:
            for w in bag:
                df[w] = df.get(w, 0) + 1
        n = len(candidates)
        self.idf = {w: math.log(n / d) for w, d in df.items()}
        self.postings = {}
        for i, bag in enumerate(counts):
            weights = {w: tf * self.idf[w] for w, tf in sorted(bag.items())}
            norm = math.sqrt(sum(x * x for x in weights.values()))
            for w, x in weights.items():
                if x:
                    self.postings.setdefault(w, []).append((i, x / norm))

    def scores(self, text):
        bag = {w: tf * self.idf[w] for w, tf in sorted(_counts(text).items()) if self.idf.get(w)}
        dots = [0.0] * len(self.candidates)
        if not bag:
            return dots
        norm = math.sqrt(sum(x * x for x in bag.values()))
        for w, x in bag.items():
            for i, y in self.postings[w]:
                dots[i] += x * y
        return [d / norm for d in dots]

    def best(self, text):
        scores = self.scores(text)
        top = max(scores)
        return self.candidates[next(i for i, s in enumerate(scores) if s >= top - TIE)]

    def ranked(self, text, k):
        scores = self.scores(text)
        top = max(scores)
        first = next(i for i, s in enumerate(scores) if s >= top - TIE)
        rest = sorted((i for i in range(len(scores)) if i != first), key=lambda i: (-scores[i], i))
        return tuple(self.candidates[i] for i in [first, *rest[:k - 1]])


CACHED_WORDS = 64


def rank(candidates, turns, variant, k=None):
    """Every turn's best candidate, or with ``k`` its ``k`` best (a tuple), as dstc2conv
    0.1.0 found them (inputs of at most 64 words remembered with their answer)."""
    index = TfIdf(candidates)
    answer = index.best if k is None else (lambda text: index.ranked(text, k))
    cache = {}
    out = []
    for text in inputs(turns, variant):
        if len(text) > CACHED_WORDS:
            out.append(answer(text))
            continue
        key = tuple(sorted(text))
        if key not in cache:
            cache[key] = answer(text)
        out.append(cache[key])
    return out
