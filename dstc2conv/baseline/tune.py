"""Choose which response rules are enabled, and their priorities, to maximise
per-response accuracy on a validation file.

The state never depends on which response rule wins (see ``engine``), so every rule's
output on every turn is computed once (and turns with the same outputs, right or wrong,
counted together); an ordering is then scored by choosing (``engine.choose``), per turn,
among the rules that responded. The search is greedy coordinate ascent: for each rule,
try disabling (or enabling) it and moving it just above each rule it competes with; keep
the best improvement; repeat until a pass changes nothing or the time budget runs out.
State rules (``set``, ``mark``) are left as they are.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, replace

from .engine import Compiled, Turn, candidates, choose, correct, every_response_rule, looked_up
from .ruleset import Rule, RuleSet, rule_order


@dataclass(frozen=True)
class Tuned:
    before: float
    after: float
    rules: tuple[Rule, ...]          # all rules, file order, with new priority/enabled
    changes: tuple[str, ...]         # readable, one per changed rule


def _table(compiled: Compiled, turns: list[Turn]) -> tuple[list, int]:
    """The distinct rows {rule id: True/False (its output is right)} of the rules that
    respond on a turn, each with the number of turns that have it; and the number of turns."""
    rows: Counter = Counter()
    for turn, found in zip(turns, candidates(compiled, turns)):
        rows[tuple((rule_id, correct(text, turn.gold)) for rule_id, text in found.items())] += 1
    return [(dict(row), count) for row, count in rows.items()], len(turns)


def _accuracy(order: list[str], table: tuple[list, int]) -> float:
    rows, turns = table
    responders = looked_up(order)
    right = 0
    for row, count in rows:
        won = choose(responders, row)
        if won is not None and won[1]:
            right += count
    return right / turns if turns else 0.0


def tune(ruleset: RuleSet, turns: list[Turn], budget_seconds: float = 100.0, progress=None) -> Tuned:
    """``progress(round, accuracy, seconds)``, if given, is called after every round (round
    0: the rules as they are), with the best accuracy so far and the time since the start."""
    start = time.monotonic()
    everything = sorted(ruleset.rules, key=rule_order)
    responders = [r for r in everything if not r.updates_state]
    table = _table(Compiled(ruleset, order=every_response_rule(everything)), turns)
    order = [r.id for r in responders]                     # priority order, all rules
    enabled = {r.id: r.enabled for r in responders}
    active = lambda o: [i for i in o if enabled[i]]        # noqa: E731
    before = best = _accuracy(active(order), table)
    deadline = start + budget_seconds
    improved = True
    rounds = 0
    if progress:
        progress(rounds, best, time.monotonic() - start)
    while improved and time.monotonic() < deadline:
        improved = False
        rounds += 1
        for rule_id in list(order):
            # 1. toggle
            enabled[rule_id] = not enabled[rule_id]
            score = _accuracy(active(order), table)
            if score > best + 1e-12:
                best, improved = score, True
                continue
            enabled[rule_id] = not enabled[rule_id]
            # 2. move just above another rule
            here = order.index(rule_id)
            best_move = None
            for target in range(len(order)):
                if target == here:
                    continue
                trial = order[:here] + order[here + 1:]
                trial.insert(target if target < here else target - 1, rule_id)
                score = _accuracy(active(trial), table)
                if score > best + 1e-12:
                    best, best_move = score, trial
            if best_move is not None:
                order, improved = best_move, True
            if time.monotonic() > deadline:
                break
        if progress:
            progress(rounds, best, time.monotonic() - start)
    return Tuned(before, best, *_apply(ruleset, everything, order, enabled))


def _apply(ruleset: RuleSet, everything: list[Rule], order: list[str], enabled: dict) -> tuple:
    """New priorities that give ``order`` (spaced by 10, state rules kept on top)."""
    by_id = {r.id: r for r in ruleset.rules}
    top = max((r.priority for r in ruleset.rules), default=0)
    new = {}
    for rank, rule_id in enumerate(order):
        new[rule_id] = replace(by_id[rule_id], priority=10 * (len(order) - rank), enabled=enabled[rule_id])
    changes = []
    for rule in ruleset.rules:
        if rule.id not in new:
            new[rule.id] = replace(rule, priority=max(rule.priority, top) + 10 * len(order))
            continue
        old, now = rule, new[rule.id]
        if old.enabled != now.enabled:
            changes.append(f"{rule.id}: {'enabled' if now.enabled else 'disabled'}")
    old_rank = {r.id: i for i, r in enumerate(r for r in everything if not r.updates_state)}
    for rank, rule_id in enumerate(order):
        if old_rank[rule_id] != rank and enabled[rule_id]:
            changes.append(f"{rule_id}: rank {old_rank[rule_id] + 1} -> {rank + 1}")
    return tuple(new[r.id] for r in ruleset.rules), tuple(changes)


def write_tuned(source_text: str, ruleset: RuleSet, tuned: Tuned) -> str:
    """The rule file with the tuned priorities and enabled flags, comments kept."""
    lines = source_text.split("\n")
    starts = sorted(r.line for r in ruleset.rules)
    new = {r.id: r for r in tuned.rules}
    edits: dict[int, str] = {}
    inserts: dict[int, str] = {}
    for rule in ruleset.rules:
        end = next((s for s in starts if s > rule.line), len(lines) + 1)
        block = range(rule.line - 1, end - 1)
        target = new[rule.id]
        priority_at = next((i for i in block if _key(lines[i]) == "priority"), None)
        enabled_at = next((i for i in block if _key(lines[i]) == "enabled"), None)
        indent = _indent(lines[priority_at] if priority_at is not None else lines[rule.line - 1].replace("-", " ", 1))
        if priority_at is not None:
            edits[priority_at] = f"{indent}priority: {target.priority}"
        else:
            inserts[rule.line - 1] = f"{indent}priority: {target.priority}"
        if enabled_at is not None:
            edits[enabled_at] = f"{indent}enabled: {'true' if target.enabled else 'false'}"
        elif not target.enabled:
            at = priority_at if priority_at is not None else rule.line - 1
            inserts[at] = (inserts.get(at, "") + "\n" if at in inserts else "") + f"{indent}enabled: false"
    out = []
    for i, line in enumerate(lines):
        out.append(edits.get(i, line))
        if i in inserts:
            out.append(inserts[i])
    return "\n".join(out)


def _key(line: str) -> str | None:
    stripped = line.strip().lstrip("- ").strip()
    return stripped.split(":", 1)[0] if ":" in stripped else None


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
