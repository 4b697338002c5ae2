"""Run a rule set over task-6 dialogs: for each bot turn, track the state, then let the
first matching response rule that renders predict the bot utterance (``choose``).

At each bot turn the engine has seen everything before it: the user turns, the earlier
gold bot turns and the result lines of earlier api_calls. The state (``State``) is
updated in this order: (1) slot values the user mentions (the ontology's values and
synonyms); (2) the state rules (``set``), all that match, by priority; then a response
rule predicts; (3) the gold bot turn is observed: an api_call sets the slots it carries
and its result lines become the results; a turn naming a restaurant of the results
makes it the current one, offered. State rules may also raise flags (``mark``) that
stay raised for the rest of the dialog. The state never depends on which response rule
won, so a turn's candidate responses can be computed once and reordered freely (tune).

The slots are the ontology's (``RuleOntology.slots``: task 6's food, area and price by
default; bAbI tasks 1-5's cuisine, location, number and price), in the order an api_call
writes them. Result lines before a dialog's first exchange (bAbI tasks 3 and 4) are the
results from the start (``preface``). A state rule with ``take_named`` makes the
restaurant of the results that the user turn names the current one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from operator import methodcaller

from ...task6.format import NO_RESULT, RATING, Fact, is_api_call
from ...task6.turns import BotTurn
from ...task6.vocabulary import DONTCARE
from .conditions import EMPTY, FIELD_RE, Env, pattern_regex, predicates
from .ruleset import TASK6_SLOTS, Rule, RuleSet


class State:
    """What the engine knows at a bot turn (mutable within one dialog only). The slots
    are attributes named as rule files name them (``order``: the ontology's slots, task
    6's food, area and price by default; none of them is named as the other attributes
    are, ``ruleset.NOT_SLOTS``)."""
    __slots__ = ("order", "results", "offered", "offers", "current", "last_call", "called",
                 "prev_bot", "prev_matches", "said", "turn", "changed", "upcoming", "flags", "history", "wording",
                 "__dict__")

    def __init__(self, slots: tuple = TASK6_SLOTS) -> None:
        self.order = slots             # ruleset.RuleSlot, in the order an api_call writes them
        for slot in slots:
            setattr(self, slot.name, None)
        self.results: dict[str, dict[str, str]] = {}   # name -> attributes, R_rating included
        self.offered: set[str] = set()
        self.offers: list[str] = []    # the restaurants named by bot turns since the last call, first named first
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
        self.wording: str | None = None  # the pattern with {name} that prev_bot matches (say: {like: prev_bot})

    def call_text(self) -> str:
        return "api_call " + " ".join(
            v if v not in EMPTY else slot.attribute for slot, v in zip(self.order, self.values()))

    def values(self) -> tuple:
        return tuple(getattr(self, slot.name) for slot in self.order)

    def first_missing(self) -> str | None:
        """The first slot, in the ontology's order, that is unset (None: none is)."""
        for slot in self.order:
            if getattr(self, slot.name) is None:
                return slot.name
        return None

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
        return int(attrs.get(RATING, "0"))
    except ValueError:
        return 0


# ---------------------------------------------------------------- rules

