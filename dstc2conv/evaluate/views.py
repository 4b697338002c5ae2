"""One task-6 dialog seen as bot turns (``task6.turns``), each with the result lines
that follow it, as the comparison aligns them."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..task6.format import RATING, SILENCE, Dialog, Fact
from ..task6.turns import BotTurn, dialog_turns


def blank_rating(text: str) -> str:
    fact = Fact.match(text)
    if fact is not None and fact.attribute == RATING:
        return f"{fact.name} {RATING} *"
    return text


def normal_block(lines: tuple[str, ...]) -> tuple[str, ...]:
    """A result block as a sorted set of lines, ratings blanked."""
    return tuple(sorted({blank_rating(line) for line in lines}))


@dataclass(frozen=True)
class View:
    """A dialog as compare sees it: its bot turns (``task6.turns.dialog_turns``), what
    it compares of them, and where it is in its file."""
    dialog: Dialog
    lead: tuple[str, ...]       # context lines before the first exchange (normally none)
    turns: tuple[BotTurn, ...]

    @cached_property
    def bots(self) -> tuple[str, ...]:
        return tuple(t.gold for t in self.turns)

    @cached_property
    def user_turns(self) -> tuple[int, ...]:
        """Indexes of the turns whose user utterance is compared (not the format's own
        ``<SILENCE>`` after an api_call)."""
        return tuple(k for k, t in enumerate(self.turns)
                     if not (k and self.turns[k - 1].is_call and t.user == SILENCE))

    @cached_property
    def users(self) -> tuple[str, ...]:
        return tuple(self.turns[k].user for k in self.user_turns)

    @cached_property
    def normal(self) -> tuple:
        return (normal_block(self.lead),
                tuple((t.user, t.gold, normal_block(t.context)) for t in self.turns))

    @property
    def start(self) -> int:
        return self.dialog.start_line

    @property
    def end(self) -> int:
        return self.dialog.start_line + len(self.dialog.lines)


def view(dialog: Dialog, number: int = 0) -> View:
    """``dialog`` (the ``number``-th of its file, from 0) as compare sees it."""
    walked = dialog_turns(dialog, number)
    return View(dialog, walked.lead, walked.turns)
