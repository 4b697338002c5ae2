"""The conditions a rule's ``when`` may use: one registry entry each (its name, the value
it takes and how that value is checked and compiled, its test, a one-line doc), the
combinators ``not``, ``any`` and ``all``, and the old spellings with what to write now.
``ruleset`` validates through this module and ``engine`` evaluates through it; no other
module names a condition.

A test is a predicate ``(state, user, mentioned)``: the engine's ``State`` at a bot turn,
the user turn, and the slots the user turn names a value of.

A condition over several things (slots, patterns, flags, words) takes one of them as a
plain value (``prev_bot: ask_food``), or several as ``{any: [...]}`` or ``{all: [...]}``.
A bare list is refused: it would have to mean one or the other, and the old rule files
used it both ways (``prev_bot: [a, b]`` meant any, ``filled: [a, b]`` all).

``python -m dstc2conv.systems.rules.conditions`` prints the tables of conditions and old
spellings of ``docs/rules.md``.
"""
from __future__ import annotations

import re as std_re
import time
from dataclasses import dataclass
from typing import Any, Callable

import regex

from ...limits import MAX_REGEX_SIZE, MAX_REGEX_TOTAL, regex_size
from ...task6.format import SILENCE
from ...task6.vocabulary import DONTCARE, RULE_SLOTS
from .problems import Problem, RuleFileError, show

EMPTY = (None, DONTCARE)            # a slot without a value to search with
FIELD_RE = std_re.compile(r"\{([a-z_]+)\}")
FLAG_RE = std_re.compile(r"[A-Za-z0-9_-]+")
COMBINATORS = ("not", "any", "all")
PROBE_TIMEOUT = 0.25    # seconds a regular expression may take on one probe (see _too_slow)
TIMEOUT = 0.5           # seconds a condition's regular expression may take on one text, when the rules run
TOO_SLOW = "regular expression too slow"
PROBE_SECONDS = 5.0     # seconds the probes of a rule file's regular expressions may take in all
RUN_SECONDS = 20.0      # seconds a run's regular expressions may search in all (the shipped rules: well under 1)


class OutOfTime(Exception):
    """A Budget spent."""


class Budget:
    """What the regular expressions of a rule file (its probes) or of a run may take in
    all: ``seconds`` of searching (CPU time; each search is still bounded by the clock),
    and (a file's) ``size`` of patterns written out."""

    def __init__(self, seconds: float, size: int = MAX_REGEX_TOTAL):
        self.seconds = seconds
        self.left = seconds
        self.size_left = size

    def search(self, compiled, text: str, timeout: float):
        """``compiled.search(text)`` within ``timeout`` seconds, tried a second time before
        giving up (a pause of the whole process is not the expression's fault); past that,
        TimeoutError; OutOfTime once the budget is spent, whatever the text."""
        for attempt in (1, 2):
            limit = min(timeout, self.left)
            if limit <= 0:
                raise OutOfTime
            start = time.thread_time()   # (CPU time: a busy machine does not spend the budget)
            try:
                return compiled.search(text, timeout=limit)
            except TimeoutError:
                if limit < timeout:
                    self.left = 0
                    raise OutOfTime from None
                if attempt == 2:
                    raise
            finally:
                self.left -= time.thread_time() - start


# ---------------------------------------------------------------- regular expressions

@dataclass(frozen=True)
class Site:
    """Where a condition's value is compiled: the problem to report when its regular
    expression is too slow on some text (the rule file, line and rule), the rule
    file's Budget, and the slots its ontology has."""
    slow: Problem
    budget: Budget
    slots: tuple = RULE_SLOTS


