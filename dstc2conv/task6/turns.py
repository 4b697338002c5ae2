"""The turn view of a task-6 file: each bot turn with the user utterance before it, its
gold bot utterance and the context lines (results) that follow it. The rule engine, the
scorer, the IR baselines and ``compare`` all walk dialogs through it."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from .format import Dialog, Exchange, read_dialogs


@dataclass(frozen=True)
class BotTurn:
    """One bot turn to predict: its user utterance, gold bot utterance, and the context
    lines (results) that follow it."""
    dialog: int
    index: int           # bot turn number within the dialog, from 0
    line: int            # line number in the file (0 if unknown)
    user: str
    gold: str
    context: tuple[str, ...]


def turns_of(dialogs: list[Dialog]) -> list[BotTurn]:
    out = []
    for d, dialog in enumerate(dialogs):
        index = 0
        lines = dialog.lines
        for i, line in enumerate(lines):
            if not isinstance(line, Exchange):
                continue
            context = []
            for later in lines[i + 1:]:
                if isinstance(later, Exchange):
                    break
                context.append(later.text)
            out.append(BotTurn(d, index, dialog.start_line + i if dialog.start_line else 0, line.user, line.bot,
                            tuple(context)))
            index += 1
    return out


def read_file(path: str | os.PathLike) -> tuple[list[Dialog], list[BotTurn]]:
    """The dialogs of a task-6 file and their bot turns; a file with no dialogs, or no
    bot turns, is an error."""
    dialogs = read_dialogs(path)
    turns = turns_of(dialogs)
    if not turns:
        raise Dstc2ConvError("no bot turns", os.fspath(path))
    return dialogs, turns


def read_turns(path: str | os.PathLike) -> list[BotTurn]:
    """The bot turns of a task-6 file (see ``read_file``)."""
    return read_file(path)[1]
