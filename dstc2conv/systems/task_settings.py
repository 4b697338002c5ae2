"""Each learned system's settings on each bAbI dialog task (1-5), chosen on the task's dev
file by ``benchmarks/sweep_babi.py --grid`` (docs/babi-learned.md gives the grid and
its figures). Task 6 and any other data take the systems' defaults.

``settings_for(system, task)`` is what ``table2`` gives ``registry.entry(system).build``
when it knows the task."""
from __future__ import annotations

TASKS = ("T1", "T2", "T3", "T4", "T5")

# system -> task -> settings (the system's constructor arguments)
SETTINGS: dict[str, dict[str, dict]] = {
}


def settings_for(system: str, task: str | None) -> dict:
    """The settings chosen for ``system`` on bAbI task ``task`` ("T1" to "T5"); {} (the
    system's defaults) for task 6, an unknown task or a system without chosen settings."""
    return dict(SETTINGS.get(system, {}).get(task or "", {}))


__all__ = ["TASKS", "SETTINGS", "settings_for"]
