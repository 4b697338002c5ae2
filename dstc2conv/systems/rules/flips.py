"""What changed between two scorings of the same turns: the turns that flipped (wrong
before and right now, or the reverse), grouped by the change of rule behind them (the
rule that answered before -> the one that answers now), and the change of accuracy per
dialog system and per kind of response."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...evaluate.response_kinds import NAMES, kind_of
from ...evaluate.responses import Score
from ...evaluate.tables import percent
from .engine import Prediction
from .history import Scored
from .problems import count

NO_RULE = "no rule"


@dataclass(frozen=True)
class Part:
    """The turns of one dialog system or one kind of response, and their flips."""
    name: str
    responses: int
    right: int         # now right (wrong before)
    wrong: int         # now wrong (right before)

    @property
    def delta(self) -> float:
        return (self.right - self.wrong) / self.responses if self.responses else 0.0

    def to_dict(self) -> dict:
        return {"responses": self.responses, "now_right": self.right, "now_wrong": self.wrong, "delta": self.delta}


@dataclass(frozen=True)
class Group:
    """The flipped turns whose rule went from ``before`` to ``now`` (None: no rule)."""
    before: str | None
    now: str | None
    turns: tuple[int, ...]      # positions of the flipped turns, in file order
    right: int
    wrong: int

    @property
    def label(self) -> str:
        return f"{self.before or NO_RULE} -> {self.now or NO_RULE}"


@dataclass(frozen=True)
class Comparison:
    label: str                  # what is compared with: shipped, last, a name, a file
    described: str              # that, said in words
    previous: Score
    flipped_right: tuple[int, ...]
    flipped_wrong: tuple[int, ...]
    groups: tuple[Group, ...]   # the most flips first
    systems: tuple[Part, ...]   # every system (none without a manifest)
    kinds: tuple[Part, ...]     # the kinds with flips, in the registry's order
    before: tuple[Prediction, ...]


def compare(label: str, described: str, previous: Score, before: Scored, predictions: Sequence[Prediction],
            results: Sequence[bool], turns, systems: Sequence[str] | None = None) -> Comparison:
    """The flips from ``before`` to the present ``predictions`` and ``results`` of ``turns``
    (``systems``: each dialog's system, or None)."""
    old = before.results
    right = tuple(i for i, (a, b) in enumerate(zip(old, results)) if not a and b)
    wrong = tuple(i for i, (a, b) in enumerate(zip(old, results)) if a and not b)
    flipped = sorted(right + wrong)
    now_right = set(right)
    keyed: dict[tuple, list[int]] = {}
    for i in flipped:
        keyed.setdefault((before.predictions[i].rule, predictions[i].rule), []).append(i)
    groups = [Group(b, n, tuple(positions), sum(i in now_right for i in positions),
                    sum(i not in now_right for i in positions)) for (b, n), positions in keyed.items()]
    groups.sort(key=lambda g: (-len(g.turns), g.turns[0]))
    return Comparison(label, described, previous, right, wrong, tuple(groups),
                      _parts([systems[t.dialog] for t in turns], right, wrong) if systems is not None else (),
                      _kinds(turns, right, wrong), before.predictions)


def _parts(names: list[str], right: tuple[int, ...], wrong: tuple[int, ...]) -> tuple[Part, ...]:
    """A Part per name of ``names`` (one per turn), in name order."""
    tally: dict[str, list[int]] = {}
    for name in names:
        tally.setdefault(name, [0, 0, 0])[0] += 1
    for i in right:
        tally[names[i]][1] += 1
    for i in wrong:
        tally[names[i]][2] += 1
    return tuple(Part(name, *tally[name]) for name in sorted(tally))


def _kinds(turns, right: tuple[int, ...], wrong: tuple[int, ...]) -> tuple[Part, ...]:
    flipped = set(right) | set(wrong)
    kinds = [kind_of(t.gold) for t in turns]
    order = {name: i for i, name in enumerate(NAMES)}
    touched = {kinds[i] for i in flipped}
    return tuple(sorted((p for p in _parts(kinds, right, wrong) if p.name in touched), key=lambda p: order[p.name]))


# ---------------------------------------------------------------- printing

def _where(turn) -> str:
    return f"dialog {turn.dialog + 1} line {turn.line}"


def as_text(comparison: Comparison, now: Score, turns, predictions: Sequence[Prediction], examples: int,
            context: int = 0, dialogs=None) -> list[str]:
    """The comparison as lines: the change, per system and kind, then each group with up
    to ``examples`` flipped turns, each after the ``context`` dialog lines before it
    (``dialogs``: the file's dialogs, needed when ``context``)."""
    c = comparison
    lines = [f"against                {c.described}",
             f"change                 {percent(now.per_response - c.previous.per_response, signed=True)} per response "
             f"({count(len(c.flipped_right), 'turn')} now right, {len(c.flipped_wrong)} now wrong), "
             f"{percent(now.per_dialog - c.previous.per_dialog, signed=True)} per dialog"]
    for what, parts in (("system", c.systems), ("kind", c.kinds)):
        for part in parts:
            lines.append(f"  {what} {part.name:<15} {percent(part.delta, signed=True)}  "
                         f"({part.right} now right, {part.wrong} now wrong, of {part.responses})")
    right = set(c.flipped_right)
    if c.groups:
        lines.append("flips by rule, before -> now:")
    for group in c.groups:
        lines.append(f"  {group.label}: {group.right} now right, {group.wrong} now wrong")
        for i in group.turns[:examples]:
            t, p, b = turns[i], predictions[i], c.before[i]
            if context:
                lines.extend(f"      | {text}" for text in _context(dialogs, t, context))
            label = "now right" if i in right else "now wrong"
            lines.append(f"    {label}: {_where(t)}  user: {t.user!r}  gold: {t.gold.strip()!r}  "
                         f"was: {b.text!r}  now: {p.text!r}")
        if len(group.turns) > examples:
            lines.append(f"    ... and {len(group.turns) - examples} more (--flips N shows N a group)")
    return lines


def _context(dialogs, turn, n: int) -> list[str]:
    """The ``n`` lines of the turn's dialog before it, as the file writes them (a tab as ' | ')."""
    from ...task6.format import Exchange

    dialog = dialogs[turn.dialog]
    at = turn.line - dialog.start_line
    out = []
    for offset in range(max(0, at - n), at):
        line = dialog.lines[offset]
        text = f"{line.user} | {line.bot}" if isinstance(line, Exchange) else line.text
        out.append(f"{offset + 1} {text}")
    return out


def as_dict(comparison: Comparison, now: Score, turns, predictions: Sequence[Prediction], examples: int,
            context: int = 0, dialogs=None) -> dict:
    """The comparison as JSON: as ``as_text``, the examples of a group as objects."""
    c = comparison
    right = set(c.flipped_right)

    def example(i: int) -> dict:
        t = turns[i]
        out = {"turn": _where(t), "dialog": t.dialog + 1, "line": t.line, "flip": "right" if i in right else "wrong",
               "user": t.user, "gold": t.gold.strip(), "before": c.before[i].text, "before_rule": c.before[i].rule,
               "now": predictions[i].text, "now_rule": predictions[i].rule}
        if context:
            out["context"] = _context(dialogs, t, context)
        return out

    return {"label": c.label, "described": c.described, "previous": c.previous.to_dict(),
            "delta_per_response": now.per_response - c.previous.per_response,
            "delta_per_dialog": now.per_dialog - c.previous.per_dialog,
            "now_right": len(c.flipped_right), "now_wrong": len(c.flipped_wrong),
            "by_system": {p.name: p.to_dict() for p in c.systems},
            "by_kind": {p.name: p.to_dict() for p in c.kinds},
            "groups": [{"before_rule": g.before, "now_rule": g.now, "now_right": g.right, "now_wrong": g.wrong,
                        "examples": [example(i) for i in g.turns[:examples]]} for g in c.groups]}
