"""The slot vocabulary, once: DSTC2's informable slots and what task 6 calls each one."""
from __future__ import annotations

# DSTC2's informable slots, in the order an api_call gives their values
SLOTS = ("food", "area", "pricerange")
