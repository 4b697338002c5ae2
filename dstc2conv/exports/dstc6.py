"""DSTC6 track 1 (end-to-end goal-oriented dialog) samples for a task-6 file, the
reader of DSTC6 result files, and a result file made of a ranking.

A sample per bot turn, in file order: ``dialog_id`` (``<dialog>-<turn>``, both from 1),
``utterances`` (the dialog so far, plain strings as the track's data has them: the
result lines as the system's, ending with the user utterance the bot answers),
``speakers`` (parallel to ``utterances``: ``u`` or ``s``; no DSTC6 reader reads it),
``candidates`` (K of them, ``{"candidate_id", "utterance"}``: the gold and K - 1
distractors drawn from the candidates file without the gold, in a drawn order) and
``answer`` (the gold's candidate; the track's released test files leave it out, and so
does ``export dstc6 --no-answer``). A candidate's id is its position in the candidates file, from 1
(a gold the file lacks gets the next free number). One ``random.Random(seed)`` draws,
sample after sample: ``sample(range(N), K)`` candidate positions (the gold's dropped if
drawn, else the last), then a shuffle of the K.

A result file is ``[{"dialog_id", "lst_candidate_id": [{"candidate_id", "rank"}]}]``,
rank 1 the best; a truth file is one in which the answer alone has rank 1 (what the
track's ``score.py`` reads). P@k (the DSTC6 scorer's) is the share of samples whose
answer is ranked k or better. The samples file is a JSON array, one sample a line.
"""
from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..files import read_text
from ..task6.turns import BotTurn


@dataclass(frozen=True)
class Sample:
    dialog_id: str
    candidates: tuple[tuple[str, str], ...]   # (candidate_id, utterance)
    answer: str | None                        # the gold's candidate_id (None: the sample does not say)


def samples(turns: Sequence[BotTurn], candidates: Sequence[str], k: int, seed: int) -> Iterator[dict]:
    """The DSTC6 samples of the turns of a task-6 file, one at a time (see the module's
    doc); a bad ``k`` is an error at once, before the first sample."""
    if k < 2:
        raise Dstc2ConvError(f"--k {k}: give 2 or more (the gold and a distractor)")
    pool = list(dict.fromkeys(c.strip() for c in candidates))
    if len(pool) < k:
        raise Dstc2ConvError(f"--k {k}: the candidates file has only {len(pool)} distinct candidates")
    return _samples(turns, pool, k, seed)


def _samples(turns: Sequence[BotTurn], pool: list[str], k: int, seed: int) -> Iterator[dict]:
    ids = {text: i for i, text in enumerate(pool, 1)}
    rng = random.Random(seed)
    history: list[str] = []
    speakers: list[str] = []
    dialog = None
    for turn in turns:
        if turn.dialog != dialog:
            history, speakers, dialog = [], [], turn.dialog
        history.append(turn.user)
        speakers.append("u")
        gold = turn.gold.strip()
        if gold not in ids:
            ids[gold] = len(ids) + 1
        drawn = rng.sample(range(len(pool)), k)
        kept = [i for i in drawn if pool[i] != gold]
        chosen = [gold] + [pool[i] for i in kept[:k - 1]]
        rng.shuffle(chosen)
        yield {"dialog_id": f"{turn.dialog + 1}-{turn.index + 1}", "utterances": list(history),
               "speakers": list(speakers),
               "candidates": [{"candidate_id": str(ids[c]), "utterance": c} for c in chosen],
               "answer": {"candidate_id": str(ids[gold]), "utterance": gold}}
        history.append(gold)
        history.extend(turn.context)
        speakers.extend("s" * (1 + len(turn.context)))


def truth(sample: dict) -> dict:
    """The truth entry of a sample (as ``samples`` makes it): a result that ranks its
    answer alone, at rank 1."""
    return {"dialog_id": sample["dialog_id"],
            "lst_candidate_id": [{"candidate_id": sample["answer"]["candidate_id"], "rank": 1}]}


def results_of_rankings(rankings: Sequence[Sequence[str]], known: Sequence[Sample]) -> tuple[list[dict], int]:
    """A DSTC6 result per sample of ``known``, from the ranked utterances of the same bot
    turn (``rankings``, one per sample, in order): the sample's candidates in the
    ranking's order (compared stripped), ranks 1, 2, ...; a candidate the ranking does not
    hold is left out, unranked (an answer left out is wrong at every k, never placed by
    chance). Also the number of samples with candidates left out."""
    out = []
    short = 0
    for ranked, sample in zip(rankings, known):
        position = {}
        for i, text in enumerate(ranked):
            position.setdefault(text.strip(), i)
        listed = sorted((position[text.strip()], candidate_id) for candidate_id, text in sample.candidates
                        if text.strip() in position)
        short += len(listed) < len(sample.candidates)
        out.append({"dialog_id": sample.dialog_id,
                    "lst_candidate_id": [{"candidate_id": c, "rank": r} for r, (_, c) in enumerate(listed, 1)]})
    return out, short


def _entries(path: str, what: str) -> list[tuple[int, object]]:
    """The elements of the JSON array a file holds, each with the line it starts on."""
    text = read_text(path, what)
    decoder = json.JSONDecoder()
    i = len(text) - len(text.lstrip("\ufeff \t\r\n"))
    line = text.count("\n", 0, i) + 1
    if not text.startswith("[", i):
        raise Dstc2ConvError(f"not {what}: expected a JSON array", path, line)
    i += 1
    out = []
    while True:
        start = i
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        line += text.count("\n", start, i)
        if i >= len(text) or text[i] == "]":
            if i >= len(text):
                raise Dstc2ConvError("not JSON (the array is not closed)", path, line)
            break
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError as exc:
            raise Dstc2ConvError(f"not JSON ({exc.msg})", path, line + text.count("\n", i, exc.pos)) from None
        except RecursionError:
            raise Dstc2ConvError("not JSON (nested too deeply)", path, line) from None
        out.append((line, value))
        line += text.count("\n", i, end)
        i = end
    return out


