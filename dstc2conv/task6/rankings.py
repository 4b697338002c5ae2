"""A ranked predictions file: for each bot turn of a task-6 file, candidate utterances
best first, one JSON list of strings a line (JSON lines); ``evaluate.rankings`` scores it."""
from __future__ import annotations

import json

from ..errors import Dstc2ConvError
from ..files import read_lines, read_text


def looks_ranked(path: str) -> bool:
    """Whether a predictions file holds JSON lists (its first line starts with ``[``):
    no task-6 bot utterance starts so."""
    text = read_text(path, "a predictions file")
    return text.lstrip("\ufeff").startswith("[")


def read_rankings(path: str) -> tuple[tuple[str, ...], ...]:
    """The ranked lists of a JSON-lines file: each line a non-empty JSON list of distinct
    strings (distinct once stripped), without tabs or line breaks."""
    lines = read_lines(path, "a ranked predictions file")
    out = []
    for number, line in enumerate(lines, 1):
        try:
            ranked = json.loads(line)
        except ValueError as exc:
            raise Dstc2ConvError(f"not JSON ({exc.msg}): give one JSON list of candidate utterances a line",
                                 path, number) from None
        except RecursionError:
            raise Dstc2ConvError("not JSON (nested too deeply): give one JSON list of candidate utterances a line",
                                 path, number) from None
        if not isinstance(ranked, list) or not ranked or not all(isinstance(c, str) for c in ranked):
            raise Dstc2ConvError("not a non-empty JSON list of strings: give the candidate utterances best first",
                                 path, number)
        seen = set()
        for candidate in ranked:
            if "\t" in candidate or "\n" in candidate:
                raise Dstc2ConvError(f"a tab or line break in the candidate {candidate[:60]!r}", path, number)
            if candidate.strip() in seen:
                raise Dstc2ConvError(f"the candidate {candidate.strip()[:60]!r} is ranked twice", path, number)
            seen.add(candidate.strip())
        out.append(tuple(ranked))
    return tuple(out)
