"""Entities in bot utterances, for the entity scores, the ``template`` match and task
success.

An entity is a whitespace token that is a restaurant name or an attribute value of the
KB file (the placeholders ``<name>_phone``, ``<name>_address``, ``<name>_post_code``
included, ratings excluded), or a name or value (ratings excluded) of a result line
shown earlier in the same dialog. Tokens are compared as they are written (the task-6
files write entities in lower case, underscored).

Mem2Seq's entity F1 has entities of its own, as its code (HLTCHKUST/Mem2Seq at 4224ccf,
``compute_prf`` and the task-6 loader) has them: ``mem2seq_counts``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from ..convert.kb import read_kb
from ..files import sha256_file
from ..task6.format import Fact
from ..task6.turns import BotTurn
from ..task6.vocabulary import RATING

NAME = "R_name"
KB_FILE = "dialog-babi-task6-dstc2-kb.txt"
_PLACEHOLDER = re.compile(r"(\S+)_(phone|address|post_code)")
INFO = {"phone": "R_phone", "address": "R_address", "post_code": "R_post_code"}


@dataclass(frozen=True)
class EntityKB:
    """The KB's entities: token -> its slot (``R_name``, ``R_cuisine``, ``R_phone`` ...)."""
    path: str
    sha256: str
    slots: dict[str, str]
    listed: frozenset[str] = frozenset()   # Mem2Seq's entity list: the names and values of every line of the file


    @property
    def names(self) -> frozenset[str]:
        return frozenset(t for t, s in self.slots.items() if s == NAME)


def read_entity_kb(path: str) -> EntityKB:
    kb = read_kb(path)
    slots: dict[str, str] = {}
    for restaurant in kb.restaurants:
        slots[restaurant.name] = NAME
        for attribute, value in restaurant.attrs:
            slots.setdefault(value, attribute)
    listed = set()
    for line in (kb.text or "").splitlines():   # as Mem2Seq's get_type_dict reads a task-6 KB, ratings too
        words = line.split()
        if len(words) >= 4:
            listed.update((words[1], words[3]))
    return EntityKB(os.fspath(path), sha256_file(path), slots, frozenset(listed))


def shipped_kb() -> str | None:
    """The published KB file shipped with dstc2conv (``dstc2conv/data/``), if it is there."""
    try:
        found = resources.files("dstc2conv").joinpath("data", KB_FILE)
    except (ModuleNotFoundError, FileNotFoundError):
        return None
    return str(found) if found.is_file() else None


def find_kb(kb: str | os.PathLike | None, ref: str | os.PathLike, sessions=None) -> EntityKB | None:
    """The KB scores use: ``kb``, else the one of the build whose manifest
    (``sessions.manifest``) lists REF, else the shipped published KB, else the published KB
    file beside REF; None without any."""
    if kb is not None:
        return read_entity_kb(kb)
    found = []
    if sessions is not None:
        found.append(os.path.join(os.path.dirname(sessions.manifest), KB_FILE))
    found += [shipped_kb(), os.path.join(os.path.dirname(os.path.abspath(ref)), KB_FILE)]
    path = next((p for p in found if p and os.path.isfile(p)), None)
    return read_entity_kb(path) if path else None


def seen_entities(turns: Sequence[BotTurn]) -> list[dict[str, str]]:
    """For each turn, the entities of the result lines shown before it in its dialog
    (token -> slot); turns with the same results share one dict."""
    out: list[dict[str, str]] = []
    seen: dict[str, str] = {}
    dialog = None
    for turn in turns:
        if turn.dialog != dialog:
            seen, dialog = {}, turn.dialog
        out.append(seen)
        facts = [f for f in map(Fact.match, turn.context) if f is not None and f.attribute != RATING]
        if facts:
            seen = dict(seen)
            for fact in facts:
                seen.setdefault(fact.name, NAME)
                seen.setdefault(fact.value, fact.attribute)
    return out