def read_samples(path: str) -> list[Sample]:
    """DSTC6 samples, as ``samples`` writes them or the track released them (``answer``
    may be absent); ids are JSON strings, distinct within a sample."""
    out = []
    for line, entry in _entries(path, "a DSTC6 samples file"):
        try:
            candidates = tuple((c["candidate_id"], str(c["utterance"])) for c in entry["candidates"])
            answer = entry.get("answer")
            answer = None if answer is None else answer["candidate_id"]
            dialog_id = str(entry["dialog_id"])
        except (KeyError, TypeError, AttributeError):
            raise Dstc2ConvError("not a DSTC6 sample: give dialog_id, candidates [{candidate_id, utterance}] "
                                 "and (if known) answer {candidate_id}", path, line) from None
        for candidate_id in [c for c, _ in candidates] + ([] if answer is None else [answer]):
            if not isinstance(candidate_id, str):
                raise Dstc2ConvError(f"candidate_id {json.dumps(candidate_id)} of dialog_id {dialog_id!r}: write "
                                     "it as a JSON string, as the DSTC6 data does", path, line)
        ids = [c for c, _ in candidates]
        if len(set(ids)) != len(ids):
            raise Dstc2ConvError(f"dialog_id {dialog_id!r} has two candidates with one candidate_id", path, line)
        if answer is not None and answer not in ids:
            raise Dstc2ConvError(f"dialog_id {dialog_id!r}: the answer {answer!r} is not one of its candidates",
                                 path, line)
        out.append(Sample(dialog_id, candidates, answer))
    return out


def _rank(value) -> int | None:
    """A rank as the DSTC6 scorer reads it (``int(rank)``), when it reads it exactly: a
    whole number, a float with nothing after the point (``1.0``), text ``int()`` reads
    (``"1"``); None for anything else (``1.5``, ``"1.0"``, ``true``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def read_results(path: str, known: Sequence[Sample]) -> list[tuple[tuple[str, ...], int | None]]:
    """For each sample of ``known``, in their order: its candidates' utterances as the
    result ranks them, best first, and the answer's rank (None when not ranked). Every
    sample is ranked once. An error names the file and line: an unknown dialog or
    candidate id, a candidate_id that is not a JSON string, a rank that ``int()`` does not
    read exactly or is below 1, two candidates at one rank (the DSTC6 scorer would keep
    the last of them and drop the others), a candidate ranked twice."""
    by_id = {s.dialog_id: s for s in known}
    ranked: dict[str, tuple[tuple[str, ...], int | None]] = {}
    for line, entry in _entries(path, "a DSTC6 result file"):
        try:
            dialog_id = str(entry["dialog_id"])
            pairs = [(c["candidate_id"], c["rank"]) for c in entry["lst_candidate_id"]]
        except (KeyError, TypeError):
            raise Dstc2ConvError("not a DSTC6 result: give dialog_id and lst_candidate_id "
                                 "[{candidate_id, rank}]", path, line) from None
        sample = by_id.get(dialog_id)
        if sample is None:
            raise Dstc2ConvError(f"unknown dialog_id {dialog_id!r}: no such sample", path, line)
        if dialog_id in ranked:
            raise Dstc2ConvError(f"dialog_id {dialog_id!r} is ranked twice", path, line)
        texts = dict(sample.candidates)
        at: dict[int, str] = {}
        seen: set[str] = set()
        for candidate_id, given in pairs:
            if not isinstance(candidate_id, str):
                raise Dstc2ConvError(f"candidate_id {json.dumps(candidate_id)} for dialog_id {dialog_id!r}: write "
                                     "it as a JSON string (the DSTC6 scorer compares it with the truth's string "
                                     "and counts it wrong)", path, line)
            if candidate_id not in texts:
                raise Dstc2ConvError(f"unknown candidate_id {candidate_id!r} for dialog_id {dialog_id!r}", path, line)
            if candidate_id in seen:
                raise Dstc2ConvError(f"candidate_id {candidate_id!r} is ranked twice for dialog_id {dialog_id!r}",
                                     path, line)
            seen.add(candidate_id)
            rank = _rank(given)
            if rank is None or rank < 1:
                raise Dstc2ConvError(f"rank {json.dumps(given)} of candidate {candidate_id!r}: give a whole number "
                                     "from 1", path, line)
            if rank in at:
                raise Dstc2ConvError(f"candidates {at[rank]!r} and {candidate_id!r} of dialog_id {dialog_id!r} "
                                     f"both have rank {rank}: give each candidate its own rank (the DSTC6 scorer "
                                     "keeps the last at a rank)", path, line)
            at[rank] = candidate_id
        order = sorted(at.items())
        answer = next((rank for rank, candidate_id in order if candidate_id == sample.answer), None)
        ranked[dialog_id] = (tuple(texts[c] for _, c in order), answer)
    missing = [s.dialog_id for s in known if s.dialog_id not in ranked]
    if missing:
        raise Dstc2ConvError(f"{len(missing)} samples are not ranked (the first: dialog_id {missing[0]!r})", path)
    return [ranked[s.dialog_id] for s in known]