@dataclass(frozen=True)
class Regex:
    """A compiled regular expression of a rule file, and the problem to report when it
    takes too long on some text."""
    compiled: Any
    slow: Problem

    @property
    def source(self) -> str:
        return self.compiled.pattern

    def too_slow(self) -> RuleFileError:
        return RuleFileError([self.slow])

    def out_of_time(self, seconds: float) -> RuleFileError:
        return RuleFileError([Problem(self.slow.path, self.slow.line, f"regular expressions took more than "
                                      f"{seconds:g} s in all on this data (this one was searching)",
                                      self.slow.rule_id)])


def _too_slow(compiled, budget: Budget) -> bool:
    """Whether a regular expression backtracks catastrophically on a probe: a run of one
    character it names (or a, 0, space), alone or between spaces, then one it cannot match.
    Any other slow case is stopped when the rules run (TIMEOUT, RUN_SECONDS).
    OutOfTime when the rule file's probes have taken PROBE_SECONDS in all."""
    chars = {c for c in compiled.pattern if c.isalnum() or c == " "} | {"a", "0", " "}
    try:
        for c in sorted(chars):
            budget.search(compiled, c * 30 + "\x00", PROBE_TIMEOUT)
            budget.search(compiled, (c + " ") * 15 + "\x00", PROBE_TIMEOUT)
    except TimeoutError:
        return True
    return False


def pattern_regex(template: str, named: bool = False):
    """A regex matching any rendering of a pattern (each field one token). ``named``:
    its first {name} is captured as the group ``name``, and any other {name} must be the
    same token."""
    return regex.compile(pattern_source(template, named))


def pattern_source(template: str, named: bool = False) -> str:
    """The source of ``pattern_regex``, to be measured before it is compiled."""
    out, seen = [], False
    for i, part in enumerate(FIELD_RE.split(template)):
        if i % 2 == 0:
            out.append(regex.escape(part))
        elif named and part == "name":
            out.append(r"(?P=name)" if seen else r"(?P<name>\S+)")
            seen = True
        else:
            out.append(r"\S+")
    return "".join(out) + r"\Z"


def bounded(rx: Regex, env: Env):
    """(cache, find) for a regular expression of a rule file: ``find(text)`` says whether
    it occurs in ``text``, searching with a time limit (TIMEOUT, twice; past it, the
    rule's problem is raised) out of the run's (``env.budget``: past it, a problem naming
    the rule whose search it stopped), and remembers it in ``cache`` (text -> bool), shared
    through ``env.memo`` by every condition with the same expression. Texts repeat a lot,
    and a look-up costs less than a search, let alone one with a time limit."""
    cache = env.memo.setdefault(rx.source, {})
    compiled = rx.compiled
    search = env.budget.search

    def find(text: str) -> bool:
        try:
            found = cache[text] = search(compiled, text, TIMEOUT) is not None
        except TimeoutError:
            raise rx.too_slow() from None
        except OutOfTime:
            raise rx.out_of_time(env.budget.seconds) from None
        return found
    return cache, find


# ---------------------------------------------------------------- values

class Invalid(Exception):
    """A value a condition cannot take. ``message`` says why; None when the problem is
    reported elsewhere (a pattern with a problem of its own)."""

    def __init__(self, message: str | None):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Choice:
    """The value of a condition over several things: ``mode`` any or all (one thing: any),
    ``items`` compiled. What any and all mean is written here only: ``holds`` and
    ``within`` build a condition's test from what one item means."""
    mode: str
    items: tuple

    def holds(self, test_of: Callable) -> Callable:
        """The test (state, user, mentioned) that any / all of the items pass, each item's
        test being ``test_of(item)``."""
        tests = tuple(test_of(item) for item in self.items)
        if len(tests) == 1:
            return tests[0]
        if self.mode == "all":
            return every(tests)
        return lambda s, u, m: any(test(s, u, m) for test in tests)

    def within(self, found: Callable, keys=None) -> Callable:
        """The test (state, user, mentioned) that any / all of the items (or of ``keys``,
        one per item) are in the set ``found(state, user, mentioned)``."""
        wanted = frozenset(self.items if keys is None else keys)
        if self.mode == "all":
            return lambda s, u, m: wanted <= found(s, u, m)
        return lambda s, u, m: not wanted.isdisjoint(found(s, u, m))


