"""Ranked predictions: for each bot turn of a task-6 file, candidate utterances best
first, one JSON list of strings a line (JSON lines). The first candidate is the turn's
prediction; the gold's rank (its position, from 1, compared stripped; none when absent)
gives hits@k and MRR."""
from __future__ import annotations

from collections.abc import Sequence

from ..errors import Dstc2ConvError
from ..task6.rankings import looks_ranked, read_rankings

__all__ = ["looks_ranked", "read_rankings", "check_candidates", "gold_rank"]


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
