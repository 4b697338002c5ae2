"""`dstc2conv rules ...` (placeholder until the engine lands)."""
from __future__ import annotations


def add_parser(sub) -> None:
    sub.add_parser("rules", help="the rule baseline")