@dataclass(frozen=True)
class ValueKind:
    """What a condition's value is: ``takes`` (for the docs), ``compile(condition, raw
    value, patterns, site)`` -> the compiled value, or Invalid, and ``item`` for a choice.
    ``patterns``: name -> template (None for a pattern with a problem of its own);
    ``site``: a Site (where it is, and the rule file's Budget)."""
    takes: str
    compile: Callable
    item: str = ""          # a choice of several: what one is ("slot", "pattern name", ...)


def _plain(takes: str, check) -> ValueKind:
    """A kind whose value is used as it is (once ``check(value)`` holds)."""
    def compile(name, raw, patterns, site):
        if not check(raw):
            raise Invalid(f"condition {name!r} takes {takes}, not {show(raw)}")
        return raw
    return ValueKind(takes, compile)


def charge_regex(pattern: str, budget: Budget, shown: str) -> None:
    """Invalid if ``pattern`` (``shown`` in the message) is too large to compile, alone
    or with the rule file's others; else its size is taken from the file's budget."""
    if budget.size_left < 0:
        raise Invalid(None)     # (said once, of the first past the bound)
    size = regex_size(pattern)
    if size > MAX_REGEX_SIZE:
        raise Invalid(f"regular expression too large: {shown} has more than {MAX_REGEX_SIZE:,} "
                      "characters with its counted repeats written out")
    budget.size_left -= size
    if budget.size_left < 0:
        raise Invalid(f"regular expressions too large in all: more than {MAX_REGEX_TOTAL:,} characters in one "
                      "rule file with their counted repeats written out")


def _regex(name, raw, patterns, site: Site) -> Regex:
    if not isinstance(raw, str):
        raise Invalid(f"condition {name!r} takes a regular expression (a string), not {show(raw)}")
    charge_regex(raw, site.budget, show(raw))    # before compiling: what it compiles to grows with it
    try:
        compiled = regex.compile(raw)
    except regex.error as exc:
        raise Invalid(f"bad regular expression {show(raw)}: {exc}") from None
    except (OverflowError, RecursionError, MemoryError):
        raise Invalid(f"regular expression too large: {show(raw)}") from None
    if site.budget.left <= 0:
        raise Invalid(None)     # (said once, of the first whose probes spent it)
    try:
        if _too_slow(compiled, site.budget):
            raise Invalid(TOO_SLOW)
    except OutOfTime:
        raise Invalid(f"{TOO_SLOW}: the rule file's regular expressions took more than "
                      f"{site.budget.seconds:g} s in all on the probe texts") from None
    return Regex(compiled, site.slow)


def _choice(item: str, compile_item):
    """A ValueKind.compile for one item, or ``{any: [...]}`` / ``{all: [...]}`` of them."""
    def compile(name, raw, patterns, site):
        if isinstance(raw, list):
            raise Invalid(bare_list(name, raw, item))
        if isinstance(raw, dict):
            keys = list(raw)
            if len(keys) != 1 or keys[0] not in ("any", "all"):
                raise Invalid(f"condition {name!r} takes a {item} or {{any: [...]}} / {{all: [...]}}, "
                              f"not a mapping with {', '.join(repr(k) for k in keys) or 'nothing'}")
            mode, items = keys[0], raw[keys[0]]
            if not isinstance(items, list) or not items:
                raise Invalid(f"condition {name!r}: '{mode}' takes a non-empty list of {item}s, not {show(items)}")
            for i, value in enumerate(items, 1):
                if not isinstance(value, str) or not value.strip():
                    raise Invalid(f"condition {name!r}: item {i} must be a non-empty string, not {show(value)}")
        elif isinstance(raw, str) and raw.strip():
            mode, items = "any", [raw]
        else:
            raise Invalid(f"condition {name!r} takes a {item} or {{any: [...]}} / {{all: [...]}}, not {show(raw)}")
        return Choice(mode, tuple(compile_item(name, value, patterns, site) for value in items))
    return compile


