"""A task-6 candidates file: one response a line, ``1 <utterance>``."""
from __future__ import annotations

from collections.abc import Iterable

from ..errors import Dstc2ConvError
from ..files import read_text


def read_candidates(path: str) -> tuple[str, ...]:
    """The responses of a candidates file (``1 <utterance>`` a line), distinct (compared
    stripped; the first kept) and in file order."""
    lines = read_text(path, "a candidates file").split("\n")
    texts = []
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line:
            continue
        if not line.startswith("1 ") or not line[2:].strip():
            raise Dstc2ConvError(f"expected '1 <utterance>', found {line[:60]!r}", path, lineno)
        texts.append(line[2:])
    if not texts:
        raise Dstc2ConvError("no candidates (the file is empty or only empty lines)", path)
    return distinct(texts)


def distinct(texts: Iterable[str]) -> tuple[str, ...]:
    """The texts, each once (compared stripped; the first kept), in order."""
    seen: dict[str, str] = {}
    for text in texts:
        seen.setdefault(text.strip(), text)
    return tuple(seen.values())
