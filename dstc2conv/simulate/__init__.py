"""The bAbI dialog tasks 1-5 simulator: the KB, the dialogs of each task and split in the
published format, and how closely generated files match the published ones."""
from __future__ import annotations

from .generate import SimulateOptions, simulate
from .kb import KB, Restaurant, candidates, paper_kb, read_kb

__all__ = ["KB", "Restaurant", "SimulateOptions", "candidates", "paper_kb", "read_kb", "simulate"]
