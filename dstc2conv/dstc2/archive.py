"""Reading DSTC2's official tarballs and their unpacked folders: flists, the ontology and
the calls (decoded by ``calls.parse_call``), in one process or spread over several
(``workers``).
"""
from __future__ import annotations

import functools
import lzma
import os
import tarfile
import zlib
from dataclasses import dataclass, replace

from isal.igzip import open as _gunzip  # inflates gzip about twice as fast as zlib

from ..errors import Dstc2ConvError
from ..files import read_bytes
from ..limits import MAX_MEMBER
from .calls import Call, decode_json, parse_call
from .members import CheckedHeader, MemberCheck, TarDamage, check_tarball, decompressed, drain, end_of_archive, skip, tar_mode
from .workers import Calls, start_workers

FLISTS = {"train": "dstc2_train.flist", "dev": "dstc2_dev.flist", "test": "dstc2_test.flist"}
ONTOLOGY = "ontology_dstc2.json"


@dataclass(frozen=True)
class Source:
    """What one tarball or folder holds: its flists, ontology and calls (by session)."""
    path: str
    flists: dict            # split name -> tuple of session paths
    ontology: dict | None
    calls: Calls            # session -> Call (a dict while it is being read)
    ontology_path: str | None = None   # where the ontology was read: "<tarball>:<member>" or a file


def _flist(text: str, path: str) -> tuple[str, ...]:
    sessions = []
    for line in text.split("\n"):       # a flist is one path a line; other line breaks are a name's
        line = line.strip(" \t\r")
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
    check_tarball(path)
    used = _config_member if ontology_only else _used_member
    members = _plain_members(path, used)
    try:
        return _read_members(path, members, wanted, part, ontology_only, asr)
    except _NotPlain:
        pass   # read it again with tarfile, which reads every kind of tarball or says what is wrong
    except Dstc2ConvError:
        if _stream_error(members) is None:
            raise
    members = _tarfile_members(path, used)
    try:
        try:
            return _read_members(path, members, wanted, part, ontology_only, asr)
        except Dstc2ConvError:
            damage = _stream_error(members)
            if damage is None:
                raise
            raise damage from None
    except FileNotFoundError:
        raise Dstc2ConvError("no such file", path) from None
    except tarfile.ReadError as exc:
        # tarfile lists what each compression made of it, a line each: the first line is enough
        reason = str(exc).split("\n")[0].rstrip(":")
        if reason == "file could not be opened successfully":
            reason = "not a tarball (neither gzip, bzip2, xz nor plain tar)"
        raise Dstc2ConvError(f"cannot read the tarball (truncated or not a tarball?): {reason}", path) from None
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise Dstc2ConvError(f"cannot read the tarball (truncated or corrupt?): {exc}", path) from None


def _stream_error(members) -> Exception | None:
    """After a call or flist is found wrong: the error of the rest of the tarball's stream,
    if it is damaged (the likelier cause, as the CRC is only checked at its end); else None."""
    try:
        for _ in members:
            pass
    except Dstc2ConvError:
        return None
    except Exception as exc:
        return exc
    return None


def _read_members(path: str, members, wanted, part: tuple[int, int], ontology_only: bool, asr: bool) -> Source:
    """The Source of a tarball, from its regular files: (name, bytes) in tarball order."""
    pending: dict[str, dict[str, bytes]] = {}
    calls: dict[str, Call] = {}
    flists: dict[str, tuple[str, ...]] = {}
    ontology = ontology_path = None
    check = MemberCheck(path)
    for name, data in members:   # (only used members; each is checked by MemberCheck as it is read)
        base = name.rsplit("/", 1)[-1]
        if base.endswith(".flist") or base == ONTOLOGY:
            where = f"{path}:{name}"
            check.once(base, name, base)
            if base == ONTOLOGY:
                if ontology is None:
                    ontology, ontology_path = decode_json(data, where), where
            else:
                flists[base] = _flist(_decode(data, where), where)
            continue
        found = _session_of(name)
        if found is None:
            continue
        session, kind = found
        check.once(found, name, f"call {session}'s {kind}")
        check.wait(session, len(data))
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


def _used_member(name: str) -> bool:
    """Whether a member is one the build reads: a flist, the ontology, a call's file."""
    return _config_member(name) or _session_of(name) is not None


