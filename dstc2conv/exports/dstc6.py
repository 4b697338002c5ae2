"""DSTC6 track 1 (end-to-end goal-oriented dialog) samples for a task-6 file, and the
reader of DSTC6 result files.

A sample per bot turn, in file order: ``dialog_id`` (``<dialog>-<turn>``, both from 1),
``utterances`` (the dialog so far: ``{"speaker": "u" | "s", "utterance"}``, the result
lines as the system's, ending with the user utterance the bot answers), ``candidates``
(K of them, ``{"candidate_id", "utterance"}``: the gold and K - 1 distractors drawn from
the candidates file without the gold, in a drawn order) and ``answer`` (the gold's
candidate). A candidate's id is its position in the candidates file, from 1 (a gold the
file lacks gets the next free number). One ``random.Random(seed)`` draws, sample after
sample: ``sample(range(N), K)`` candidate positions (the gold's dropped if drawn, else
the last), then a shuffle of the K.

A result file is ``[{"dialog_id", "lst_candidate_id": [{"candidate_id", "rank"}]}]``,
rank 1 the best. The samples file is a JSON array, one sample a line.
P@k (the DSTC6 scorer's) is the share of samples whose answer is
ranked k or better.
"""
from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..files import read_text
from ..task6.turns import BotTurn


@dataclass(frozen=True)
class Sample:
    dialog_id: str
    candidates: tuple[tuple[str, str], ...]   # (candidate_id, utterance)
    answer: str                               # the gold's candidate_id


def samples(turns: Sequence[BotTurn], candidates: Sequence[str], k: int, seed: int) -> list[dict]:
    """The DSTC6 samples of the turns of a task-6 file (see the module's doc)."""
    if k < 2:
        raise Dstc2ConvError(f"--k {k}: give 2 or more (the gold and a distractor)")
    pool = list(dict.fromkeys(c.strip() for c in candidates))
    ids = {text: i for i, text in enumerate(pool, 1)}
    if len(pool) < k:
        raise Dstc2ConvError(f"--k {k}: the candidates file has only {len(pool)} distinct candidates")
    rng = random.Random(seed)
    out = []
    history: list[dict] = []
    dialog = None
    for turn in turns:
        if turn.dialog != dialog:
            history, dialog = [], turn.dialog
        history.append({"speaker": "u", "utterance": turn.user})
        gold = turn.gold.strip()
        if gold not in ids:
            ids[gold] = len(ids) + 1
        drawn = rng.sample(range(len(pool)), k)
        kept = [i for i in drawn if pool[i] != gold]
        chosen = [gold] + [pool[i] for i in kept[:k - 1]]
        rng.shuffle(chosen)
        out.append({"dialog_id": f"{turn.dialog + 1}-{turn.index + 1}", "utterances": list(history),
                    "candidates": [{"candidate_id": str(ids[c]), "utterance": c} for c in chosen],
                    "answer": {"candidate_id": str(ids[gold]), "utterance": gold}})
        history.append({"speaker": "s", "utterance": turn.gold.strip()})
        history.extend({"speaker": "s", "utterance": line} for line in turn.context)
    return out


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
    """DSTC6 samples, as ``samples`` writes them."""
    out = []
    for line, entry in _entries(path, "a DSTC6 samples file"):
        try:
            candidates = tuple((str(c["candidate_id"]), str(c["utterance"])) for c in entry["candidates"])
            out.append(Sample(str(entry["dialog_id"]), candidates, str(entry["answer"]["candidate_id"])))
        except (KeyError, TypeError):
            raise Dstc2ConvError("not a DSTC6 sample: give dialog_id, candidates [{candidate_id, utterance}] "
                                 "and answer {candidate_id}", path, line) from None
    return out


def read_results(path: str, known: Sequence[Sample]) -> list[tuple[tuple[str, ...], int | None]]:
    """For each sample of ``known``, in their order: its candidates' utterances as the
    result ranks them, best first, and the answer's rank (None when not ranked). Every
    sample is ranked once; an unknown dialog or candidate id, or a rank that is not a
    whole number from 1, is an error naming the file and line."""
    by_id = {s.dialog_id: s for s in known}
    ranked: dict[str, tuple[tuple[str, ...], int | None]] = {}
    for line, entry in _entries(path, "a DSTC6 result file"):
        try:
            dialog_id = str(entry["dialog_id"])
            pairs = [(str(c["candidate_id"]), c["rank"]) for c in entry["lst_candidate_id"]]
        except (KeyError, TypeError):
            raise Dstc2ConvError("not a DSTC6 result: give dialog_id and lst_candidate_id "
                                 "[{candidate_id, rank}]", path, line) from None
        sample = by_id.get(dialog_id)
        if sample is None:
            raise Dstc2ConvError(f"unknown dialog_id {dialog_id!r}: no such sample", path, line)
        if dialog_id in ranked:
            raise Dstc2ConvError(f"dialog_id {dialog_id!r} is ranked twice", path, line)
        texts = dict(sample.candidates)
        for candidate_id, rank in pairs:
            if candidate_id not in texts:
                raise Dstc2ConvError(f"unknown candidate_id {candidate_id!r} for dialog_id {dialog_id!r}", path, line)
            if not isinstance(rank, int) or isinstance(rank, bool) or rank < 1:
                raise Dstc2ConvError(f"rank {rank!r} of candidate {candidate_id!r}: give a whole number from 1",
                                     path, line)
        pairs.sort(key=lambda pair: pair[1])
        answer = next((rank for candidate_id, rank in pairs if candidate_id == sample.answer), None)
        ranked[dialog_id] = (tuple(texts[c] for c, _ in pairs), answer)
    missing = [s.dialog_id for s in known if s.dialog_id not in ranked]
    if missing:
        raise Dstc2ConvError(f"{len(missing)} samples are not ranked (the first: dialog_id {missing[0]!r})", path)
    return [ranked[s.dialog_id] for s in known]
