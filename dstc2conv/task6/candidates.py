"""A task-6 candidates file: one response a line, ``1 <utterance>``; and what it holds,
as the build's manifest beside it says."""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence

from ..errors import Dstc2ConvError
from ..files import read_text, sha256_file

MANIFEST = "manifest.json"   # (builder.manifest writes it)


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