def _slot(name, value, patterns, site):
    if site.slots is not None and value not in site.slots:
        raise Invalid(f"condition {name!r}: unknown slot {value!r} (slots: {', '.join(site.slots)})")
    return value


def _not_a_slot(name, raw):
    raise Invalid(f"condition {name!r} takes a slot, not {show(raw)}")


def _pattern(name, value, patterns, site):
    if value not in patterns:
        raise Invalid(f"condition {name!r}: no pattern named {value!r}")
    if patterns[value] is None:
        raise Invalid(None)
    return pattern_regex(patterns[value])


def _flag(name, value, patterns, site):
    if not FLAG_RE.fullmatch(value):
        raise Invalid(f"condition {name!r}: {value!r} is not a flag name (letters, digits, - and _)")
    return value


def _words(name, raw, patterns, site: Site) -> Choice:
    """Words or phrases, each found at word boundaries: any of them as one expression,
    all of them as one expression each."""
    words = _choice("word", lambda n, v, p, s: v)(name, raw, patterns, site)
    sources = ([r"\b(?:" + "|".join(regex.escape(w) for w in words.items) + r")\b"] if words.mode == "any"
               else [r"\b(?:" + regex.escape(w) + r")\b" for w in words.items])
    for source in sources:    # (bounded as a regular expression is: compiling takes time with their length)
        charge_regex(source, site.budget, "the expression of the words")
    return Choice(words.mode, tuple(Regex(regex.compile(s), site.slow) for s in sources))


