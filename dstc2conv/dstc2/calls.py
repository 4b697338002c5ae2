"""DSTC2's calls: the frozen ``Call`` the conversion reads, and its decoding from the
bytes of a call's ``log.json`` and ``label.json``.

Only this package sees DSTC2's JSON; it hands on frozen ``Call`` objects that hold what
the conversion needs: per turn, what the system said and its dialog acts, what the user
said (the human transcription) and the dialog-state labels; and, only when asked, what the
system heard (the live ASR's n-best list, with scores). Reading tarballs and folders is
``archive``'s; the processes that hold the calls are ``workers``'.
"""
from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Annotated

import msgspec  # one JSON grammar for both decoders of a call (see parse_call)
from orjson import JSONDecodeError
from orjson import loads as _loads  # parses the ontology

from ..errors import Dstc2ConvError

SYSTEM_ACTS = frozenset({
    "welcomemsg", "request", "canthelp", "canthelp.exception", "offer", "inform", "expl-conf",
    "impl-conf", "select", "reqmore", "confirm-domain", "repeat", "bye", "affirm", "negate",
})
USER_ACTS = frozenset({
    "inform", "request", "bye", "thankyou", "reqalts", "affirm", "negate", "confirm", "hello",
    "repeat", "ack", "deny", "restart", "reqmore", "null",
})


@dataclass(frozen=True)
class Act:
    act: str
    slots: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class CallTurn:
    system: str                          # what the system said (log.json output.transcript)
    system_acts: tuple[Act, ...]         # log.json output.dialog-acts
    user: str                            # label.json transcription
    user_acts: tuple[Act, ...]           # label.json semantics.json
    goals: tuple[tuple[str, str], ...]   # label.json goal-labels after this user turn, sorted
    method: str
    requested: tuple[str, ...]
    heard: str | None = None             # log.json input.live.asr-hyps[0].asr-hyp, if read (``asr``)
    hypotheses: tuple[tuple[str, float], ...] | None = None   # input.live.asr-hyps: (asr-hyp, score), if read

    @property
    def offered(self) -> str | None:
        """The restaurant the system offers in this turn (``offer(name=...)``), if any."""
        for act in self.system_acts:
            if act.act == "offer":
                for slot, value in act.slots:
                    if slot == "name":
                        return value
        return None


@dataclass(frozen=True)
class Call:
    session: str   # e.g. "Mar13_S0A0/voip-00d76b791d-20130327_010416"
    source: str    # the tarball or folder it was read from
    turns: tuple[CallTurn, ...]
    dialog_manager: int | None = None   # log.json system-specific.dialog-manager, if given


def _acts(raw, path: str, turn: int, known: frozenset, field: str) -> tuple[Act, ...]:
    if not isinstance(raw, list):
        raise Dstc2ConvError(f"turn {turn}: {field} is not a list", path)
    acts = []
    for item in raw:
        try:
            name = item["act"]
            slots = tuple((_scalar(k), _scalar(v)) for k, v in _pairs(item["slots"]))
        except (KeyError, TypeError, ValueError):
            raise Dstc2ConvError(f"turn {turn}: malformed dialog act {_short(item)} in {field} (an act is "
                                 "{\"act\": text, \"slots\": [[slot, value], ...]}, with text or numbers)",
                                 path) from None
        if name not in known:
            raise Dstc2ConvError(f"turn {turn}: unknown dialog act {_short(name)} in {field}", path)
        acts.append(Act(name, slots))
    return tuple(acts)


def _pairs(slots) -> list:
    """The slots of an act, a list of [slot, value] lists; anything else is a TypeError
    (a slot "ab" or {"a": 1, "b": 2} would unpack as the slot a with the value b)."""
    if not isinstance(slots, list) or not all(isinstance(pair, list) and len(pair) == 2 for pair in slots):
        raise TypeError(slots)
    return slots


