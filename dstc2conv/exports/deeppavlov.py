"""DeepPavlov's DSTC2 format (``dstc2-trn.jsonlist``, ``-val``, ``-tst``): one turn per
line, an empty line after each dialog, as DeepPavlov's ``DSTC2DatasetReader`` (0.x)
reads it.

Each task-6 exchange is a user line then a system line, as task 6 pairs them, but for
the exchange after an api_call, which has no user line:

- user (``speaker`` 1): ``text`` (the task-6 user text), ``dialog_acts`` (the SLU labels
  of the DSTC2 user turn), ``goals`` (its goal labels: slot -> value);
- system (``speaker`` 2): ``text`` (the task-6 bot text), ``dialog_acts`` (one action:
  ``{"act", "slots"}``, see ``action``); an api_call's action is ``api_call`` with its
  slots, and the api_call carries ``db_result``: the highest-rated restaurant of its
  results (its first, on a tie) with DSTC2's slot names, ``{}`` when there is none.

The reader gives the model, for a system line that follows another (the api_call),
a copy of the user line before with the api_call's ``db_result``: so the answer after
an api_call (task 6's ``<SILENCE>`` line, which no user turn said) has no user line, and
the model sees the result where it answers. The closing ``you are welcome`` is ``bye``.
"""
from __future__ import annotations

from ..errors import Dstc2ConvError
from ..task6.format import SILENCE
from ..task6.text import json_line

# A result row's fields under DSTC2's slot names, as DeepPavlov's db_result gives them.
DB_FIELDS = {"name": "name", "cuisine": "food", "location": "area", "price": "pricerange",
             "phone": "phone", "address": "addr", "post_code": "postcode", "rating": "rating"}
CLOSING_ACT = "bye"


def deeppavlov_dialog(record: dict) -> str:
    """A dialog record as DeepPavlov's lines, with the empty line that ends a dialog."""
    lines = []
    after_call = False
    for turn in record["turns"]:
        if after_call:
            if turn["user"] != SILENCE or turn["user_turn"] is not None:
                raise Dstc2ConvError(f"line {turn['line']} of the task-6 dialog: the answer to an api_call has a "
                                     f"user text ({turn['user']!r}), which no DeepPavlov line can hold",
                                     record["session"])
        else:
            lines.append({"speaker": 1, "text": turn["user"], "dialog_acts": _acts(turn["user_acts"]),
                          "goals": {slot: value for slot, value in turn["goals"].items() if value is not None}})
        system = {"speaker": 2, "text": turn["bot"]}
        if turn["kind"] == "api_call":
            system["dialog_acts"] = [{"act": "api_call", "slots": [[slot, value] for slot, value
                                                                   in turn["api_call"].items() if value is not None]}]
            system["db_result"] = _db_result(turn["results"])
        elif turn["kind"] == "closing":
            system["dialog_acts"] = [{"act": CLOSING_ACT, "slots": []}]
        elif turn["system_acts"]:
            system["dialog_acts"] = [action(turn["system_acts"])]
        else:
            raise Dstc2ConvError(f"line {turn['line']} of the task-6 dialog: system turn {turn['system_turns'][-1]} "
                                 "has no dialog acts, and DeepPavlov's reader needs an action", record["session"])
        after_call = turn["kind"] == "api_call"
        lines.append(system)
    return "".join(json_line(line) + "\n" for line in lines) + "\n"


def action(acts: list[dict]) -> dict:
    """The system's acts as one action, as DeepPavlov's data joins them: each act with the
    names of its slots (``request``: the slot it asks for) joined by ``_``, the distinct
    ones sorted and joined by ``+`` (``offer(name) inform(food) inform(area)`` ->
    ``inform_area+inform_food+offer_name``); the slots of every act, in order."""
    names = set()
    for a in acts:
        slots = [s["value"] if a["act"] == "request" and s["slot"] == "slot" else s["slot"] for s in a["slots"]]
        names.add("_".join([a["act"], *slots]))
    return {"act": "+".join(sorted(names)), "slots": [[s["slot"], s["value"]] for a in acts for s in a["slots"]]}


def _acts(acts: list[dict]) -> list[dict]:
    return [{"act": a["act"], "slots": [[s["slot"], s["value"]] for s in a["slots"]]} for a in acts]


def _db_result(results: list[dict]) -> dict:
    if not results:
        return {}
    best = max(results, key=lambda row: -1 if row["rating"] is None else row["rating"])
    return {DB_FIELDS[field]: value for field, value in best.items() if value is not None}
