"""The chooser's training settings (no numpy needed to read them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    iterations: int = 100      # L-BFGS iterations at the most
    l2: float = 1e-4           # on the actions' weights
    l2_columns: float = 1e-5   # on the weights of the columns' own features (the rules' choice, ...)
    seed: int = 0              # draws the proposals ``hide`` shows as unseen wordings
    hide: float = 0.0          # the share of training proposals shown as wordings never seen


__all__ = ["Settings"]