class Compiled:
    """A rule set turned into predicates and renderers, in priority order: ``state_rules``
    (rule, tests) and ``responders`` (rule, respond): ``respond(state, user, mentioned)``
    is the rule's response, or None when a condition fails or a field cannot be filled."""

    def __init__(self, ruleset: RuleSet, order: list[Rule] | None = None):
        self.ruleset = ruleset
        rules = order if order is not None else ruleset.ordered()
        env = Env(ruleset.ontology.served)
        self.state_rules = [(r, predicates(r.when, env)) for r in rules if r.updates_state]
        self.responders = [(r, self._responder(r, predicates(r.when, env))) for r in rules if not r.updates_state]
        self.ontology = ruleset.ontology
        self.slots = ruleset.ontology.slots
        self.spaced = dict(ruleset.ontology.spaced)
        named = [(name, t) for name, t in ruleset.patterns.items() if "{name}" in t]
        self.namers = [pattern_regex(t, named=True) for _, t in named]
        self.wordings = [(name, pattern_regex(t)) for name, t in named]
        # the patterns conditions test gold bot turns against (prev_bot, bot_said_before);
        # per distinct bot utterance (they repeat a lot), which of them it matches, and its wording
        self.markers = sorted(env.watched.items())
        self._seen: dict[str, tuple] = {}
        self._named: dict[str, str | None] = {}
        self._mentioned: dict[str, tuple] = {}   # user turn -> the (slot, value) pairs it names

    def _responder(self, rule: Rule, tests: tuple):
        render = self.render

        def respond(state, user, mentioned):
            for test in tests:
                if not test(state, user, mentioned):
                    return None
            return render(rule, state)
        return respond

    def new_state(self) -> State:
        """The state at the start of a dialog, with the ontology's slots."""
        return State(self.slots)

    def preface(self, state: State, lines: tuple[str, ...]) -> None:
        """The result lines before a dialog's first exchange become its results (bAbI
        tasks 3 and 4 give their restaurants' facts there, with no api_call)."""
        for text in lines:
            fact = Fact.match(text)
            if fact is not None:
                state.results.setdefault(fact.name, {})[fact.attribute] = fact.value

    def observe(self, state: State, turn: BotTurn) -> None:
        """Update the state with the gold bot turn (``_take_gold``),
        the patterns it matches and its wording."""
        gold = self._underscored(turn.gold)
        seen = self._seen.get(gold)
        if seen is None:
            seen = self._seen[gold] = (frozenset(key for key, pattern in self.markers if pattern.match(gold)),
                                       next((name for name, rx in self.wordings if rx.match(gold)), None))
        matches, state.wording = seen
        state.said |= matches
        state.prev_matches = matches
        _take_gold(state, turn, gold)
        if not is_api_call(gold) and state.current not in gold.split():
            # a restaurant outside the results: recognise it by the patterns that name one
            name = self._named.get(gold, "")
            if name == "":
                found = next((m for m in (namer.match(gold.strip()) for namer in self.namers) if m), None)
                name = self._named[gold] = found and found.group("name")
            if name is not None:
                state.current = name
                state.offered.add(name)
                if name not in state.offers:
                    state.offers.append(name)

    def _underscored(self, gold: str) -> str:
        """A gold bot turn with the restaurant names it writes with spaces (the ontology's
        ``spaced_names``) as the results write them."""
        for name, spaced in self.ontology.spaced:
            if spaced in gold:
                gold = gold.replace(spaced, name)
        return gold

    def render(self, rule: Rule, state: State) -> str | None:
        """The rule's response in this state, or None when a field cannot be filled."""
        if rule.api_call:
            return state.call_text()
        if rule.like:
            if state.wording is None:
                return None
            template = self.ruleset.patterns[state.wording]
        else:
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
        if state.offers:
            fields["first_offered"], fields["last_offered"] = state.offers[0], state.offers[-1]
            if len(state.offers) > 1:
                fields["prev_offered"] = state.offers[-2]
        if restaurant is not None:
            attrs = state.results.get(restaurant, {})
            fields["name"] = restaurant
            for slot in state.order:
                fields[slot.name] = attrs.get(slot.attribute)
        else:
            for slot in state.order:
                value = getattr(state, slot.name)
                fields[slot.name] = None if value == DONTCARE else value
        if any(fields.get(field) is None for field in FIELD_RE.findall(template)):
            return None
        if restaurant in self.spaced:
            # named with spaces, but its phone, address and post code tokens keep the _
            template = template.replace("{name}_", "{token}_")
            fields["token"], fields["name"] = restaurant, self.spaced[restaurant]
        return template.format(**fields)

    def mentions(self, user: str, state: State) -> set[str]:
        """Set the slot values the user turn names (in order: a later one wins); the slots."""
        found = self._mentioned.get(user)
        if found is None:
            phrases = self.ontology.phrases
            found = self._mentioned[user] = tuple(phrases[m.group(1)] for m in self.ontology.matcher.finditer(user))
        mentioned = set()
        for slot, value in found:
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
                if rule.take_named:
                    named = next((word for word in user.split() if word in state.results), None)
                    if named is not None:
                        state.current = named
        state.changed = state.call_text() != state.last_call
        state.upcoming = state.next_offer()
        return mentioned


