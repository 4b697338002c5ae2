"""Read raw DSTC2 calls from the official tarballs or their unpacked folders.

Only this module sees DSTC2's JSON; it hands on frozen ``Call`` objects that hold what
the conversion needs: per turn, what the system said and its dialog acts, what the user
said (the human transcription) and the dialog-state labels; and, only when asked, what the
system heard (the live ASR's n-best list, with scores).
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import tarfile
import threading
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, replace

try:  # isal's igzip inflates gzip about twice as fast as zlib
    from isal.igzip import open as _gunzip
except ImportError:  # the standard library's: the same bytes, slower
    from gzip import open as _gunzip

try:  # msgspec decodes only the fields the conversion reads (see _typed_call)
    import msgspec
except ImportError:  # each call is read by _strict_call alone: the same Calls, slower
    msgspec = None

try:  # orjson parses DSTC2's large log.json files about twice as fast as json
    from orjson import JSONDecodeError
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a declared dependency
    from json import JSONDecodeError
    from json import loads as _loads

from ..errors import Dstc2ConvError
from ..files import read_bytes

SYSTEM_ACTS = frozenset({
    "welcomemsg", "request", "canthelp", "canthelp.exception", "offer", "inform", "expl-conf",
    "impl-conf", "select", "reqmore", "confirm-domain", "repeat", "bye", "affirm", "negate",
})
USER_ACTS = frozenset({
    "inform", "request", "bye", "thankyou", "reqalts", "affirm", "negate", "confirm", "hello",
    "repeat", "ack", "deny", "restart", "reqmore", "null",
})
FLISTS = {"train": "dstc2_train.flist", "dev": "dstc2_dev.flist", "test": "dstc2_test.flist"}
ONTOLOGY = "ontology_dstc2.json"


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


@dataclass(frozen=True)
class Source:
    """What one tarball or folder holds: its flists, ontology and calls (by session)."""
    path: str
    flists: dict            # split name -> tuple of session paths
    ontology: dict | None
    calls: Calls            # session -> Call (a dict while it is being read)
    ontology_path: str | None = None   # where the ontology was read: "<tarball>:<member>" or a file


def _acts(raw, path: str, turn: int, known: frozenset, field: str) -> tuple[Act, ...]:
    if not isinstance(raw, list):
        raise Dstc2ConvError(f"turn {turn}: {field} is not a list", path)
    acts = []
    for item in raw:
        try:
            name = item["act"]
            slots = tuple((str(k), str(v)) for k, v in item["slots"])
        except (KeyError, TypeError, ValueError):
            raise Dstc2ConvError(f"turn {turn}: malformed dialog act {item!r} in {field}", path) from None
        if name not in known:
            raise Dstc2ConvError(f"turn {turn}: unknown dialog act {name!r} in {field}", path)
        acts.append(Act(name, slots))
    return tuple(acts)


def _json(data: bytes, path: str):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    try:
        return _loads(text)
    except JSONDecodeError as exc:
        raise Dstc2ConvError(f"malformed JSON: {exc}", path) from None


def _heard(log_turn, path: str, turn: int) -> tuple[tuple[str, float], ...]:
    """The live ASR's hypotheses of a log.json turn, (asr-hyp, score), best first."""
    try:
        hyps = log_turn["input"]["live"]["asr-hyps"]
        heard = hyps[0]["asr-hyp"]
    except (KeyError, TypeError, IndexError):
        raise Dstc2ConvError(f"turn {turn}: no input.live.asr-hyps[0].asr-hyp", path) from None
    if not isinstance(heard, str):
        raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[0].asr-hyp is {heard!r}, not text", path)
    out = []
    for i, hyp in enumerate(hyps):
        try:
            text, score = hyp["asr-hyp"], hyp["score"]
        except (KeyError, TypeError):
            raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[{i}] has no asr-hyp and score", path) from None
        if not isinstance(text, str) or isinstance(score, bool) or not isinstance(score, (int, float)):
            raise Dstc2ConvError(f"turn {turn}: input.live.asr-hyps[{i}] is {hyp!r}, not text and a score", path)
        out.append((text, float(score)))
    return tuple(out)