def _config_member(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    return base.endswith(".flist") or base == ONTOLOGY


def _plain_members(path: str, used=_used_member):
    """(name, bytes) of each regular file of a gzipped or uncompressed tarball that is
    ``used``, in order, read as tarfile reads them, only faster: ``_gunzip``, and a tar
    reader that knows only files, folders and pax headers. Anything else (bzip2, xz, GNU
    long names, links, a bad checksum, a truncated tarball, a pax header past the member
    limit) raises _NotPlain before or as it is met, holding nothing. The other members are
    read past, holding nothing; the stream is read to its end (its CRC checked), nothing
    but zeros after the archive's end. A member that fails ``MemberCheck`` raises
    Dstc2ConvError."""
    check = MemberCheck(path)
    try:
        with open(path, "rb") as fh:
            gzipped = fh.read(2) == b"\x1f\x8b"
        with (_gunzip(path) if gzipped else open(path, "rb")) as fh:
            yield from _tar_members(fh, check, used)
    except (_NotPlain, Dstc2ConvError):
        raise
    except TarDamage as exc:
        raise Dstc2ConvError(str(exc), path) from None
    except Exception:   # whatever went wrong, tarfile says it
        raise _NotPlain from None


def _tar_members(fh, check: MemberCheck, used):
    """(name, bytes) of each ``used`` regular file of the tar stream ``fh`` (see
    ``_plain_members``)."""
    read = fh.read
    first, pax = True, None
    while True:
        header = read(512)
        if len(header) < 512 or first and not header.strip(b"\0"):
            raise _NotPlain   # (tarfile says what is wrong)
        if not header.strip(b"\0"):
            if pax is not None:
                raise _NotPlain
            end_of_archive(read, fh.tell() - 512)
            return
        first = False
        if sum(header[:148]) + sum(header[156:]) + 256 != _octal(header[148:156]):
            raise _NotPlain
        size, kind = _octal(header[124:136]), header[156:157]
        if kind == b"5" and size == 0:
            pax = None
            continue
        if kind not in (b"0", b"\0", b"x"):
            raise _NotPlain
        if kind == b"x":
            if size > MAX_MEMBER or pax is not None:   # (tarfile bounds them, and those in a row)
                raise _NotPlain
            pax = _pax_fields(_member_data(read, size))
            continue
        name = _member_name(header, pax, size)
        pax = None
        if not used(name):
            if not skip(read, size + -size % 512):
                raise _NotPlain
            continue
        check.name(name)
        check.size(name, size)
        yield name, _member_data(read, size)


def _member_name(header: bytes, pax: dict | None, size: int) -> str:
    """A regular file's name, from its header or the pax header before it (whose size, if
    it gives one, must be the header's)."""
    name = _text(header[:100])
    prefix = _text(header[345:500])
    name = f"{prefix}/{name}" if prefix else name
    if pax is not None:
        name = pax[b"path"].decode("utf-8", "surrogateescape") if b"path" in pax else name
        if b"size" in pax and int(pax[b"size"]) != size:
            raise _NotPlain
    if name.endswith("/"):
        raise _NotPlain
    return name


def _member_data(read, size: int) -> bytes:
    """A member's ``size`` bytes, read with its padding to the next 512-byte block."""
    data = read(size)
    padding = -size % 512
    if len(data) < size or len(read(padding)) < padding:
        raise _NotPlain
    return data


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


def _tarfile_members(path: str, used=_used_member):
    """(name, bytes) of each regular file of a tarball of any kind that is ``used``, read
    by tarfile with DSTC2's bounds on headers (``CheckedHeader``); the stream is then read
    to its end (its checksum checked), nothing but zeros after the archive's end."""
    check = MemberCheck(path)
    try:
        with tarfile.open(path, tar_mode(path), tarinfo=CheckedHeader) as tf:
            for member in tf:
                tf.members.clear()   # (tarfile keeps every header it has read: a tarball may hold millions)
                if not used(member.name) or member.isdir():
                    continue
                check.name(member.name)
                if not member.isfile():
                    check.not_a_file(member)
                check.size(member.name, member.size)
                yield member.name, tf.extractfile(member).read()
            end_of_archive(tf.fileobj.read, tf.fileobj.tell() - 512)
    except TarDamage as exc:
        decompressed(path, drain)   # a damaged compressed stream, the likelier cause, is said first
        raise Dstc2ConvError(str(exc), path) from None


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
                flists[name] = _flist(_decode(read_bytes(full, "a DSTC2 flist", MAX_MEMBER), full), full)
            elif name == ONTOLOGY:
                ontology, ontology_path = decode_json(read_bytes(full, "a DSTC2 ontology", MAX_MEMBER), full), full
    calls = {}
    check = MemberCheck(path)
    if wanted is None or wanted:
        for session in _folder_sessions(data):
            check.name(session, "a session folder's name")   # (before _mine: --jobs changes nothing)
            if wanted is not None and session not in wanted or not _mine(session, part):
                continue
            folder = os.path.join(data, session)
            log, label = (os.path.join(folder, f) for f in ("log.json", "label.json"))
            for f in (log, label):
                if not os.path.lexists(f):
                    raise Dstc2ConvError(f"call {session} has no {os.path.basename(f)}", path)
            calls[session] = parse_call(session, read_bytes(log, "a DSTC2 log.json", MAX_MEMBER),
                                        read_bytes(label, "a DSTC2 label.json", MAX_MEMBER), path, asr)
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


def _read_calls(path: str, wanted, asr: bool, part: tuple[int, int]) -> dict:
    """A worker's share of the calls (``workers.start_workers``)."""
    return _read_part(path, wanted, part, asr).calls


def read_source(path: str | os.PathLike, wanted=None, workers: int = 1, asr: bool = False,
                keep: bool = False) -> Source:
    """Read a DSTC2 tarball or unpacked folder. ``wanted``: session paths to keep (None: all).
    ``asr``: also read what the system heard in each user turn (``CallTurn.heard``).

    With ``workers`` > 1, that many processes each parse a share of the calls (every
    process still reads the whole tarball: gzip cannot be split); the result is the same.
    With ``keep``, the calls stay in the worker processes that read them, for ``Calls.map``,
    until ``Source.calls.close()``; else they are brought here and the workers stop.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise Dstc2ConvError("no such file or folder", path)
    if workers <= 1 or wanted is not None and len(wanted) == 0:
        source = _read_part(path, wanted, (0, 1), asr)
        return replace(source, calls=Calls(source.calls))
    started = start_workers(functools.partial(_read_calls, path, wanted, asr), workers)
    try:
        here = _read_part(path, wanted, (0, workers), asr)
    except BaseException:
        for worker in started:
            worker.close()
        raise
    calls = Calls.spread(here.calls, started)
    return replace(here, calls=calls if keep else calls.gathered())


__all__ = ["FLISTS", "ONTOLOGY", "Source", "read_source", "read_ontology"]