def _scalar(value) -> str:
    """A slot, slot value or label as text: JSON text or a number as it is written; an
    object, a list or null is a TypeError (it would become a name such as ``{'x': 1}``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):   # (true and false too, as before)
        return str(value)
    raise TypeError(value)


def _short(value) -> str:
    """A JSON value for a message: at most 60 characters of it."""
    return reprlib.repr(value)


def decode_json(data: bytes, path: str):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    try:
        return _loads(text)
    except JSONDecodeError as exc:
        raise Dstc2ConvError(f"malformed JSON: {exc}", path) from None


def _call_json(data: bytes, path: str):
    """The JSON of a call's file, by the parser of ``_typed_call`` (msgspec's), so that
    both decoders read the same grammar: integers of any size, no number past a double's
    range, no lone surrogate, no byte-order mark, in every field (the typed decoder checks
    UTF-8 and the range of numbers only in the fields it reads)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    try:
        return msgspec.json.decode(data)
    except RecursionError:
        raise Dstc2ConvError("malformed JSON: nested too deeply", path) from None
    except msgspec.MsgspecError as exc:
        reason = str(exc).removeprefix("JSON is malformed: ")
    try:    # (orjson says where, by line and column, and says a lone surrogate as one)
        _loads(data)
    except JSONDecodeError as exc:
        reason = str(exc)
    except RecursionError:
        pass
    raise Dstc2ConvError(f"malformed JSON: {reason}", path)


def _heard(log_turn, path: str, turn: int) -> tuple[tuple[str, float], ...]:
    """The live ASR's hypotheses of a log.json turn, (asr-hyp, score), best first."""
    try:
        hyps = log_turn["input"]["live"]["asr-hyps"]
        heard = hyps[0]["asr-hyp"]
    except (KeyError, TypeError, IndexError):
        raise Dstc2ConvError(f"turn {turn}: no input.live.asr-hyps[0].asr-hyp", path) from None
    if not isinstance(heard, str):
        raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[0].asr-hyp is {_short(heard)}, not text", path)
    out = []
    for i, hyp in enumerate(hyps):
        try:
            text, score = hyp["asr-hyp"], hyp["score"]
        except (KeyError, TypeError):
            raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[{i}] has no asr-hyp and score", path) from None
        if not isinstance(text, str) or isinstance(score, bool) or not isinstance(score, (int, float)):
            raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[{i}] is {_short(hyp)}, not text and a score", path)
        try:
            out.append((text, float(score)))
        except OverflowError:   # (an integer past a double's range)
            raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[{i}].score is too large a number", path) from None
    return tuple(out)


def parse_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool = False) -> Call:
    """Build a Call from the bytes of its log.json and label.json; ``where`` names the files.
    ``asr``: also read each turn's live ASR hypotheses (``CallTurn.heard``, ``CallTurn.hypotheses``).

    ``_typed_call``, faster, reads only the fields the conversion uses, as ``_strict_call``
    reads them, and skips the rest; a call it does not take (a field it reads is missing,
    of another type or malformed) is read by ``_strict_call``, which reads it or says what
    is wrong. A skipped field is checked only as JSON: its texts' UTF-8 and its numbers'
    range are not (the strict decoder, which parses every field, checks them too)."""
    return (_typed_call(session, log_bytes, label_bytes, where, asr)
            or _strict_call(session, log_bytes, label_bytes, where, asr))


# Typed decoders for what the conversion reads: the rest of each file (most of it:
# the ASR and SLU hypotheses) is skipped, not turned into Python objects. A slot, slot
# value or label is a _Scalar, made text as the strict decoder makes it (``_scalar``):
# DSTC2's test tarball says counts as numbers, inform(count=3).
_Scalar = str | int | float | bool


class _Act(msgspec.Struct):
    act: str
    slots: list[tuple[_Scalar, _Scalar]]


class _Output(msgspec.Struct):
    transcript: str
    dialog_acts: list[_Act] = msgspec.field(name="dialog-acts")


class _LogTurn(msgspec.Struct):
    output: _Output


class _Hypothesis(msgspec.Struct):
    asr_hyp: str = msgspec.field(name="asr-hyp")
    score: float


