"""Reading and writing files safely: bounded reads, JSON that cannot crash, and writes
that never replace a file the command reads.

Every file a command reads goes through ``read_bytes`` / ``read_text`` / ``read_json``:
a regular file up to ``limits.MAX_FILE``, or a pipe (``<(cat file)``) read up to the
same bound; anything else (``/dev/zero``, a socket) is refused before it is read.
Inside ``guarded()`` (the CLI runs every command in it) the identity of each regular
file read is kept, and ``check_writable`` / ``write_text_atomic`` refuse to write over
any of them: the same file by another name (a link, ``./x``) is the same file.
A file of an output folder that a build stopped in while putting its files in place
must have the SHA-256 the ``manifest.json`` beside it gives (``check_in_set``): a mixed
set is refused, not read.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterable

from .errors import Dstc2ConvError
from .limits import MAX_FILE, MAX_LINES, MB

_read: dict | None = None    # inside guarded(): (device, inode) -> {absolute path: path as given} it was read by
_digests: dict = {}          # inside guarded(): absolute path -> SHA-256 of the bytes read from it
_pipes: dict = {}            # inside guarded(): absolute path of a pipe -> the bytes read from it


@contextlib.contextmanager
def guarded():
    """Within this block, remember every file read, and refuse to write over one of them."""
    global _read, _digests, _pipes
    outer = _read, _digests, _pipes
    _read, _digests, _pipes = {}, {}, {}
    try:
        yield
    finally:
        _read, _digests, _pipes = outer


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _too_big(limit: int) -> str:
    return f"larger than the {limit // MB} MB an input may be"


def read_bytes(path: str, what: str = "a file", limit: int = MAX_FILE, is_input: bool = True) -> bytes:
    """The bytes of a regular file or a pipe, at most ``limit`` of them; Dstc2ConvError,
    one line naming the file, for anything else (a folder, a device, a larger file).
    ``is_input``: remember it, in ``guarded()``, as a file not to write over (not so for
    an output read to compare it with its new text)."""
    if _read is not None and os.path.abspath(path) in _pipes:
        return _pipes[os.path.abspath(path)]   # a pipe is read once: read again, it gives what it gave
    try:
        fh = open(path, "rb")
    except IsADirectoryError:
        raise Dstc2ConvError(f"is a directory, not {what}", path) from None
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    with fh:
        try:
            info = os.fstat(fh.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise Dstc2ConvError(f"is a directory, not {what}", path)
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
                raise Dstc2ConvError(f"{_kind(info.st_mode)}, not {what}: give a file", path)
            if info.st_size > limit:
                raise Dstc2ConvError(_too_big(limit), path)
            data = fh.read(limit + 1)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    if len(data) > limit:
        raise Dstc2ConvError(_too_big(limit), path)
    if is_input and stat.S_ISREG(info.st_mode):
        check_in_set(path, data)
    if is_input and _read is not None:
        _digests[os.path.abspath(path)] = hashlib.sha256(data).hexdigest()
        if stat.S_ISREG(info.st_mode):
            remember_input(path, info)
        else:
            _pipes[os.path.abspath(path)] = data
    return data


SET_MANIFEST = "manifest.json"         # a build's list of its output set (``builder.manifest``)
PENDING_BUILD = ".dstc2conv-build-"    # a build's own folder in its output folder (``builder.output_set``)


def check_in_set(path: str, data: bytes) -> None:
    """Dstc2ConvError if the file ``path`` (links followed), whose bytes are ``data``, is in
    an output folder that a build was putting its files into when it stopped (its folder
    with a COMMIT list is still there: ``builder.output_set``) and is not the file the
    ``manifest.json`` there lists: files of two builds would be read as one set. A file of
    a folder with no stopped build is read as it is (edited by hand, it is the user's)."""
    real = os.path.realpath(path)
    folder, name = os.path.split(real)
    if name == SET_MANIFEST:
        return
    try:
        pending = any(entry.startswith(PENDING_BUILD) and os.path.lexists(os.path.join(folder, entry, "COMMIT"))
                      for entry in os.listdir(folder))
    except OSError:
        return
    if not pending:
        return
    listed = _set_checksums(os.path.join(folder, SET_MANIFEST))
    if name in listed and listed[name] != hashlib.sha256(data).hexdigest():
        raise Dstc2ConvError(f"not the file {SET_MANIFEST} beside it lists: a build into "
                             f"{os.path.dirname(path) or '.'} stopped while putting its files in place, leaving "
                             "files of two builds; run the build again to finish it", path)


def _set_checksums(manifest: str) -> dict:
    """File name -> SHA-256 of a build's manifest (``{}``: none there, or not one of ours)."""
    try:   # never blocks: a pipe named manifest.json is no manifest
        fd = os.open(manifest, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return {}
            raw = fh.read(MAX_FILE + 1)
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return {}
    checksums = data.get("checksums") if isinstance(data, dict) and data.get("tool") == "dstc2conv" else None
    if not isinstance(checksums, dict):
        return {}
    return {k: v for k, v in checksums.items() if isinstance(v, str)}


def remember_input(path: str, info: os.stat_result | None = None) -> None:
    """Inside ``guarded()``: ``path`` (a regular file) is an input, not to be written over
    (``read_bytes`` does this; a reader of its own, such as the tarball reader's, calls it)."""
    if _read is None:
        return
    if info is None:
        try:
            info = os.stat(path)
        except OSError:
            return
    if stat.S_ISREG(info.st_mode):
        _read.setdefault((info.st_dev, info.st_ino), {}).setdefault(os.path.abspath(path), path)


def read_text(path: str, what: str = "a file", limit: int = MAX_FILE, is_input: bool = True) -> str:
    """The text of a UTF-8 file (``read_bytes``), its line ends as they are; Dstc2ConvError,
    one line naming the file, if it cannot be read (``what``: what it should be)."""
    return decode(read_bytes(path, what, limit, is_input), path)


def read_lines(path: str, what: str) -> list[str]:
    """The lines of a UTF-8 file (``read_text``), ending at ``\\n`` (a last line without one
    counts), a byte-order mark at the start dropped; more than ``limits.MAX_LINES`` is an error."""
    text = read_text(path, what)
    if text.count("\n", 0, len(text) - 1) >= MAX_LINES:
        raise Dstc2ConvError(f"more than {MAX_LINES:,} lines, more than {what} may have", path)
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def decode(data: bytes, path: str) -> str:
    """UTF-8 bytes as text; Dstc2ConvError naming ``path``, the line and the byte if they are not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise Dstc2ConvError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path, line) from None


def parse_json(text: str | bytes, path: str, what: str = "JSON"):
    """The value of JSON text; Dstc2ConvError naming ``path`` if it is malformed or
    nested too deeply for Python to read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise Dstc2ConvError(f"malformed {what}: nested too deeply", path) from None
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    except ValueError as exc:
        raise Dstc2ConvError(f"malformed {what}: {exc}", path) from None


def read_json(path: str, what: str = "JSON", limit: int = MAX_FILE):
    """The value of a JSON file (``read_text``, ``parse_json``)."""
    return parse_json(read_text(path, f"a {what} file", limit), path, what)


def sha256_file(path: str) -> str:
    """The SHA-256 of a file: of the bytes this command read from it, if it did (a pipe
    cannot be read twice), else of the regular file it is."""
    if _read is not None and os.path.abspath(path) in _digests:
        return _digests[os.path.abspath(path)]
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise Dstc2ConvError(f"{_kind(os.fstat(fh.fileno()).st_mode)}: give a file", path)
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    return digest.hexdigest()


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of the regular file ``path`` names, links followed; None if none."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one regular file (links followed, by device and inode)."""
    identity = _identity(a)
    return identity is not None and identity == _identity(b)


def refuse_inputs(path: str, inputs: tuple = (), updates: bool = False) -> None:
    """Raise Dstc2ConvError if ``path`` is one of ``inputs`` or a file read so far in
    ``guarded()``: writing it would destroy an input. ``updates``: ``path`` is a file the
    command reads in order to rewrite it (the score history); it may have been read by
    that name, never by another."""
    identity = _identity(path)
    if identity is None:
        return
    for given in inputs:
        if given and _identity(os.fspath(given)) == identity:
            raise Dstc2ConvError(f"cannot write: it is the input {given}, which would be overwritten", path)
    others = dict(_read.get(identity, {})) if _read else {}
    if updates:
        others.pop(os.path.abspath(path), None)
    if others:
        raise Dstc2ConvError(f"cannot write: it is the input {others[min(others)]}, which would be overwritten",
                             path)


def refuse_special(path: str) -> None:
    """Dstc2ConvError if the output ``path`` names a pipe, a socket or a block device: a
    pipe would hold the command until some process reads it (forever, if none does); the
    others are no place for a result. A character device (``/dev/null``, a terminal) is
    written directly. Every output path of every command is checked so (``check_writable``,
    ``write_text_atomic``)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return
    if stat.S_ISFIFO(mode):
        raise Dstc2ConvError("cannot write: it is a pipe, which would hold the command until some process "
                             "reads it: give a file", path)
    if stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        raise Dstc2ConvError(f"cannot write: it is {_kind(mode)}: give a file", path)


def write_text_atomic(path: str, text: str | Iterable[str], updates: bool = False) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``; ``text`` may
    be pieces, written as they come. A symbolic
    link is followed (the file it names is replaced, the link stays); a character device
    (``/dev/null``) is written directly; a pipe is refused (``refuse_special``). A file
    read by this command is not written over (``refuse_inputs``; ``updates``: but for
    ``path`` itself, read to be rewritten). Stopped at any point (an error, a signal),
    it leaves ``path`` as it was and no temporary file."""
    refuse_special(path)
    refuse_inputs(path, updates=updates)
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        if os.path.isdir(target):
            raise Dstc2ConvError("cannot write: it is a folder", path)
        try:
            with open(target, "w", encoding="utf-8", newline="\n") as fh:
                fh.writelines([text] if isinstance(text, str) else text)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot write: {exc.strerror}", path) from None
        return
    temp = f"{target}.tmp-{os.getpid()}"
    try:
        with open(temp, "w", encoding="utf-8", newline="\n") as fh:
            fh.writelines([text] if isinstance(text, str) else text)
        os.replace(temp, target)
    except BaseException as exc:
        if os.path.lexists(temp):
            os.unlink(temp)
        if isinstance(exc, OSError):
            raise Dstc2ConvError(f"cannot write: {exc.strerror}", path) from None
        raise


def write_files_atomic(files: list[tuple[str, bytes]]) -> None:
    """Write several files as one: each to a temporary file beside it, then every rename
    together, with SIGINT, SIGTERM and SIGHUP held until they are done (a signal that
    comes meanwhile stops the command once they are). Stopped before the renames, it
    leaves every path as it was and no temporary file: so a stop leaves all the files
    written or none. Each path is checked as ``write_text_atomic`` checks it; a folder or
    a device is refused."""
    import signal

    temps = []
    try:
        for path, data in files:
            refuse_special(path)
            refuse_inputs(path)
            target = os.path.realpath(path)
            if os.path.exists(target) and not os.path.isfile(target):
                raise Dstc2ConvError("cannot write: it is not a regular file", path)
            temp = f"{target}.tmp-{os.getpid()}"
            temps.append((temp, target, path))
            with open(temp, "wb") as fh:
                fh.write(data)
        mask = getattr(signal, "pthread_sigmask", None)     # not on Windows
        held = {getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)}
        before = mask(signal.SIG_BLOCK, held) if mask else None
        try:
            for done, (temp, target, path) in enumerate(temps):
                try:
                    os.replace(temp, target)
                except OSError as exc:
                    written = ", ".join(p for _, _, p in temps[:done])
                    raise Dstc2ConvError(f"cannot write: {exc.strerror}" + (f" (written: {written})" if written
                                                                             else ""), path) from None
        finally:
            if mask:
                mask(signal.SIG_SETMASK, before)
    except BaseException as exc:
        for temp, _, _ in temps:
            if os.path.lexists(temp):
                os.unlink(temp)
        if isinstance(exc, OSError):
            raise Dstc2ConvError(f"cannot write: {exc.strerror}", temps[-1][2] if temps else files[0][0]) from None
        raise


def output_folder(folder: str, what: str) -> None:
    """Make the output folder ``folder`` now, before any work, if it is not there; raise
    (``cannot write {what}: ...``) if it cannot be made or written."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise Dstc2ConvError(f"cannot write {what}: it is a file, not a folder", folder)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot write {what}: {exc.strerror}", folder) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise Dstc2ConvError(f"cannot write {what}: permission denied", folder)


def check_writable(path: str, inputs: tuple = ()) -> None:
    """Raise Dstc2ConvError now, before any work, if ``path`` cannot be written: a folder,
    a file whose folder does not exist, or one of ``inputs`` or of the files read so far
    (it would be overwritten), or a pipe (``refuse_special``)."""
    refuse_special(path)
    refuse_inputs(path, inputs)
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise Dstc2ConvError("cannot write: it is a folder", path)
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise Dstc2ConvError(f"cannot write: no folder {os.path.dirname(path) or '.'}", path)


STDOUT_PIECE = 1 << 16


def write_stdout(text: str) -> None:
    """Write ``text`` to stdout and flush, in pieces: a reader that went away (``| head``)
    then raises BrokenPipeError, which one large write can lose."""
    for start in range(0, len(text), STDOUT_PIECE):
        sys.stdout.write(text[start:start + STDOUT_PIECE])
    sys.stdout.flush()
