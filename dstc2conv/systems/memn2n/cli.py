"""`dstc2conv memn2n train | predict | explain`: the generic commands (``systems/commands.py``)
for MemN2N, with --match the match-type features."""
from __future__ import annotations

from ..commands import add_alias


def add_parser(sub) -> None:
    add_alias(sub, "memn2n", "MemN2N (--match: with match-type features): train, predict, explain",
              ("memn2n", "memn2n+match"), match=True, explain=True)
