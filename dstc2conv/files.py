"""Small file helpers shared by the commands: read with a clear error, hash, write atomically."""
from __future__ import annotations

import hashlib
import os

from .errors import Dstc2ConvError


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
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
    """Write to a temporary file beside ``path``, then rename it over ``path``."""
    temp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(temp, path)
    except OSError as exc:
        if os.path.exists(temp):
            os.unlink(temp)
        raise Dstc2ConvError(f"cannot write: {exc.strerror}", path) from None
