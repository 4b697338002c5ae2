"""Agreement between systems, turn by turn: for each ordered pair (A, B), the turns A gets
right and B wrong; and the oracle of all, a perfect choice among the systems at each turn
(right where any system is right), per response and per dialog."""
from __future__ import annotations

from collections.abc import Sequence


def pairs(names: Sequence[str], outcomes: Sequence[Sequence[bool]]) -> dict:
    """``{"only": [[turns A right, B wrong for B in names] for A in names], "turns": N}``."""
    n = len(outcomes[0]) if outcomes else 0
    only = [[sum(1 for x, y in zip(a, b) if x and not y) for b in outcomes] for a in outcomes]
    return {"systems": list(names), "only": only, "turns": n}


def oracle(outcomes: Sequence[Sequence[bool]], turns) -> dict:
    """Right where any system is right: the share of turns, and of dialogs whose every
    turn some system gets right."""
    any_right = [any(column) for column in zip(*outcomes)]
    dialogs: dict[int, bool] = {}
    for ok, turn in zip(any_right, turns):
        dialogs[turn.dialog] = dialogs.get(turn.dialog, True) and ok
    n, d = len(any_right), len(dialogs)
    return {"correct": sum(any_right), "responses": n, "per_response": sum(any_right) / n if n else 0.0,
            "dialogs_correct": sum(dialogs.values()), "dialogs": d,
            "per_dialog": sum(dialogs.values()) / d if d else 0.0}