def parse_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool = False) -> Call:
    """Build a Call from the bytes of its log.json and label.json; ``where`` names the files.
    ``asr``: also read each turn's live ASR hypotheses (``CallTurn.heard``, ``CallTurn.hypotheses``)."""
    call = _typed_call(session, log_bytes, label_bytes, where, asr) if msgspec is not None else None
    return call or _strict_call(session, log_bytes, label_bytes, where, asr)


if msgspec is not None:
    # Typed decoders for what the conversion reads: the rest of each file (most of it:
    # the ASR and SLU hypotheses) is skipped, not turned into Python objects.
    class _Act(msgspec.Struct):
        act: str
        slots: list[tuple[str, str]]

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

    class _SystemSpecific(msgspec.Struct):
        dialog_manager: int | None = msgspec.field(name="dialog-manager", default=None)

    class _Log(msgspec.Struct):
        turns: list[_LogTurn]
        system_specific: _SystemSpecific | None = msgspec.field(name="system-specific", default=None)

    class _HeardLog(_Log):
        turns: list[_HeardTurn]

    class _Semantics(msgspec.Struct):
        json: list[_Act]

    class _LabelTurn(msgspec.Struct):
        transcription: str
        semantics: _Semantics
        goal_labels: dict[str, str] = msgspec.field(name="goal-labels", default_factory=dict)
        method_label: str = msgspec.field(name="method-label", default="none")
        requested_slots: list[str] = msgspec.field(name="requested-slots", default_factory=list)

    class _Label(msgspec.Struct):
        turns: list[_LabelTurn]

    _DECODE_LOG = msgspec.json.Decoder(_Log).decode
    _DECODE_HEARD_LOG = msgspec.json.Decoder(_HeardLog).decode
    _DECODE_LABEL = msgspec.json.Decoder(_Label).decode


def _typed_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool) -> Call | None:
    """``parse_call`` by msgspec's typed decoders: the same Call, or None for a call that
    they or ``_strict_call``'s checks reject (which ``_strict_call`` then says)."""
    if not (log_bytes.isascii() and label_bytes.isascii()):
        return None   # (their UTF-8 is checked by _strict_call)
    try:
        log = (_DECODE_HEARD_LOG if asr else _DECODE_LOG)(log_bytes)
        label = _DECODE_LABEL(label_bytes)
    except (msgspec.MsgspecError, RecursionError):
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
        turns.append(CallTurn(lt.output.transcript, system_acts, bt.transcription, user_acts,
                          tuple(sorted(bt.goal_labels.items())), bt.method_label, tuple(bt.requested_slots),
                          hyps[0][0] if asr else None, hyps))
    manager = log.system_specific
    return Call(session, where, tuple(turns), None if manager is None else manager.dialog_manager)


_ACTS: dict = {}   # (act, slots) -> Act: the same thousand or so recur in every call


def _typed_acts(raw: list, known: frozenset) -> tuple[Act, ...] | None:
    """The Acts of decoded ``_Act``s; None if one is not ``known``."""
    acts = []
    for item in raw:
        if item.act not in known:
            return None
        key = (item.act, tuple(item.slots))
        acts.append(_ACTS.get(key) or _ACTS.setdefault(key, Act(*key)))
    return tuple(acts)


