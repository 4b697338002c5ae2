"""Entity F1 by slot: for each turn, the gold's distinct entities of a slot found among
the prediction's tokens (TP), those not found (FN), and the prediction's distinct
entities of that slot the gold does not hold (FP), summed over the turns; entities as
``entity_micro`` has them (the KB's and the dialog's result lines so far)."""
from __future__ import annotations

from collections.abc import Sequence

# the KB's attribute -> the slot's name on the page
SLOTS = {"R_cuisine": "food", "R_location": "area", "R_price": "price", "R_name": "name",
         "R_phone": "phone", "R_address": "address", "R_post_code": "post code"}


def by_slot(predictions: Sequence[str], turns, lookups) -> dict[str, dict]:
    """slot -> {tp, fp, fn, precision, recall, f1}, in ``SLOTS`` order."""
    counts = {name: [0, 0, 0] for name in SLOTS.values()}
    for prediction, turn, lookup in zip(predictions, turns, lookups):
        gold = {t: lookup.slot(t) for t in set(turn.gold.split())}
        gold = {t: s for t, s in gold.items() if s in SLOTS}
        predicted = set(prediction.split())
        for token, slot in gold.items():
            counts[SLOTS[slot]][0 if token in predicted else 2] += 1
        for token in predicted - set(gold):
            slot = lookup.slot(token)
            if slot in SLOTS:
                counts[SLOTS[slot]][1] += 1
    out = {}
    for name, (tp, fp, fn) in counts.items():
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[name] = {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall, "f1": f1}
    return out
