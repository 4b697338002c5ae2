"""Run a rule set over task-6 dialogs: for each bot turn, track the state, then let the
first matching response rule predict the bot utterance.

At each bot turn the engine has seen everything before it: the user turns, the earlier
gold bot turns and the result lines of earlier api_calls. The state (``State``) is
updated in this order: (1) slot values the user mentions (the ontology's values and
synonyms); (2) the state rules (``set``), all that match, by priority; then a response
rule predicts; (3) the gold bot turn is observed: an api_call sets the slots it carries
and its result lines become the results; a turn naming a restaurant of the results
makes it the current one, offered. State rules may also raise flags (``mark``) that
stay raised for the rest of the dialog. The state never depends on which response rule
won, so a turn's candidate responses can be computed once and reordered freely (tune).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..task6 import NO_RESULT, SILENCE, Dialog, Exchange, is_api_call, read_dialogs
from .ruleset import FIELD_RE, SLOTS, Regex, Rule, RuleSet, search_bounded

TIMEOUT = 0.5    # seconds a condition's regular expression may take on one text

PLACEHOLDERS = {"food": "R_cuisine", "area": "R_location", "price": "R_price"}
ATTRIBUTE_OF = {"food": "R_cuisine", "area": "R_location", "price": "R_price"}
DONTCARE = "dontcare"


class State:
    """What the engine knows at a bot turn (mutable within one dialog only)."""
    __slots__ = ("food", "area", "price", "results", "offered", "current", "last_call", "called",
                 "prev_bot", "prev_matches", "said", "turn", "changed", "upcoming", "flags", "history")

    def __init__(self) -> None:
        self.food = self.area = self.price = None
        self.results: dict[str, dict[str, str]] = {}   # name -> attributes, R_rating included
        self.offered: set[str] = set()
        self.current: str | None = None
        self.last_call: str | None = None
        self.called = False
        self.prev_bot = ""
        self.prev_matches: frozenset = frozenset()  # patterns (regex sources) prev_bot matches
        self.said: set[str] = set()   # patterns (their regex sources) some earlier gold bot turn matched
        self.turn = 0
        self.changed = True            # the slots differ from the last api_call (set once per turn)
        self.upcoming: str | None = None  # next_offer(), set once per turn
        self.flags: set[str] = set()   # raised by state rules (``mark``), kept for the dialog
        self.history = ""              # the user turns so far, the current one included, one a line

    def slot(self, name: str):
        return getattr(self, name)

    def call_text(self) -> str:
        return "api_call " + " ".join(
            v if v not in (None, DONTCARE) else PLACEHOLDERS[s] for s, v in zip(SLOTS, self.values()))

    def values(self) -> tuple:
        return (self.food, self.area, self.price)

    def next_offer(self) -> str | None:
        """The highest-rated restaurant of the results not yet offered (ties: by name)."""
        best = None
        for name, attrs in self.results.items():
            if name in self.offered:
                continue
            key = (_rating(attrs), name)
            if best is None or key[0] > best[0] or key[0] == best[0] and name < best[1]:
                best = key
        return None if best is None else best[1]


def _rating(attrs: dict) -> int:
    try:
        return int(attrs.get("R_rating", "0"))
    except ValueError:
        return 0


@dataclass(frozen=True)
class Turn:
    """One bot turn to predict: its user utterance, gold bot utterance, and the context
    lines (results) that follow it."""
    dialog: int
    index: int           # bot turn number within the dialog, from 0
    line: int            # line number in the file (0 if unknown)
    user: str
    gold: str
    context: tuple[str, ...]


def turns_of(dialogs: list[Dialog]) -> list[Turn]:
    out = []
    for d, dialog in enumerate(dialogs):
        index = 0
        lines = dialog.lines
        for i, line in enumerate(lines):
            if not isinstance(line, Exchange):
                continue
            context = []
            for later in lines[i + 1:]:
                if isinstance(later, Exchange):
                    break
                context.append(later.text)
            out.append(Turn(d, index, dialog.start_line + i if dialog.start_line else 0, line.user, line.bot,
                            tuple(context)))
            index += 1
    return out


def read_turns(path: str | os.PathLike) -> list[Turn]:
    """The bot turns of a task-6 file; a file with no dialogs, or no bot turns, is an error."""
    turns = turns_of(read_dialogs(path))
    if not turns:
        raise Dstc2ConvError("no bot turns", os.fspath(path))
    return turns


# ---------------------------------------------------------------- conditions

def bounded(rx: Regex, memo: dict):
    """(cache, find) for a regular expression of a rule file: ``find(text)`` says whether
    it occurs in ``text``, searching with a time limit (TIMEOUT, twice; past it, the
    rule's problem is raised), and remembers it in ``cache`` (text -> bool), shared through
    ``memo`` by every condition with the same expression. Texts repeat a lot, and a
    look-up costs less than a search, let alone one with a time limit."""
    cache = memo.setdefault(rx.source, {})
    compiled = rx.compiled

    def find(text: str) -> bool:
        try:
            found = cache[text] = search_bounded(compiled, text, TIMEOUT) is not None
        except TimeoutError:
            raise rx.too_slow() from None
        return found
    return cache, find


def _test(key: str, value, served_foods: frozenset = frozenset(), memo: dict | None = None):
    """A predicate over (state, user, mentioned slots) for one condition."""
    memo = {} if memo is None else memo
    if key == "first_turn":
        return lambda s, u, m: (s.turn == 0) == value
    if key == "turn_at_least":
        return lambda s, u, m: s.turn >= value
    if key == "turn_at_most":
        return lambda s, u, m: s.turn <= value
    if key == "user_silent":
        return lambda s, u, m: (u == SILENCE) == value
    if key in ("user_words", "user_regex"):
        cache, find = bounded(value, memo)
        return lambda s, u, m: cache[u] if u in cache else find(u)
    if key == "user_not_regex":
        cache, find = bounded(value, memo)
        return lambda s, u, m: not (cache[u] if u in cache else find(u))
    if key == "said_before_regex":
        cache, find = bounded(value, memo)
        return lambda s, u, m: cache[s.history] if s.history in cache else find(s.history)
    if key == "marked":
        wanted = frozenset(value)
        return lambda s, u, m: wanted <= s.flags
    if key == "not_marked":
        wanted = frozenset(value)
        return lambda s, u, m: wanted.isdisjoint(s.flags)
    if key == "user_mentions":
        wanted = set(value)
        return lambda s, u, m: not wanted.isdisjoint(m)
    if key == "user_mentions_none":
        return lambda s, u, m: (not m) == value
    if key == "prev_bot":
        keys = frozenset(p.pattern for p in value)
        return lambda s, u, m: not keys.isdisjoint(s.prev_matches)
    if key == "prev_bot_not":
        keys = frozenset(p.pattern for p in value)
        return lambda s, u, m: keys.isdisjoint(s.prev_matches)
    if key == "said":
        keys = frozenset(p.pattern for p in value)
        return lambda s, u, m: not keys.isdisjoint(s.said)
    if key == "not_said":
        keys = frozenset(p.pattern for p in value)
        return lambda s, u, m: keys.isdisjoint(s.said)
    if key == "prev_bot_regex":
        cache, find = bounded(value, memo)
        return lambda s, u, m: cache[s.prev_bot] if s.prev_bot in cache else find(s.prev_bot)
    if key == "filled":
        return lambda s, u, m: all(getattr(s, x) not in (None, DONTCARE) for x in value)
    if key == "unfilled":
        return lambda s, u, m: all(getattr(s, x) in (None, DONTCARE) for x in value)
    if key == "known":
        return lambda s, u, m: all(getattr(s, x) is not None for x in value)
    if key == "missing":
        return lambda s, u, m: all(getattr(s, x) is None for x in value)
    if key == "dontcare":
        return lambda s, u, m: all(getattr(s, x) == DONTCARE for x in value)
    if key == "state_changed":
        return lambda s, u, m: s.changed == value
    if key == "called":
        return lambda s, u, m: s.called == value
    if key == "has_results":
        return lambda s, u, m: bool(s.results) == value
    if key == "remaining":
        return lambda s, u, m: (s.upcoming is not None) == value
    if key == "has_current":
        return lambda s, u, m: (s.current is not None) == value
    if key == "food_served":
        served = served_foods
        return lambda s, u, m: (s.food in served) == value
    raise KeyError(key)  # unreachable: conditions are validated when the rules load


def _name_regex(template: str):
    """A pattern as a regex that captures its {name} (other fields: one token each)."""
    import regex

    out, named = [], False
    for i, part in enumerate(FIELD_RE.split(template)):
        if i % 2 == 0:
            out.append(regex.escape(part))
        elif part == "name" and not named:
            out.append(r"(?P<name>\S+)")
            named = True
        elif part == "name":
            out.append(r"(?P=name)")
        else:
            out.append(r"\S+")
    return regex.compile("".join(out) + r"\Z")


class Compiled:
    """A rule set turned into predicates and renderers, in priority order."""

    def __init__(self, ruleset: RuleSet, order: list[Rule] | None = None):
        self.ruleset = ruleset
        rules = order if order is not None else ruleset.ordered()
        served = ruleset.ontology.served
        memo: dict = {}    # what each regex found, per text
        self.state_rules = [(r, [_test(k, v, served, memo) for k, v in r.when]) for r in rules if r.updates_state]
        self.response_rules = [(r, [_test(k, v, served, memo) for k, v in r.when])
                               for r in rules if not r.updates_state]
        self.ontology = ruleset.ontology
        self.namers = [_name_regex(t) for t in ruleset.patterns.values() if "{name}" in t]
        # the patterns that `said`, `not_said`, `prev_bot`, `prev_bot_not` test, and, per
        # distinct bot utterance, which of them it matches (utterances repeat a lot)
        self.markers = sorted({p.pattern: p for r in rules for k, v in r.when
                               if k in ("said", "not_said", "prev_bot", "prev_bot_not") for p in v}.items())
        self._matches: dict[str, frozenset] = {}

    def observe(self, state: State, turn: Turn) -> None:
        """Update the state with the gold bot turn (see ``observe``) and note the
        patterns it matches, for the ``said`` conditions."""
        matches = self._matches.get(turn.gold)
        if matches is None:
            matches = frozenset(key for key, pattern in self.markers if pattern.match(turn.gold))
            self._matches[turn.gold] = matches
        state.said |= matches
        state.prev_matches = matches
        observe(state, turn)
        if not is_api_call(turn.gold) and state.current not in turn.gold.split():
            # a restaurant outside the results: recognise it by the patterns that name one
            gold = turn.gold.strip()
            for namer in self.namers:
                found = namer.match(gold)
                if found:
                    state.current = found.group("name")
                    state.offered.add(state.current)
                    break

    def render(self, rule: Rule, state: State) -> str | None:
        """The rule's response in this state, or None when a field cannot be filled."""
        if rule.api_call:
            return state.call_text()
        template = self.ruleset.patterns[rule.say]
        if "{" not in template:
            return template
        restaurant = None
        if rule.offer:
            restaurant = state.upcoming
            if restaurant is None:
                return None
        elif "{name}" in template:
            restaurant = state.current
            if restaurant is None:
                return None
        fields = {}
        if restaurant is not None:
            attrs = state.results.get(restaurant, {})
            fields["name"] = restaurant
            for slot, attribute in ATTRIBUTE_OF.items():
                fields[slot] = attrs.get(attribute)
        else:
            for slot in SLOTS:
                value = getattr(state, slot)
                fields[slot] = None if value == DONTCARE else value
        if any(fields.get(field) is None for field in FIELD_RE.findall(template)):
            return None
        return template.format(**fields)

    def mentions(self, user: str, state: State) -> set[str]:
        mentioned = set()
        for match in self.ontology.matcher.finditer(user):
            slot, value = self.ontology.phrases[match.group(1)]
            setattr(state, slot, value)
            mentioned.add(slot)
        return mentioned

    def before_response(self, state: State, user: str) -> set[str]:
        mentioned = self.mentions(user, state)
        state.history += user + "\n"
        for rule, tests in self.state_rules:
            for test in tests:
                if not test(state, user, mentioned):
                    break
            else:
                for slot, value in rule.set:
                    setattr(state, slot, value)
                state.flags.update(rule.mark)
        state.changed = state.call_text() != state.last_call
        state.upcoming = state.next_offer()
        return mentioned


def observe(state: State, turn: Turn) -> None:
    """Update the state with the gold bot turn and its result lines."""
    gold = turn.gold
    if is_api_call(gold) and gold != NO_RESULT:
        parts = gold.split()[1:]
        if len(parts) == 3:
            for slot, value in zip(SLOTS, parts):
                if value != PLACEHOLDERS[slot]:
                    setattr(state, slot, value)
                elif getattr(state, slot) != DONTCARE:
                    setattr(state, slot, None)
        state.last_call = gold
        state.called = True
        state.results = {}
        state.offered = set()
        state.current = None
        for text in turn.context:
            parts = text.split()
            if len(parts) == 3 and parts[1].startswith("R_"):
                state.results.setdefault(parts[0], {})[parts[1]] = parts[2]
    else:
        for token in gold.split():
            if token in state.results:
                state.current = token
                state.offered.add(token)
                break
    state.prev_bot = gold
    state.turn += 1


@dataclass(frozen=True)
class Prediction:
    text: str
    rule: str | None      # id of the rule that fired; None: no rule matched


NOTHING = Prediction("", None)


def predict(compiled: Compiled, turns: list[Turn]) -> list[Prediction]:
    """The first matching response rule's output for every turn."""
    out = []
    state = None
    dialog = -1
    response_rules = compiled.response_rules
    render = compiled.render
    for turn in turns:
        if turn.dialog != dialog:
            state, dialog = State(), turn.dialog
        user = turn.user
        mentioned = compiled.before_response(state, user)
        prediction = NOTHING
        for rule, tests in response_rules:
            for test in tests:
                if not test(state, user, mentioned):
                    break
            else:
                text = render(rule, state)
                if text is not None:
                    prediction = Prediction(text, rule.id)
                    break
        out.append(prediction)
        compiled.observe(state, turn)
    return out


def candidates(compiled: Compiled, turns: list[Turn]) -> list[list[tuple[str, str]]]:
    """For every turn, every response rule that matches, with its output, in rule order."""
    out = []
    state = None
    dialog = -1
    for turn in turns:
        if turn.dialog != dialog:
            state, dialog = State(), turn.dialog
        mentioned = compiled.before_response(state, turn.user)
        found = []
        for rule, tests in compiled.response_rules:
            if all(t(state, turn.user, mentioned) for t in tests):
                text = compiled.render(rule, state)
                if text is not None:
                    found.append((rule.id, text))
        out.append(found)
        compiled.observe(state, turn)
    return out


def correct(prediction: str, gold: str) -> bool:
    return prediction.strip() == gold.strip()


__all__ = ["State", "Turn", "turns_of", "read_turns", "Compiled", "Prediction", "predict", "candidates", "observe",
           "correct"]
