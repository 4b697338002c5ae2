"""What ``rules tune`` can maximise, the one place they are named: each objective's name,
its label (as printed) and its value from the right turns and turns of each dialog
system (one system, "all", when they are not known)."""
from __future__ import annotations

OBJECTIVES = {
    "overall": "per response",                            # per-response accuracy over all turns
    "mean-system": "per response, mean of the systems",   # the mean of the systems' per-response accuracies
    "worst-system": "per response, worst system",         # the lowest of them
}


def value(objective: str, right: list[int], totals: list[int]) -> float:
    """The objective, from the right turns and the turns of each system."""
    if objective == "overall":
        return sum(right) / sum(totals)
    rates = [r / t for r, t in zip(right, totals)]
    return sum(rates) / len(rates) if objective == "mean-system" else min(rates)
