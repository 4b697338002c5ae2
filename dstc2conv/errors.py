"""The one family of errors the library raises; only the CLI prints them."""
from __future__ import annotations

import contextlib
import os


class Dstc2ConvError(Exception):
    """Bad input or a failed step: says where (file, line or turn) and what is wrong.

    Printed as ``path:line: message (rule-id)``, leaving out the parts that are unknown,
    on one line (``one_line``), whatever text it quotes.
    """

    def __init__(self, message: str, path: str | None = None,
                 line: int | str | None = None, rule_id: str | None = None):
        super().__init__(message, path, line, rule_id)  # all of them, so it pickles whole
        self.message = message
        self.path = path
        self.line = line
        self.rule_id = rule_id

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:"
            if self.line is not None:
                where += f"{self.line}:"
            where += " "
        elif self.line is not None:
            where = f"{self.line}: "
        suffix = f" ({self.rule_id})" if self.rule_id else ""
        return one_line(f"{where}{self.message}{suffix}")


class DataRefused(Dstc2ConvError):
    """Refused for what some data holds (words and candidates too many for memory, no
    training pairs), raised where the data's files are not known: the code that read
    them names them (``naming``)."""


@contextlib.contextmanager
def naming(*paths):
    """A ``DataRefused`` raised in the block without a file gets the files ``paths``
    (those not None) as its path: ``trn.txt, dev.txt: memn2n: 200032 words, ...``."""
    try:
        yield
    except DataRefused as exc:
        given = [os.fspath(p) for p in paths if p is not None]
        if exc.path is not None or not given:
            raise
        raise DataRefused(exc.message, ", ".join(dict.fromkeys(given)), exc.line, exc.rule_id) from None


def shown(name: str, width: int = 80) -> str:
    """A name from the input (a tar member's, a header's raw bytes) as a message shows it:
    as it is if it is printable and at most ``width`` characters long; else quoted with its
    escapes, as ``repr`` writes it (a line break is ``\\n``, so the message stays one
    line), and cut after ``width`` characters (``...``)."""
    if len(name) <= width and name.isprintable():
        return name
    return repr(name[:width]) + ("..." if len(name) > width else "")


def one_line(message: str) -> str:
    """``message`` with its line breaks written as escapes: what the command line prints
    of an error is one line, whatever text it quotes."""
    return message if message.isprintable() else "".join(
        c if c.isprintable() else repr(c)[1:-1] for c in message)
