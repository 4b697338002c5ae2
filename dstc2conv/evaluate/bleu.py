"""Corpus BLEU-4 as Moses' ``multi-bleu.perl -lc`` computes it, from per-turn statistics.

Each turn gives its hypothesis length, its reference length and, for n = 1..4, the
hypothesis' n-grams and those of them matched in the reference (counts clipped to the
reference's). The corpus figure sums them over the turns and then, as the Perl script
does: p_n = matched_n / total_n (0 when there is no n-gram), BLEU = BP * exp(mean of
log p_n), 0 when any p_n is 0; BP = exp(1 - r / c) when c < r, else 1; c, r the summed
hypothesis and reference lengths. Text is lowercased and split at whitespace; one
reference per turn.

nltk computes the same clipped counts (``modified_precision``), but its corpus BLEU
counts a hypothesis shorter than n words as one n-gram of none matched (the
denominator is at least 1), smooths a zero precision to a tiny number rather than 0,
and has no figure for an empty corpus: here the Perl script's semantics hold in those
three places. A corpus whose hypotheses are all empty scores 0 (the Perl script divides
by zero there).
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

ORDER = 4


@dataclass(frozen=True, slots=True)
class BleuStats:
    """One turn's, or a sum of turns': lengths and, per n, matched and total n-grams."""
    hyp_len: int
    ref_len: int
    matched: tuple[int, ...]
    total: tuple[int, ...]

    def __add__(self, other: BleuStats) -> BleuStats:
        return BleuStats(self.hyp_len + other.hyp_len, self.ref_len + other.ref_len,
                         tuple(a + b for a, b in zip(self.matched, other.matched)),
                         tuple(a + b for a, b in zip(self.total, other.total)))


ZERO = BleuStats(0, 0, (0,) * ORDER, (0,) * ORDER)


def ngrams(words: Sequence[str], n: int) -> zip:
    """The n-grams of ``words`` in order, as tuples (as nltk's ``ngrams``, which the tests
    check them against: importing nltk takes a second, more than scoring a file)."""
    return zip(*(words[i:] for i in range(n)))


def turn_stats(hypothesis: str, reference: str) -> BleuStats:
    hyp = hypothesis.lower().split()
    ref = reference.lower().split()
    matched, total = [], []
    for n in range(1, ORDER + 1):
        h = Counter(ngrams(hyp, n))
        r = Counter(ngrams(ref, n))
        matched.append(sum(min(count, r[gram]) for gram, count in h.items()))
        total.append(sum(h.values()))
    return BleuStats(len(hyp), len(ref), tuple(matched), tuple(total))


@dataclass(frozen=True)
class Bleu:
    score: float                    # 0..100, as multi-bleu.perl prints it
    precisions: tuple[float, ...]   # p_1..p_4, 0..100
    brevity_penalty: float
    hyp_len: int
    ref_len: int

    def to_dict(self) -> dict:
        return {"bleu": self.score, "precisions": list(self.precisions), "brevity_penalty": self.brevity_penalty,
                "hyp_len": self.hyp_len, "ref_len": self.ref_len}


def corpus_bleu(stats: Sequence[BleuStats]) -> Bleu:
    s = sum(stats, ZERO)
    precisions = tuple(m / t if t else 0.0 for m, t in zip(s.matched, s.total))
    if s.hyp_len == 0:
        return Bleu(0.0, tuple(0.0 for _ in precisions), 0.0, 0, s.ref_len)
    bp = math.exp(1 - s.ref_len / s.hyp_len) if s.hyp_len < s.ref_len else 1.0
    if min(precisions) == 0:
        score = 0.0
    else:
        score = bp * math.exp(sum(math.log(p) for p in precisions) / ORDER)
    return Bleu(100 * score, tuple(100 * p for p in precisions), bp, s.hyp_len, s.ref_len)
