"""Read and write bAbI dialog task-6 files.

A file is a sequence of dialogs separated by empty lines. Every line starts with its
number within the dialog (from 1). A line with a tab is an exchange, ``user<TAB>bot``;
a line without one is context, and must be a KB result fact (``name R_attr value``:
three tokens separated by single spaces, the middle one ``R_`` and letters or
underscores; ``Fact``) or ``api_call no result``. Anything else is an error naming the
line: an exchange whose tab was lost must not pass as context. A line of only whitespace is an
error too (only an empty line separates dialogs). A UTF-8 byte-order mark at the start
is dropped; what else a line may not hold (line breaks, a byte-order mark, ...) is
``text.problem``'s rule, which every writer follows too. A file of more than
``limits.MAX_LINES`` lines, or a line longer than ``limits.MAX_LINE``, is refused.
``parse`` then ``serialize`` gives back the input byte for byte (LF line
endings, one empty line after each dialog, no byte-order mark).
"""
from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, Union

from ..errors import Dstc2ConvError
from ..files import read_text
from ..limits import MAX_LINE, MAX_LINES
from . import text as line_text
from .vocabulary import RATING

MAX_DIGITS = 9       # a line number's (a dialog has a few dozen lines)
NO_RESULT = "api_call no result"
SILENCE = "<SILENCE>"
BOM = "\ufeff"
_FACT = re.compile(r"(\S+) (R_[A-Za-z_]+) (\S+)")
_CR_LINE = re.compile(r"\r[0-9]+ ")   # a line end of CR alone, then the next line's number
NOT_A_LINE = ("neither an exchange (user<TAB>bot), a result fact (name R_attr value) "
              "nor 'api_call no result'")


@dataclass(frozen=True, slots=True)
class Exchange:
    """A user utterance and the bot utterance that answers it."""
    user: str
    bot: str


@dataclass(frozen=True, slots=True)
class Context:
    """A line without a tab: a KB result line or ``api_call no result``."""
    text: str


Line = Union[Exchange, Context]


@dataclass(frozen=True, slots=True)
class Fact:
    """A result line, ``name R_attribute value``: what the KB says of a restaurant."""
    name: str
    attribute: str            # R_ and letters or underscores, e.g. R_cuisine, R_rating
    value: str

    @staticmethod
    def match(text: str) -> Fact | None:
        """The fact ``text`` states, or None when it is not one (``api_call no result``)."""
        return _match_fact(text)

    @classmethod
    def parse(cls, text: str, path: str = "<string>", lineno: int | None = None) -> Fact:
        """The fact ``text`` states; raise Dstc2ConvError naming the file and line if none."""
        fact = cls.match(text)
        if fact is None:
            raise Dstc2ConvError(f"not a result fact (name R_attr value): {_cut(text)}", path, lineno)
        return fact


@lru_cache(maxsize=4096)  # a file's result lines are a few thousand texts, each read many times
def _match_fact(text: str) -> Fact | None:
    found = _FACT.fullmatch(text)
    return None if found is None else Fact(*found.groups())


@dataclass(frozen=True, slots=True)
class Dialog:
    lines: tuple[Line, ...]
    start_line: int = 0  # line number of its first line in the file it came from

    @property
    def exchanges(self) -> tuple[Exchange, ...]:
        return tuple(x for x in self.lines if isinstance(x, Exchange))


def is_api_call(bot: str) -> bool:
    return bot.startswith("api_call ")


def parse(text: str, path: str = "<string>") -> list[Dialog]:
    """Parse task-6 text into dialogs; raise Dstc2ConvError naming the bad line."""
    return list(_parse_text(text, path))


def _parse_text(text: str, path: str) -> Iterator[Dialog]:
    """``parse_lines`` of ``text``'s lines, each line's text checked by one scan of the
    whole text where it can be (the line-by-line checks then run only where it finds
    something, to say which line and why)."""
    lines = lines_of(text, path)
    checked = line_text.BAD_IN_TEXT.search(text) is None and max(map(len, lines), default=0) <= MAX_LINE
    return parse_lines(lines, path, checked)


