"""Choose which response rules are enabled, and their priorities, to maximise an
objective on a validation file: per-response accuracy over all its turns, or the mean,
or the lowest, of its dialog systems' per-response accuracies.

The state never depends on which response rule wins (see ``engine``), so every rule's
output on every turn is computed once; an ordering is then scored by choosing
(``engine.choose``), per turn, among the rules that responded. The search is greedy
coordinate ascent: for each rule, try disabling (or enabling) it and moving it just above
each rule it competes with; keep the best improvement; repeat until a pass changes
nothing or the time budget runs out. Turns in the same situation (the same rules
respond, right or wrong alike, in the same system) are counted once. State rules
(``set``, ``mark``) are left as they are, and so is every priority the new order does
not need changed (see ``_priorities``).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...errors import Dstc2ConvError
from ...evaluate.responses import Score, by_system, correct
from ...evaluate.tables import percent
from ...reporter import progress
from ...task6.turns import BotTurn
from .engine import Compiled, candidates, choose, every_response_rule, looked_up
from .objectives import OBJECTIVES
from .objectives import value as _value
from .ruleset import Rule, RuleSet, load_rules, rule_order


@dataclass(frozen=True)
class Tuned:
    before: float                    # the objective, before and after
    after: float
    rules: tuple[Rule, ...]          # all rules, file order, with new priority/enabled
    changes: tuple[str, ...]         # readable, one per changed rule
    order: tuple[str, ...] = ()      # the response rules' ids in their new order (disabled ones too)
    objective: str = "overall"
    systems_before: tuple[tuple[str, Score], ...] = ()   # per dialog system, when they are known
    systems_after: tuple[tuple[str, Score], ...] = ()
    rounds: int = 0
    converged: bool = True           # False: the time budget ended the search


def _table(compiled: Compiled, turns: list[BotTurn], groups: list[int]) -> tuple[dict, list]:
    """The turns' distinct situations, ``{(matched, group): turns}`` where ``matched`` is
    ``((rule id, its output is right), ...)`` for every rule that responded; and each turn's."""
    counts: dict = {}
    keys = []
    for turn, group, found in zip(turns, groups, candidates(compiled, turns)):
        key = (tuple((rule_id, correct(text, turn.gold)) for rule_id, text in found.items()), group)
        counts[key] = counts.get(key, 0) + 1
        keys.append(key)
    return counts, keys


def _hit(matched: tuple, responders: list) -> bool:
    """Whether the response chosen among ``matched`` by ``responders`` (``looked_up``) is right."""
    won = choose(responders, dict(matched))
    return won is not None and won[1]


def _active(order: list[str], enabled: dict) -> list:
    """Responders for the enabled rules of ``order``, in that order (see ``_hit``)."""
    return looked_up([rule_id for rule_id in order if enabled[rule_id]])


def _progress(rounds: int, best: float, objective: str, start: float) -> None:
    progress(f"tune: round {rounds}: {percent(best)} {OBJECTIVES[objective]}, {time.monotonic() - start:.0f} s")


def tune(ruleset: RuleSet, turns: list[BotTurn], budget_seconds: float = 100.0,
         systems: Sequence[str] | None = None, objective: str = "overall") -> Tuned:
    """Maximise ``objective`` on ``turns``: ``overall``, per-response accuracy over all
    turns; ``mean-system``, the mean of the dialog systems' per-response accuracies;
    ``worst-system``, the lowest of them. ``systems``: one per dialog of the file
    (``Sessions.systems``), needed by the last two; with it the scores per system are
    given too. After every round (round 0: the rules as they are) a progress line gives the
    best value so far and the time since the start (``dstc2conv.reporter``)."""
    _check_tune(turns, systems, objective)
    start = time.monotonic()
    names, groups = _groups(turns, systems)
    everything = sorted(ruleset.rules, key=rule_order)
    responders = [r for r in everything if not r.updates_state]
    table, keys = _table(Compiled(ruleset, order=every_response_rule(everything)), turns, groups)
    value = _Objective(objective, table, [groups.count(g) for g in range(len(names))])
    order = [r.id for r in responders]                     # priority order, all rules
    enabled = {r.id: r.enabled for r in responders}
    systems_before = _scores(keys, turns, systems, _active(order, enabled))
    before = best = value(order, enabled)
    deadline = start + budget_seconds
    rounds, converged = 0, False
    _progress(rounds, best, objective, start)
    while not converged and time.monotonic() < deadline:
        rounds += 1
        order, best, improved, complete = _round(order, enabled, best, value, deadline)
        converged = complete and not improved
        _progress(rounds, best, objective, start)
    rules, changes = _apply(ruleset, responders, order, enabled)
    return Tuned(before, best, rules, changes, tuple(order), objective, systems_before,
                 _scores(keys, turns, systems, _active(order, enabled)), rounds, converged)


def _check_tune(turns: list[BotTurn], systems: Sequence[str] | None, objective: str) -> None:
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}")
    if objective != "overall" and systems is None:
        raise Dstc2ConvError(f"the {objective} objective needs to know each dialog's system: "
                             "give the build's manifest (--manifest)")
    if not turns:
        raise Dstc2ConvError("no bot turns to tune on")


