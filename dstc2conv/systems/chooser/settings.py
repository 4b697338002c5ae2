"""The chooser's training settings, the defaults of ``RulesLearned``'s (no numpy needed
to read them)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    iterations: int = 100      # L-BFGS iterations at the most
    l2: float = 1e-4           # on the actions' weights
    l2_columns: float = 1e-5   # on the weights of the columns' own features (the rules' choice, ...)
    seed: int = 0              # draws the proposals ``hide`` shows as unseen wordings
    hide: float = 0.0          # the share of training proposals shown as wordings never seen
    min_count: int = 2         # a turn feature is kept when train has it this many times or more


__all__ = ["Settings"]
