"""The chooser's training settings (no numpy needed to read them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    epochs: int = 8
    batch: int = 512
    rate: float = 0.05
    l2: float = 1e-5
    seed: int = 0


__all__ = ["Settings"]
