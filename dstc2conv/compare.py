"""How closely a built task-6 file (OURS) reproduces a published one (REF).

Dialogs are aligned by position. Two dialogs at the same position are the same call when
their user-utterance sequences have a difflib similarity ratio of at least 0.5 (the
``<SILENCE>`` user turn that follows an api_call's results is left out: the format adds
it). Result blocks are compared as sets of lines with the rating values blanked, since
ratings are random and the order of restaurants in a block is arbitrary.

Within a pair of dialogs the system turns (the bot turns but api_calls) are aligned with
difflib, an unmatched stretch paired in order and every leftover a missing or extra
turn. Each api_call is then compared with the call (if any) before the aligned system
turn, so that an extra or missing call never moves a system turn out of line; an
identical call has its result block compared. Every difference found is counted under
one kind, so that the kinds add up to the gap of each measure
(``CompareReport.accounting``).
"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property

from .errors import Dstc2ConvError
from .kb import ATTRIBUTES, read_kb
from .sessions import read_sessions
from .task6 import SILENCE, Context, Dialog, Exchange, is_api_call, read_dialogs

SAME_CALL_RATIO = 0.5
RATING = "R_rating"
SLOT_NAMES = ("cuisine", "location", "price")

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
OTHER = "other difference"
KINDS = (MISALIGNED, DIALOG_MISSING, EXTRA_DIALOG, CALL_MISSING, EXTRA_CALL, SLOT_DROPPED,
         SLOT_DIFFERS, RESULTS_DIFFER, SYSTEM_DIFFERS, SYSTEM_MISSING, EXTRA_SYSTEM,
         USER_DIFFERS, LENGTH_DIFFERS, OTHER)


# ---------------------------------------------------------------------------------------
# One dialog seen as turns, each with the result lines that follow it.

def blank_rating(text: str) -> str:
    parts = text.split()
    if len(parts) == 3 and parts[1] == RATING:
        return f"{parts[0]} {RATING} *"
    return text


def normal_block(lines: tuple[str, ...]) -> tuple[str, ...]:
    """A result block as a sorted set of lines, ratings blanked."""
    return tuple(sorted({blank_rating(line) for line in lines}))


@dataclass(frozen=True)
class Turn:
    line: int                 # line number in the file
    user: str
    bot: str
    block: tuple[str, ...]    # the context lines that follow it, as written

    @property
    def is_call(self) -> bool:
        return is_api_call(self.bot)


@dataclass(frozen=True)
class View:
    dialog: Dialog
    lead: tuple[str, ...]     # context lines before the first exchange (normally none)
    turns: tuple[Turn, ...]

    @cached_property
    def bots(self) -> tuple[str, ...]:
        return tuple(t.bot for t in self.turns)

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
                tuple((t.user, t.bot, normal_block(t.block)) for t in self.turns))

    @property
    def start(self) -> int:
        return self.dialog.start_line

    @property
    def end(self) -> int:
        return self.dialog.start_line + len(self.dialog.lines)


def view(dialog: Dialog) -> View:
    lead: list[str] = []
    turns: list[list] = []  # [line, user, bot, block lines]
    for offset, line in enumerate(dialog.lines):
        if isinstance(line, Exchange):
            turns.append([dialog.start_line + offset, line.user, line.bot, []])
        elif turns:
            turns[-1][3].append(line.text)
        else:
            lead.append(line.text)
    return View(dialog, tuple(lead), tuple(Turn(n, u, b, tuple(block)) for n, u, b, block in turns))


# ---------------------------------------------------------------------------------------
# Facts about restaurants, from result lines and the KB.

def block_entries(lines) -> dict[str, tuple]:
    """name -> its (attribute, value) facts in a result block, rating left out."""
    entries: dict[str, set] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 3 and parts[1].startswith("R_"):
            facts = entries.setdefault(parts[0], set())
            if parts[1] != RATING:
                facts.add((parts[1], parts[2]))
    return {name: tuple(sorted(facts)) for name, facts in entries.items()}


def file_facts(views: list[View]) -> dict[str, dict[str, tuple[str, ...]]]:
    """name -> attribute -> the distinct values the file's result lines give it."""
    facts: dict[str, dict[str, set]] = {}
    for v in views:
        for lines in (v.lead, *(t.block for t in v.turns)):
            for line in lines:
                parts = line.split()
                if len(parts) == 3 and parts[1].startswith("R_") and parts[1] != RATING:
                    facts.setdefault(parts[0], {}).setdefault(parts[1], set()).add(parts[2])
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
# Rating consistency: offers go to the highest-rated restaurant not yet offered.

