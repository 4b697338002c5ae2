"""A task-6 candidates file: one response a line, ``1 <utterance>``; and what it holds,
as the build's manifest beside it says."""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence

from ..errors import Dstc2ConvError
from ..files import read_lines, read_text, sha256_file
from .text import problem

MANIFEST = "manifest.json"   # (builder.manifest writes it)


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


def held_splits(path: str) -> tuple[str, ...] | None:
    """The splits whose bot utterances the candidates file ``path`` holds, as the build's
    manifest beside it says (its ``candidates``); None when no manifest there names this
    file with the checksum it has now."""
    name = os.path.basename(path)
    manifest = os.path.join(os.path.dirname(path), MANIFEST)
    try:
        data = json.loads(read_text(manifest, "a manifest", is_input=False))
        entry = data["candidates"]
        if entry["file"] != name or data["checksums"][name] != sha256_file(path):
            return None
        return tuple(str(split) for split in entry["splits"])
    except (Dstc2ConvError, ValueError, KeyError, TypeError, RecursionError):
        return None


def coverage_note(path: str, candidates: Sequence[str] = (), train: str | None = None,
                  train_golds: Iterable[str] = ()) -> str | None:
    """A note when the candidates file ``path`` does not hold the training utterances:
    its manifest says it holds other splits only, or (no manifest naming it) some bot
    utterances of the training file ``train`` (``train_golds``) are not among
    ``candidates``. None when it holds them, or nothing says."""
    paper = ("ranked figures on it are not comparable with the paper's, whose candidates are every bot utterance "
             "of train, dev and test (dstc2conv build --split all writes them)")
    splits = held_splits(path)
    if splits is not None:
        if "train" in splits:
            return None
        return (f"{path} holds the bot utterances of {', '.join(splits) or 'no split'} only, not of the training "
                f"split (says {MANIFEST} beside it): {paper}")
    if train is None:
        return None
    have = {c.strip() for c in candidates}
    golds = {g.strip() for g in train_golds}
    missing = len(golds - have)
    if not missing:
        return None
    return f"{path} lacks {missing} of the {len(golds)} distinct bot utterances of {train}: {paper}"
