"""Accuracy of predicted bot utterances against the bot turns of a task-6 file: per
response and per dialog, per dialog system and per response kind, with a signature; and
the paired comparison of two sets of predictions (the turns that flipped, a paired
bootstrap over dialogs). The other metrics, and accuracy under other matches, are the
registry's (``metrics.py``).

A prediction is right when it equals the gold bot utterance once both are stripped of
surrounding whitespace (``metrics.correct``); a dialog is right when every one of its
bot turns is."""
from __future__ import annotations

import os
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import Dstc2ConvError
from ..files import read_lines
from ..limits import MAX_LINE
from ..version import __version__
from .metrics import accuracy, correct
from .response_kinds import NAMES, kind_of

if TYPE_CHECKING:
    from ..task6.turns import BotTurn


def outcomes(predictions: Sequence[str], turns: Sequence[BotTurn]) -> list[bool]:
    """Whether each prediction is right, in the order of the turns."""
    return [correct(p, t.gold) for p, t in zip(predictions, turns)]


def signature(data_sha: str, *parts: str) -> str:
    """``data:<sha12>|match:strip|version:<v>``, after ``parts`` (what made the predictions,
    e.g. ``rules:<sha12>``) when there are any."""
    return "|".join([*parts, f"data:{data_sha[:12]}", "match:strip", f"version:{__version__}"])


@dataclass(frozen=True)
class Score:
    responses: int
    correct: int
    dialogs: int
    dialogs_correct: int
    signature: str

    @property
    def per_response(self) -> float:
        return self.correct / self.responses if self.responses else 0.0

    @property
    def per_dialog(self) -> float:
        return self.dialogs_correct / self.dialogs if self.dialogs else 0.0

    def to_dict(self) -> dict:
        return {"per_response": self.per_response, "per_dialog": self.per_dialog,
                "responses": self.responses, "correct": self.correct,
                "dialogs": self.dialogs, "dialogs_correct": self.dialogs_correct,
                "signature": self.signature}


def score(results: Sequence[bool], turns: Sequence[BotTurn], sig: str = "") -> Score:
    """Per-response: correct turns / turns. Per-dialog: dialogs whose every turn is correct
    (the registry's ``accuracy``)."""
    a = accuracy(results, turns)
    return Score(a["responses"], a["correct"], a["dialogs"], a["dialogs_correct"], sig)


def score_of(results: Sequence[bool], turns: Sequence[BotTurn], dialogs: Collection[int]) -> Score:
    """The score of the turns of some dialogs only (``dialogs``: their positions in the file)."""
    kept = [i for i, turn in enumerate(turns) if turn.dialog in dialogs]
    return score([results[i] for i in kept], [turns[i] for i in kept])


def by_system(results: Sequence[bool], turns: Sequence[BotTurn], systems: Sequence[str]) -> dict[str, Score]:
    """The score of each dialog system (``systems``: one per dialog of the file, as
    ``Sessions.systems``) that has turns here, in name order; the parts add up to ``score``."""
    present = {turn.dialog for turn in turns}
    names = sorted({systems[d] for d in present})
    return {name: score_of(results, turns, {d for d in present if systems[d] == name}) for name in names}


@dataclass(frozen=True)
class Count:
    responses: int
    correct: int

    @property
    def per_response(self) -> float:
        return self.correct / self.responses if self.responses else 0.0

    def to_dict(self) -> dict:
        return {"responses": self.responses, "correct": self.correct, "per_response": self.per_response}


def by_kind(results: Sequence[bool], turns: Sequence[BotTurn]) -> dict[str, Count]:
    """Responses and correct ones per kind of gold response (``response_kinds``), the
    kinds that occur, in the registry's order; the parts add up to ``score``."""
    tally: dict[str, list[int]] = {}
    for ok, turn in zip(results, turns):
        seen = tally.setdefault(kind_of(turn.gold), [0, 0])
        seen[0] += 1
        seen[1] += ok
    return {name: Count(*tally[name]) for name in NAMES if name in tally}


# ---------------------------------------------------------------- predictions files