def rating_consistency(views: list[View]) -> tuple[int, int]:
    """(offers to the highest-rated restaurant not yet offered, offers).

    An offer is a system turn naming (as a token) a restaurant of the latest result
    block that no earlier turn since that api_call named."""
    good = total = 0
    for v in views:
        ratings: dict[str, int | None] = {}
        offered: set[str] = set()
        for t in v.turns:
            if t.is_call:
                ratings, offered = {}, set()
                for line in t.block:
                    parts = line.split()
                    if len(parts) == 3 and parts[1].startswith("R_"):
                        ratings.setdefault(parts[0], None)
                        if parts[1] == RATING:
                            ratings[parts[0]] = int(parts[2]) if parts[2].isdigit() else None
                continue
            name = next((tok for tok in t.bot.split() if tok in ratings and tok not in offered), None)
            if name is None:
                continue
            left = [r for n, r in ratings.items() if n not in offered and r is not None]
            offered.add(name)
            if ratings[name] is None or not left:
                continue
            total += 1
            good += ratings[name] == max(left)
    return good, total


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
    dialog: int               # position, from 1
    ours_line: int | None
    ref_line: int | None
    session: str | None
    text: str

    def where(self) -> str:
        parts = [f"dialog {self.dialog}"]
        if self.ours_line is not None:
            parts.append(f"ours line {self.ours_line}")
        if self.ref_line is not None:
            parts.append(f"ref line {self.ref_line}")
        if self.session:
            parts.append(self.session)
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return {"dialog": self.dialog, "ours_line": self.ours_line, "ref_line": self.ref_line,
                "session": self.session, "text": self.text}


@dataclass(frozen=True)
class Kind:
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
    index: int                # position, from 1
    ours: Dialog | None
    ref: Dialog | None
    session: str | None

    def diff(self, ours_path: str, ref_path: str) -> str:
        ref_lines, ref_start = _display(self.ref)
        ours_lines, ours_start = _display(self.ours)
        head = [f"dialog {self.index}: ours line {ours_start or '-'}, ref line {ref_start or '-'}"
                + (f", {self.session}" if self.session else "")]
        body = difflib.unified_diff(ref_lines, ours_lines, f"ref  {ref_path}", f"ours {ours_path}",
                                    n=2, lineterm="")
        for line in body:
            if line.startswith("@@"):
                line = _shift_hunk(line, ref_start, ours_start)
            head.append(line)
        return "\n".join(head)

    def to_dict(self, ours_path: str, ref_path: str) -> dict:
        return {"dialog": self.index, "session": self.session,
                "ours_line": self.ours.start_line if self.ours else None,
                "ref_line": self.ref.start_line if self.ref else None,
                "diff": self.diff(ours_path, ref_path)}


def _display(dialog: Dialog | None) -> tuple[list[str], int]:
    """A dialog's lines without their numbers, each result block sorted with ratings blanked."""
    if dialog is None:
        return [], 0
    out: list[str] = []
    block: list[str] = []
    for line in dialog.lines:
        if isinstance(line, Context):
            block.append(blank_rating(line.text))
            continue
        out.extend(sorted(block))
        block = []
        out.append(f"{line.user}\t{line.bot}")
    out.extend(sorted(block))
    return out, dialog.start_line


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
    kinds: tuple[Kind, ...]
    accounting: tuple[Accounting, ...]
    differing: tuple[DiffSite, ...] = field(repr=False)

    @property
    def identical(self) -> bool:
        """No difference of any kind (ratings and result order aside)."""
        return not any(k.count for k in self.kinds)

    def measure(self, key: str) -> Measure:
        return next(m for m in self.measures if m.key == key)

    def kind(self, name: str) -> Kind:
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


# ---------------------------------------------------------------------------------------
# Comparing.

