"""Where the chooser overrode the rules: per rule (the one whose response the rules'
priority chose), how often the chooser answered otherwise, and whether it was right."""
from __future__ import annotations

from ...evaluate.responses import correct
from ...evaluate.tables import Table


def overrides(rules_predictions, chosen, turns, top: int | None = None) -> Table:
    """The ``overrides`` table: per rule, the turns it answered, the overrides, those that
    made a wrong answer right (``won``), a right one wrong (``lost``), or neither."""
    tally: dict = {}
    for rule_p, chose, turn in zip(rules_predictions, chosen, turns):
        key = rule_p.rule or "(none)"
        row = tally.setdefault(key, [0, 0, 0, 0, 0])
        row[0] += 1
        if chose.text.strip() == rule_p.text.strip():
            continue
        row[1] += 1
        was, now = correct(rule_p.text, turn.gold), correct(chose.text, turn.gold)
        row[2 if now and not was else 3 if was and not now else 4] += 1
    body = sorted(((rule, n, o, won, lost, other, won - lost) for rule, (n, o, won, lost, other) in tally.items()),
                  key=lambda r: (-r[2], r[0]))
    table = Table("overrides", ("rule", "fired", "overridden", "won", "lost", "neither", "net"), tuple(body),
                  keep=("rule",))
    return table.first(top)


__all__ = ["overrides"]