BOOL = _plain("true or false", lambda v: isinstance(v, bool))
INT = _plain("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool))
REGEX = ValueKind("a regular expression", _regex)
WORDS = ValueKind("words or phrases", _words, "word")
SLOT_CHOICE = ValueKind(f"slots (the ontology's; task 6: {', '.join(RULE_SLOTS)})", _choice("slot", _slot), "slot")
ONE_SLOT = ValueKind("a slot (the ontology's)",
                     lambda name, raw, patterns, site: _slot(name, raw, patterns, site) if isinstance(raw, str) else
                     _not_a_slot(name, raw))
PATTERN_CHOICE = ValueKind("pattern names", _choice("pattern name", _pattern), "pattern name")
FLAG_CHOICE = ValueKind("flags", _choice("flag", _flag), "flag")


# ---------------------------------------------------------------- the registry

class Env:
    """What the tests of one rule set share, filled in as they are built: the foods
    served, what each regular expression found per text (``memo``), and the patterns every
    gold bot turn is matched against (``watched``: regex source -> compiled, added to by
    ``watch``)."""

    def __init__(self, served: frozenset = frozenset()):
        self.served = served
        self.memo: dict = {}
        self.budget = Budget(RUN_SECONDS)   # the run's time for regular expressions
        self.watched: dict = {}

    def watch(self, patterns: tuple) -> tuple:
        """Match every gold bot turn against ``patterns`` (compiled); their keys (sources),
        which the state's sets of matched patterns hold."""
        for pattern in patterns:
            self.watched[pattern.pattern] = pattern
        return tuple(p.pattern for p in patterns)


@dataclass(frozen=True)
class Condition:
    name: str
    kind: ValueKind
    doc: str
    test: Callable          # (compiled value, Env) -> predicate (state, user, mentioned)


CONDITIONS: dict[str, Condition] = {}


def condition(name: str, kind: ValueKind, doc: str):
    """Register a condition: the decorated function builds its test."""
    def register(build):
        CONDITIONS[name] = Condition(name, kind, doc, build)
        return build
    return register


def _cached(rx: Regex, env: Env):
    return bounded(rx, env)


# -- the dialog

@condition("first_turn", BOOL, "this is (true) or is not (false) the dialog's first bot turn")
def _first_turn(value, env):
    return lambda s, u, m: (s.turn == 0) == value


@condition("turn_at_least", INT, "the bot turn's number (from 0) is at least this")
def _turn_at_least(value, env):
    return lambda s, u, m: s.turn >= value


@condition("turn_at_most", INT, "the bot turn's number (from 0) is at most this")
def _turn_at_most(value, env):
    return lambda s, u, m: s.turn <= value


# -- the user turn

@condition("user_silent", BOOL, "the user turn is (true) or is not (false) `<SILENCE>`")
def _user_silent(value, env):
    return lambda s, u, m: (u == SILENCE) == value


@condition("user_words", WORDS, "the user turn has the word or phrase (at word boundaries)")
def _user_words(value, env):
    # any: one expression of all the words (see _words); all: one per word
    return value.holds(lambda rx: _in_user_turn(rx, env))


def _in_user_turn(rx: Regex, env: Env):
    cache, find = _cached(rx, env)
    return lambda s, u, m: cache[u] if u in cache else find(u)


@condition("user_regex", REGEX, "the regular expression is found in the user turn")
def _user_regex(value, env):
    return _in_user_turn(value, env)


@condition("user_mentions", SLOT_CHOICE, "the user turn names a value of the slot (a value or synonym of the ontology)")
def _user_mentions(value, env):
    return value.within(lambda s, u, m: m)


@condition("user_said_before", REGEX, "the regular expression is found in some user turn so far, this one included")
def _user_said_before(value, env):
    cache, find = _cached(value, env)
    return lambda s, u, m: cache[s.history] if s.history in cache else find(s.history)


# -- the gold bot turns so far

@condition("prev_bot", PATTERN_CHOICE, "the previous gold bot turn matches the pattern")
def _prev_bot(value, env):
    return value.within(lambda s, u, m: s.prev_matches, env.watch(value.items))


@condition("prev_bot_regex", REGEX, "the regular expression is found in the previous gold bot turn")
def _prev_bot_regex(value, env):
    cache, find = _cached(value, env)
    return lambda s, u, m: cache[s.prev_bot] if s.prev_bot in cache else find(s.prev_bot)


@condition("bot_said_before", PATTERN_CHOICE, "some earlier gold bot turn matches the pattern")
def _bot_said_before(value, env):
    return value.within(lambda s, u, m: s.said, env.watch(value.items))


# -- the state

@condition("filled", SLOT_CHOICE, "the slot has a value (not dontcare, not unset)")
def _filled(value, env):
    return value.holds(lambda slot: lambda s, u, m: getattr(s, slot) not in EMPTY)


@condition("unfilled", SLOT_CHOICE, "the slot has no value (dontcare or unset)")
def _unfilled(value, env):
    return value.holds(lambda slot: lambda s, u, m: getattr(s, slot) in EMPTY)


@condition("known", SLOT_CHOICE, "the slot is set (a value or dontcare)")
def _known(value, env):
    return value.holds(lambda slot: lambda s, u, m: getattr(s, slot) is not None)


@condition("missing", SLOT_CHOICE, "the slot is unset")
def _missing(value, env):
    return value.holds(lambda slot: lambda s, u, m: getattr(s, slot) is None)


@condition("dontcare", SLOT_CHOICE, "the slot is dontcare")
def _dontcare(value, env):
    return value.holds(lambda slot: lambda s, u, m: getattr(s, slot) == DONTCARE)


@condition("first_missing", ONE_SLOT, "the slot is the first unset one in the ontology's order of slots")
def _first_missing(value, env):
    return lambda s, u, m: s.first_missing() == value


@condition("food_served", BOOL, "some restaurant serves (true) or none (false) the food (the ontology's `served`)")
def _food_served(value, env):
    served = env.served
    return lambda s, u, m: (getattr(s, "food", None) in served) == value


@condition("state_changed", BOOL, "the slots differ (true) or not (false) from the last api_call's")
def _state_changed(value, env):
    return lambda s, u, m: s.changed == value


@condition("called", BOOL, "an api_call was made (true) or not (false) in the dialog so far")
def _called(value, env):
    return lambda s, u, m: s.called == value


@condition("has_results", BOOL, "the last api_call found restaurants (true) or none (false)")
def _has_results(value, env):
    return lambda s, u, m: bool(s.results) == value


@condition("remaining", BOOL, "some restaurant of the results is (true) or none is (false) not yet offered")
def _remaining(value, env):
    return lambda s, u, m: (s.upcoming is not None) == value


@condition("has_current", BOOL, "a restaurant is (true) or none is (false) the current one")
def _has_current(value, env):
    return lambda s, u, m: (s.current is not None) == value


@condition("marked", FLAG_CHOICE, "a state rule raised the flag (`mark`) earlier in the dialog")
def _marked(value, env):
    return value.within(lambda s, u, m: s.flags)


# ---------------------------------------------------------------- a when, compiled

@dataclass(frozen=True)
class Clause:
    """One condition of a ``when`` with its compiled value."""
    condition: str
    value: Any
    line: int


@dataclass(frozen=True)
class Combine:
    """``not`` (one branch), ``any`` or ``all`` of branches, each a tuple of nodes that
    must all hold."""
    op: str
    branches: tuple
    line: int


def walk(nodes: tuple):
    """Every Clause in ``nodes``, nested ones included."""
    for node in nodes:
        if isinstance(node, Clause):
            yield node
        else:
            for branch in node.branches:
                yield from walk(branch)


def predicates(nodes: tuple, env: Env) -> tuple:
    """One predicate per node: together, the ``when`` holds when every one holds."""
    return tuple(_predicate(node, env) for node in nodes)


def every(tests: tuple):
    """One predicate: all of ``tests`` hold."""
    if len(tests) == 1:
        return tests[0]

    def holds(s, u, m):
        for test in tests:
            if not test(s, u, m):
                return False
        return True
    return holds


def _predicate(node, env: Env):
    if isinstance(node, Clause):
        return CONDITIONS[node.condition].test(node.value, env)
    branches = [every(predicates(branch, env)) for branch in node.branches]
    if node.op == "not":
        inner = branches[0]
        return lambda s, u, m: not inner(s, u, m)
    if node.op == "any":
        return lambda s, u, m: any(b(s, u, m) for b in branches)
    return every(tuple(branches))


# ---------------------------------------------------------------- old spellings

@dataclass(frozen=True)
class Old:
    """An old spelling of a condition and how to write it now."""
    name: str
    new: str
    combine: str | None = None      # how the old condition read a list: any or all
    negated: bool = False           # it held where the new one does not
    value: tuple | None = None      # the new condition's value (the old one took true / false)


MIGRATIONS = {old.name: old for old in (
    Old("prev_bot", "prev_bot", "any"),
    Old("prev_bot_not", "prev_bot", "any", negated=True),
    Old("said", "bot_said_before", "any"),
    Old("not_said", "bot_said_before", "any", negated=True),
    Old("said_before_regex", "user_said_before"),
    Old("user_not_regex", "user_regex", negated=True),
    Old("user_words", "user_words", "any"),
    Old("user_mentions", "user_mentions", "any"),
    Old("user_mentions_none", "user_mentions", "any", negated=True, value=RULE_SLOTS),
    Old("marked", "marked", "all"),
    Old("not_marked", "marked", "any", negated=True),
    Old("filled", "filled", "all"),
    Old("unfilled", "unfilled", "all"),
    Old("known", "known", "all"),
    Old("missing", "missing", "all"),
    Old("dontcare", "dontcare", "all"),
)}


def _writable(value: Any, combine: str | None) -> str | None:
    """A value as it is written in a rule file's flow style; None when it cannot be."""
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value) and value:
        return value[0] if len(value) == 1 else f"{{{combine}: [{', '.join(value)}]}}"
    if isinstance(value, str):
        return value if combine else "'" + value.replace("'", "''") + "'"
    return None


