"""The bAbI dialog tasks 1-5 simulator: KB, dialogs and candidates in the published format, and their fidelity."""
from __future__ import annotations

# The names below are imported when first used, so that the command line's start does not pay for them.
from importlib import import_module

_NAMES = {"KB": "kb", "Restaurant": "kb", "candidates": "kb", "paper_kb": "kb", "read_kb": "kb",
          "SimulateOptions": "generate", "simulate": "generate"}

__all__ = ["KB", "Restaurant", "SimulateOptions", "candidates", "paper_kb", "read_kb", "simulate"]


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{module}"), name)