def _slot_diffs(ours: str, ref: str) -> tuple[list[str], bool]:
    """Describe how two api_call lines differ; True when a slot is dropped on one side."""
    a, b = ours.split()[1:], ref.split()[1:]
    if len(a) != len(b):
        return [f"ours has {len(a)} values, ref {len(b)}"], False
    notes, dropped = [], False
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        slot = SLOT_NAMES[i] if i < len(SLOT_NAMES) else f"slot {i + 1}"
        if x.startswith("R_") and not y.startswith("R_"):
            notes.append(f"{slot} dropped in ours (ref {y})")
            dropped = True
        elif y.startswith("R_") and not x.startswith("R_"):
            notes.append(f"{slot} dropped in ref (ours {x})")
            dropped = True
        else:
            notes.append(f"{slot} ours {x}, ref {y}")
    return notes, dropped


class _Tally:
    """Counts and examples while comparing; turned into the frozen report at the end."""

    def __init__(self, sessions):
        self.sessions = sessions
        self.counts = {k: 0 for k in KINDS}
        self.dialogs = {k: set() for k in KINDS}
        self.examples: dict[str, list[Example]] = {k: [] for k in KINDS}

    def add(self, kind: str, index: int, ours_line, ref_line, text: str, n: int = 1) -> None:
        self.counts[kind] += n
        self.dialogs[kind].add(index)
        session = self.sessions[index] if index < len(self.sessions) else None
        self.examples[kind].append(Example(index + 1, ours_line, ref_line, session, text))


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _compare_pair(i: int, o: View, r: View, tally: _Tally, facts: dict, got: dict) -> None:
    """Compare two dialogs that are the same call; add to ``got`` (matched counts)."""
    before = sum(tally.counts.values())

    def line_of(v: View, k: int) -> int:
        return v.turns[k].line if k < len(v.turns) else v.end

    def compare_blocks(k_o: int, k_r: int) -> None:
        to, tr = o.turns[k_o], r.turns[k_r]
        if normal_block(to.block) == normal_block(tr.block):
            got["blocks"] += 1
            return
        eo, er = block_entries(to.block), block_entries(tr.block)
        only_o = sorted(set(eo) - set(er))
        only_r = sorted(set(er) - set(eo))
        changed = sorted(n for n in set(eo) & set(er) if eo[n] != er[n])
        notes = [tr.bot]
        if only_o:
            notes.append("only in ours: " + ", ".join(only_o))
        if only_r:
            notes.append("only in ref: " + ", ".join(only_r))
        if changed:
            notes.append("in both, facts differ: " + ", ".join(changed))
        if not (only_o or only_r or changed):
            notes.append("ours: " + " | ".join(normal_block(to.block))
                         + "; ref: " + " | ".join(normal_block(tr.block)))
        explained = [explain_facts(n, facts) for n in only_o + only_r + changed]
        if explained:
            notes.append("facts: " + "; ".join(explained))
        tally.add(RESULTS_DIFFER, i, to.line, tr.line, "; ".join(notes))

    # System turns first: calls are measured on their own, and an extra or missing call
    # must not pull a system turn out of line. Each column is a pair of system turns
    # (one side None when missing), plus a last column for the dialog's end.
    r_sys = [k for k, t in enumerate(r.turns) if not t.is_call]
    o_sys = [k for k, t in enumerate(o.turns) if not t.is_call]
    columns: list[tuple[int | None, int | None]] = []
    matcher = difflib.SequenceMatcher(None, [r.bots[k] for k in r_sys], [o.bots[k] for k in o_sys],
                                      autojunk=False)
    for op, r1, r2, o1, o2 in matcher.get_opcodes():
        for j in range(max(r2 - r1, o2 - o1)):
            k_r = r_sys[r1 + j] if r1 + j < r2 else None
            k_o = o_sys[o1 + j] if o1 + j < o2 else None
            columns.append((k_r, k_o))
            if k_r is None:
                at = r_sys[r1] if r1 < len(r_sys) else len(r.turns)
                tally.add(EXTRA_SYSTEM, i, o.turns[k_o].line, line_of(r, at),
                          f"ours has {_q(o.turns[k_o].bot)}, ref none")
            elif k_o is None:
                at = o_sys[o1] if o1 < len(o_sys) else len(o.turns)
                tally.add(SYSTEM_MISSING, i, line_of(o, at), r.turns[k_r].line,
                          f"ref has {_q(r.turns[k_r].bot)}, ours none")
            elif r.turns[k_r].bot == o.turns[k_o].bot:
                got["system"] += 1
            else:
                tally.add(SYSTEM_DIFFERS, i, o.turns[k_o].line, r.turns[k_r].line,
                          f"ours {_q(o.turns[k_o].bot)}, ref {_q(r.turns[k_r].bot)}")
    columns.append((len(r.turns), len(o.turns)))

    # Then the calls, each in the column of the system turn it precedes.
    def calls_before(v: View, k: int | None) -> list[int]:
        if k is None:
            return []
        first = k
        while first and v.turns[first - 1].is_call:
            first -= 1
        return list(range(first, k))

    for k_r, k_o in columns:
        r_calls, o_calls = calls_before(r, k_r), calls_before(o, k_o)
        for c_r, c_o in zip(r_calls, o_calls):
            tr, to = r.turns[c_r], o.turns[c_o]
            if tr.bot == to.bot:
                got["calls"] += 1
                compare_blocks(c_o, c_r)
                continue
            notes, dropped = _slot_diffs(to.bot, tr.bot)
            tally.add(SLOT_DROPPED if dropped else SLOT_DIFFERS, i, to.line, tr.line,
                      f"ours {_q(to.bot)}, ref {_q(tr.bot)}: " + "; ".join(notes))
        for c_r in r_calls[len(o_calls):]:
            tr = r.turns[c_r]
            after = r.turns[c_r + 1].bot if c_r + 1 < len(r.turns) else "the end"
            tally.add(CALL_MISSING, i, line_of(o, k_o if k_o is not None else len(o.turns)), tr.line,
                      f"ref has {_q(tr.bot)} (before {_q(after)}), ours none")
        for c_o in o_calls[len(r_calls):]:
            to = o.turns[c_o]
            tally.add(EXTRA_CALL, i, to.line, line_of(r, k_r if k_r is not None else len(r.turns)),
                      f"ours has {_q(to.bot)}, ref none")

    users = difflib.SequenceMatcher(None, r.users, o.users, autojunk=False)
    for op, r1, r2, o1, o2 in users.get_opcodes():
        if op == "equal":
            continue
        n = max(r2 - r1, o2 - o1)
        ours_text = " / ".join(_q(u) for u in o.users[o1:o2])
        ref_text = " / ".join(_q(u) for u in r.users[r1:r2])
        ours_line = o.turns[o.user_turns[o1]].line if o1 < len(o.user_turns) else o.end
        ref_line = r.turns[r.user_turns[r1]].line if r1 < len(r.user_turns) else r.end
        if not ours_text:
            text = f"ref has {ref_text}, ours none"
        elif not ref_text:
            text = f"ours has {ours_text}, ref none"
        else:
            text = f"ours {ours_text}, ref {ref_text}"
        tally.add(USER_DIFFERS, i, ours_line, ref_line, text, n)

    if len(o.turns) != len(r.turns):
        tally.add(LENGTH_DIFFERS, i, o.start, r.start,
                  f"ours {len(o.turns)} exchanges, ref {len(r.turns)}")
    if sum(tally.counts.values()) == before:
        if normal_block(o.lead) != normal_block(r.lead):
            text = "result lines before the first exchange differ"
        else:
            text = "the dialogs differ (see the diff)"
        tally.add(OTHER, i, o.start, r.start, text)


