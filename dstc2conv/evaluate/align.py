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

from ..convert.kb import read_kb
from ..errors import Dstc2ConvError
from ..task6.format import SILENCE, read_dialogs
from ..task6.stats import rating_consistency
from ..task6.vocabulary import SLOTS
from .fidelity import (
    CALL_MISSING,
    DIALOG_MISSING,
    DIFFERENCE_KINDS,
    EXTRA_CALL,
    EXTRA_DIALOG,
    EXTRA_SYSTEM,
    LENGTH_DIFFERS,
    MISALIGNED,
    OTHER_DIFFERENCE,
    RESULTS_DIFFER,
    SLOT_DIFFERS,
    SLOT_DROPPED,
    SYSTEM_DIFFERS,
    SYSTEM_MISSING,
    USER_DIFFERS,
    Accounting,
    CompareReport,
    DifferenceKind,
    DiffSite,
    Example,
    Measure,
    block_entries,
    explain_facts,
    file_facts,
)
from .sessions import read_sessions
from .views import View, normal_block, view

SAME_CALL_RATIO = 0.5


def _slot_diffs(ours: str, ref: str) -> tuple[list[str], bool]:
    """Describe how two api_call lines differ; True when a slot is dropped on one side."""
    a, b = ours.split()[1:], ref.split()[1:]
    if len(a) != len(b):
        return [f"ours has {len(a)} values, ref {len(b)}"], False
    notes, dropped = [], False
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        slot = SLOTS[i].word if i < len(SLOTS) else f"slot {i + 1}"
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
        self.counts = {k: 0 for k in DIFFERENCE_KINDS}
        self.dialogs = {k: set() for k in DIFFERENCE_KINDS}
        self.examples: dict[str, list[Example]] = {k: [] for k in DIFFERENCE_KINDS}

    def session(self, index: int) -> str | None:
        """The DSTC2 session of the dialog at ``index`` (from 0), if known."""
        return self.sessions[index] if index < len(self.sessions) else None

    def add(self, kind: str, index: int, ours_line, ref_line, text: str, n: int = 1) -> None:
        """``n`` differences of ``kind`` in the dialog at ``index`` (from 0)."""
        self.counts[kind] += n
        self.dialogs[kind].add(index)
        self.examples[kind].append(Example(index + 1, ours_line, ref_line, self.session(index), text))


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _line_of(v: View, k: int) -> int:
    """The line of turn ``k`` of a dialog, or of its end past the last turn."""
    return v.turns[k].line if k < len(v.turns) else v.end


def _compare_blocks(i: int, o: View, r: View, k_o: int, k_r: int, tally: _Tally, facts: dict, got: dict) -> None:
    """Compare the result blocks after two identical api_calls."""
    to, tr = o.turns[k_o], r.turns[k_r]
    if normal_block(to.context) == normal_block(tr.context):
        got["blocks"] += 1
        return
    eo, er = block_entries(to.context), block_entries(tr.context)
    only_o = sorted(set(eo) - set(er))
    only_r = sorted(set(er) - set(eo))
    changed = sorted(n for n in set(eo) & set(er) if eo[n] != er[n])
    notes = [tr.gold]
    if only_o:
        notes.append("only in ours: " + ", ".join(only_o))
    if only_r:
        notes.append("only in ref: " + ", ".join(only_r))
    if changed:
        notes.append("in both, facts differ: " + ", ".join(changed))
    if not (only_o or only_r or changed):
        notes.append("ours: " + " | ".join(normal_block(to.context))
                     + "; ref: " + " | ".join(normal_block(tr.context)))
    explained = [explain_facts(n, facts) for n in only_o + only_r + changed]
    if explained:
        notes.append("facts: " + "; ".join(explained))
    tally.add(RESULTS_DIFFER, i, to.line, tr.line, "; ".join(notes))


def _compare_system_turns(i: int, o: View, r: View, tally: _Tally, got: dict) -> list[tuple[int | None, int | None]]:
    """Align and compare the system turns (the bot turns but api_calls): the columns,
    each a pair of system turns (one side None when missing), plus a last column for
    the dialog's end."""
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
                tally.add(EXTRA_SYSTEM, i, o.turns[k_o].line, _line_of(r, at),
                          f"ours has {_q(o.turns[k_o].gold)}, ref none")
            elif k_o is None:
                at = o_sys[o1] if o1 < len(o_sys) else len(o.turns)
                tally.add(SYSTEM_MISSING, i, _line_of(o, at), r.turns[k_r].line,
                          f"ref has {_q(r.turns[k_r].gold)}, ours none")
            elif r.turns[k_r].gold == o.turns[k_o].gold:
                got["system"] += 1
            else:
                tally.add(SYSTEM_DIFFERS, i, o.turns[k_o].line, r.turns[k_r].line,
                          f"ours {_q(o.turns[k_o].gold)}, ref {_q(r.turns[k_r].gold)}")
    columns.append((len(r.turns), len(o.turns)))
    return columns


