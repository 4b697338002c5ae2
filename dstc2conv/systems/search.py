"""A grid search: every combination of some settings fitted on a training file, the one
with the best per-response accuracy on a dev file kept (the first of equals, in grid
order). Any system: it is copied with ``get_params``, run through the one dialog loop."""
from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..reporter import note
from ..task6.turns import BotTurn
from .interface import System, as_turns, clone, run


@dataclass(frozen=True)
class Tried:
    settings: dict          # the grid's settings of this run
    dev: float              # its per-response accuracy on the dev file

    def to_dict(self) -> dict:
        return {"settings": self.settings, "dev": round(self.dev, 6)}


def combinations(grid: Mapping[str, Sequence]) -> list[dict]:
    """Every combination of the grid's values, the first setting's slowest."""
    return [dict(zip(grid, values)) for values in itertools.product(*grid.values())]


def accuracy(system: System, turns: Sequence[BotTurn]) -> float:
    """The fitted system's per-response accuracy on ``turns`` (compared stripped)."""
    answers = run(system, turns, 1)
    return sum(a[0].strip() == t.gold.strip() for a, t in zip(answers, turns)) / max(len(turns), 1)


def search(system: System, grid: Mapping[str, Sequence], train, dev) -> tuple[System, tuple[Tried, ...]]:
    """The best of ``system`` with each combination of ``grid`` (setting -> values),
    fitted on ``train`` (choices on ``dev``), by accuracy on ``dev``; and every one tried."""
    train, dev = as_turns(train, "train"), as_turns(dev, "dev")
    if not dev:
        raise Dstc2ConvError("a grid search needs dev data to choose on")
    unknown = sorted(set(grid) - set(system.get_params()))
    if unknown or not grid:
        raise Dstc2ConvError(f"{system.label()}: no grid to search" if not grid else
                             f"{system.label()}: the grid names settings it does not have: {', '.join(unknown)}")
    tried: list[Tried] = []
    best = None
    settings_list = combinations(grid)
    for i, settings in enumerate(settings_list, 1):
        note(f"grid {i}/{len(settings_list)}: {json.dumps(settings)}")
        fitted = clone(system, **settings).fit(train, dev)
        tried.append(Tried(settings, accuracy(fitted, dev)))
        note(f"grid {i}/{len(settings_list)}: dev {tried[-1].dev:.2%}")
        if best is None or tried[-1].dev > best[0]:
            best = tried[-1].dev, fitted
    return best[1], tuple(tried)


__all__ = ["Tried", "combinations", "accuracy", "search"]