def _same_call(o: View, r: View) -> bool:
    if o.users == r.users:
        return True
    return difflib.SequenceMatcher(None, r.users, o.users, autojunk=False).ratio() >= SAME_CALL_RATIO


def compare_views(ours: list[View], ref: list[View], *, ours_path: str = "ours", ref_path: str = "ref",
                  kb_facts: dict | None = None, kb_path: str | None = None,
                  sessions: tuple[str, ...] = (), manifest_path: str | None = None) -> CompareReport:
    tally = _Tally(sessions)
    facts = {"ours": file_facts(ours), "ref": file_facts(ref)}
    if kb_facts is not None:
        facts["kb"] = kb_facts
    got = {"calls": 0, "system": 0, "blocks": 0}
    identical = same_position = 0
    lost = {"system": 0, "calls": 0}   # ref turns in dialogs missing or misaligned
    differing: list[DiffSite] = []
    ours_index: dict[tuple, int] = {}
    for k, v in enumerate(ours):
        ours_index.setdefault(v.users, k)
    present = sum(1 for k, r in enumerate(ref)
                  if r.users in ours_index or (k < len(ours) and _same_call(ours[k], r)))

    def session(k: int) -> str | None:
        return sessions[k] if k < len(sessions) else None

    for k in range(max(len(ours), len(ref))):
        o = ours[k] if k < len(ours) else None
        r = ref[k] if k < len(ref) else None
        if o is not None and r is not None and o.normal == r.normal:
            identical += 1
            same_position += 1
            got["calls"] += sum(t.is_call for t in r.turns)
            got["system"] += sum(not t.is_call for t in r.turns)
            got["blocks"] += sum(t.is_call for t in r.turns)
            continue
        differing.append(DiffSite(k + 1, o.dialog if o else None, r.dialog if r else None, session(k)))
        if r is not None and (o is None or not _same_call(o, r)):
            lost["calls"] += sum(t.is_call for t in r.turns)
            lost["system"] += sum(not t.is_call for t in r.turns)
        if o is None:
            tally.add(DIALOG_MISSING, k, None, r.start, f"ref dialog {k + 1} has no counterpart in ours")
        elif r is None:
            tally.add(EXTRA_DIALOG, k, o.start, None, f"ours dialog {k + 1} has no counterpart in ref")
        elif not _same_call(o, r):
            elsewhere = ours_index.get(r.users)
            where = f"ours has it at position {elsewhere + 1}" if elsewhere is not None else "not found in ours"
            first = next((u for u in o.users if u != SILENCE), "")
            ref_first = next((u for u in r.users if u != SILENCE), "")
            tally.add(MISALIGNED, k, o.start, r.start,
                      f"ours starts {_q(first)}, ref starts {_q(ref_first)}; ref's call: {where}")
        else:
            same_position += 1
            _compare_pair(k, o, r, tally, facts, got)

    ref_calls = sum(t.is_call for v in ref for t in v.turns)
    ref_system = sum(not t.is_call for v in ref for t in v.turns)
    ours_good, ours_offers = rating_consistency(ours)
    ref_good, ref_offers = rating_consistency(ref)
    blocks_total = got["calls"]
    measures = (
        Measure("dialogs", "dialogs identical", identical, len(ref)),
        Measure("system_turns", "system turns identical", got["system"], ref_system),
        Measure("api_calls", "api_call lines identical", got["calls"], ref_calls),
        Measure("result_blocks", "result blocks identical (of identical calls)", got["blocks"], blocks_total),
        Measure("split", "ref dialogs present in ours", present, len(ref)),
        Measure("order", "same call at the same position", same_position, len(ref)),
        Measure("rating_ours", "offers to the highest rated, ours", ours_good, ours_offers),
        Measure("rating_ref", "offers to the highest rated, ref", ref_good, ref_offers),
    )
    c = tally.counts
    aligned_differing = len({d for kind in KINDS for d in tally.dialogs[kind]}
                            - tally.dialogs[MISALIGNED] - tally.dialogs[DIALOG_MISSING]
                            - tally.dialogs[EXTRA_DIALOG])
    accounting = (
        Accounting("dialogs", len(ref) - identical,
                   (("dialogs with differences", aligned_differing), (MISALIGNED, c[MISALIGNED]),
                    (DIALOG_MISSING, c[DIALOG_MISSING]))),
        Accounting("system_turns", ref_system - got["system"],
                   ((SYSTEM_DIFFERS, c[SYSTEM_DIFFERS]), (SYSTEM_MISSING, c[SYSTEM_MISSING]),
                    ("in misaligned or missing dialogs", lost["system"]))),
        Accounting("api_calls", ref_calls - got["calls"],
                   ((CALL_MISSING, c[CALL_MISSING]), (SLOT_DROPPED, c[SLOT_DROPPED]),
                    (SLOT_DIFFERS, c[SLOT_DIFFERS]), ("in misaligned or missing dialogs", lost["calls"]))),
        Accounting("result_blocks", blocks_total - got["blocks"], ((RESULTS_DIFFER, c[RESULTS_DIFFER]),)),
    )
    kinds = tuple(Kind(k, c[k], len(tally.dialogs[k]), tuple(tally.examples[k])) for k in KINDS)
    return CompareReport(ours_path, ref_path, len(ours), len(ref), kb_path, manifest_path,
                         measures, kinds, accounting, tuple(differing))


