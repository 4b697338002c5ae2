"""DeepPavlov's DSTC2 format (``dstc2-trn.jsonlist``, ``-val``, ``-tst``): one turn per
line, an empty line after each dialog.

Each task-6 exchange is a user line then a system line, as task 6 pairs them:

- user (``speaker`` 1): ``text`` (the task-6 user text), ``dialog_acts`` (the SLU labels
  of the DSTC2 user turn), ``goals`` (its goal labels: slot -> value);
- system (``speaker`` 2): ``text`` (the task-6 bot text), ``dialog_acts`` (the system's
  acts); an api_call is the act ``api_call`` with its slots, and carries ``db_result``:
  the highest-rated restaurant of its results (its first, on a tie) with DSTC2's slot
  names, ``{}`` when there is none.

``dialog_acts`` are ``[{"act": ..., "slots": [[slot, value], ...]}]``.
"""
from __future__ import annotations

from ..task6.text import json_line

# A result row's fields under DSTC2's slot names, as DeepPavlov's db_result gives them.
DB_FIELDS = {"name": "name", "cuisine": "food", "location": "area", "price": "pricerange",
             "phone": "phone", "address": "addr", "post_code": "postcode", "rating": "rating"}


def deeppavlov_dialog(record: dict) -> str:
    """A dialog record as DeepPavlov's lines, with the empty line that ends a dialog."""
    lines = []
    for turn in record["turns"]:
        lines.append({"speaker": 1, "text": turn["user"], "dialog_acts": _acts(turn["user_acts"]),
                      "goals": {slot: value for slot, value in turn["goals"].items() if value is not None}})
        system = {"speaker": 2, "text": turn["bot"]}
        if turn["kind"] == "api_call":
            system["dialog_acts"] = [{"act": "api_call", "slots": [[slot, value] for slot, value
                                                                   in turn["api_call"].items() if value is not None]}]
            system["db_result"] = _db_result(turn["results"])
        else:
            system["dialog_acts"] = _acts(turn["system_acts"])
        lines.append(system)
    return "".join(json_line(line) + "\n" for line in lines) + "\n"


def _acts(acts: list[dict]) -> list[dict]:
    return [{"act": a["act"], "slots": [[s["slot"], s["value"]] for s in a["slots"]]} for a in acts]


def _db_result(results: list[dict]) -> dict:
    if not results:
        return {}
    best = max(results, key=lambda row: -1 if row["rating"] is None else row["rating"])
    return {DB_FIELDS[field]: value for field, value in best.items() if value is not None}
