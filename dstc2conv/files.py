"""Small file helpers shared by the commands: read with a clear error, hash, write atomically."""
from __future__ import annotations

import hashlib
import os
import sys

from .errors import Dstc2ConvError


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror}", path) from None


def read_text(path: str, what: str) -> str:
    """The text of a UTF-8 file, its line ends as they are; Dstc2ConvError, one line
    naming the file, if it cannot be read (``what``: what it should be, for a folder)."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path) from None
    except IsADirectoryError:
        raise Dstc2ConvError(f"is a directory, not {what}", path) from None
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror}", path) from None


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror}", path) from None
    return digest.hexdigest()


def write_text_atomic(path: str, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename it over ``path``. A symbolic
    link is followed (the file it names is replaced, the link stays); a path that is not a
    regular file (``/dev/stdout``, a pipe) is written directly."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        if os.path.isdir(target):
            raise Dstc2ConvError("cannot write: it is a folder", path)
        try:
            with open(target, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot write: {exc.strerror}", path) from None
        return
    temp = f"{target}.tmp-{os.getpid()}"
    try:
        with open(temp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(temp, target)
    except OSError as exc:
        if os.path.exists(temp):
            os.unlink(temp)
        raise Dstc2ConvError(f"cannot write: {exc.strerror}", path) from None


def check_writable(path: str, inputs: tuple = ()) -> None:
    """Raise Dstc2ConvError now, before any work, if ``path`` cannot be written: a folder,
    a file whose folder does not exist, or one of ``inputs`` (it would be overwritten)."""
    target = os.path.realpath(path)
    for given in inputs:
        if given and os.path.realpath(given) == target:
            raise Dstc2ConvError(f"cannot write: it is the input {given}, which would be overwritten", path)
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
