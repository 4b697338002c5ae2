"""Where the rules are read from by default: a rule file shipped with dstc2conv, or the
one of the same name in ``rules/`` of the current folder (a checkout, where the rules
are edited). Three are shipped: ``dstc2.yaml`` for task 6, ``babi.yaml`` for bAbI
tasks 1-5, which ``shipped_for`` picks for their data, and ``dstc6.yaml`` for the DSTC6
track 1 variant's JSON files (``rules score`` picks it for them)."""
from __future__ import annotations

import os
import re
from collections.abc import Sequence

DEFAULT_RULES = os.path.join("rules", "dstc2.yaml")
BABI_RULES = os.path.join("rules", "babi.yaml")
# a published file of tasks 1-5 (dialog-babi-task1-API-calls-trn.txt, ...); task 6 is dialog-babi-task6-...
BABI_FILE = re.compile(r"dialog-babi-task[1-5]-")
BABI_GREETING = "hello what can i help you with today"   # the bot's first turn in every dialog of tasks 1-5


def shipped_rules(name: str = "dstc2.yaml") -> str:
    """A rule file shipped with dstc2conv (default: task 6's)."""
    from importlib import resources

    return str(resources.files("dstc2conv.rulefiles") / name)


DSTC6_RULES = os.path.join("rules", "dstc6.yaml")


def shipped_dstc6() -> str:
    """The rules of the DSTC6 track 1 variant: ``rules/dstc6.yaml`` in the current folder
    if it is there, else the one shipped with dstc2conv."""
    return DSTC6_RULES if os.path.isfile(DSTC6_RULES) else shipped_rules("dstc6.yaml")


def default_rules() -> str:
    """``rules/dstc2.yaml`` in the current folder (a checkout, where the rules are edited)
    if it is there, else the rule file shipped with dstc2conv."""
    return DEFAULT_RULES if os.path.isfile(DEFAULT_RULES) else shipped_rules()


PEEK = 65_536        # bytes of a data file read to find its first bot turn


def first_bot_turn(path: str | os.PathLike) -> str | None:
    """The first bot turn of a task file (the text after the tab of its first exchange),
    from its first PEEK bytes; None if there is none there or the file cannot be read
    (reading the data says why)."""
    try:
        with open(path, "rb") as f:
            head = f.read(PEEK).decode("utf-8", errors="replace")
    except OSError:
        return None
    line = next((line for line in head.split("\n") if "\t" in line), None)
    return None if line is None else line.split("\t", 1)[1]


def babi_reason(path: str | os.PathLike | None, first_bot: str | None = None) -> str | None:
    """Why the data is of bAbI tasks 1-5 (its file name, else its first bot turn), or
    None when it does not look so."""
    if path is not None and BABI_FILE.match(os.path.basename(os.fspath(path))):
        return f"by its name, {os.path.basename(os.fspath(path))}"
    if first_bot is not None and first_bot.strip() == BABI_GREETING:
        return f"by its first bot turn, {BABI_GREETING!r}"
    return None


def shipped_for(path: str | os.PathLike | None, turns: Sequence = (), installed: bool = False) -> tuple[str, str]:
    """The rule file for the data at ``path`` whose bot turns are ``turns`` (without
    them, the file's first bot turn is read), and why: bAbI tasks 1-5's (``babi.yaml``)
    when the file is named ``dialog-babi-task[1-5]-...`` or its first bot turn is the bAbI
    greeting, else task 6's (``dstc2.yaml``). The file in ``rules/`` of the current
    folder if it is there (unless ``installed``), else the one shipped with dstc2conv."""
    first = turns[0].gold if turns else first_bot_turn(path) if path is not None else None
    reason = babi_reason(path, first)
    local, name = (BABI_RULES, "babi.yaml") if reason else (DEFAULT_RULES, "dstc2.yaml")
    chosen = local if not installed and os.path.isfile(local) else shipped_rules(name)
    return chosen, (f"the data is of bAbI tasks 1-5 {reason}" if reason else "the data is not of bAbI tasks 1-5")


__all__ = ["DEFAULT_RULES", "BABI_RULES", "DSTC6_RULES", "shipped_dstc6",
           "BABI_GREETING", "shipped_rules", "default_rules", "first_bot_turn",
           "babi_reason", "shipped_for"]