def _calls_before(v: View, k: int | None) -> list[int]:
    """The api_calls right before turn ``k`` of a dialog."""
    if k is None:
        return []
    first = k
    while first and v.turns[first - 1].is_call:
        first -= 1
    return list(range(first, k))


def _compare_calls(i: int, o: View, r: View, columns: list[tuple[int | None, int | None]], tally: _Tally,
                   facts: dict, got: dict) -> None:
    """Compare the api_calls, each in the column of the system turn it precedes; the
    result blocks of identical calls."""
    for k_r, k_o in columns:
        r_calls, o_calls = _calls_before(r, k_r), _calls_before(o, k_o)
        for c_r, c_o in zip(r_calls, o_calls):
            tr, to = r.turns[c_r], o.turns[c_o]
            if tr.gold == to.gold:
                got["calls"] += 1
                _compare_blocks(i, o, r, c_o, c_r, tally, facts, got)
                continue
            notes, dropped = _slot_diffs(to.gold, tr.gold)
            tally.add(SLOT_DROPPED if dropped else SLOT_DIFFERS, i, to.line, tr.line,
                      f"ours {_q(to.gold)}, ref {_q(tr.gold)}: " + "; ".join(notes))
        for c_r in r_calls[len(o_calls):]:
            tr = r.turns[c_r]
            after = r.turns[c_r + 1].gold if c_r + 1 < len(r.turns) else "the end"
            tally.add(CALL_MISSING, i, _line_of(o, k_o if k_o is not None else len(o.turns)), tr.line,
                      f"ref has {_q(tr.gold)} (before {_q(after)}), ours none")
        for c_o in o_calls[len(r_calls):]:
            to = o.turns[c_o]
            tally.add(EXTRA_CALL, i, to.line, _line_of(r, k_r if k_r is not None else len(r.turns)),
                      f"ours has {_q(to.gold)}, ref none")


def _compare_users(i: int, o: View, r: View, tally: _Tally) -> None:
    """Align and compare the user utterances."""
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


def _compare_pair(i: int, o: View, r: View, tally: _Tally, facts: dict, got: dict) -> None:
    """Compare two dialogs that are the same call; add to ``got`` (matched counts)."""
    before = sum(tally.counts.values())
    # System turns first: calls are measured on their own, and an extra or missing call
    # must not pull a system turn out of line.
    columns = _compare_system_turns(i, o, r, tally, got)
    _compare_calls(i, o, r, columns, tally, facts, got)
    _compare_users(i, o, r, tally)
    if len(o.turns) != len(r.turns):
        tally.add(LENGTH_DIFFERS, i, o.start, r.start,
                  f"ours {len(o.turns)} exchanges, ref {len(r.turns)}")
    if sum(tally.counts.values()) == before:
        if normal_block(o.lead) != normal_block(r.lead):
            text = "result lines before the first exchange differ"
        else:
            text = "the dialogs differ (see the diff)"
        tally.add(OTHER_DIFFERENCE, i, o.start, r.start, text)


def _same_call(o: View, r: View) -> bool:
    if o.users == r.users:
        return True
    return difflib.SequenceMatcher(None, r.users, o.users, autojunk=False).ratio() >= SAME_CALL_RATIO


class _Walk:
    """What the walk over the dialogs by position counts, beside the tally."""

    def __init__(self):
        self.identical = 0
        self.same_position = 0
        self.got = {"calls": 0, "system": 0, "blocks": 0}
        self.lost = {"system": 0, "calls": 0}   # ref turns in dialogs missing or misaligned
        self.differing: list[DiffSite] = []


def _walk(ours: list[View], ref: list[View], ours_index: dict[tuple, int], tally: _Tally, facts: dict) -> _Walk:
    """Compare the dialogs at each position."""
    walk = _Walk()
    got = walk.got
    for k in range(max(len(ours), len(ref))):
        o = ours[k] if k < len(ours) else None
        r = ref[k] if k < len(ref) else None
        if o is not None and r is not None and o.normal == r.normal:
            walk.identical += 1
            walk.same_position += 1
            got["calls"] += sum(t.is_call for t in r.turns)
            got["system"] += sum(not t.is_call for t in r.turns)
            got["blocks"] += sum(t.is_call for t in r.turns)
            continue
        walk.differing.append(DiffSite(k + 1, o, r, tally.session(k)))
        if r is not None and (o is None or not _same_call(o, r)):
            walk.lost["calls"] += sum(t.is_call for t in r.turns)
            walk.lost["system"] += sum(not t.is_call for t in r.turns)
        if o is None:
            tally.add(DIALOG_MISSING, k, None, r.start, f"ref dialog {k + 1} has no counterpart in ours")
        elif r is None:
            tally.add(EXTRA_DIALOG, k, o.start, None, f"ours dialog {k + 1} has no counterpart in ref")
        elif not _same_call(o, r):
            _misaligned(k, o, r, ours_index, tally)
        else:
            walk.same_position += 1
            _compare_pair(k, o, r, tally, facts, got)
    return walk


