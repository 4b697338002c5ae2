"""The turn view of a task-6 file: each bot turn with the user utterance before it, its
gold bot utterance and the context lines (results) that follow it. The rule engine, the
scorer, the IR baselines and ``compare`` all walk dialogs through it: ``dialog_turns``
is the one walk over a dialog's lines."""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from .format import Dialog, Exchange, is_api_call, read_dialogs


@dataclass(frozen=True, slots=True)
class BotTurn:
    """One bot turn to predict: its user utterance, gold bot utterance (the bot utterance
    the file gives), and the context lines (results) that follow it."""
    dialog: int
    index: int           # bot turn number within the dialog, from 0
    line: int            # line number in the file (0 if unknown)
    user: str
    gold: str
    context: tuple[str, ...]
    lead: tuple[str, ...] = ()    # the first turn of a dialog: the context lines before it (bAbI tasks 3 and 4's facts)

    @property
    def is_call(self) -> bool:
        return is_api_call(self.gold)


@dataclass(frozen=True, slots=True)
class DialogTurns:
    """A dialog as bot turns: the context lines before its first exchange (``lead``,
    normally none) and each exchange as a BotTurn."""
    dialog: Dialog
    lead: tuple[str, ...]
    turns: tuple[BotTurn, ...]


def dialog_turns(dialog: Dialog, number: int = 0) -> DialogTurns:
    """The bot turns of ``dialog``, the ``number``-th (from 0) of its file."""
    start = dialog.start_line
    lead: list[str] = []
    turns: list[BotTurn] = []
    at = user = gold = None
    context: list[str] = lead
    for offset, line in enumerate(dialog.lines):
        if not isinstance(line, Exchange):
            context.append(line.text)
            continue
        if at is not None:
            turns.append(BotTurn(number, len(turns), at, user, gold, tuple(context), () if turns else tuple(lead)))
        at, user, gold, context = start + offset if start else 0, line.user, line.bot, []
    if at is not None:
        turns.append(BotTurn(number, len(turns), at, user, gold, tuple(context), () if turns else tuple(lead)))
    return DialogTurns(dialog, tuple(lead), tuple(turns))


def turns_of(dialogs: list[Dialog]) -> list[BotTurn]:
    """The bot turns of all ``dialogs``, in order."""
    return [turn for d, dialog in enumerate(dialogs) for turn in dialog_turns(dialog, d).turns]


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