def _written(value: Any, combine: str | None) -> str:
    """``_writable``, with ``...`` for a value that cannot be written."""
    written = _writable(value, combine)
    return "..." if written is None else written


def _rewrite(old: Old, value: Any) -> tuple[str, bool]:
    """What to write instead of ``old: value``, and whether that is a ``not``."""
    negated = old.negated
    if old.value is not None:
        negated = negated != (value is False)
        value = old.value
    text = f"{old.new}: {_written(value, old.combine)}"
    return (f"not: {{{text}}}" if negated else text), negated


def rewrite(old: Old, value: Any) -> str:
    """What to write instead of ``old: value``."""
    return _rewrite(old, value)[0]


@dataclass(frozen=True)
class Moved:
    """The problem with an old spelling: its message, and whether what to write instead
    is a ``not`` (two of them in one ``when`` are one ``not`` of ``any``)."""
    message: str
    negated: bool = False


def migration(name: str, value: Any) -> Moved | None:
    """The problem with an old spelling (a removed or renamed condition, or a bare list
    where a list meant any or all), saying what to write; None if it is not one."""
    old = MIGRATIONS.get(name)
    if old is None:
        return None
    if old.name == old.new:
        if not isinstance(value, list):
            return None
        if _writable(value, old.combine) is None:     # nothing to say it meant
            return Moved(bare_list(name, value, CONDITIONS[name].kind.item))
        text, negated = _rewrite(old, value)
        return Moved(f"condition {name!r} takes a {CONDITIONS[name].kind.item} or {{any: [...]}} / {{all: [...]}}, "
                     f"not a bare list: write {text} (what the list meant before)", negated)
    verb = "was removed" if old.negated else f"is now {old.new!r}"
    text, negated = _rewrite(old, value)
    return Moved(f"{name!r} {verb}: write {text}", negated)


