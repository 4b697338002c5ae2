"""One record per task-6 dialog: its turns, each with the raw DSTC2 annotations behind it.

A task-6 dialog is made from one DSTC2 call by ``convert.dialogs.convert_call``: system
turn i is paired with user turn i-1, a run of identical system turns becomes one line,
and at some turns an ``api_call`` line (with its result lines) comes before the line of
the run. ``dialog_record`` walks the converted dialog against the same runs and gives
each task-6 exchange the raw turns it stands for. A dialog that does not line up with its
call's runs is an error, never a record with turns left out.

The record's fields (``FEATURES``) have the same types in every record; a value that is
absent is null (``None``), a list that is empty is ``[]``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..convert.dialogs import WELCOME_BOT, clean_system, clean_user, merge_repeats
from ..convert.kb import underscore
from ..convert.lexicon import Lexicon
from ..dstc2.calls import Act, Call, CallTurn
from ..errors import Dstc2ConvError
from ..task6.format import NO_RESULT, SILENCE, Context, Dialog, Exchange, Fact, is_api_call
from ..task6.vocabulary import DETAILS, DSTC2_SLOTS, RATING, SLOTS

# The kinds of task-6 exchange.
RESPONSE, API_CALL, CLOSING = "response", "api_call", "closing"
# A result row's fields: the task-6 attribute of each (R_post_code -> post_code, ...).
RESULT_FIELDS = ("name", "post_code", "cuisine", "location", "phone", "address", "price", "rating")
GOAL_SLOTS = DSTC2_SLOTS + ("name",)
_FOLDER = re.compile(r"[^/]*_(S\d+)(A\d+)")

# What each field of a record holds, in the order written; the types as Hugging Face
# ``datasets`` infers them from the JSON lines (``string``, ``int64``, ``float64``,
# ``bool``; ``[...]`` a list, ``{...}`` a struct).
ACT = {"act": "string", "slots": [{"slot": "string", "value": "string"}]}
FEATURES = {
    "id": "string",                 # <split>-<n>: the n-th dialog (from 1) of the split's task-6 file
    "split": "string",              # train, dev or test
    "session": "string",            # the DSTC2 call: Mar13_S0A1/voip-...
    "system": "string",             # the dialog system of the session folder: S0, S1 or S2 (null if not named so)
    "recogniser": "string",         # the speech recogniser of the session folder: A0 or A1 (null if not named so)
    "dialog_manager": "int64",      # log.json system-specific.dialog-manager (null if absent)
    "raw_turns": "int64",           # how many turns the DSTC2 call has
    "turns": [{
        "line": "int64",            # the exchange's line number in the task-6 dialog
        "kind": "string",           # response, api_call or closing
        "user": "string",           # the task-6 user text
        "bot": "string",            # the task-6 bot text
        "template": "string",       # the bot text, delexicalised
        "user_turn": "int64",       # the DSTC2 turn (from 0) whose user input ``user`` is (null: none)
        "user_turns": ["int64"],    # every DSTC2 user turn this exchange stands for
        "system_turns": ["int64"],  # the DSTC2 system turns ``bot`` stands for (a run of repeats)
        "transcription": "string",  # label.json transcription of ``user_turn``
        "asr": [{"hyp": "string", "score": "float64"}],   # log.json input.live.asr-hyps of ``user_turn``
        "user_acts": [ACT],         # label.json semantics.json of ``user_turn``: the SLU labels
        "goals": {slot: "string" for slot in GOAL_SLOTS},   # label.json goal-labels after ``user_turn``
        "method": "string",         # label.json method-label of ``user_turn``
        "requested_slots": ["string"],   # label.json requested-slots of ``user_turn``
        "system_transcript": "string",   # log.json output.transcript of the last of ``system_turns``
        "system_acts": [ACT],       # log.json output.dialog-acts of the last of ``system_turns``
        "api_call": {slot: "string" for slot in DSTC2_SLOTS},   # api_call turns: the values (null: any)
        "results": [{f: "int64" if f == "rating" else "string" for f in RESULT_FIELDS}],   # api_call turns
    }],
}


@dataclass(frozen=True)
class _Span:
    """A task-6 exchange and the raw turns it stands for."""
    kind: str
    exchange: Exchange
    line: int
    user_turn: int | None
    user_turns: tuple[int, ...]
    system_turns: tuple[int, ...]
    results: tuple[Context, ...] = ()


def dialog_record(call: Call, dialog: Dialog, split: str, number: int, lexicon: Lexicon, asr: bool = False) -> dict:
    """The record of ``dialog``, the task-6 dialog ``convert_call`` made of ``call`` (with
    the same ``lexicon`` and ``asr``), the ``number``-th (from 1) of its split's file."""
    spans = _spans(call, dialog, lexicon, asr)
    folder = _FOLDER.match(call.session)
    return {
        "id": f"{split}-{number}",
        "split": split,
        "session": call.session,
        "system": folder.group(1) if folder else None,
        "recogniser": folder.group(2) if folder else None,
        "dialog_manager": call.dialog_manager,
        "raw_turns": len(call.turns),
        "turns": [_turn(call.turns, span) for span in spans],
    }


