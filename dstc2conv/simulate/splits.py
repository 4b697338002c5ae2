"""The splits the simulator writes, by variant: the names ``--split`` takes."""
from __future__ import annotations

SPLITS = ("trn", "dev", "tst", "tst-OOV")           # bAbI dialog tasks 1-5, as published
SPLITS6 = ("trn", "tst1", "tst2", "tst3", "tst4")   # the DSTC6 track 1 variant

__all__ = ["SPLITS", "SPLITS6"]
