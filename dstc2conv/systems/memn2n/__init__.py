"""MemN2N (end-to-end memory network) ranking task-6 responses, with or without match-type features."""
from __future__ import annotations

__all__ = ["MemN2N"]


def __getattr__(name: str):
    # imported on first use: the command line loads numpy only for a command that needs it
    if name == "MemN2N":
        from .model import MemN2N

        return MemN2N
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