def _groups(turns: list[BotTurn], systems: Sequence[str] | None) -> tuple[list[str], list[int]]:
    """The dialog systems' names, sorted (``all`` without them), and each turn's index among them."""
    if systems is None:
        return ["all"], [0] * len(turns)
    names = sorted({systems[t.dialog] for t in turns})
    return names, [names.index(systems[t.dialog]) for t in turns]


class _Objective:
    """The objective's value for an order of the response rules and their enabled flags,
    counted on the table of situations (see ``_table``)."""

    def __init__(self, objective: str, table: dict, totals: list[int]):
        self.objective = objective
        self.table = table
        self.totals = totals

    def __call__(self, order: list[str], enabled: dict) -> float:
        active = _active(order, enabled)
        right = [0] * len(self.totals)
        for (matched, group), count in self.table.items():
            if _hit(matched, active):
                right[group] += count
        return _value(self.objective, right, self.totals)


def _scores(keys: list, turns: list[BotTurn], systems: Sequence[str] | None,
            active: list) -> tuple[tuple[str, Score], ...]:
    """The score per dialog system of the responders ``active``; none without the systems."""
    if systems is None:
        return ()
    return tuple(by_system([_hit(matched, active) for matched, _ in keys], turns, systems).items())


def _round(order: list[str], enabled: dict, best: float, value: _Objective,
           deadline: float) -> tuple[list[str], float, bool, bool]:
    """One pass over the response rules: for each, keep toggling it if that improves the
    objective, else the best move just above another rule. ``enabled`` is changed in
    place; the new order, the best value, whether it improved, and whether the pass was
    complete (not stopped by the ``deadline``)."""
    improved = False
    for rule_id in list(order):
        if time.monotonic() > deadline:
            return order, best, improved, False
        # 1. toggle
        enabled[rule_id] = not enabled[rule_id]
        score = value(order, enabled)
        if score > best + 1e-12:
            best, improved = score, True
            continue
        enabled[rule_id] = not enabled[rule_id]
        # 2. move just above another rule
        best_move, best = _best_move(order, rule_id, enabled, best, value)
        if best_move is not None:
            order, improved = best_move, True
    return order, best, improved, True


def _best_move(order: list[str], rule_id: str, enabled: dict, best: float,
               value: _Objective) -> tuple[list[str] | None, float]:
    """The order with ``rule_id`` moved just above another rule that beats ``best`` the
    most (None if no move does), and its value."""
    here = order.index(rule_id)
    best_move = None
    for target in range(len(order)):
        if target == here:
            continue
        trial = order[:here] + order[here + 1:]
        trial.insert(target if target < here else target - 1, rule_id)
        score = value(trial, enabled)
        if score > best + 1e-12:
            best, best_move = score, trial
    return best_move, best


def _apply(ruleset: RuleSet, responders: list[Rule], order: list[str], enabled: dict) -> tuple:
    """The rules with the priorities that give ``order`` (see ``_priorities``) and the
    enabled flags; and the changes, readable."""
    priorities = _priorities(responders, order)
    rank = {r.id: i for i, r in enumerate(responders)}
    by_id = {r.id: r for r in ruleset.rules}
    changes = []
    for i, rule_id in enumerate(order):
        old = by_id[rule_id]
        said = []
        if old.enabled != enabled[rule_id]:
            said.append("enabled" if enabled[rule_id] else "disabled")
        if old.priority != priorities[rule_id]:
            said.append(f"priority {old.priority} -> {priorities[rule_id]} (rank {rank[rule_id] + 1} -> {i + 1})")
        if said:
            changes.append(f"{rule_id}: {', '.join(said)}")
    rules = tuple(replace(r, priority=priorities[r.id], enabled=enabled[r.id]) if r.id in enabled else r
                  for r in ruleset.rules)
    return rules, tuple(changes)