def _strict_call(session: str, log_bytes: bytes, label_bytes: bytes, where: str, asr: bool) -> Call:
    """``parse_call`` by a JSON parser and checks that say what is wrong."""
    log_path = f"{where}/data/{session}/log.json"
    label_path = f"{where}/data/{session}/label.json"
    log = _json(log_bytes, log_path)
    label = _json(label_bytes, label_path)
    try:
        log_turns = log["turns"]
    except (KeyError, TypeError):
        raise Dstc2ConvError("no 'turns' list", log_path) from None
    try:
        label_turns = label["turns"]
    except (KeyError, TypeError):
        raise Dstc2ConvError("no 'turns' list", label_path) from None
    if len(log_turns) != len(label_turns):
        raise Dstc2ConvError(
            f"{len(log_turns)} turns in log.json but {len(label_turns)} in label.json", label_path)
    turns = []
    for i, (lt, bt) in enumerate(zip(log_turns, label_turns)):
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
        if not isinstance(system, str) or not isinstance(user, str) or not isinstance(goals, dict):
            raise Dstc2ConvError(f"turn {i}: transcript, transcription or goal-labels has the wrong type",
                                 label_path)
        hyps = _heard(lt, log_path, i) if asr else None
        turns.append(CallTurn(
            system=system,
            system_acts=_acts(system_acts, log_path, i, SYSTEM_ACTS, "output.dialog-acts"),
            user=user,
            user_acts=_acts(semantics, label_path, i, USER_ACTS, "semantics.json"),
            goals=tuple(sorted((str(k), str(v)) for k, v in goals.items())),
            method=str(method),
            requested=tuple(str(s) for s in requested),
            heard=hyps[0][0] if asr else None,
            hypotheses=hyps,
        ))
    if not turns:
        raise Dstc2ConvError("the call has no turns", log_path)
    manager = log.get("system-specific", {})
    manager = manager.get("dialog-manager") if isinstance(manager, dict) else None
    if manager is not None and not isinstance(manager, int):
        raise Dstc2ConvError(f"system-specific.dialog-manager is {manager!r}, not a number", log_path)
    return Call(session, where, tuple(turns), manager)


def _flist(text: str, path: str) -> tuple[str, ...]:
    sessions = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            sessions.append(line.rstrip("/"))
    if not sessions:
        raise Dstc2ConvError("empty flist", path)
    return tuple(sessions)


def _session_of(name: str) -> tuple[str, str] | None:
    """'data/Mar13_S0A0/voip-x/log.json' -> ('Mar13_S0A0/voip-x', 'log.json')."""
    parts = name.split("/")
    try:
        i = parts.index("data")
    except ValueError:
        return None
    rest = parts[i + 1:]
    if len(rest) != 3 or rest[2] not in ("log.json", "label.json"):
        return None
    return f"{rest[0]}/{rest[1]}", rest[2]


def _mine(session: str, part: tuple[int, int]) -> bool:
    index, parts = part
    return parts == 1 or zlib.crc32(session.encode()) % parts == index


def _read_tarball(path: str, wanted, part: tuple[int, int] = (0, 1), ontology_only: bool = False,
                  asr: bool = False) -> Source:
    try:
        return _read_members(path, _plain_members(path), wanted, part, ontology_only, asr)
    except _NotPlain:
        pass   # read it again with tarfile, which reads every kind of tarball or says what is wrong
    try:
        return _read_members(path, _tarfile_members(path), wanted, part, ontology_only, asr)
    except FileNotFoundError:
        raise Dstc2ConvError("no such file", path) from None
    except tarfile.ReadError as exc:
        # tarfile lists what each compression made of it, a line each: the first line is enough
        reason = str(exc).split("\n")[0].rstrip(":")
        if reason == "file could not be opened successfully":
            reason = "not a tarball (neither gzip, bzip2, xz nor plain tar)"
        raise Dstc2ConvError(f"cannot read the tarball (truncated or not a tarball?): {reason}", path) from None
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise Dstc2ConvError(f"cannot read the tarball (truncated or not a tarball?): {exc}", path) from None


def _read_members(path: str, members, wanted, part: tuple[int, int], ontology_only: bool, asr: bool) -> Source:
    """The Source of a tarball, from its regular files: (name, bytes) in tarball order."""
    pending: dict[str, dict[str, bytes]] = {}
    calls: dict[str, Call] = {}
    flists: dict[str, tuple[str, ...]] = {}
    ontology = ontology_path = None
    for name, data in members:
        base = name.rsplit("/", 1)[-1]
        if base.endswith(".flist") or base == ONTOLOGY:
            where = f"{path}:{name}"
            if base == ONTOLOGY:
                ontology, ontology_path = _json(data, where), where
                if ontology_only:
                    break
            else:
                flists[base] = _flist(_decode(data, where), where)
            continue
        found = _session_of(name)
        if found is None:
            continue
        session, kind = found
        if wanted is not None and session not in wanted or not _mine(session, part):
            continue
        parts = pending.setdefault(session, {})
        parts[kind] = data
        if len(parts) == 2:
            del pending[session]
            calls[session] = parse_call(session, parts["log.json"], parts["label.json"], path, asr)
    for session, parts in sorted(pending.items()):
        missing = "log.json" if "log.json" not in parts else "label.json"
        raise Dstc2ConvError(f"call {session} has no {missing}", path)
    return Source(path, _named_flists(flists), ontology, calls, ontology_path)


