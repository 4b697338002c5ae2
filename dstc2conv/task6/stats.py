"""The statistics of the paper's Table 1 for task-6 files and bAbI tasks 1-5 files (the
same line format), and how consistently a file's offers follow the ratings."""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from typing import Iterable

from ..errors import Dstc2ConvError
from ..limits import MAX_VOCABULARY
from .format import (
    RATING,
    SILENCE,
    Context,
    Dialog,
    Exchange,
    Fact,
    is_api_call,
    iter_dialogs,
)


@dataclass(frozen=True)
class FileStats:
    """Table 1 for one file.

    - ``user_utterances``: the user turns of the exchange lines that are not ``<SILENCE>``
      (those are counted apart, in ``silent_user_turns``);
    - ``bot_utterances``: the bot turns of the exchange lines, ``api_call`` ones included;
    - ``api_outputs``: context lines (result lines and ``api_call no result``);
    - ``vocabulary_size``: distinct whitespace-separated tokens, case kept, in the user
      utterances, the bot utterances and the context lines (line numbers left out;
      ``<SILENCE>`` counts as a token);
    - ``candidate_set_size``: distinct bot utterances (api_calls included);
    - ``row``: the paper's Table 2 row of a published file or one named as one
      (``evaluate.published.row_of``: ``T1``..``T5``, ``T1-OOV``..``T5-OOV``, ``T6``), else None;
    - ``utterances_per_dialog``: Table 1's total for tasks 1-5, user utterances + bot
      utterances + API outputs (shown for a file of tasks 1-5).
    """
    file: str
    dialogs: int
    user_utterances: int
    silent_user_turns: int
    bot_utterances: int
    api_outputs: int
    vocabulary_size: int
    candidate_set_size: int
    row: str | None = None

    def _per_dialog(self, n: int) -> float:
        return n / self.dialogs if self.dialogs else 0.0

    @property
    def user_per_dialog(self) -> float:
        return self._per_dialog(self.user_utterances)

    @property
    def silent_per_dialog(self) -> float:
        return self._per_dialog(self.silent_user_turns)

    @property
    def bot_per_dialog(self) -> float:
        return self._per_dialog(self.bot_utterances)

    @property
    def api_outputs_per_dialog(self) -> float:
        return self._per_dialog(self.api_outputs)

    @property
    def utterances_per_dialog(self) -> float:
        return self._per_dialog(self.user_utterances + self.bot_utterances + self.api_outputs)

    @property
    def babi(self) -> bool:
        """A file of bAbI tasks 1-5 (by its row)."""
        return self.row is not None and self.row != "T6"

    def to_dict(self) -> dict:
        out = asdict(self)
        out["user_utterances_per_dialog"] = round(self.user_per_dialog, 4)
        out["silent_user_turns_per_dialog"] = round(self.silent_per_dialog, 4)
        out["bot_utterances_per_dialog"] = round(self.bot_per_dialog, 4)
        out["api_outputs_per_dialog"] = round(self.api_outputs_per_dialog, 4)
        out["utterances_per_dialog"] = round(self.utterances_per_dialog, 4)
        return out


KB_FACT = re.compile(r"\S+ R_\w+")        # a bAbI KB line's left of its tab: 'resto_x R_cuisine'