def _spans(call: Call, dialog: Dialog, lexicon: Lexicon, asr: bool) -> list[_Span]:
    turns = call.turns
    system = [clean_system(t, lexicon) for t in turns]
    users = [clean_user(t.heard if asr else t.user, lexicon) for t in turns]
    runs = merge_repeats(system, users)
    lines = list(enumerate(dialog.lines, 1))
    spans: list[_Span] = []
    at = 0

    def fail(why: str, line: int | None = None) -> Dstc2ConvError:
        if line is None:
            line = lines[at][0] if at < len(lines) else len(lines)
        return Dstc2ConvError(f"line {line} of the task-6 dialog does not line up with the call's turns: {why}",
                              call.session)

    def take_exchange() -> tuple[int, Exchange]:
        nonlocal at
        if at >= len(lines) or not isinstance(lines[at][1], Exchange):
            raise fail("an exchange was expected")
        at += 1
        return lines[at - 1]

    for first, last, user in runs:
        heard = [i - 1 for i in range(first, last + 1) if i > 0]   # the user turns the run answers
        called = at < len(lines) and isinstance(lines[at][1], Exchange) and is_api_call(lines[at][1].bot)
        if called:
            number, exchange = take_exchange()
            asked = None if first == 0 else first - 1
            if exchange.user != (SILENCE if asked is None else users[asked]):
                raise fail(f"the api_call's user text is not that of turn {asked}", number)
            results = []
            while at < len(lines) and isinstance(lines[at][1], Context):
                results.append(lines[at][1])
                at += 1
            spans.append(_Span(API_CALL, exchange, number, asked, () if asked is None else (asked,), (),
                               tuple(results)))
            heard = [i for i in heard if i != asked]
        number, exchange = take_exchange()
        if exchange.bot != system[last]:
            raise fail(f"the bot text is not that of system turn {last}", number)
        shown = None if called else _shown_user(first, last, users)
        if exchange.user != (SILENCE if shown is None else users[shown]):
            raise fail(f"the user text is not that of turn {shown}", number)
        spans.append(_Span(RESPONSE, exchange, number, shown, tuple(heard), tuple(range(first, last + 1))))
    number, exchange = take_exchange()
    final = len(turns) - 1
    if exchange != Exchange(users[final], WELCOME_BOT):
        raise fail("the closing exchange is not the last user turn and the welcome", number)
    spans.append(_Span(CLOSING, exchange, number, final, (final,), ()))
    if at != len(lines):
        raise fail("lines are left after the closing exchange")
    return spans


def _shown_user(first: int, last: int, users: list[str]) -> int | None:
    """The user turn whose text the line of a run shows, as ``merge_repeats`` picks it:
    the last turn's, unless an earlier one was silence; None for the greeting's silence."""
    shown = None if first == 0 else first - 1
    for i in range(first + 1, last + 1):
        if shown is None or users[shown] != SILENCE:
            shown = i - 1
    return shown