def compare_files(ours: str | os.PathLike, ref: str | os.PathLike, kb: str | os.PathLike | None = None,
                  manifest: str | os.PathLike | None = None) -> CompareReport:
    """Compare two task-6 files. ``manifest``: the build's manifest.json, to name each
    dialog's DSTC2 session (default: manifest.json beside ``ours`` if it lists it)."""
    ours, ref = os.fspath(ours), os.fspath(ref)
    ours_views = [view(d) for d in read_dialogs(ours)]
    ref_views = [view(d) for d in read_dialogs(ref)]
    kb_facts = None
    if kb is not None:
        kb = os.fspath(kb)
        kb_facts = {r.name: {a: (v,) for a, v in r.attrs} for r in read_kb(kb).restaurants}
    sessions: tuple[str, ...] = ()
    manifest_path = None
    try:
        found = read_sessions(ours, len(ours_views), manifest)
    except Dstc2ConvError:
        if manifest is not None:
            raise
        found = None              # an unreadable manifest beside the file: sessions not named
    if found is not None:
        sessions, manifest_path = found.sessions, found.manifest
    return compare_views(ours_views, ref_views, ours_path=ours, ref_path=ref, kb_facts=kb_facts,
                         kb_path=kb, sessions=sessions, manifest_path=manifest_path)


