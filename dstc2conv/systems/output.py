"""What a system's predict command writes: one prediction a line, or one ranking a line
(a JSON list, best first), to a file (atomically) or to stdout."""
from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TextIO

from ..files import write_stdout, write_text_atomic


def write_answers(predictions: Sequence[str], rankings: Sequence[Sequence[str]] | None, out: str,
                  quiet: bool = False) -> TextIO:
    """Write the rankings (when given) or the predictions to ``out`` (``-``: stdout);
    returns where the score goes: stdout, or stderr when the answers took stdout."""
    if rankings is None:
        text = "".join(p.replace("\n", " ") + "\n" for p in predictions)
    else:
        text = "".join(json.dumps([c.replace("\n", " ") for c in r], ensure_ascii=False) + "\n" for r in rankings)
    if out == "-":
        write_stdout(text)
        return sys.stderr
    write_text_atomic(out, text)
    if not quiet:
        print(f"dstc2conv: {len(predictions)} predictions written to {out}", file=sys.stderr)
    return sys.stdout


__all__ = ["write_answers"]
