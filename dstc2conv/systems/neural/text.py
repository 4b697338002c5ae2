"""Words, the vocabulary and the dialog history the learned systems read.

A text's words are its whitespace-separated tokens, lower-cased. The vocabulary is fixed
when a model is trained (the words of the training file, then the model's own special
words); index 0 is padding and stands for no word, so unknown words are dropped.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ...task6.turns import BotTurn
from ..ir.words import words

PAD = "<pad>"
USER, BOT = "$user", "$bot"       # speaker words of the memory slots


@dataclass(frozen=True)
class Vocabulary:
    """Words by index (index 0: padding)."""
    words: tuple[str, ...]

    def __post_init__(self):
        if not self.words or self.words[0] != PAD:
            raise ValueError("a vocabulary starts with the padding word")
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.words)})

    def __len__(self) -> int:
        return len(self.words)

    def index(self, word: str) -> int:
        """The word's index, 0 when unknown."""
        return self._index.get(word, 0)

    def ids(self, text: str) -> list[int]:
        """The indices of the known words of ``text``, in order."""
        found = (self._index.get(w, 0) for w in words(text))
        return [i for i in found if i]

    @classmethod
    def build(cls, texts: Iterable[str], extra: Sequence[str] = ()) -> Vocabulary:
        """The words of ``texts`` in order of first use, then ``extra``."""
        seen: dict[str, None] = {PAD: None}
        for text in texts:
            for word in words(text):
                seen.setdefault(word, None)
        for word in extra:
            seen.setdefault(word, None)
        return cls(tuple(seen))


def turn_texts(turns: Iterable[BotTurn]) -> Iterator[str]:
    """The texts whose words make a vocabulary: each turn's user and bot utterances and
    the result lines after it (not a dialog's leading facts, bAbI tasks 3 and 4's: the
    settings of those tasks were chosen with a vocabulary without their words)."""
    for turn in turns:
        yield turn.user
        yield turn.gold
        yield from turn.context


@dataclass(frozen=True)
class Example:
    """One bot turn to learn or predict: the dialog's earlier utterances (speaker, text),
    oldest first, the user utterance and the gold response."""
    history: tuple[tuple[str, str], ...]
    user: str
    gold: str


class History:
    """A dialog's utterances as they happen: each turn adds the user utterance, the bot
    utterance (api_calls included) and the result lines, which count as the user's."""

    def __init__(self) -> None:
        self.slots: list[tuple[str, str]] = []

    def lead(self, lines: Sequence[str]) -> None:
        """The context lines before the dialog's first exchange (bAbI tasks 3 and 4's KB
        facts), which count as the user's."""
        self.slots.extend((USER, line) for line in lines)

    def add(self, user: str, bot: str, context: Sequence[str]) -> None:
        self.slots.append((USER, user))
        self.slots.append((BOT, bot))
        self.slots.extend((USER, line) for line in context)


def examples(turns: Sequence[BotTurn]) -> list[Example]:
    """Each turn as an Example, its history the dialog's earlier turns."""
    out = []
    dialog, history = None, History()
    for turn in turns:
        if turn.dialog != dialog:
            dialog, history = turn.dialog, History()
            history.lead(getattr(turn, "lead", ()))
        out.append(Example(tuple(history.slots), turn.user, turn.gold))
        history.add(turn.user, turn.gold, turn.context)
    return out


def distinct_golds(*files: Sequence[BotTurn]) -> list[str]:
    """The distinct gold responses of the turns, in order of first use (compared stripped)."""
    seen: dict[str, str] = {}
    for turns in files:
        for turn in turns:
            seen.setdefault(turn.gold.strip(), turn.gold)
    return list(seen.values())
