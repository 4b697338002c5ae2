"""`dstc2conv embeddings train | predict`: supervised embeddings."""
from __future__ import annotations

import itertools

from ..learning.cli import add_commands

# The grid --search tries (docs/learned.md); the model's defaults are its best on the dev file.
GRID = {"tied": (False, True), "negatives": (20, 100)}


def grid(args) -> list[dict]:
    return [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]


def system(args, **settings):
    from .model import SupervisedEmbeddings

    return SupervisedEmbeddings(**settings)


def add_parser(sub) -> None:
    add_commands(sub, "embeddings", "supervised embeddings: train, predict", system, grid)
