"""What the chooser sees of a bot turn, from the rules' run over the dialog so far: the turn's
features (the user's words, the slots, the flags, the results, the previous two bot
turns' templates, the kinds of response said so far, the turn's position, the rules that
propose a response), every rule's proposal
with the action it is, and what each source can fill (the action mask)."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from ...evaluate.response_kinds import kind_of
from ...task6.format import SILENCE
from ...task6.vocabulary import DONTCARE
from .actions import FIELDS, Action, Delexer, available, fill

_WORD = re.compile(r"[a-z0-9']+")
_TURN_BUCKETS = (0, 1, 2, 3, 4, 6, 10, 15)
NONE = Action("", "")     # no action: a text its template does not give back


@dataclass(frozen=True)
class Proposal:
    rule: str
    text: str
    action: Action


@dataclass(frozen=True)
class TurnView:
    """One bot turn as the chooser sees it."""
    features: tuple[str, ...]          # the turn's features (names)
    proposals: tuple[Proposal, ...]    # every applicable rule's response, in rule order
    available: tuple[int, ...]         # per source, what it can fill (actions.available)
    gold: str                          # the gold bot turn (stripped)
    gold_action: Action                # the gold as an action here
    prev_action: Action | None         # the previous gold bot turn as an action
    missed: int = 0                    # the dialog's earlier bot turns the rules' choice got wrong (0, 1, 2: 2 or more)


def _bucket(turn: int) -> int:
    return max(b for b in _TURN_BUCKETS if b <= turn)


def turn_features(state, user: str, mentioned: set, found: dict, prev: Action | None,
                  names: dict | None = None) -> tuple[str, ...]:
    """The names of the turn's features (``found``: the proposals, rule id -> response;
    ``names``: the rule file's pattern names by their regex, for the patterns the previous
    bot turn matched: coarser than its template, they hold across the systems' wordings)."""
    out = ["bias", f"turn:{_bucket(state.turn)}"]
    if user.strip() == SILENCE:
        out.append("silent")
    else:
        words = _WORD.findall(user.lower())
        out.extend(f"w:{w}" for w in dict.fromkeys(words))
        out.extend(f"w2:{a}_{b}" for a, b in dict.fromkeys(zip(words, words[1:])))
    for field in FIELDS:
        value = getattr(state, field)
        out.append(f"slot:{field}:{'unset' if value is None else 'dontcare' if value == DONTCARE else 'set'}")
        if field in mentioned:
            out.append(f"said:{field}")
    out.extend(f"flag:{flag}" for flag in sorted(state.flags))
    out.append(f"called:{int(state.called)}")
    if state.called:
        out.append(f"results:{int(bool(state.results))}")
        out.append(f"remaining:{int(state.upcoming is not None)}")
    out.append(f"current:{int(state.current is not None)}")
    out.append(f"changed:{int(state.changed)}")
    last = "-" if prev is None else prev.key
    out.append("prev:" + last)
    if names is not None:
        out.extend(sorted(f"prevpat:{names.get(p, p)}" for p in state.prev_matches))
    # the previous response with what the user did after it: silence, which slots named
    out.append(f"prev&{'silent' if user.strip() == SILENCE else 'said:' + '+'.join(sorted(mentioned))}:{last}")
    rules = list(found)
    if rules:
        out.append(f"top:{rules[0]}")
        out.append(f"top&prev:{rules[0]}:{last}")
    out.extend(f"rule:{r}" for r in rules)
    return tuple(out)


class Viewer:
    """Builds the turns' views of one compiled rule set, dialog by dialog: ``view`` at a
    bot turn (the engine's state after the user turn), ``observed`` once its gold is known."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.spaced = compiled.spaced
        self.delex = Delexer(compiled)
        self.prev: Action | None = None
        self.last = self.before_prev = "-"   # the last bot turns' templates ("?": none fits)
        self.kinds: Counter = Counter()      # the kinds of response the dialog's bot turns have had so far
        self.missed = 0                      # the dialog's bot turns so far the rules' choice got wrong
        self._kind: dict = {}                # gold bot turn -> its kind (they repeat a lot)
        from ..rules.conditions import pattern_regex

        self.names = {pattern_regex(t).pattern: name for name, t in compiled.ruleset.patterns.items()}

    def reset(self) -> None:
        self.prev = None
        self.last = self.before_prev = "-"
        self.kinds = Counter()
        self.missed = 0

    def history(self) -> tuple[str, ...]:
        """The features of the dialog so far: the template of the bot turn before the
        previous one, and how many times (1, 2, 3 or more) each kind of response was said."""
        return (f"prev2:{self.before_prev}", *(f"sofar:{kind}:{min(n, 3)}" for kind, n in sorted(self.kinds.items())),
                f"missed:{min(self.missed, 2)}")

    def view(self, state, user: str, mentioned: set, found: dict) -> TurnView:
        """The turn's view before its gold is known (``gold`` empty): what a choice sees."""
        features = turn_features(state, user, mentioned, found, self.prev, self.names) + self.history()
        props = []
        for rule, text in found.items():
            action = self.delex(text, state)
            if fill(self.spaced, action, state) != text.strip():
                action = NONE          # a response no state fills back from its template
            props.append(Proposal(rule, text.strip(), action))
        return TurnView(features, tuple(props), available(state), "", NONE, self.prev, min(self.missed, 2))

    def observed(self, view: TurnView, state, gold: str) -> TurnView:
        """The view with its gold (``state``: the state the view was made in, before the
        gold is observed), what training learns from; the gold becomes the next turn's
        previous action."""
        gold = gold.strip()
        action = self.delex(gold, state)
        if fill(self.spaced, action, state) != gold:
            action = NONE       # not an action any state fills back to the gold
        self.prev = action if action.template else None
        self.before_prev, self.last = self.last, action.key if action.template else "?"
        kind = self._kind.get(gold)
        if kind is None:
            if len(self._kind) > Delexer.LIMIT:
                self._kind.clear()
            kind = self._kind[gold] = kind_of(gold)
        self.kinds[kind] += 1
        self.missed += (view.proposals[0].text if view.proposals else "") != gold
        return replace(view, gold=gold, gold_action=action)


__all__ = ["NONE", "Proposal", "TurnView", "Viewer", "turn_features"]