class _Live(msgspec.Struct):
    asr_hyps: list[_Hypothesis] = msgspec.field(name="asr-hyps")


class _Input(msgspec.Struct):
    live: _Live


class _HeardTurn(_LogTurn):
    input: _Input


INT64 = (-(1 << 63), (1 << 63) - 1)    # the dialog manager's range (an int64 column of the exports)


class _SystemSpecific(msgspec.Struct):
    dialog_manager: Annotated[int, msgspec.Meta(ge=INT64[0], le=INT64[1])] | None = msgspec.field(
        name="dialog-manager", default=None)


class _Log(msgspec.Struct):
    turns: list[_LogTurn]
    # (anything but an object holds no dialog manager, for the strict decoder too)
    system_specific: _SystemSpecific | list[msgspec.Raw] | _Scalar | None = msgspec.field(
        name="system-specific", default=None)


class _HeardLog(_Log):
    turns: list[_HeardTurn]


class _Semantics(msgspec.Struct):
    json: list[_Act]


class _LabelTurn(msgspec.Struct):
    transcription: str
    semantics: _Semantics
    goal_labels: dict[str, _Scalar] = msgspec.field(name="goal-labels", default_factory=dict)
    method_label: _Scalar = msgspec.field(name="method-label", default="none")
    requested_slots: list[_Scalar] = msgspec.field(name="requested-slots", default_factory=list)


class _Label(msgspec.Struct):
    turns: list[_LabelTurn]


_DECODE_LOG = msgspec.json.Decoder(_Log).decode
_DECODE_HEARD_LOG = msgspec.json.Decoder(_HeardLog).decode
_DECODE_LABEL = msgspec.json.Decoder(_Label).decode


def _typed_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool) -> Call | None:
    """``parse_call`` by msgspec's typed decoders: the same Call, or None for a call that
    they or ``_strict_call``'s checks reject (which ``_strict_call`` then says)."""
    try:
        log = (_DECODE_HEARD_LOG if asr else _DECODE_LOG)(log_bytes)
        label = _DECODE_LABEL(label_bytes)
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError):   # (a text it reads is not UTF-8)
        return None
    if not log.turns or len(log.turns) != len(label.turns):
        return None
    turns = []
    for lt, bt in zip(log.turns, label.turns):
        system_acts = _typed_acts(lt.output.dialog_acts, SYSTEM_ACTS)
        user_acts = _typed_acts(bt.semantics.json, USER_ACTS)
        if system_acts is None or user_acts is None:
            return None
        if asr and not lt.input.live.asr_hyps:
            return None
        hyps = tuple((h.asr_hyp, h.score) for h in lt.input.live.asr_hyps) if asr else None
        goals = tuple(sorted((slot, _scalar(value)) for slot, value in bt.goal_labels.items()))
        turns.append(CallTurn(lt.output.transcript, system_acts, bt.transcription, user_acts, goals,
                              _scalar(bt.method_label), tuple(map(_scalar, bt.requested_slots)),
                              hyps[0][0] if asr else None, hyps))
    manager = log.system_specific
    return Call(session, where, tuple(turns), manager.dialog_manager if isinstance(manager, _SystemSpecific) else None)


_ACTS: dict = {}   # (act, slots as text) -> Act: the same thousand or so recur in every call


def _typed_acts(raw: list, known: frozenset) -> tuple[Act, ...] | None:
    """The Acts of decoded ``_Act``s; None if one is not ``known``. (The keys of ``_ACTS``
    hold only text: slots that hold a number, never equal to one, are made text first,
    so that 1, 1.0 and true, equal as keys, stay "1", "1.0" and "True".)"""
    acts = []
    for item in raw:
        if item.act not in known:
            return None
        key = (item.act, tuple(item.slots))
        act = _ACTS.get(key)
        if act is None:
            key = (item.act, tuple((_scalar(slot), _scalar(value)) for slot, value in key[1]))
            act = _ACTS.get(key) or _ACTS.setdefault(key, Act(*key))
        acts.append(act)
    return tuple(acts)