def _priorities(old: list[Rule], order: list[str]) -> dict[str, int]:
    """Priorities that put the rules ``old`` (in their present order) in ``order``,
    changing as few as possible. The most rules that can keep theirs do: two of them
    can when they are in order and the rules moved between them fit between them. Each
    run of the others gets priorities spread between its new neighbours', or above or
    below them at the ends; where there are too few numbers between, equal ones where
    the file order breaks the tie (``rule_order``)."""
    by_id = {r.id: r for r in old}
    seq = [by_id[rule_id] for rule_id in order]
    n = len(seq)

    def pack(i: int, j: int) -> list[int] | None:
        """The highest priorities for seq[i+1:j] below seq[i]'s; None if they do not
        stay above seq[j] (both keep theirs)."""
        p, index, out = seq[i].priority, seq[i].index, []
        for rule in seq[i + 1:j]:
            p = p if rule.index > index else p - 1
            index = rule.index
            out.append(p)
        return out if (-p, index) < rule_order(seq[j]) else None

    # kept[j]: (how many rules keep their priority up to seq[j], the one before it), j = n: the end
    kept: dict[int, tuple[int, int | None]] = {-1: (0, None)}
    for j in range(n + 1):
        for i, (count, _) in list(kept.items()):
            if (i == -1 or j == n or pack(i, j) is not None) and (j not in kept or count + 1 > kept[j][0]):
                kept[j] = (count + 1, i)
    keep = []
    at = kept[n][1]
    while at != -1:
        keep.append(at)
        at = kept[at][1]
    out = {rule.id: rule.priority for rule in seq}
    bounds = [-1, *sorted(keep), n]       # at least one rule keeps its priority
    for i, j in zip(bounds, bounds[1:]):
        run = seq[i + 1:j]
        if not run:
            continue
        if i == -1:
            values = [seq[j].priority + 10 * (len(run) - k) for k in range(len(run))]
        elif j == n:
            values = [seq[i].priority - 10 * (k + 1) for k in range(len(run))]
        else:
            gap = seq[i].priority - seq[j].priority
            values = [seq[i].priority - (k + 1) * gap // (len(run) + 1) for k in range(len(run))] \
                if gap > len(run) else pack(i, j)
        out.update((rule.id, p) for rule, p in zip(run, values))
    return out


def write_tuned(source_text: str, ruleset: RuleSet, tuned: Tuned) -> str:
    """The rule file (``source_text``, the file ``ruleset`` was loaded from) with the tuned
    priorities and enabled flags, comments kept: only the values that changed are
    rewritten, in place (a tune that changes nothing gives the same text); a key a rule
    lacks goes on a line of its own after its ``id``. A rule that needs a change but is
    not written one key a line (flow style, or the value not alone on its key's line) is
    refused. The text is loaded back (from ``ruleset.path``'s folder) before it is
    given: Dstc2ConvError unless every rule reads with its tuned priority and flag."""
    lines = source_text.split("\n")
    new = {r.id: r for r in tuned.rules}
    edits: dict[int, list] = {}        # line index -> [(first column, end column, new value)]
    inserts: dict[int, list] = {}      # line index -> lines to insert after it
    for rule in ruleset.rules:
        target = new[rule.id]
        wanted = [(key, value) for key, value, old in (("priority", str(target.priority), rule.priority),
                                                       ("enabled", str(target.enabled).lower(), rule.enabled))
                  if getattr(target, key) != old]
        if not wanted:
            continue
        written = rule.written
        for key, value in wanted:
            where = _where(rule, key, ruleset.path)
            if written.has(key):
                line, start, end = where
                edits.setdefault(line - 1, []).append((start, end, value))
            else:
                line = where[0]
                ending = "\r" if lines[line - 1].endswith("\r") else ""
                inserts.setdefault(line - 1, []).append(f"{' ' * written.indent}{key}: {value}{ending}")
    out = []
    for i, line in enumerate(lines):
        for start, end, value in sorted(edits.get(i, ()), reverse=True):
            line = line[:start] + value + line[end:]
        out.append(line)
        out.extend(inserts.get(i, ()))
    text = "\n".join(out)
    _check_written(text, ruleset.path, tuned)
    return text


def _where(rule: Rule, key: str, path: str) -> tuple[int, int, int]:
    """Where ``key``'s value is, or for a key the rule lacks, where its ``id`` is (the
    new key goes on the next line); Dstc2ConvError when it cannot be rewritten in place."""
    written = rule.written
    if written is None:
        raise Dstc2ConvError(f"cannot rewrite rule {rule.id!r} in place: where it is written is not known", path)
    if not written.block:
        raise Dstc2ConvError(f"cannot rewrite rule {rule.id!r} in place: it is written in flow style "
                             f"({{id: ..., ...}}); write it one key a line to tune it", path, rule.line)
    at = written.value(key) if written.has(key) else written.value("id")
    if at is None:
        which = key if written.has(key) else "id"
        raise Dstc2ConvError(f"cannot rewrite rule {rule.id!r} in place: its {which!r} is not a plain value on "
                             f"the line of its key; write it so to tune it", path, rule.line)
    return at


def _check_written(text: str, path: str, tuned: Tuned) -> None:
    """Load ``text`` as the rule file at ``path``: every rule must have its tuned priority
    and enabled flag."""
    try:
        loaded = load_rules(path, text)
    except Dstc2ConvError as exc:
        first = Dstc2ConvError(exc.message, exc.path, exc.line, exc.rule_id)     # a RuleFileError's first problem
        raise Dstc2ConvError(f"the tuned rule file would not load ({first}): nothing written", path) from None
    got = {r.id: (r.priority, r.enabled) for r in loaded.rules}
    for rule in tuned.rules:
        if got.get(rule.id) != (rule.priority, rule.enabled):
            found = got.get(rule.id)
            raise Dstc2ConvError(f"the tuned rule file would read rule {rule.id!r} with "
                                 f"{'no such rule' if found is None else f'priority {found[0]}, enabled {found[1]}'},"
                                 f" not priority {rule.priority}, enabled {rule.enabled}: nothing written", path)
