"""The one table writer: a table as aligned text, markdown or CSV; and ``percent``, the
one writer of a share as a percentage. A float cell is a share, written as a percentage
with two decimals (54.60%; more when fewer would round a difference away); a ``Signed``
one (a difference) with its sign (+1.20%); a ``Plain`` one as a number with two decimals
(a BLEU score) or ``Fixed`` with four (an MRR); None is written ``-`` (empty in CSV)."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace

CELL_WIDTH = 60    # text output shortens longer cells (not in the ``keep`` columns) to this many characters


def percent(value: float, digits: int = 2, signed: bool = False) -> str:
    """A share as a percentage with ``digits`` decimals (``signed``: with its sign), more
    when fewer would round a difference away: a share that is not 0 or 1 never shows as
    0.00% or 100.00% (10144/10149 is 99.95%, 1/100000 0.001%), a difference that is not
    0 never as +0.00%."""
    sign = "+" if signed else ""
    while True:
        text = f"{value:{sign}.{digits}%}"
        shown = abs(float(text[:-1]))
        if digits >= 12 or not ((shown == 0 and value != 0) or (shown == 100 and abs(value) != 1)):
            return text
        digits += 1


class Signed(float):
    """A difference of shares: +1.20%."""


class Plain(float):
    """A figure that is not a share: 23.45."""


class Fixed(float):
    """A figure between 0 and 1 that is not a share: 0.4567."""


@dataclass(frozen=True)
class Table:
    name: str              # what its rows are (rules, kinds, systems ...)
    columns: tuple         # column names
    rows: tuple            # tuples of cells: str, int, float (a share), None
    more: int = 0          # rows left out
    keep: tuple = ()       # columns whose cells text output never shortens

    def first(self, top: int | None) -> Table:
        if top is None or len(self.rows) <= top:
            return self
        return replace(self, rows=self.rows[:top], more=len(self.rows) - top)

    def more_note(self) -> str:
        noun = self.name if self.more != 1 else self.name[:-1]
        return f"... {self.more} more {noun} (--top N shows more)"


def cell(value, empty: str = "-") -> str:
    if value is None:
        return empty
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Signed):
        return percent(value, signed=True)
    if isinstance(value, Plain):
        return f"{value:.2f}"
    if isinstance(value, Fixed):
        return f"{value:.4f}"
    if isinstance(value, float):
        return percent(value)
    return str(value)


def _numeric(table: Table) -> list[bool]:
    """Which columns hold numbers (written right-aligned)."""
    return [bool(table.rows) and all(isinstance(row[i], (int, float)) or row[i] is None for row in table.rows)
            for i in range(len(table.columns))]


def _short(text: str) -> str:
    return text if len(text) <= CELL_WIDTH else text[:CELL_WIDTH - 3] + "..."


def as_text(table: Table) -> str:
    """Aligned columns, every one of them whatever the terminal's width; cells longer
    than CELL_WIDTH shortened, except in the ``keep`` columns."""
    keep = [c in table.keep for c in table.columns]
    cells = [list(table.columns)] + [[cell(v) if k else _short(cell(v)) for v, k in zip(row, keep)]
                                     for row in table.rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(table.columns))]
    lines = ["  ".join(c.rjust(w) if right else c.ljust(w) for c, w, right in zip(row, widths, _numeric(table)))
             .rstrip() for row in cells]
    if table.more:
        lines.append(table.more_note())
    return "\n".join(lines)


def _escape(text: str) -> str:
    """A markdown table cell: ``|`` would end it, ``<name>`` would read as an HTML tag."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "\\<")


def as_markdown(table: Table) -> str:
    def line(cells):
        return "| " + " | ".join(cells) + " |"

    lines = [line(_escape(c) for c in table.columns),
             "|" + "|".join("---:" if right else "---" for right in _numeric(table)) + "|"]
    lines += [line(_escape(cell(v)) for v in row) for row in table.rows]
    if table.more:
        lines += ["", table.more_note()]
    return "\n".join(lines)


def as_csv(table: Table) -> str:
    """Every cell in full; an empty cell for None."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows([cell(v, "") for v in row] for row in table.rows)
    return out.getvalue()