def bare_list(name: str, value: list, item: str) -> str:
    """The problem with a bare list for a condition that was not written with one before
    (or one of anything but strings)."""
    takes = f"condition {name!r} takes a {item} or {{any: [...]}} / {{all: [...]}}"
    if _writable(value, "any") is None:
        return f"{takes}, not {show(value)}" if not value else f"{takes}, not a bare list (of {item}s)"
    if len(value) == 1:
        return f"{takes}, not a bare list: write {name}: {_written(value, 'any')}"
    return f"{takes}, not a bare list: write {name}: {_written(value, 'any')} or {name}: {_written(value, 'all')}"


# ---------------------------------------------------------------- the docs' tables

def conditions_table() -> str:
    rows = ["| condition | takes | holds when |", "|---|---|---|"]
    for c in CONDITIONS.values():
        rows.append(f"| `{c.name}` | {c.kind.takes} | {c.doc} |")
    return "\n".join(rows)


def migrations_table() -> str:
    rows = ["| old | now |", "|---|---|"]
    for old in MIGRATIONS.values():
        value = ["a", "b"] if old.combine and old.value is None else True if old.value else "RE"
        before = "[a, b]" if isinstance(value, list) else "true" if value is True else "RE"
        rows.append(f"| `{old.name}: {before}` | `{rewrite(old, value)}` |")
    return "\n".join(rows)


if __name__ == "__main__":
    import sys

    from ...files import write_stdout

    try:
        write_stdout(conditions_table() + "\n\n" + migrations_table() + "\n")
    except BrokenPipeError:        # `| head`: stop quietly, as the dstc2conv command does
        sys.stdout = None
        sys.exit(141)
