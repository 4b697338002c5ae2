"""Tables about a rule set on a data file: each rule's firings and accuracy, accuracy per
response kind (both optionally per DSTC2 dialog system), the commonest confusions;
written by ``dstc2conv.evaluate.tables`` (text, markdown, CSV), accuracies as 54.60%."""
from __future__ import annotations

import regex

from ...evaluate.responses import correct
from ...evaluate.tables import Table, as_csv, as_markdown, as_text
from ...task6.turns import BotTurn
from .engine import Compiled, Prediction

_NAME_TOKEN = regex.compile(r"\S+_(?:phone|address|post_code)\b")


def response_kind(text: str, namers: list, generic: dict) -> str:
    """A response with its restaurant name (where a pattern with {name} places one),
    phone/address/postcode tokens, foods, areas and prices made generic."""
    text = text.strip()
    if text.startswith("api_call"):
        return "api_call" if text != "api_call no result" else text
    name = next((m.group("name") for m in (n.match(text) for n in namers) if m), None)
    out = []
    for token in text.split():
        if token == name:
            token = "<name>"
        elif _NAME_TOKEN.fullmatch(token):
            token = "<" + token.rsplit("_", 1)[1].replace("code", "post_code") + ">"
        else:
            token = generic.get(token, token)
        out.append(token)
    return " ".join(out)


def tables(predictions: list[Prediction], turns: list[BotTurn], compiled: Compiled,
           top: int | None = None, systems: list[str] | None = None) -> list[Table]:
    """The rules, kinds and confusions tables, largest first, each cut to ``top`` rows
    (None: all). ``systems``, the dialog system of each turn, adds a turn count and an
    accuracy per system to the rules and kinds tables."""
    vocabulary = compiled.ontology.values
    generic = {v: f"<{slot}>" for slot, values in vocabulary.items() for v in values}

    def kind(text: str) -> str:
        return response_kind(text, compiled.namers, generic)

    rows = []
    for i, (p, t) in enumerate(zip(predictions, turns)):
        rows.append({"rule": p.rule or "(none)", "correct": correct(p.text, t.gold), "kind": kind(t.gold),
                     "predicted": kind(p.text) if p.text else "(nothing)", "gold": t.gold.strip(),
                     "user": t.user, "system": systems[i] if systems else None})
    names = sorted(set(systems)) if systems else []      # as score.by_system orders them
    out = [_summary(rows, "rule", "fired", names), _summary(rows, "kind", "turns", names), _confusions(rows)]
    return [table.first(top) for table in out]


def _summary(rows: list[dict], key: str, count: str, systems: list[str]) -> Table:
    tally: dict = {}
    for r in rows:
        for system in (None, r["system"]) if systems else (None,):
            seen = tally.setdefault(r[key], {}).setdefault(system, [0, 0])
            seen[0] += 1
            seen[1] += r["correct"]
    body = []
    for value, seen in tally.items():
        n, right = seen[None]
        row = [value, n, right, right / n]
        for system in systems:
            n, right = seen.get(system, (0, 0))
            row += [n, right / n if n else None]
        body.append(row)
    body.sort(key=lambda row: (-row[1], row[0]))
    columns = (key, count, "correct", "accuracy") + tuple(f"{s} {c}" for s in systems for c in (count, "accuracy"))
    return Table(key + "s", columns, tuple(map(tuple, body)), keep=("rule",))


def _confusions(rows: list[dict]) -> Table:
    """Wrong turns grouped by (gold kind, predicted kind), with the first one's rule,
    user turn and gold response."""
    found: dict = {}
    for r in rows:
        if not r["correct"]:
            group = found.setdefault((r["kind"], r["predicted"]),
                                     [r["kind"], r["predicted"], 0, r["rule"], r["user"], r["gold"]])
            group[2] += 1
    body = sorted(found.values(), key=lambda row: -row[2])
    return Table("confusions", ("kind", "predicted", "count", "rule", "user", "gold"), tuple(map(tuple, body)),
                 keep=("rule",))


__all__ = ["response_kind", "tables", "Table", "as_text", "as_markdown", "as_csv"]
