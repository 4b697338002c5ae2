"""The bAbI dialog tasks 1-5 simulator: KB, dialogs and candidates in the published format, and their fidelity."""
from __future__ import annotations

from .generate import SimulateOptions, simulate
from .kb import KB, Restaurant, candidates, paper_kb, read_kb

__all__ = ["KB", "Restaurant", "SimulateOptions", "candidates", "paper_kb", "read_kb", "simulate"]