def mem2seq_local_words(turns: Sequence[BotTurn]) -> list[frozenset[str]]:
    """For each turn, the words of its dialog's KB lines that Mem2Seq's ``compute_prf``
    counts as false positives (``local_kb_word``): of each line that is not an exchange
    (result lines, ``api_call no result``), the first word once Mem2Seq's loader has
    reversed it, i.e. the last word (a value; ``result``), or the first (the name) on a
    rating line, which it does not reverse. The loader shares one list per dialog by
    reference, so every turn of a dialog gets the words of the whole dialog, later lines
    included."""
    words: dict[int, set[str]] = {}
    for turn in turns:
        found = words.setdefault(turn.dialog, set())
        for line in turn.context:
            tokens = line.split()
            if tokens:
                found.add(tokens[0] if len(tokens) > 1 and tokens[1] == RATING else tokens[-1])
    frozen = {dialog: frozenset(found) for dialog, found in words.items()}
    return [frozen[turn.dialog] for turn in turns]


def mem2seq_counts(prediction: str, gold: str, listed: frozenset[str], local: frozenset[str]) -> tuple[int, int, int, bool]:
    """(TP, FP, FN, whether the gold holds an entity) as Mem2Seq's ``compute_prf``: the
    gold entities are the gold's tokens in the KB's list (``listed``), duplicates kept;
    each found among the prediction's tokens is a TP, else an FN; each distinct predicted
    token that is in the list or among the dialog's ``local`` words and not in the gold's
    entities is an FP."""
    entities = [t for t in gold.split() if t in listed]
    if not entities:
        return 0, 0, 0, False
    predicted = prediction.split()
    tp = sum(1 for t in entities if t in predicted)
    fp = sum(1 for t in set(predicted) if (t in listed or t in local) and t not in entities)
    return tp, fp, len(entities) - tp, True


class Lookup:
    """Which tokens of one turn are entities: the KB's and the dialog's result lines'."""

    def __init__(self, kb: EntityKB, seen: dict[str, str]):
        self.kb = kb.slots
        self.seen = seen

    def slot(self, token: str) -> str | None:
        return self.kb.get(token) or self.seen.get(token)


def counts(prediction: str, gold: str, lookup: Lookup) -> tuple[int, int, int, bool]:
    """(TP, FP, FN, whether the gold holds an entity): TP the gold's distinct entities
    found among the prediction's tokens, FN those not found, FP the prediction's distinct
    entity tokens that the gold does not hold."""
    gold_entities = {t for t in gold.split() if lookup.slot(t)}
    predicted = set(prediction.split())
    tp = len(gold_entities & predicted)
    fp = sum(1 for t in predicted if t not in gold_entities and lookup.slot(t))
    return tp, fp, len(gold_entities) - tp, bool(gold_entities)


def template(text: str, lookup: Lookup) -> str:
    """The utterance with every entity token replaced by its slot (``R_name``,
    ``R_cuisine``, ...; a ``*_phone``/``*_address``/``*_post_code`` token by R_phone ...
    whether or not the KB lists it); tokens joined by one space."""
    out = []
    for token in text.split():
        slot = lookup.slot(token)
        if slot is None:
            found = _PLACEHOLDER.fullmatch(token)
            slot = INFO[found.group(2)] if found else None
        out.append(slot or token)
    return " ".join(out)


def mention(text: str, lookup: Lookup) -> tuple[str, str] | None:
    """(restaurant, kind of information) an utterance gives, None when it names no
    restaurant. The kind is R_phone, R_address or R_post_code when it holds such a
    placeholder (the restaurant: the placeholder's prefix), else ``offer`` (the
    restaurant: its first name token, or a known name written with spaces)."""
    tokens = text.split()
    for token in tokens:
        found = _PLACEHOLDER.fullmatch(token)
        if found:
            return found.group(1), INFO[found.group(2)]
    for token in tokens:
        if lookup.slot(token) == NAME:
            return token, "offer"
    padded = " " + " ".join(tokens) + " "
    spaced = [n for n in (*lookup.kb, *lookup.seen) if "_" in n and lookup.slot(n) == NAME]
    for name in sorted(spaced, key=len, reverse=True):
        if " " + name.replace("_", " ") + " " in padded:
            return name, "offer"
    return None
