"""Problems found in a rule file (or an ontology file), all reported at once."""
from __future__ import annotations

import reprlib
from dataclasses import dataclass
from typing import Any

from ...errors import Dstc2ConvError


def show(value: Any) -> str:
    """A value for a message, short (a list or mapping is not printed: it may be huge),
    true, false and null as YAML writes them."""
    if isinstance(value, dict):
        return "a mapping" if value else "an empty mapping"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return reprlib.repr(value)


def count(n: int, noun: str) -> str:
    """``1 rule``, ``2 rules``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class Problem:
    """One problem: printed as ``file:line: message (rule-id)``, unknown parts left out."""
    path: str
    line: int | None
    message: str
    rule_id: str | None = None

    def __str__(self) -> str:
        return str(Dstc2ConvError(self.message, self.path, self.line, self.rule_id))


class RuleFileError(Dstc2ConvError):
    """Every problem of a file; as a Dstc2ConvError it is the first of them."""

    def __init__(self, problems):
        problems = tuple(problems)
        first = problems[0]
        super().__init__(first.message, first.path, first.line, first.rule_id)
        self.args = (problems,)          # so it pickles whole
        self.problems = problems

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self.problems)


def print_problems(exc: RuleFileError) -> None:
    """Every problem of a rule file on stderr, one a line, as the command line prints an error."""
    import sys

    from ...errors import one_line

    for problem in exc.problems:
        print(f"dstc2conv: error: {one_line(str(problem))}", file=sys.stderr)
