"""Each learned system's settings on each bAbI dialog task (1-5), chosen on the task's dev
file by ``benchmarks/sweep_babi.py --grid`` (docs/babi-learned.md gives the grid and
its figures). Task 6 and any other data take the systems' defaults.

``settings_for(system, task)`` is what ``table2`` gives ``registry.entry(system).build``
when it knows the task."""
from __future__ import annotations

TASKS = ("T1", "T2", "T3", "T4", "T5")

# Given to every bAbI task (not searched): the candidates' products by sparse matrices (the
# 4,212 candidates), up to 40 epochs, early stopping after 6 without a better dev figure.
FIXED = {"sparse": True, "epochs": 40, "patience": 6}

# system -> task -> settings (the system's constructor arguments), FIXED and the search's choice
SETTINGS: dict[str, dict[str, dict]] = {
    "embeddings": {
        "T1": {**FIXED, "learning_rate": 0.03},
        "T2": {**FIXED, "learning_rate": 0.01},
        "T3": {**FIXED, "learning_rate": 0.3},
        "T4": {**FIXED, "learning_rate": 0.1},
        "T5": {**FIXED, "learning_rate": 0.03},
    },
    "memn2n": {
        "T1": {**FIXED, "hops": 1, "memory": 50},
        "T2": {**FIXED, "hops": 1, "memory": 100},
        "T3": {**FIXED, "hops": 3, "memory": 50},
        "T4": {**FIXED, "hops": 1, "memory": 50},
        "T5": {**FIXED, "hops": 1, "memory": 50},
    },
    "memn2n+match": {
        "T1": {**FIXED, "memory": 100, "hops": 3, "typed_memory": True},
        "T2": {**FIXED, "memory": 100, "hops": 1, "typed_memory": True},
        "T3": {**FIXED, "memory": 100, "hops": 3, "typed_memory": True},
        "T4": {**FIXED, "memory": 100, "hops": 3, "typed_memory": False},
        "T5": {**FIXED, "memory": 50, "hops": 1, "typed_memory": False},
    },
}


def settings_for(system: str, task: str | None) -> dict:
    """The settings chosen for ``system`` on bAbI task ``task`` ("T1" to "T5"); {} (the
    system's defaults) for task 6, an unknown task or a system without chosen settings."""
    return dict(SETTINGS.get(system, {}).get(task or "", {}))


__all__ = ["TASKS", "SETTINGS", "settings_for"]