def _turn(turns: tuple[CallTurn, ...], span: _Span) -> dict:
    user = turns[span.user_turn] if span.user_turn is not None else None
    system = turns[span.system_turns[-1]] if span.system_turns else None
    bot = span.exchange.bot
    api_call = _api_call(bot) if span.kind == API_CALL else None
    results = _results(span.results) if span.kind == API_CALL else None
    return {
        "line": span.line,
        "kind": span.kind,
        "user": span.exchange.user,
        "bot": bot,
        "template": template(bot, system, api_call),
        "user_turn": span.user_turn,
        "user_turns": list(span.user_turns),
        "system_turns": list(span.system_turns),
        "transcription": None if user is None else user.user,
        "asr": [] if user is None or user.hypotheses is None else [{"hyp": h, "score": s} for h, s in user.hypotheses],
        "user_acts": [] if user is None else _acts(user.user_acts),
        "goals": {slot: None for slot in GOAL_SLOTS} | ({} if user is None else
                                                          {s: v for s, v in user.goals if s in GOAL_SLOTS}),
        "method": None if user is None else user.method,
        "requested_slots": [] if user is None else list(user.requested),
        "system_transcript": None if system is None else system.system,
        "system_acts": [] if system is None else _acts(system.system_acts),
        "api_call": api_call,
        "results": results,
    }


def _acts(acts: tuple[Act, ...]) -> list[dict]:
    return [{"act": a.act, "slots": [{"slot": s, "value": v} for s, v in a.slots]} for a in acts]


def _api_call(bot: str) -> dict:
    """``api_call italian R_location cheap`` -> {food: italian, area: None, pricerange: cheap}."""
    words = bot.split()[1:]
    return {slot.dstc2: None if value == slot.attribute else value for slot, value in zip(SLOTS, words)}


def _results(lines: tuple[Context, ...]) -> list[dict]:
    """The restaurants of a result block, in its order; ``api_call no result``: none."""
    rows: dict[str, dict] = {}
    for line in lines:
        if line.text == NO_RESULT:
            continue
        fact = Fact.match(line.text)
        row = rows.setdefault(fact.name, dict.fromkeys(RESULT_FIELDS) | {"name": fact.name})
        field = fact.attribute[2:]
        row[field] = int(fact.value) if fact.attribute == RATING and fact.value.isascii() and fact.value.isdigit() else fact.value
    return list(rows.values())


def template(bot: str, system: CallTurn | None, api_call: dict | None) -> str:
    """The bot text delexicalised: the restaurant named becomes ``<name>``, its details
    ``<phone>``, ``<address>``, ``<post_code>``, and the food, area and price range
    values of the turn's acts (or of the api_call) ``<food>``, ``<area>``, ``<pricerange>``."""
    values: dict[str, str] = {}
    if api_call is not None:
        values.update((v, f"<{s}>") for s, v in api_call.items() if v is not None)
    if system is not None:
        for act in system.system_acts:
            for slot, value in act.slots:
                if slot in DSTC2_SLOTS and value != "dontcare":
                    values.setdefault(underscore(value), f"<{slot}>")
                elif slot == "name":
                    values[underscore(value)] = "<name>"
    suffixes = {f"_{d.suffix}": f"<{d.suffix}>" for d in DETAILS}
    words = []
    for word in bot.split(" "):
        for suffix, placeholder in suffixes.items():
            if word.endswith(suffix) and len(word) > len(suffix):
                word = placeholder
                break
        words.append(values.get(word, word))
    return " ".join(words)


def hf_features():
    """``FEATURES`` as Hugging Face ``datasets.Features``, for
    ``load_dataset("json", data_files=..., features=hf_features())``: the same types
    whatever the file holds (a small file may have no api_call, whose fields would else
    load as nulls)."""
    import datasets  # (here: only this function needs it; pip install 'dstc2conv[hf]')

    def feature(spec):
        if isinstance(spec, str):
            return datasets.Value(spec)
        if isinstance(spec, list):
            return [feature(spec[0])]
        return {key: feature(value) for key, value in spec.items()}

    return datasets.Features(feature(FEATURES))