class _NotPlain(Exception):
    """A tarball that ``_plain_members`` does not read."""


def _plain_members(path: str):
    """(name, bytes) of each regular file of a gzipped or uncompressed tarball, in order,
    read as tarfile reads them, only faster: ``_gunzip``, and a tar reader that knows only
    files, folders and pax headers. Anything else (bzip2, xz, GNU long names, links, a
    bad checksum, a truncated tarball) raises _NotPlain before or as it is met."""
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        with (_gunzip(path) if gzipped else open(path, "rb")) as fh:
            read = fh.read
            first, pax = True, None
            while True:
                header = read(512)
                if len(header) < 512 or not header.strip(b"\0"):
                    if first or pax is not None:
                        raise _NotPlain
                    return   # the end-of-archive block; tarfile too ends at a missing or cut header
                first = False
                if sum(header[:148]) + sum(header[156:]) + 256 != _octal(header[148:156]):
                    raise _NotPlain
                size, kind = _octal(header[124:136]), header[156:157]
                if kind == b"5" and size == 0:
                    pax = None
                    continue
                if kind not in (b"0", b"\0", b"x"):
                    raise _NotPlain
                data = read(size)
                padding = -size % 512
                if len(data) < size or len(read(padding)) < padding:
                    raise _NotPlain
                if kind == b"x":
                    pax = _pax_fields(data)
                    continue
                name = _text(header[:100])
                prefix = _text(header[345:500])
                name = f"{prefix}/{name}" if prefix else name
                if pax is not None:
                    name = pax[b"path"].decode("utf-8", "surrogateescape") if b"path" in pax else name
                    if b"size" in pax and int(pax[b"size"]) != size:
                        raise _NotPlain
                    pax = None
                if name.endswith("/"):
                    raise _NotPlain
                yield name, data
    except _NotPlain:
        raise
    except Exception:   # whatever went wrong, tarfile says it
        raise _NotPlain from None


def _octal(field: bytes) -> int:
    return int(field.split(b"\0", 1)[0].strip() or b"0", 8)


def _text(field: bytes) -> str:
    return field.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")


def _pax_fields(data: bytes) -> dict[bytes, bytes]:
    """The records of a pax header (``<length> <key>=<value>\\n``); _NotPlain for those
    that change how the member is read."""
    fields, at = {}, 0
    while at < len(data) and data[at]:
        space = data.index(b" ", at)
        end = at + int(data[at:space])
        key, equals, value = data[space + 1:end - 1].partition(b"=")
        if not equals or data[end - 1:end] != b"\n" or key.startswith(b"GNU.sparse") or key == b"hdrcharset":
            raise _NotPlain
        fields[key], at = value, end
    return fields


def _tarfile_members(path: str):
    with tarfile.open(path, "r:*") as tf:
        for member in tf:
            if member.isfile():
                yield member.name, tf.extractfile(member).read()


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 ({exc.reason} at byte {exc.start})", where) from None


def _named_flists(by_file: dict) -> dict:
    return {split: by_file[name] for split, name in FLISTS.items() if name in by_file}


