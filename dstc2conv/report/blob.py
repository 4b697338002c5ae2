"""The browser's data: one JSON object, every text once in a table of strings (gold
answers, predictions, user turns and result lines repeat across turns and systems, so
the page stays small), the dialogs as arrays of indices into it.

``{"systems": [names], "strings": [...], "kinds": [...], "dialog_systems": [...] | null,
"dialogs": [[number, dialog system (index) | null, [turn, ...]], ...], "attention": {...}}``;
a turn is ``[line, user, gold, kind, right (bit s set: system s is right), [prediction per
system], [result lines before it]]`` (texts as indices), and attention
``{model: {"system": index, "hops": n, "turns": {turn position: [[who, text]...], [[weight per slot] per hop],
answer, beyond]}}}`` where a turn's position counts the bot turns of the file from 0."""
from __future__ import annotations

import json

from ..evaluate.response_kinds import kind_of


class _Strings:
    def __init__(self):
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found


def blob(report) -> dict:
    strings = _Strings()
    kinds: dict[str, int] = {}
    systems = sorted(set(report.dialog_systems)) if report.dialog_systems else None
    outcomes = [s.outcomes for s in report.scored]
    dialogs: dict[int, list] = {}
    for i, turn in enumerate(report.turns):
        right = sum(1 << s for s, found in enumerate(outcomes) if found[i])
        row = [turn.line, strings(turn.user), strings(turn.gold.strip()), kinds.setdefault(kind_of(turn.gold), len(kinds)),
               right, [strings(p[i].strip()) for p in report.predictions], [strings(c) for c in turn.context]]
        dialogs.setdefault(turn.dialog, []).append(row)
    out_dialogs = [[d + 1, systems.index(report.dialog_systems[d]) if systems else None, rows]
                   for d, rows in dialogs.items()]
    attention = {}
    for model in report.models:
        if not model.attention:
            continue
        turns = {}
        for position, found in sorted(model.attention.items()):
            turns[str(position)] = [[[who, strings(text)] for who, text in found["slots"]], found["hops"],
                                    strings(found["answer"]), found["beyond"]]
        attention[model.name] = {"system": report.names.index(model.name), "hops": len(next(iter(
            model.attention.values()))["hops"]), "limit": model.limit, "turns": turns}
    return {"systems": list(report.names), "strings": list(strings.index), "kinds": list(kinds),
            "dialog_systems": systems, "dialogs": out_dialogs, "attention": attention}


def as_script(data: dict) -> str:
    """The JSON inside a ``<script type=application/json>``: ``</`` and ``<!--`` cannot
    close or open anything there once ``<`` is escaped."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
