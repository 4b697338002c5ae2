"""The comparison's report: its measures, the kinds of difference with examples, how
the kinds account for each measure's gap, the differing dialogs, and the facts behind
differing result blocks."""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ..task6.format import RATING, Fact
from ..task6.vocabulary import ATTRIBUTES
from .views import View, blank_rating

# Kinds of difference, in report order.
MISALIGNED = "different call at position"
DIALOG_MISSING = "dialog missing"
EXTRA_DIALOG = "extra dialog"
CALL_MISSING = "call missing"
EXTRA_CALL = "extra call"
SLOT_DROPPED = "slot dropped"
SLOT_DIFFERS = "slot value differs"
RESULTS_DIFFER = "results differ"
SYSTEM_DIFFERS = "system turn differs"
SYSTEM_MISSING = "system turn missing"
EXTRA_SYSTEM = "extra system turn"
USER_DIFFERS = "user turn differs"
LENGTH_DIFFERS = "dialog length differs"
OTHER_DIFFERENCE = "other difference"
DIFFERENCE_KINDS = (MISALIGNED, DIALOG_MISSING, EXTRA_DIALOG, CALL_MISSING, EXTRA_CALL, SLOT_DROPPED,
                    SLOT_DIFFERS, RESULTS_DIFFER, SYSTEM_DIFFERS, SYSTEM_MISSING, EXTRA_SYSTEM,
                    USER_DIFFERS, LENGTH_DIFFERS, OTHER_DIFFERENCE)


# ---------------------------------------------------------------------------------------
# Facts about restaurants, from result lines and the KB.

def block_entries(lines) -> dict[str, tuple]:
    """name -> its (attribute, value) facts in a result block, rating left out."""
    entries: dict[str, set] = {}
    for line in lines:
        fact = Fact.match(line)
        if fact is not None:
            facts = entries.setdefault(fact.name, set())
            if fact.attribute != RATING:
                facts.add((fact.attribute, fact.value))
    return {name: tuple(sorted(facts)) for name, facts in entries.items()}


def file_facts(views: list[View]) -> dict[str, dict[str, tuple[str, ...]]]:
    """name -> attribute -> the distinct values the file's result lines give it."""
    facts: dict[str, dict[str, set]] = {}
    for v in views:
        for lines in (v.lead, *(t.context for t in v.turns)):
            for line in lines:
                fact = Fact.match(line)
                if fact is not None and fact.attribute != RATING:
                    facts.setdefault(fact.name, {}).setdefault(fact.attribute, set()).add(fact.value)
    return {name: {a: tuple(sorted(vals)) for a, vals in attrs.items()} for name, attrs in facts.items()}


def explain_facts(name: str, sources: dict[str, dict]) -> str:
    """The attributes of ``name`` on which the sources (ours, ref, kb) disagree."""
    have = {label: facts[name] for label, facts in sources.items() if name in facts}
    missing = [label for label in sources if label not in have]
    parts = []
    for attr in ATTRIBUTES:
        seen = {label: "/".join(attrs.get(attr, ())) or "-" for label, attrs in have.items()}
        if len(set(seen.values())) > 1:
            parts.append(f"{attr} " + " ".join(f"{label}={value}" for label, value in seen.items()))
    if missing:
        parts.append("not in " + ", ".join("the kb" if m == "kb" else f"the results of {m}" for m in missing))
    return f"{name}: " + ("; ".join(parts) if parts else "same facts everywhere")


# ---------------------------------------------------------------------------------------
# The report.

@dataclass(frozen=True)
class Measure:
    key: str
    label: str
    count: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.count / self.total if self.total else None

    def to_dict(self) -> dict:
        return {"label": self.label, "count": self.count, "total": self.total,
                "rate": None if self.rate is None else round(self.rate, 6)}


@dataclass(frozen=True)
class Example:
    position: int             # the dialog's position in the files, from 1
    ours_line: int | None
    ref_line: int | None
    session: str | None
    text: str

    def where(self) -> str:
        parts = [f"dialog {self.position}"]
        if self.ours_line is not None:
            parts.append(f"ours line {self.ours_line}")
        if self.ref_line is not None:
            parts.append(f"ref line {self.ref_line}")
        if self.session:
            parts.append(self.session)
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return {"dialog": self.position, "ours_line": self.ours_line, "ref_line": self.ref_line,
                "session": self.session, "text": self.text}