def _take_gold(state: State, turn: BotTurn, gold: str) -> None:
    """Update the state with the gold bot turn (``gold``: written with its restaurant
    names as the results write them): an api_call's slots and result lines, or the
    restaurant of the results it names."""
    if is_api_call(gold) and gold != NO_RESULT:
        parts = gold.split()[1:]
        if len(parts) == len(state.order):
            for slot, value in zip(state.order, parts):
                if value != slot.attribute:
                    setattr(state, slot.name, value)
                elif getattr(state, slot.name) != DONTCARE:
                    setattr(state, slot.name, None)
        state.last_call = gold
        state.called = True
        state.results = {}
        state.offered = set()
        state.offers = []
        state.current = None
        for text in turn.context:
            fact = Fact.match(text)
            if fact is not None:
                state.results.setdefault(fact.name, {})[fact.attribute] = fact.value
    else:
        for token in gold.split():
            if token in state.results:
                state.current = token
                state.offered.add(token)
                if token not in state.offers:
                    state.offers.append(token)
                break
    state.prev_bot = gold
    state.turn += 1


@dataclass(frozen=True)
class Prediction:
    text: str
    rule: str | None      # id of the rule that fired; None: no rule matched


NOTHING = Prediction("", None)


def every_response_rule(rules: list[Rule]) -> list[Rule]:
    """``rules`` (in order) with every response rule enabled and the disabled state rules
    left out: what ``candidates`` runs when the enabled rules are chosen afterwards."""
    return [replace(r, enabled=True) for r in rules if r.enabled or not r.updates_state]


def choose(responders, *context):
    """How a response is chosen, the one place: the first (key, respond) of
    ``responders``, in rule order, whose ``respond(*context)`` gives a response (not
    None) wins, as (key, response); None when none does. Nothing past the winner is
    called."""
    for key, respond in responders:
        text = respond(*context)
        if text is not None:
            return key, text
    return None


def looked_up(rule_ids) -> list:
    """Responders (rule id, respond) that look each rule's response up in a table of
    candidates (rule id -> response, see ``candidates``): ``choose(looked_up(order),
    found)`` is the response of the rules ``order`` on a turn whose candidates are ``found``."""
    return [(rule_id, methodcaller("get", rule_id)) for rule_id in rule_ids]


def propose(compiled: Compiled, state: State, user: str, mentioned: set[str]) -> dict[str, str]:
    """What every applicable response rule proposes at a turn, the one place: rule id ->
    response, in rule order (its first entry the response ``choose`` gives)."""
    found = {}
    for rule, respond in compiled.responders:
        text = respond(state, user, mentioned)
        if text is not None:
            found[rule.id] = text
    return found


def _states(compiled: Compiled, turns: list[BotTurn]):
    """Each turn with the engine's state at it, after the user turn (``before_response``),
    and the slots the user turn names: (turn, state, mentioned). The gold bot turn is
    observed when the next is asked for; a new dialog starts a new state. (The rules'
    offline passes over a file; a system answers through ``interface.run``.)"""
    state = None
    dialog = -1
    for turn in turns:
        if turn.dialog != dialog:
            state, dialog = compiled.new_state(), turn.dialog
            if turn.lead:
                compiled.preface(state, turn.lead)
        yield turn, state, compiled.before_response(state, turn.user)
        compiled.observe(state, turn)


def predict(compiled: Compiled, turns: list[BotTurn]) -> list[Prediction]:
    """The chosen response (``choose``) for every turn."""
    out = []
    responders = compiled.responders
    for turn, state, mentioned in _states(compiled, turns):
        won = choose(responders, state, turn.user, mentioned)
        out.append(NOTHING if won is None else Prediction(won[1], won[0].id))
    return out


def candidates(compiled: Compiled, turns: list[BotTurn]) -> list[dict[str, str]]:
    """For every turn, the response of every response rule that gives one (rule id ->
    response, ``propose``), in rule order."""
    return [propose(compiled, state, turn.user, mentioned) for turn, state, mentioned in _states(compiled, turns)]


__all__ = ["State", "Compiled", "Prediction", "every_response_rule",
           "choose", "looked_up", "propose", "predict", "candidates"]