def _read_folder(path: str, wanted, part: tuple[int, int] = (0, 1), asr: bool = False) -> Source:
    """An unpacked release: flists and the ontology from ``scripts/config/``, calls from
    ``data/<folder>/<session>/{log,label}.json`` (either part may be absent)."""
    config = os.path.join(path, "scripts", "config")
    data = os.path.join(path, "data")
    if not os.path.isdir(config) and not os.path.isdir(data):
        raise Dstc2ConvError("not a DSTC2 release: no data/ or scripts/config/ folder in it", path)
    flists = {}
    ontology = ontology_path = None
    if os.path.isdir(config):
        for name in sorted(os.listdir(config)):
            full = os.path.join(config, name)
            if name.endswith(".flist"):
                flists[name] = _flist(_decode(read_bytes(full), full), full)
            elif name == ONTOLOGY:
                ontology, ontology_path = _json(read_bytes(full), full), full
    calls = {}
    if wanted is None or wanted:
        for session in _folder_sessions(data):
            if wanted is not None and session not in wanted or not _mine(session, part):
                continue
            folder = os.path.join(data, session)
            log, label = (os.path.join(folder, f) for f in ("log.json", "label.json"))
            for f in (log, label):
                if not os.path.isfile(f):
                    raise Dstc2ConvError(f"call {session} has no {os.path.basename(f)}", path)
            calls[session] = parse_call(session, read_bytes(log), read_bytes(label), path, asr)
    return Source(path, _named_flists(flists), ontology, calls, ontology_path)


def _folder_sessions(data: str) -> list[str]:
    """The session paths under an unpacked ``data/`` folder, sorted."""
    sessions = []
    if os.path.isdir(data):
        for group in sorted(os.listdir(data)):
            folder = os.path.join(data, group)
            if os.path.isdir(folder):
                sessions.extend(f"{group}/{name}" for name in sorted(os.listdir(folder))
                                if os.path.isdir(os.path.join(folder, name)))
    return sessions


def _read_part(path: str, wanted, part: tuple[int, int], asr: bool = False) -> Source:
    if os.path.isdir(path):
        return _read_folder(path, wanted, part, asr=asr)
    return _read_tarball(path, wanted, part, asr=asr)


def _die_with(parent: int) -> None:
    """In a worker process: exit as soon as the build process that started it is gone
    (killed, even with SIGKILL), whether the worker is reading or waiting for work."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.1)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def read_ontology(path: str | os.PathLike) -> tuple[dict, str] | None:
    """The ontology a tarball or folder holds, and where it was read; no call is parsed,
    and a tarball is read only up to its ontology."""
    path = os.fspath(path)
    if os.path.isdir(path):
        source = _read_folder(path, frozenset())
    elif os.path.exists(path):
        source = _read_tarball(path, frozenset(), ontology_only=True)
    else:
        raise Dstc2ConvError("no such file or folder", path)
    return None if source.ontology is None else (source.ontology, source.ontology_path)


def read_source(path: str | os.PathLike, wanted=None, workers: int = 1, asr: bool = False,
                keep: bool = False) -> Source:
    """Read a DSTC2 tarball or unpacked folder. ``wanted``: session paths to keep (None: all).
    ``asr``: also read what the system heard in each user turn (``CallTurn.heard``).

    With ``workers`` > 1, that many processes each parse a share of the calls (every
    process still reads the whole tarball: gzip cannot be split); the result is the same.
    With ``keep``, the calls stay in the worker processes that read them, for ``Calls.run``,
    until ``Source.calls.close()``; else they are brought here and the workers stop.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise Dstc2ConvError("no such file or folder", path)
    if workers <= 1 or wanted is not None and len(wanted) == 0:
        source = _read_part(path, wanted, (0, 1), asr)
        return replace(source, calls=Calls(source.calls))
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    started: list[_Worker] = []
    try:
        for i in range(1, workers):
            started.append(_Worker(context, path, wanted, (i, workers), asr))
        here = _read_part(path, wanted, (0, workers), asr)
        owner = dict.fromkeys(here.calls, 0)
        for i, worker in enumerate(started, 1):
            owner.update(dict.fromkeys(worker.receive(), i))
    except BaseException:
        for worker in started:
            worker.close()
        raise
    calls = Calls(here.calls, tuple(started), {s: owner[s] for s in sorted(owner)})
    if not keep:
        every = {}
        for share in calls.run(list):
            every.update((call.session, call) for call in share)
        calls.close()
        calls = Calls({s: every[s] for s in sorted(every)})
    return replace(here, calls=calls)


