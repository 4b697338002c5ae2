"""`rules check`: a rule set's problems on data files: rules that never fire, and rules
that match only where a higher-priority rule already answers (on all the files given)."""
from __future__ import annotations

from collections import Counter

from ...task6.turns import BotTurn
from .engine import Compiled, candidates, choose, every_response_rule, looked_up
from .problems import Problem, count
from .ruleset import RuleSet, rule_order


def find_problems(ruleset: RuleSet, files: list[list[BotTurn]]) -> list[Problem]:
    """The problems of the rules on the turns of ``files`` (one list of turns per file)."""
    everything = sorted(ruleset.rules, key=rule_order)
    compiled = Compiled(ruleset, order=every_response_rule(everything))
    enabled = looked_up(r.id for r in everything if r.enabled and not r.updates_state)
    matched: Counter = Counter()
    won: Counter = Counter()
    winners: dict[str, Counter] = {}
    for found in (found for turns in files for found in candidates(compiled, turns)):
        chosen = choose(enabled, found)
        winner = chosen[0] if chosen else None
        for rule_id in found:
            matched[rule_id] += 1
            if rule_id == winner:
                won[rule_id] += 1
            elif winner is not None:
                winners.setdefault(rule_id, Counter())[winner] += 1
    findings = []
    for rule in ruleset.rules:
        if rule.updates_state:
            continue
        if not rule.enabled:
            continue
        if matched[rule.id] == 0:
            findings.append(Problem(ruleset.path, rule.line, "never fires on this data", rule.id))
        elif won[rule.id] == 0:
            by = ", ".join(f"{w} ({n})" for w, n in winners[rule.id].most_common(3))
            findings.append(Problem(ruleset.path, rule.line, f"always shadowed: matches {count(matched[rule.id], 'turn')}, "
                                                             f"each answered first by {by}", rule.id))
    return findings