# ---------------------------------------------------------------------------------------
# Text output.

def _percent(m: Measure) -> str:
    return "-" if m.rate is None else f"{100 * m.rate:.1f}%"


def format_report(report: CompareReport, examples: int = 5) -> str:
    examples = max(examples, 0)
    out = [f"ours: {report.ours} ({report.ours_dialogs} dialogs)",
           f"ref:  {report.ref} ({report.ref_dialogs} dialogs)"]
    if report.kb:
        out.append(f"kb:   {report.kb}")
    if report.manifest:
        out.append(f"sessions from {report.manifest}")
    out.append("")
    width = max(len(m.label) for m in report.measures)
    out.append(f"{'measure':<{width}}  {'count':>7}   {'total':>7}  {'percent':>7}")
    for m in report.measures:
        out.append(f"{m.label:<{width}}  {m.count:>7} / {m.total:>7}  {_percent(m):>7}")
    out.append("")
    if report.identical:
        out.append("no differences (ratings and the order of result lines aside)")
        return "\n".join(out)

    present = [k for k in report.kinds if k.count]
    width = max(len("difference"), *(len(k.name) for k in present))
    out.append(f"{'difference':<{width}}  {'count':>7}  {'dialogs':>7}")
    for k in present:
        out.append(f"{k.name:<{width}}  {k.count:>7}  {k.dialogs:>7}")
    out.append("")
    out.append("gaps accounted for:")
    for a in report.accounting:
        label = report.measure(a.measure).label
        parts = " + ".join(f"{n} {name}" for name, n in a.parts if n) or "0"
        mark = "" if a.explained else "  (not fully explained)"
        out.append(f"  {label}: {a.gap} = {parts}{mark}")
    if examples:
        out.append("")
        out.append(f"examples (first {examples} of each kind):")
        for k in present:
            out.append(f"  {k.name}:")
            for e in k.examples[:examples]:
                out.append(f"    [{e.where()}] {e.text}")
        out.append("")
        shown = report.differing[:examples]
        out.append(f"first {len(shown)} of {len(report.differing)} differing dialogs "
                   "(- ref, + ours; result lines sorted, ratings blanked):")
        for site in shown:
            out.append("")
            out.append(site.diff(report.ours, report.ref))
    return "\n".join(out)