class Calls(Mapping):
    """Calls by session. Each stays in the process that read it, this one or a worker
    of ``read_source``: ``run`` calls a function on the calls of each process, there;
    only a call looked up (``calls[session]``) is brought here."""

    def __init__(self, here: dict, workers: tuple = (), owner: dict | None = None):
        self._here = here             # session -> Call, read by this process
        self._workers = workers       # the _Worker processes that hold the others
        self._owner = dict.fromkeys(here, 0) if owner is None else owner   # session -> 0 (here) or 1 + worker

    def __getitem__(self, session: str) -> Call:
        where = self._owner[session]
        return self._here[session] if where == 0 else self._workers[where - 1].ask(list, [session], ())[0]

    def __contains__(self, session) -> bool:
        return session in self._owner

    def __iter__(self):
        return iter(self._owner)

    def __len__(self) -> int:
        return len(self._owner)

    def run(self, function, *args, sessions=None) -> list:
        """``function(calls, *args)`` in each process that holds some of the calls of
        ``sessions`` (default: all), with ``calls`` the list of those it holds, in the
        order of ``sessions``. Returns the results, this process's first; raises the first
        error (once every process is done)."""
        shares: list[list] = [[] for _ in range(len(self._workers) + 1)]
        for session in self._owner if sessions is None else sessions:
            shares[self._owner[session]].append(session)
        busy = [(worker, share) for worker, share in zip(self._workers, shares[1:]) if share]
        for worker, share in busy:
            worker.send(function, share, args)
        results, errors = [], []
        try:
            results.append(function([self._here[s] for s in shares[0]], *args))
        except Exception as exc:
            errors.append(exc)
        for worker, _ in busy:
            try:
                results.append(worker.receive())
            except Exception as exc:
                errors.append(exc)
        if errors:
            raise errors[0]
        return results

    @classmethod
    def merged(cls, parts: list[Calls]) -> Calls:
        """The calls of several mappings; a session in more than one is the last one's."""
        here: dict = {}
        workers: list = []
        owner: dict = {}
        for part in parts:
            here.update(part._here)
            owner.update((s, w and w + len(workers)) for s, w in part._owner.items())
            workers.extend(part._workers)
        return cls(here, tuple(workers), owner)

    def close(self) -> None:
        """Stop the worker processes that hold calls."""
        for worker in self._workers:
            worker.close()


class _Worker:
    """A process that reads a share of the calls of a tarball or folder, keeps them and
    runs functions on them (``Calls.run``)."""

    def __init__(self, context, path: str, wanted, part: tuple[int, int], asr: bool):
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, os.getpid(), path, wanted, part, asr),
                                        daemon=True)
        self._process.start()
        theirs.close()

    def send(self, function, sessions: list[str], args: tuple) -> None:
        try:
            self._conn.send((function, sessions, args))
        except OSError:
            pass   # the worker is gone: receive() says so

    def receive(self):
        try:
            ok, value = self._conn.recv()
        except (EOFError, OSError):
            raise Dstc2ConvError(f"a worker process stopped (exit code {self._process.exitcode})") from None
        if not ok:
            raise value
        return value

    def ask(self, function, sessions: list[str], args: tuple):
        self.send(function, sessions, args)
        return self.receive()

    def close(self) -> None:
        self._conn.close()
        self._process.terminate()
        self._process.join()


def _serve(conn, parent: int, path: str, wanted, part: tuple[int, int], asr: bool) -> None:
    """A worker: read a share of the calls, send their sessions (or the error), then run
    what it is sent on them until the build closes the connection."""
    _die_with(parent)
    gc.disable()   # as in the build
    calls: dict = {}
    try:
        calls = _read_part(path, wanted, part, asr).calls
        reply = (True, list(calls))
    except Exception as exc:
        reply = (False, exc)
    while True:
        try:
            conn.send(reply)
            function, sessions, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            reply = (True, function([calls[s] for s in sessions], *args))
        except Exception as exc:
            reply = (False, exc)


__all__ = ["Act", "CallTurn", "Call", "Calls", "Source", "read_source", "read_ontology", "parse_call"]