def file_stats(path: str | os.PathLike, row: str | None = None) -> FileStats:
    """Table 1 for a task-6 (or bAbI tasks 1-5) file; a file without a dialog is an error.
    The dialogs are read one at a time, never all held. ``row``: the file's row in the
    paper's Table 2, if known (``evaluate.published.row_of``)."""
    path = os.fspath(path)
    users = silent = bots = outputs = dialogs = 0
    vocabulary: set[str] = set()
    candidates: set[str] = set()
    for dialog in iter_dialogs(path):
        dialogs += 1
        if len(vocabulary) > MAX_VOCABULARY:
            raise Dstc2ConvError(f"more than {MAX_VOCABULARY:,} distinct tokens, more than stats counts in a "
                                 "task-6 file", path, dialog.start_line)
        for i, line in enumerate(dialog.lines):    # (a line is at most limits.MAX_LINE characters: few tokens)
            if isinstance(line, Exchange):
                if KB_FACT.fullmatch(line.user):
                    raise Dstc2ConvError(f"a KB fact ('{line.user}\\t{line.bot}') where a dialog line is expected: "
                                         "give a dialog file, not a KB file", path, dialog.start_line + i)
                if line.user == SILENCE:
                    silent += 1
                else:
                    users += 1
                bots += 1
                candidates.add(line.bot)
                vocabulary.update(line.user.split())
                vocabulary.update(line.bot.split())
            elif isinstance(line, Context):
                outputs += 1
                vocabulary.update(line.text.split())
    if len(vocabulary) > MAX_VOCABULARY:
        raise Dstc2ConvError(f"more than {MAX_VOCABULARY:,} distinct tokens, more than stats counts in a "
                             "task-6 file", path)
    if not dialogs:
        raise Dstc2ConvError("no dialogs (the file is empty or only empty lines)", path)
    if not bots:
        raise Dstc2ConvError("no user<TAB>bot line in any dialog: give a dialog file, not a KB file", path)
    return FileStats(path, dialogs, users, silent, bots, outputs, len(vocabulary), len(candidates), row)


def rating_consistency(dialogs: Iterable[Dialog]) -> tuple[int, int]:
    """(offers to the highest-rated restaurant not yet offered, offers).

    An offer is a bot turn naming (as a token) a restaurant of the latest api_call's
    results that no earlier turn since that api_call named. Offers of a restaurant
    without a rating, or when no restaurant left has one, are not counted."""
    good = total = 0
    for dialog in dialogs:
        ratings: dict[str, int | None] = {}
        offered: set[str] = set()
        after_call = False        # the context lines read are the latest api_call's results
        for line in dialog.lines:
            if isinstance(line, Context):
                fact = Fact.match(line.text) if after_call else None
                if fact is not None:
                    ratings.setdefault(fact.name, None)
                    if fact.attribute == RATING:
                        value = fact.value
                        ratings[fact.name] = int(value) if value.isascii() and value.isdecimal() and len(value) < 10 else None
                continue
            after_call = is_api_call(line.bot)
            if after_call:
                ratings, offered = {}, set()
                continue
            name = next((tok for tok in line.bot.split() if tok in ratings and tok not in offered), None)
            if name is None:
                continue
            left = [r for n, r in ratings.items() if n not in offered and r is not None]
            offered.add(name)
            if ratings[name] is None or not left:
                continue
            total += 1
            good += ratings[name] == max(left)
    return good, total


ROWS = (
    ("dialogs", lambda s: str(s.dialogs)),
    ("user utterances / dialog", lambda s: f"{s.user_per_dialog:.2f}"),
    ("<SILENCE> user turns / dialog", lambda s: f"{s.silent_per_dialog:.2f}"),
    ("bot utterances / dialog", lambda s: f"{s.bot_per_dialog:.2f}"),
    ("API outputs / dialog", lambda s: f"{s.api_outputs_per_dialog:.2f}"),
    ("utterances / dialog", lambda s: f"{s.utterances_per_dialog:.2f}"),   # (for a file of tasks 1-5)
    ("vocabulary size", lambda s: str(s.vocabulary_size)),
    ("candidate set size", lambda s: str(s.candidate_set_size)),
)


TOTAL = "utterances / dialog"


def _column_names(rows: list[FileStats]) -> list[str]:
    names = [os.path.basename(r.file) for r in rows]
    if len(set(names)) < len(names):
        return [r.file for r in rows]
    return names


def format_stats(rows: list[FileStats]) -> str:
    """An aligned table: one row per statistic, one column per file. The total of
    utterances per dialog (Table 1's for tasks 1-5) is shown when a file is of tasks 1-5."""
    rows = list(rows)
    header = [""] + _column_names(rows)
    shown = [(label, cell) for label, cell in ROWS if label != TOTAL or any(r.babi for r in rows)]
    table = [header] + [[label] + [cell(r) for r in rows] for label, cell in shown]
    widths = [max(len(line[c]) for line in table) for c in range(len(header))]
    out = []
    for line in table:
        cells = [line[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(line[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)
