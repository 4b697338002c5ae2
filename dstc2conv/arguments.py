"""Argument types the commands share (argparse ``type=`` functions)."""
from __future__ import annotations

import argparse


def at_least(least: int, most: int | None = None):
    """An argparse type: a whole number, ``least`` or more (and ``most`` or fewer)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: give {least} or more")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"{value}: give {most:,} or fewer")
        return value
    return parse
