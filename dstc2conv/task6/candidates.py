"""A task-6 candidates file: one response a line, ``1 <utterance>``."""
from __future__ import annotations

from collections.abc import Iterable

from ..errors import Dstc2ConvError
from ..files import read_lines
from .text import problem


def read_candidates(path: str) -> tuple[str, ...]:
    """The responses of a candidates file (``1 <utterance>`` a line, the utterance as a
    task-6 bot utterance may be: even empty, as ``format_candidates`` writes every bot
    utterance of a file), distinct (compared stripped; the first kept) and in file order.
    An empty line is skipped; a byte-order mark at the start dropped."""
    texts = []
    for lineno, line in enumerate(read_lines(path, "a candidates file"), 1):
        if line.endswith("\r"):
            line = line[:-1]                      # CRLF
        if not line:
            continue
        if not line.startswith("1 "):
            raise Dstc2ConvError(f"expected '1 <utterance>', found {line[:60]!r}", path, lineno)
        bad = problem(line[2:])
        if bad is not None:
            raise Dstc2ConvError(bad, path, lineno)
        texts.append(line[2:])
    if not texts:
        raise Dstc2ConvError("no candidates (the file is empty or only empty lines)", path)
    return distinct(texts)


def format_candidates(utterances: Iterable[str], path: str = "<candidates>") -> str:
    """The text of a candidates file of ``utterances`` (each once, sorted), which
    ``read_candidates`` reads back; one it would refuse is an error naming it."""
    every = sorted(set(utterances))
    for text in every:
        bad = problem(text)
        if bad is not None:
            raise Dstc2ConvError(f"the candidate {text[:60]!r}: {bad}", path)
    return "".join(f"1 {text}\n" for text in every)


def distinct(texts: Iterable[str]) -> tuple[str, ...]:
    """The texts, each once (compared stripped; the first kept), in order."""
    seen: dict[str, str] = {}
    for text in texts:
        seen.setdefault(text.strip(), text)
    return tuple(seen.values())