def _misaligned(k: int, o: View, r: View, ours_index: dict[tuple, int], tally: _Tally) -> None:
    """Two dialogs at the same position that are not the same call."""
    elsewhere = ours_index.get(r.users)
    where = f"ours has it at position {elsewhere + 1}" if elsewhere is not None else "not found in ours"
    first = next((u for u in o.users if u != SILENCE), "")
    ref_first = next((u for u in r.users if u != SILENCE), "")
    tally.add(MISALIGNED, k, o.start, r.start,
              f"ours starts {_q(first)}, ref starts {_q(ref_first)}; ref's call: {where}")


def _accounting(ref: list[View], walk: _Walk, tally: _Tally) -> tuple[Accounting, ...]:
    """Each measure's gap, by the kinds of difference that make it up."""
    got, lost, c = walk.got, walk.lost, tally.counts
    ref_calls = sum(t.is_call for v in ref for t in v.turns)
    ref_system = sum(not t.is_call for v in ref for t in v.turns)
    aligned_differing = len({d for kind in DIFFERENCE_KINDS for d in tally.dialogs[kind]}
                            - tally.dialogs[MISALIGNED] - tally.dialogs[DIALOG_MISSING]
                            - tally.dialogs[EXTRA_DIALOG])
    return (
        Accounting("dialogs", len(ref) - walk.identical,
                   (("dialogs with differences", aligned_differing), (MISALIGNED, c[MISALIGNED]),
                    (DIALOG_MISSING, c[DIALOG_MISSING]))),
        Accounting("system_turns", ref_system - got["system"],
                   ((SYSTEM_DIFFERS, c[SYSTEM_DIFFERS]), (SYSTEM_MISSING, c[SYSTEM_MISSING]),
                    ("in misaligned or missing dialogs", lost["system"]))),
        Accounting("api_calls", ref_calls - got["calls"],
                   ((CALL_MISSING, c[CALL_MISSING]), (SLOT_DROPPED, c[SLOT_DROPPED]),
                    (SLOT_DIFFERS, c[SLOT_DIFFERS]), ("in misaligned or missing dialogs", lost["calls"]))),
        Accounting("result_blocks", got["calls"] - got["blocks"], ((RESULTS_DIFFER, c[RESULTS_DIFFER]),)),
    )


def _measures(ours: list[View], ref: list[View], walk: _Walk, present: int) -> tuple[Measure, ...]:
    got = walk.got
    ref_calls = sum(t.is_call for v in ref for t in v.turns)
    ref_system = sum(not t.is_call for v in ref for t in v.turns)
    ours_good, ours_offers = rating_consistency(v.dialog for v in ours)
    ref_good, ref_offers = rating_consistency(v.dialog for v in ref)
    return (
        Measure("dialogs", "dialogs identical", walk.identical, len(ref)),
        Measure("system_turns", "system turns identical", got["system"], ref_system),
        Measure("api_calls", "api_call lines identical", got["calls"], ref_calls),
        Measure("result_blocks", "result blocks identical (of identical calls)", got["blocks"], got["calls"]),
        Measure("split", "ref dialogs present in ours", present, len(ref)),
        Measure("order", "same call at the same position", walk.same_position, len(ref)),
        Measure("rating_ours", "offers to the highest rated, ours", ours_good, ours_offers),
        Measure("rating_ref", "offers to the highest rated, ref", ref_good, ref_offers),
    )


def compare_views(ours: list[View], ref: list[View], *, ours_path: str = "ours", ref_path: str = "ref",
                  kb_facts: dict | None = None, kb_path: str | None = None,
                  sessions: tuple[str, ...] = (), manifest_path: str | None = None) -> CompareReport:
    tally = _Tally(sessions)
    facts = {"ours": file_facts(ours), "ref": file_facts(ref)}
    if kb_facts is not None:
        facts["kb"] = kb_facts
    ours_index: dict[tuple, int] = {}
    for k, v in enumerate(ours):
        ours_index.setdefault(v.users, k)
    present = sum(1 for k, r in enumerate(ref)
                  if r.users in ours_index or (k < len(ours) and _same_call(ours[k], r)))
    walk = _walk(ours, ref, ours_index, tally, facts)
    measures = _measures(ours, ref, walk, present)
    accounting = _accounting(ref, walk, tally)
    c = tally.counts
    kinds = tuple(DifferenceKind(k, c[k], len(tally.dialogs[k]), tuple(tally.examples[k])) for k in DIFFERENCE_KINDS)
    return CompareReport(ours_path, ref_path, len(ours), len(ref), kb_path, manifest_path,
                         measures, kinds, accounting, tuple(walk.differing))


def compare_files(ours: str | os.PathLike, ref: str | os.PathLike, kb: str | os.PathLike | None = None,
                  manifest: str | os.PathLike | None = None) -> CompareReport:
    """Compare two task-6 files. ``manifest``: the build's manifest.json, to name each
    dialog's DSTC2 session (default: manifest.json beside ``ours`` if it lists it)."""
    ours, ref = os.fspath(ours), os.fspath(ref)
    ours_views = [view(d, k) for k, d in enumerate(read_dialogs(ours))]
    ref_views = [view(d, k) for k, d in enumerate(read_dialogs(ref))]
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