def _strict_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool) -> Call:
    """``parse_call`` by a JSON parser and checks that say what is wrong."""
    log_path = f"{where}/data/{session}/log.json"
    label_path = f"{where}/data/{session}/label.json"
    log = _call_json(log_bytes, log_path)
    label = _call_json(label_bytes, label_path)
    log_turns = _turns_list(log, log_path)
    label_turns = _turns_list(label, label_path)
    if len(log_turns) != len(label_turns):
        raise Dstc2ConvError(
            f"{len(log_turns)} turns in log.json but {len(label_turns)} in label.json", label_path)
    turns = [_strict_turn(i, lt, bt, log_path, label_path, asr)
             for i, (lt, bt) in enumerate(zip(log_turns, label_turns))]
    if not turns:
        raise Dstc2ConvError("the call has no turns", log_path)
    return Call(session, where, tuple(turns), _dialog_manager(log, log_path))


def _turns_list(decoded, path: str) -> list:
    """The ``turns`` list of a call's file."""
    turns = decoded.get("turns") if isinstance(decoded, dict) else None
    if not isinstance(turns, list):
        raise Dstc2ConvError("no 'turns' list", path)
    return turns


def _strict_turn(i: int, lt, bt, log_path: str, label_path: str, asr: bool) -> CallTurn:
    """Turn ``i`` of a call, from its log turn and its label turn."""
    try:
        output = lt["output"]
        system = output["transcript"]
        system_acts = output["dialog-acts"]
    except (KeyError, TypeError):
        raise Dstc2ConvError(f"turn {i}: no output.transcript / output.dialog-acts", log_path) from None
    try:
        user = bt["transcription"]
        semantics = bt["semantics"]["json"]
        goals = bt.get("goal-labels", {})
        method = bt.get("method-label", "none")
        requested = bt.get("requested-slots", [])
    except (KeyError, TypeError):
        raise Dstc2ConvError(f"turn {i}: no transcription / semantics", label_path) from None
    if not isinstance(system, str):
        raise Dstc2ConvError(f"turn {i}: output.transcript is {_short(system)}, not text", log_path)
    if not isinstance(user, str):
        raise Dstc2ConvError(f"turn {i}: transcription is {_short(user)}, not text", label_path)
    try:
        goals = tuple(sorted((_scalar(k), _scalar(v)) for k, v in goals.items()))
        method = _scalar(method)
        requested = tuple(_scalar(s) for s in requested) if isinstance(requested, list) else _scalar([])
    except (TypeError, AttributeError):
        raise Dstc2ConvError(f"turn {i}: goal-labels, method-label or requested-slots has the wrong type "
                             "(a mapping of slots to values, a text, a list of slots)", label_path) from None
    hyps = _heard(lt, log_path, i) if asr else None
    return CallTurn(
        system=system,
        system_acts=_acts(system_acts, log_path, i, SYSTEM_ACTS, "output.dialog-acts"),
        user=user,
        user_acts=_acts(semantics, label_path, i, USER_ACTS, "semantics.json"),
        goals=goals,
        method=method,
        requested=requested,
        heard=hyps[0][0] if asr else None,
        hypotheses=hyps,
    )


def _dialog_manager(log, log_path: str) -> int | None:
    """``system-specific.dialog-manager`` of a call's log, if it is there."""
    manager = log.get("system-specific", {})
    manager = manager.get("dialog-manager") if isinstance(manager, dict) else None
    if manager is not None and (not isinstance(manager, int) or isinstance(manager, bool)):
        raise Dstc2ConvError(f"system-specific.dialog-manager is {_short(manager)}, not a whole number", log_path)
    if manager is not None and not INT64[0] <= manager <= INT64[1]:
        raise Dstc2ConvError(f"system-specific.dialog-manager is {_short(manager)}, past 64 bits", log_path)
    return manager


__all__ = ["Act", "CallTurn", "Call", "decode_json", "parse_call"]
