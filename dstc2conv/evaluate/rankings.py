"""Ranked predictions: for each bot turn of a task-6 file, candidate utterances best
first, one JSON list of strings a line (JSON lines). The first candidate is the turn's
prediction; the gold's rank (its position, from 1, compared stripped; none when absent)
gives hits@k and MRR."""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import Dstc2ConvError
from ..task6.rankings import looks_ranked, read_rankings

__all__ = ["looks_ranked", "read_rankings", "check_candidates", "gold_rank", "score_system"]


def check_candidates(path: str, rankings: Sequence[Sequence[str]], candidates: Sequence[str], where: str) -> None:
    """Every ranked utterance is one of the candidates file's (compared stripped)."""
    known = {c.strip() for c in candidates}
    for number, ranked in enumerate(rankings, 1):
        for candidate in ranked:
            if candidate.strip() not in known:
                raise Dstc2ConvError(f"{candidate.strip()[:60]!r} is not a candidate of {where}", path, number)


def gold_rank(ranked: Sequence[str], gold: str) -> int | None:
    gold = gold.strip()
    return next((i for i, c in enumerate(ranked, 1) if c.strip() == gold), None)


def score_system(predictions, rankings, turns, data_sha: str, parts: list[str], k: int | None):
    """A system's predictions (and, given its ``rankings``, of ``k`` candidates each)
    scored: accuracy, and with rankings hits@n for every n up to ``k`` and MRR; returns
    the scored figures and their signature."""
    from . import metrics as m

    names = ["accuracy"]
    ranks = None
    if rankings is not None:
        ranks = tuple(gold_rank(r, t.gold) for r, t in zip(rankings, turns))
        names += [n for n in m.NAMES if n.startswith("hits@") and int(n[5:]) <= k] + ["mrr"]
    inputs = m.Inputs(tuple(turns), tuple(predictions), "ranking" if ranks else "text", ranks)
    return m.compute(inputs, names), m.signature(data_sha, parts, inputs, names)