def read_predictions(path: str) -> tuple[str, ...]:
    """One prediction a line, lines ending at ``\\n`` (a last line without one counts; a
    ``\\r`` before it is whitespace, stripped when compared); a UTF-8 byte-order mark at
    the start is dropped. A tab is an error: no task-6 bot utterance holds one, so the
    file is not one utterance a line (a task-6 file, or columns)."""
    lines = read_lines(path, "a predictions file")
    for number, line in enumerate(lines, 1):
        if "\t" in line:
            raise Dstc2ConvError("a tab in a prediction: give one bot utterance a line, without tabs "
                                 "(not a task-6 file)", path, number)
        if len(line) - line.endswith("\r") > MAX_LINE:
            raise Dstc2ConvError(f"a line of {len(line):,} characters, more than the {MAX_LINE:,} a prediction "
                                 "may have", path, number)
    return tuple(lines)


def check_count(preds_path: str, predictions: Sequence[str], ref_path: str, turns: Sequence[BotTurn]) -> None:
    """One prediction per bot turn of the reference, else an error giving both counts."""
    if len(predictions) != len(turns):
        lines = f"{len(predictions)} line" + ("" if len(predictions) == 1 else "s")
        bot = f"{len(turns)} bot turn" + ("" if len(turns) == 1 else "s")
        raise Dstc2ConvError(f"{os.fspath(preds_path)} has {lines}, {os.fspath(ref_path)} has {bot}: "
                             "give one prediction per bot turn, in order")


# ---------------------------------------------------------------- paired comparison

@dataclass(frozen=True)
class Bootstrap:
    resamples: int
    seed: int
    low: float               # the 95% interval of the difference in per-response accuracy
    high: float
    share_not_better: float  # the share of resamples where the difference is <= 0

    def to_dict(self) -> dict:
        return {"resamples": self.resamples, "seed": self.seed, "low": self.low, "high": self.high,
                "share_not_better": self.share_not_better}


@dataclass(frozen=True)
class Paired:
    difference: float                # per-response accuracy, B - A
    flipped_right: tuple[int, ...]   # turn positions A gets wrong, B right
    flipped_wrong: tuple[int, ...]   # A right, B wrong
    bootstrap: Bootstrap


def paired(a: Sequence[bool], b: Sequence[bool], turns: Sequence[BotTurn], resamples: int = 1000,
           seed: int = 0) -> Paired:
    """Compare B's outcomes with A's on the same turns."""
    right = tuple(i for i, (x, y) in enumerate(zip(a, b)) if not x and y)
    wrong = tuple(i for i, (x, y) in enumerate(zip(a, b)) if x and not y)
    difference = (len(right) - len(wrong)) / len(turns) if turns else 0.0
    return Paired(difference, right, wrong, paired_bootstrap(a, b, turns, resamples, seed))


def per_dialog(a: Sequence[bool], b: Sequence[bool], turns: Sequence[BotTurn]) -> list[tuple[int, int]]:
    """For each dialog, in file order: (its bot turns, B's right turns minus A's)."""
    found: dict[int, list[int]] = {}
    for x, y, turn in zip(a, b, turns):
        tally = found.setdefault(turn.dialog, [0, 0])
        tally[0] += 1
        tally[1] += int(y) - int(x)
    return [(n, net) for n, net in found.values()]


def paired_bootstrap(a: Sequence[bool], b: Sequence[bool], turns: Sequence[BotTurn], resamples: int = 1000,
                     seed: int = 0) -> Bootstrap:
    """The paired bootstrap over dialogs. Each of ``resamples`` resamples draws D dialogs
    with replacement out of the D dialogs, ``random.Random(seed).choices(range(D), k=D)``
    resample after resample from one generator; its difference is (B's right turns - A's)
    / turns, over the dialogs drawn. The interval runs from the (k+1)-th smallest to the
    (k+1)-th largest difference, k = floor(0.025 * resamples): the middle 95%."""
    if resamples < 1:
        raise Dstc2ConvError(f"{resamples} resamples: give 1 or more")
    dialogs = per_dialog(a, b, turns)
    if not dialogs:
        raise Dstc2ConvError("no bot turns to compare")
    sizes = [n for n, _ in dialogs]
    nets = [net for _, net in dialogs]
    rng = random.Random(seed)
    everyone = range(len(dialogs))
    differences = []
    not_better = 0
    for _ in range(resamples):
        drawn = rng.choices(everyone, k=len(dialogs))
        net = sum(nets[d] for d in drawn)
        differences.append(net / sum(sizes[d] for d in drawn))
        not_better += net <= 0
    differences.sort()
    k = resamples // 40
    return Bootstrap(resamples, seed, differences[k], differences[resamples - 1 - k], not_better / resamples)