def lines_of(text: str, path: str = "<string>") -> list[str]:
    """The lines of ``text``, cut at LF only (a last line without one counts); more than
    ``limits.MAX_LINES`` is an error, found before the lines are cut (64 MB of LFs would
    be 64 million lines)."""
    if text.count("\n", 0, len(text) - 1) >= MAX_LINES:
        raise Dstc2ConvError(f"more than {MAX_LINES:,} lines, more than a task-6 file may have", path, MAX_LINES + 1)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def parse_lines(lines: Iterable[str], path: str = "<string>", checked: bool = False) -> Iterator[Dialog]:
    """The dialogs of task-6 lines (each with or without its line end); ``checked``: the
    lines are known to be at most ``MAX_LINES``, each without a line end, a character
    that ``text.BAD_IN_TEXT`` finds or more than ``MAX_LINE`` characters."""
    current: list[Line] = []
    contexts: dict[str, Context] = {}  # result lines recur: check and build each text once
    start = 0
    expected = 1
    for lineno, raw in enumerate(lines, 1):
        if not checked:
            raw = _line_checked(raw, lineno, path)
        if not raw:
            if current:
                yield Dialog(tuple(current), start)
                current, expected = [], 1
            continue
        number, sep, rest = raw.partition(" ")
        if not sep or not (number.isascii() and number.isdecimal()):
            if raw.isspace():
                raise Dstc2ConvError("a line of only whitespace (only an empty line separates dialogs)",
                                     path, lineno)
            raise Dstc2ConvError(f"expected '<number> <text>', found {_cut(raw)}", path, lineno)
        if len(number) > MAX_DIGITS:
            raise Dstc2ConvError(f"line number {_cut(number, 12)} has more than {MAX_DIGITS} digits", path, lineno)
        n = int(number)
        if n == 1 and current:  # a new dialog without a blank line before it
            yield Dialog(tuple(current), start)
            current, expected = [], 1
        if n != expected:
            raise Dstc2ConvError(f"line number {n} where {expected} was expected", path, lineno)
        if not current:
            start = lineno
        if "\t" in rest:
            user, bot = rest.split("\t", 1)
            if "\t" in bot:
                raise Dstc2ConvError("more than one tab in an exchange", path, lineno)
            current.append(Exchange(user, bot))
        else:
            context = contexts.get(rest)
            if context is None:
                if rest != NO_RESULT and Fact.match(rest) is None:
                    raise Dstc2ConvError(f"{NOT_A_LINE}: {_cut(rest)}", path, lineno)
                context = contexts[rest] = Context(rest)
            current.append(context)
        expected += 1
    if current:
        yield Dialog(tuple(current), start)


def _line_checked(raw: str, lineno: int, path: str) -> str:
    """A line without its line end (LF, CRLF) or the file's byte-order mark; an error if it
    is one too many, too long, or holds what no line may."""
    if lineno > MAX_LINES:
        raise Dstc2ConvError(f"more than {MAX_LINES:,} lines, more than a task-6 file may have", path, lineno)
    if raw.endswith("\n"):
        raw = raw[:-1]
    if raw.endswith("\r"):
        raw = raw[:-1]                   # CRLF
    if lineno == 1 and raw.startswith(BOM):
        raw = raw[1:]
    if len(raw) > MAX_LINE or line_text.BAD_IN_LINE.search(raw):
        bad = too_long(raw) or line_text.problem(raw, allow_tab=True)
        if "\r" in raw and _CR_LINE.search(raw):
            bad = ("lines that end with a carriage return alone (CR then a line number): "
                   "lines must end with LF or CRLF")
        raise Dstc2ConvError(bad, path, lineno)
    return raw


def too_long(line: str) -> str | None:
    """What is wrong with a line (without its line end) longer than a task-6 line may be."""
    if len(line) <= MAX_LINE:
        return None
    return f"a line of {len(line):,} characters, more than the {MAX_LINE:,} a task-6 line may have"


