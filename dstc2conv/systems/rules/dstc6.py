"""The rules on a DSTC6 track 1 file (``simulate --variant dstc6``, the track's JSON):
each entry is a dialog prefix ending with a user turn, its answer the next bot turn (the
train file's ``answer``; a test file's truth file, rank 1). An entry becomes the
engine's bot turns (``r_`` facts as ``R_``, ``<silence>`` as ``<SILENCE>``), its earlier
bot turns the gold context; only its last bot turn is predicted. The score is the share
of entries whose prediction is the answer: P@1 of the rules, whose ranking is their one
response.

A dialog does not show whether the dietary restrictions slot is asked for until the bot
asks: a file's name says it (the track names the sets ``..._restrictions-...``), and the
rules' ontology keeps its restrictions slot only for those files.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace

from ...errors import Dstc2ConvError
from ...task6.turns import BotTurn

RESTRICTED = "_restrictions-"       # in the names of the sets with the restrictions slot (tst3, tst4)
OPTIONAL_SLOT = "restrictions"


@dataclass(frozen=True)
class Entry6:
    dialog_id: str
    turns: tuple[BotTurn, ...]      # the last one's gold is the answer


def looks_dstc6(path: str | os.PathLike) -> bool:
    """Whether a file is a DSTC6 JSON file: its first non-blank byte opens a JSON list."""
    import stat

    from ...files import read_bytes

    try:
        if stat.S_ISFIFO(os.stat(path).st_mode):     # a pipe is read once, whole: the scoring reads it from there
            return read_bytes(path, "a data file").lstrip().startswith(b"[")
        with open(path, "rb") as f:
            head = f.read(64).lstrip()
    except OSError:
        return False
    return head.startswith(b"[")


def _load(path: str, what: str):
    """The JSON of ``path``, read as every input is (``files.read_text``: a regular file or
    a pipe, at most ``limits.MAX_FILE`` bytes, else one line naming it)."""
    from ...files import read_text

    text = read_text(path, what)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Dstc2ConvError(f"not a JSON file: {exc}", path) from None


def _truth(path: str) -> dict[str, str]:
    data = _load(path, "the truth file")
    out = {}
    if not isinstance(data, list):
        raise Dstc2ConvError("a truth file is a JSON list of {dialog_id, lst_candidate_id}", path)
    for i, item in enumerate(data):
        try:
            ranked = sorted(item["lst_candidate_id"], key=lambda c: c["rank"])
            out[item["dialog_id"]] = ranked[0]["candidate_id"]
        except (KeyError, TypeError, IndexError):
            raise Dstc2ConvError(f"entry {i + 1}: not {{dialog_id, lst_candidate_id: [{{candidate_id, rank}}]}}",
                                 path) from None
    return out


def _text(u: str) -> str:
    if u == "<silence>":
        return "<SILENCE>"
    words = u.split(" ")
    if len(words) == 3 and words[1].startswith("r_"):
        return f"{words[0]} R_{words[1][2:]} {words[2]}"
    return u


def _is_fact(u: str) -> bool:
    words = u.split(" ")
    return len(words) == 3 and words[1].startswith("r_")


def _turns(dialog: int, utterances: list, answer: str, where: str) -> tuple[BotTurn, ...]:
    lead: list[str] = []
    turns: list[BotTurn] = []
    user: str | None = None
    context: list[str] = []
    pending: tuple | None = None    # (user, gold) of the last bot turn, its facts still to come
    for u in utterances:
        if not isinstance(u, str):
            raise Dstc2ConvError(f"{where}: utterances must be strings")
        if _is_fact(u):
            (context if pending else lead).append(_text(u))
        elif user is None:
            if pending:
                turns.append(BotTurn(dialog, len(turns), 0, *pending, tuple(context), tuple(lead) if not turns else ()))
                context = []
                pending = None
            user = _text(u)
        else:
            pending, user = (user, _text(u)), None
    if user is None:
        raise Dstc2ConvError(f"{where}: the utterances must end with a user turn")
    if pending:
        turns.append(BotTurn(dialog, len(turns), 0, *pending, tuple(context), tuple(lead) if not turns else ()))
    turns.append(BotTurn(dialog, len(turns), 0, user, answer, (), tuple(lead) if not turns else ()))
    return tuple(turns)


def read_dstc6(path: str, truth: str | None = None) -> list[Entry6]:
    """The entries of a DSTC6 JSON file, their answers from ``answer`` or the truth file."""
    data = _load(path, "the data")
    answers = _truth(truth) if truth else None
    if not isinstance(data, list) or not data:
        raise Dstc2ConvError("a DSTC6 file is a non-empty JSON list of entries", path)
    out = []
    for i, e in enumerate(data):
        where = f"entry {i + 1}"
        try:
            dialog_id, utterances = e["dialog_id"], e["utterances"]
            candidates = {c["candidate_id"]: c["utterance"] for c in e["candidates"]}
        except (KeyError, TypeError):
            raise Dstc2ConvError(f"{where}: not {{dialog_id, utterances, candidates}}", path) from None
        if answers is not None:
            gold = answers.get(dialog_id)
            if gold is None:
                raise Dstc2ConvError(f"{where}: dialog {dialog_id} is not in the truth file {truth}", path)
        elif isinstance(e.get("answer"), dict) and "candidate_id" in e["answer"]:
            gold = e["answer"]["candidate_id"]
        else:
            raise Dstc2ConvError(f"{where}: no answer (a test file's answers are in its truth file: --truth)", path)
        if gold not in candidates:
            raise Dstc2ConvError(f"{where}: the answer {gold} is not among its candidates", path)
        if not isinstance(utterances, list):
            raise Dstc2ConvError(f"{where}: utterances must be a list", path)
        try:
            turns = _turns(i, utterances, candidates[gold], where)
        except Dstc2ConvError as exc:
            raise Dstc2ConvError(exc.message, path) from None
        out.append(Entry6(dialog_id, turns))
    return out


def for_file(ruleset, path: str):
    """The rule set as it plays the file: without its restrictions slot unless the file's
    name says the set has it."""
    if RESTRICTED in os.path.basename(path):
        return ruleset
    slots = tuple(s for s in ruleset.ontology.slots if s.name != OPTIONAL_SLOT)
    return replace(ruleset, ontology=replace(ruleset.ontology, slots=slots))


@dataclass(frozen=True)
class Score6:
    entries: int
    right: int
    wrong: tuple        # (dialog_id, predicted, answer), in file order

    @property
    def p_at_1(self) -> float:
        return self.right / self.entries


def score6(ruleset, path: str, truth: str | None = None) -> Score6:
    """P@1 of the rules on a DSTC6 file: each entry's last bot turn predicted."""
    from .engine import Compiled, predict

    class Compiled6(Compiled):
        def new_state(self):
            """The state, its slots left out by ``for_file`` unset (None) for the rules' conditions."""
            state = super().new_state()
            for slot in ruleset.ontology.slots:
                if not hasattr(state, slot.name):
                    setattr(state, slot.name, None)
            return state

    entries = read_dstc6(path, truth)
    compiled = Compiled6(for_file(ruleset, path))
    turns = [t for e in entries for t in e.turns]
    predictions = predict(compiled, turns)
    wrong, right, end = [], 0, -1
    for e in entries:
        end += len(e.turns)      # the entry's last turn
        if predictions[end].text == turns[end].gold:
            right += 1
        else:
            wrong.append((e.dialog_id, predictions[end].text, turns[end].gold))
    return Score6(len(entries), right, tuple(wrong))
