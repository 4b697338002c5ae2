"""Supervised embeddings: a candidate's score is the dot product of the embedded conversation and the embedded candidate."""
from __future__ import annotations

__all__ = ["SupervisedEmbeddings"]


def __getattr__(name: str):
    # imported on first use: the command line loads numpy only for a command that needs it
    if name == "SupervisedEmbeddings":
        from .model import SupervisedEmbeddings

        return SupervisedEmbeddings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