@dataclass(frozen=True)
class DifferenceKind:
    name: str
    count: int                # occurrences
    dialogs: int              # dialogs with at least one
    examples: tuple[Example, ...]

    def to_dict(self, examples: int) -> dict:
        return {"count": self.count, "dialogs": self.dialogs,
                "examples": [e.to_dict() for e in self.examples[:max(examples, 0)]]}


@dataclass(frozen=True)
class Accounting:
    """A measure's gap (total - count) and the kinds of difference that make it up."""
    measure: str
    gap: int
    parts: tuple[tuple[str, int], ...]

    @property
    def explained(self) -> bool:
        return self.gap == sum(n for _, n in self.parts)

    def to_dict(self) -> dict:
        return {"gap": self.gap, "parts": dict(self.parts), "explained": self.explained}


@dataclass(frozen=True)
class DiffSite:
    """A differing pair of dialogs, for showing as a unified diff."""
    position: int             # the dialog's position in the files, from 1
    ours: View | None
    ref: View | None
    session: str | None

    def diff(self, ours_path: str, ref_path: str) -> str:
        ref_lines, ref_start = _display(self.ref)
        ours_lines, ours_start = _display(self.ours)
        head = [f"dialog {self.position}: ours line {ours_start or '-'}, ref line {ref_start or '-'}"
                + (f", {self.session}" if self.session else "")]
        body = difflib.unified_diff(ref_lines, ours_lines, f"ref  {ref_path}", f"ours {ours_path}",
                                    n=2, lineterm="")
        for line in body:
            if line.startswith("@@"):
                line = _shift_hunk(line, ref_start, ours_start)
            head.append(line)
        return "\n".join(head)

    def to_dict(self, ours_path: str, ref_path: str) -> dict:
        return {"dialog": self.position, "session": self.session,
                "ours_line": self.ours.start if self.ours else None,
                "ref_line": self.ref.start if self.ref else None,
                "diff": self.diff(ours_path, ref_path)}


def _display(v: View | None) -> tuple[list[str], int]:
    """A dialog's lines without their numbers, each result block sorted with ratings blanked."""
    if v is None:
        return [], 0
    out = sorted(blank_rating(line) for line in v.lead)
    for t in v.turns:
        out.append(f"{t.user}\t{t.gold}")
        out.extend(sorted(blank_rating(line) for line in t.context))
    return out, v.start


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(line: str, ref_start: int, ours_start: int) -> str:
    """Make difflib's hunk header speak of file line numbers."""
    m = _HUNK.match(line)
    if not m:
        return line
    a = int(m.group(1)) + max(ref_start - 1, 0)
    b = int(m.group(3)) + max(ours_start - 1, 0)
    return f"@@ -{a}{m.group(2) or ''} +{b}{m.group(4) or ''} @@" + line[m.end():]


@dataclass(frozen=True)
class CompareReport:
    ours: str
    ref: str
    ours_dialogs: int
    ref_dialogs: int
    kb: str | None
    manifest: str | None
    measures: tuple[Measure, ...]
    kinds: tuple[DifferenceKind, ...]
    accounting: tuple[Accounting, ...]
    differing: tuple[DiffSite, ...] = field(repr=False)

    @property
    def identical(self) -> bool:
        """No difference of any kind (ratings and result order aside)."""
        return not any(k.count for k in self.kinds)

    def measure(self, key: str) -> Measure:
        return next(m for m in self.measures if m.key == key)

    def kind(self, name: str) -> DifferenceKind:
        return next(k for k in self.kinds if k.name == name)

    def to_dict(self, examples: int = 5) -> dict:
        return {
            "ours": {"path": self.ours, "dialogs": self.ours_dialogs},
            "ref": {"path": self.ref, "dialogs": self.ref_dialogs},
            "kb": self.kb,
            "manifest": self.manifest,
            "identical": self.identical,
            "measures": {m.key: m.to_dict() for m in self.measures},
            "kinds": {k.name: k.to_dict(examples) for k in self.kinds},
            "accounting": {a.measure: a.to_dict() for a in self.accounting},
            "first_diffs": [d.to_dict(self.ours, self.ref) for d in self.differing[:max(examples, 0)]],
        }