def dialog_problem(dialog: Dialog, text: str | None = None) -> tuple[int, str] | None:
    """(offset, what is wrong) of the first line of ``dialog`` that would not read back
    as it is (``text.problem``, ``too_long``), or None. ``text``: the dialog serialized
    (``serialize_dialog``), if it is at hand."""
    text = serialize_dialog(dialog) if text is None else text
    if (line_text.BAD_IN_TEXT.search(text) is None                      # (one scan for the whole dialog:
            and text.count("\n") == len(dialog.lines)                   # a line's one LF, an exchange's
            and text.count("\t") == sum(isinstance(line, Exchange) for line in dialog.lines)   # one tab)
            and (len(text) <= MAX_LINE or max(map(len, text.split("\n"))) <= MAX_LINE)):
        return None
    for offset, line in enumerate(dialog.lines):
        texts = (line.user, line.bot) if isinstance(line, Exchange) else (line.text,)
        for text in texts:
            bad = line_text.problem(text)
            if bad is not None:
                return offset, bad
        bad = too_long(serialize_line(offset + 1, line)[:-1])
        if bad is not None:
            return offset, bad
    return None


def _cut(text: str, width: int = 60) -> str:
    """A line quoted in a message: its first ``width`` characters, ``...`` if there are more."""
    return repr(text[:width]) + ("..." if len(text) > width else "")


def read(path: str | os.PathLike) -> list[Dialog]:
    """Read a task-6 file; the error names the file and the line."""
    path = os.fspath(path)
    return parse(_file_text(path), path)   # lines end at \n only, as for parse()


def iter_dialogs(path: str | os.PathLike) -> Iterator[Dialog]:
    """The dialogs of a task-6 file, one at a time (``read``, for a reader that need not
    hold them all)."""
    path = os.fspath(path)
    return _parse_text(_file_text(path), path)


def _file_text(path: str) -> str:
    """A task-6 file's text. A last line without a line end is read if it is a whole line
    by the format (an exchange, a result fact, ``api_call no result``), with one warning
    naming the file and line: files written by ``"\\n".join(lines)`` end so, as do some
    published copies. A last line that is no valid line is refused: the file was cut short
    mid-line (an interrupted copy, ``head -c``), and reading it as whole would cut its last
    text without a word said. (A cut that leaves a whole line, or falls between dialogs,
    cannot be told from a whole file.)"""
    text = read_text(path, "a task-6 file")
    if text and not text.endswith("\n"):
        last = text.count("\n") + 1
        try:
            for _ in _parse_text(text, path):     # a line that is wrong is said first
                pass
        except Dstc2ConvError as exc:
            if exc.line != last:
                raise
            raise Dstc2ConvError(f"the last line has no line end and is not a whole line ({exc.message}), so the "
                                 "file may be cut short", path, last) from None
        if (path, len(text)) not in _WARNED:
            _WARNED.add((path, len(text)))
            WARNINGS.warning(f"warning: {path}:{last}: the last line has no line end; read as a whole line "
                             "(a file cut short there could not be told from it)")
    return text


_WARNED: set = set()    # (path, length) of the files already warned of: one warning a file
WARNINGS = logging.getLogger("dstc2conv")     # the reporter's notes; from Python, shown on stderr


def read_dialogs(path: str | os.PathLike) -> list[Dialog]:
    """``read``, for a file that must hold dialogs: one without any is an error."""
    dialogs = read(path)
    if not dialogs:
        raise Dstc2ConvError("no dialogs (the file is empty or only empty lines)", os.fspath(path))
    return dialogs


def serialize_line(number: int, line: Line) -> str:
    if isinstance(line, Exchange):
        return f"{number} {line.user}\t{line.bot}\n"
    return f"{number} {line.text}\n"


def serialize_dialog(dialog: Dialog) -> str:
    out = []      # (serialize_line's f-strings written out: the build serializes 260,000 lines)
    for i, line in enumerate(dialog.lines, 1):
        if isinstance(line, Exchange):
            out.append(f"{i} {line.user}\t{line.bot}\n")
        else:
            out.append(f"{i} {line.text}\n")
    return "".join(out)


def serialize(dialogs: Iterable[Dialog]) -> str:
    """Task-6 text: each dialog followed by a blank line, as the published files."""
    return "".join(serialize_dialog(d) + "\n" for d in dialogs)


__all__ = ["Exchange", "Context", "Fact", "Dialog", "Line", "NO_RESULT", "SILENCE", "RATING", "is_api_call",
           "parse", "parse_lines", "lines_of", "read", "iter_dialogs", "read_dialogs", "serialize", "serialize_dialog"]
