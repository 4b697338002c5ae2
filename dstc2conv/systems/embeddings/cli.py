"""`dstc2conv embeddings train | predict`: the generic commands (``systems/commands.py``)
for supervised embeddings."""
from __future__ import annotations

from ..commands import add_alias


def add_parser(sub) -> None:
    add_alias(sub, "embeddings", "supervised embeddings: train, predict", ("embeddings",))
