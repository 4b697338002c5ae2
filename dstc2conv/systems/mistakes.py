"""The data mistakes every way of training catches (``table2``, ``train``, ``rules
learn``, ``fit`` given files): the test file given as the training file is refused; a dev file that is the
training file, or shares dialogs with it, is a warning (its figures and early stopping
would be optimistic; training on such files can still be meant)."""
from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence

from ..errors import Dstc2ConvError
from ..evaluate.published import published
from ..files import sha256_file
from ..task6.turns import BotTurn

WARNINGS = logging.getLogger("dstc2conv")     # the reporter's notes; from Python, shown on stderr


def is_test_file(path: str) -> bool:
    """A published test or OOV test file (by its SHA-256), or a file named as a test file:
    'tst' or 'test' a word of its name (``dialog-babi-task6-dstc2-tst.txt``,
    ``dialog-babi-task1-API-calls-tst-OOV.txt``)."""
    known = published(sha256_file(path))
    if known is not None:
        return known[1] in ("test", "test-OOV")
    return any(word in ("tst", "test") for word in re.split(r"[^a-z0-9]+", os.path.basename(path).lower()))


def dialogs(turns: Sequence[BotTurn]) -> set[tuple]:
    """Each dialog's bot turns as they are (user, gold, results)."""
    found: dict[int, list] = {}
    for turn in turns:
        found.setdefault(turn.dialog, []).append((turn.user, turn.gold, turn.context))
    return {tuple(d) for d in found.values()}


def check_data(train: str | None, dev: str | None, train_turns: Sequence[BotTurn],
               dev_turns: Sequence[BotTurn] | None) -> None:
    """Refuse a test file as ``train`` (a path); warn (on stderr) when ``dev`` is the same
    file as ``train`` or shares dialogs with it."""
    if train is not None and is_test_file(train):
        raise Dstc2ConvError("the test file given as the training file (a test split, by its name or its SHA-256): "
                             "train on the train file (and choose on the dev file); the test file is for scoring, "
                             "once", train)
    if not dev_turns:
        return
    names = f"the training file {train or '(turns)'} and the dev file {dev or '(turns)'}"
    if train is not None and dev is not None and sha256_file(train) == sha256_file(dev):
        WARNINGS.warning(f"warning: {names} are the same file (the same SHA-256): the dev figures and the "
                         "choices made on them are not held out")
        return
    shared = len(dialogs(train_turns) & dialogs(dev_turns))
    if shared:
        WARNINGS.warning(f"warning: {names} share {shared} identical dialog{'s' if shared > 1 else ''}: the "
                         "dev figures and the choices made on them are not fully held out")


__all__ = ["is_test_file", "check_data"]
