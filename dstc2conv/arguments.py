"""Argument types the commands share (argparse ``type=`` functions)."""
from __future__ import annotations

import argparse


def at_least(least: int):
    """An argparse type: a whole number, ``least`` or more."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: give {least} or more")
        return value
    return parse
