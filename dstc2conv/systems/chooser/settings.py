"""The chooser's training settings (no numpy needed to read them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    epochs: int = 8
    batch: int = 512
    rate: float = 0.05
    l2: float = 1e-3           # on the actions' weights
    l2_columns: float = 1e-5   # on the weights of the columns' own features (the rules' choice, ...)
    seed: int = 0
    hide: float = 0.0          # the share of training proposals shown as wordings never seen


__all__ = ["Settings"]
