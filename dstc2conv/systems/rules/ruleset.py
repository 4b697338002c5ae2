"""Load and validate a rule file: response patterns, rules, and the ontology they use.

A rule file is YAML::

    ontology: ontology.yaml            # food/area/price values and synonyms (path relative to this file)
    patterns:                          # named responses; {name} {food} {area} {price} are filled in
      ask_area: What part of town do you have in mind?
    rules:
      - id: ask-area                   # unique
        priority: 50                   # higher first; ties: the earlier rule in the file (see rule_order)
        when: {missing: area, not: {prev_bot: ask_area}}
        say: ask_area

``when`` holds when all its conditions do (see ``conditions``: the registry of conditions,
and ``not`` / ``any`` / ``all``). A rule either responds (``say: PATTERN``, or ``say: {like:
prev_bot}``: the pattern the previous gold bot turn matched; optionally ``offer: true``;
or ``api_call: true``) or updates the state (``set: {slot: value}``, ``mark: [flag]``: a
flag that stays raised for the rest of the dialog, tested by ``marked``). The keys a
rule may have are declared in one table (``RULE_ID``, ``RULE_KEYS``: each key's type,
default, check and message), which one validator applies. Types are checked strictly (a
bool is true or false, an int is not a bool, a list holds strings).
Every problem of a file is collected and raised at once as a ``RuleFileError``, each
``file:line: message (rule-id)``.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any, Callable

import regex
import yaml

from ...errors import Dstc2ConvError
from ...files import read_bytes
from ...limits import MAX_REGEX_TOTAL, MAX_RULE_FILE
from ...task6.vocabulary import DONTCARE, RULE_SLOTS, SLOTS
from .conditions import (
    COMBINATORS,
    CONDITIONS,
    FIELD_RE,
    FLAG_CHOICE,
    FLAG_RE,
    PROBE_SECONDS,
    TOO_SLOW,
    Budget,
    Clause,
    Combine,
    Invalid,
    Site,
    charge_regex,
    migration,
    pattern_source,
    walk,
)
from .problems import Problem, RuleFileError, show

TOP_KEYS = {"ontology", "patterns", "rules"}
ONTOLOGY_KEYS = {*RULE_SLOTS, "slots", "served", "synonyms", "spaced_names"}
SLOT_NAME = regex.compile(r"[a-z][a-z_]*")
ATTRIBUTE = regex.compile(r"R_[A-Za-z_]+")
# not slot names: a pattern's other fields, and what the engine's State keeps besides the slots
NOT_SLOTS = frozenset({"name", "token", "order", "results", "offered", "current", "last_call", "called", "prev_bot",
                       "prev_matches", "said", "turn", "changed", "upcoming", "flags", "history", "wording",
                       "values", "call_text", "next_offer", "first_missing"})
LIKE = ("prev_bot",)        # what ``say: {like: ...}`` may name
ALIAS_LIMIT = 10_000        # YAML nodes that aliases may bring into one file, in all
MAX_DEPTH = 16              # not / any / all nested in one another


@dataclass(frozen=True)
class Written:
    """Where a rule's ``id``, ``priority`` and ``enabled`` are written, so that ``tune``
    can rewrite them in place. ``block``: the rule is a block mapping (one key a line);
    ``indent``: the column of its keys; ``values``: for each of those keys present,
    (key, (line, first column, end column) of its value), or (key, None) when the value
    is not a plain value on the key's own line."""
    block: bool
    indent: int
    values: tuple

    def value(self, key: str) -> tuple[int, int, int] | None:
        return dict(self.values).get(key)

    def has(self, key: str) -> bool:
        return key in dict(self.values)


@dataclass(frozen=True)
class RuleSlot:
    """A slot of the ontology: its name in rule files and patterns (``food``, ``cuisine``)
    and the result relation that holds its value (``R_cuisine``), which an api_call also
    writes for the slot when it has no value."""
    name: str
    attribute: str


TASK6_SLOTS = tuple(RuleSlot(slot.rule, slot.attribute) for slot in SLOTS)   # food, area, price


@dataclass(frozen=True)
class Rule:
    id: str
    priority: int
    index: int                  # position in the file
    line: int
    enabled: bool
    when: tuple                 # conditions.Clause / Combine nodes, values compiled
    say: str | None             # a pattern name
    api_call: bool
    offer: bool
    set: tuple                  # (slot, value) pairs
    mark: tuple = ()            # flags the rule raises for the rest of the dialog
    like: str | None = None     # say: {like: prev_bot}: the pattern that gold bot turn matched
    written: Written | None = None   # where its keys are in the file (None: not from a file)
    take_named: bool = False    # the restaurant of the results the user turn names becomes the current one

    @property
    def updates_state(self) -> bool:
        return bool(self.set or self.mark or self.take_named)


@dataclass(frozen=True)
class RuleOntology:
    values: dict               # slot -> tuple of values
    served: frozenset          # the food values some restaurant of the KB serves
    phrases: dict              # phrase said by users -> (slot, value)
    matcher: Any               # compiled regex over all phrases (escaped literals only)
    sha256: str                # of the file
    spaced: tuple = ()         # (name, as bot turns write it): restaurants named with spaces there
    slots: tuple = TASK6_SLOTS  # RuleSlot, in the order an api_call writes them (and rules ask them)

    @property
    def slot_names(self) -> tuple:
        return tuple(slot.name for slot in self.slots)


@dataclass(frozen=True)
class RuleSet:
    path: str
    sha256: str                 # over every file the rules load: the rule file and its ontology
    patterns: dict              # name -> template
    rules: tuple                # Rule, in file order
    ontology: RuleOntology
    ontology_path: str = ""     # as the rule file writes it
    ontology_file: str = ""     # that path from the rule file's folder

    def ordered(self) -> list[Rule]:
        return sorted((r for r in self.rules if r.enabled), key=rule_order)


# the restaurants offered so far, as pattern fields: the first, the one before the last, the last
OFFERED_FIELDS = ("first_offered", "prev_offered", "last_offered")


def rule_order(rule: Rule) -> tuple[int, int]:
    """The one tie-break: higher priority first; equal priorities keep file order."""
    return (-rule.priority, rule.index)


def rules_sha256(rules_sha: str, ontology_sha: str) -> str:
    """The signature of a rule set: a SHA-256 over the SHA-256 of each file it loads."""
    return hashlib.sha256(f"rules {rules_sha}\nontology {ontology_sha}\n".encode()).hexdigest()


class _Collect:
    """The problems of one file, collected so that all are reported at once."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []
        self.slots = RULE_SLOTS    # the slots its rules may name (its ontology's; None: not known, any)
        self.regexes = Budget(PROBE_SECONDS)   # what its regular expressions may take in all

    def __call__(self, message: str, line: int | None, rule_id: str | None = None) -> None:
        self.problems.append(Problem(self.path, line, message, rule_id))

    def raise_any(self) -> None:
        if self.problems:
            raise RuleFileError(self.problems)


# ---------------------------------------------------------------- YAML with line numbers

class _Map(dict):
    line = 0
    key_lines: dict
    flow = False
    columns: dict       # key -> its column
    spans: dict         # key -> (line, first column, end column) of a plain value on the key's line, else None


class _Seq(list):
    line = 0
    item_lines: list


class _Lines:
    """What both loaders keep of a file: its path and the duplicate keys found, (key, line)."""

    def __init__(self, text: str, path: str):
        super().__init__(text)
        self.path = path
        self.duplicates: list[tuple[Any, int]] = []


class _Loader(_Lines, yaml.SafeLoader):
    """Builds _Map / _Seq with line numbers, collects duplicate keys, and refuses aliases
    that bring in more than ALIAS_LIMIT nodes in all (an "alias bomb": nine levels of
    nine aliases each are 9**9 nodes, shared in memory but not in what reads them)."""

    def __init__(self, text: str, path: str):
        super().__init__(text, path)
        self._sizes: dict[int, int] = {}
        self._aliased = 0

    def compose_node(self, parent, index):
        if not self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)
        mark = self.peek_event().start_mark
        node = super().compose_node(parent, index)
        self._aliased += self._size(node)
        if self._aliased > ALIAS_LIMIT:
            raise yaml.composer.ComposerError(
                None, None, f"aliases expand to more than {ALIAS_LIMIT} nodes", mark)
        return node

    def _size(self, node) -> int:
        """Nodes in ``node`` with every alias expanded (counted up to ALIAS_LIMIT)."""
        key = id(node)
        if key in self._sizes:
            return self._sizes[key]
        total = 1
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            total += self._size(child)
            if total > ALIAS_LIMIT:
                break
        self._sizes[key] = total
        return total


def _map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    out = _Map()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    out.columns = {}
    out.spans = {}
    out.flow = bool(node.flow_style)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            seen = key in out
        except TypeError:              # a list or mapping as a key
            raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value",
                                                    key_node.start_mark) from None
        if seen:
            loader.duplicates.append((key, key_node.start_mark.line + 1))
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
        out.columns[key] = key_node.start_mark.column
        start, end = value_node.start_mark, value_node.end_mark
        alone = isinstance(value_node, yaml.ScalarNode) and start.line == end.line == key_node.start_mark.line
        out.spans[key] = (start.line + 1, start.column, end.column) if alone else None
    return out


def _seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    out = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


if getattr(yaml, "__with_libyaml__", False):
    class _CLoader(_Lines, yaml.CSafeLoader):
        """The same, parsed by libyaml (several times faster), for a document without aliases."""
else:
    _CLoader = None

# true and false are the only yes/no values: YAML 1.1 would also read yes, no, on and off
# as true or false, which the types' strictness would then let through
_BOOL = "tag:yaml.org,2002:bool"
for _loader in (_Loader, _CLoader):
    if _loader is None:
        continue
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _map)
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _seq)
    _loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _BOOL]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    _loader.add_implicit_resolver(_BOOL, regex.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


def _fast_loader(text: str, path: str):
    """A libyaml loader for a well-formed document without aliases; None otherwise (the
    Python loader then counts the aliases, and words any problem the same way always)."""
    if _CLoader is None:
        return None
    try:
        if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(text, Loader=yaml.CSafeLoader)):
            return None
    except yaml.YAMLError:
        return None
    return _CLoader(text, path)


SHOWN_KEYS = 3   # unknown keys named one by one; past these, a count (the file may be anything)


_LONG_NUMBER = regex.compile(r"\d{1000,}")


def _load_yaml(text: str, path: str, bad: _Collect):
    """The document; a problem that stops the parse is raised, duplicate keys are collected."""
    try:
        loader = _fast_loader(text, path) or _Loader(text, path)
    except yaml.reader.ReaderError as exc:   # a character YAML does not allow (the reader checks all first)
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
        character = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        raise RuleFileError([Problem(path, line, f"YAML: the character {character} is not allowed, "
                                                 "not even in a comment")]) from None
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise RuleFileError([Problem(path, mark.line + 1 if mark else None, f"YAML: {exc.problem}")]) from None
    except yaml.YAMLError as exc:
        raise RuleFileError([Problem(path, None, f"YAML: {exc}")]) from None
    except RecursionError:
        raise RuleFileError([Problem(path, None, "YAML: nested too deeply")]) from None
    except ValueError:   # an integer of more digits than Python converts
        long = _LONG_NUMBER.search(text)
        line = text.count("\n", 0, long.start()) + 1 if long else None
        raise RuleFileError([Problem(path, line, "YAML: a number too long to read")]) from None
    finally:
        loader.dispose()
    for key, line in loader.duplicates[:SHOWN_KEYS]:
        bad(f"duplicate key {show(key)}", line)
    if len(loader.duplicates) > SHOWN_KEYS:
        bad(f"and {len(loader.duplicates) - SHOWN_KEYS} more duplicate keys", loader.duplicates[SHOWN_KEYS][1])
    return data


def _decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError([Problem(path, None, f"not UTF-8 ({exc.reason} at byte {exc.start})")]) from None


# ---------------------------------------------------------------- types

def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: Any, what: str) -> tuple[tuple | None, str | None]:
    """(strings, None) for a non-empty list of non-empty strings (one string counts as a
    list of one); else (None, what is wrong)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        return None, f"{what} takes a non-empty list of strings, not {show(value)}"
    for i, item in enumerate(value, 1):
        if not isinstance(item, str) or not item.strip():
            return None, f"{what}: item {i} must be a non-empty string, not {show(item)}"
    return tuple(value), None


def _a(slot: str) -> str:
    """``a food``, ``an area``: a value of the slot, in a message."""
    return f"{'an' if slot[0] in 'aeiou' else 'a'} {slot}"


# ---------------------------------------------------------------- ontology

def load_ontology(path: str) -> RuleOntology:
    """Load an ontology file; raise RuleFileError with all its problems."""
    bad = _Collect(path)
    raw = read_bytes(path, "an ontology file", MAX_RULE_FILE)
    data = _load_yaml(_decode(raw, path), path, bad)
    if not isinstance(data, _Map) or not ONTOLOGY_KEYS & set(data):
        # some other file (its keys are not quoted: it may be anything)
        raise RuleFileError([Problem(path, 1, f"not an ontology file: an ontology file is a mapping with "
                                              f"{', '.join(RULE_SLOTS)} (and synonyms, served)"
                                              + ("" if not isinstance(data, _Map) else ", and this one has none "
                                                 "of them"))])
    slots = _slots(data, bad)
    listed = data["slots"] if isinstance(data.get("slots"), _Map) else {s.name: None for s in slots}
    _unknown_keys(data, ONTOLOGY_KEYS - set(RULE_SLOTS) | {name for name in listed if isinstance(name, str)}, bad,
                  name=repr)
    values, phrases = _slot_values(data, tuple(slot.name for slot in slots), bad)
    _synonyms(data, values, phrases, bad)
    served = _served(data, values, bad)
    spaced = _spaced_names(data, bad)
    ordered = sorted(phrases, key=lambda p: (-len(p), p))
    source = r"\b(" + "|".join(regex.escape(p) for p in ordered) + r")\b"
    if len(source) > MAX_REGEX_TOTAL:   # (one expression, whose compiling takes time with its length)
        bad(f"the values and synonyms take more than {MAX_REGEX_TOTAL:,} characters as one regular expression "
            f"({len(source):,}; DSTC2's take 842)", 1)
    bad.raise_any()
    matcher = regex.compile(source)
    return RuleOntology(values, frozenset(served), phrases, matcher, hashlib.sha256(raw).hexdigest(), spaced, slots)


def _slots(data: _Map, bad: _Collect) -> tuple:
    """``slots``: each slot's name and the result relation of its value, in the order an
    api_call writes them (``{cuisine: R_cuisine, location: R_location, ...}``); without
    it, task 6's food, area and price (R_cuisine, R_location, R_price)."""
    if "slots" not in data:
        return TASK6_SLOTS
    table, line = data["slots"], data.key_lines["slots"]
    if not isinstance(table, _Map) or not table:
        bad(f"'slots' takes a mapping of slot names to result relations ({{cuisine: R_cuisine, ...}}), "
            f"not {show(table)}", line)
        return TASK6_SLOTS
    slots = []
    for name, attribute in table.items():
        at = table.key_lines[name]
        if not isinstance(name, str) or not SLOT_NAME.fullmatch(name) or name in NOT_SLOTS:
            taken = f" ({name!r} is taken)" if name in NOT_SLOTS else ""
            bad(f"slots: {show(name)} is not a slot name (lower-case letters and _){taken}", at)
        elif not isinstance(attribute, str) or not ATTRIBUTE.fullmatch(attribute):
            bad(f"slots: {name!r} takes a result relation (R_ and letters or _), not {show(attribute)}", at)
        else:
            slots.append(RuleSlot(name, attribute))
    return tuple(slots) or TASK6_SLOTS


def _slot_values(data: _Map, names: tuple, bad: _Collect) -> tuple[dict[str, tuple], dict[str, tuple[str, str]]]:
    """Each slot's values; and the phrases that say them, ``{phrase: (slot, value)}``
    (a value, and the value with spaces for its _)."""
    values: dict[str, tuple] = {}
    phrases: dict[str, tuple[str, str]] = {}
    for slot in names:
        items, wrong = _strings(data.get(slot), f"{slot!r}")
        if wrong or isinstance(data.get(slot), str):
            bad(wrong or f"{slot!r} takes a list of values", data.key_lines.get(slot, data.line))
            values[slot] = ()
            continue
        values[slot] = items
        for value in items:
            phrases[value] = (slot, value)
            phrases.setdefault(value.replace("_", " "), (slot, value))
    return values, phrases


def _synonyms(data: _Map, values: dict[str, tuple], phrases: dict[str, tuple[str, str]], bad: _Collect) -> None:
    """Add the synonyms to ``phrases``."""
    synonyms = data.get("synonyms")
    if synonyms is not None and not isinstance(synonyms, _Map):
        bad("'synonyms' takes a mapping of slots to {phrase: value}", data.key_lines["synonyms"])
        synonyms = None
    for slot, table in (synonyms or {}).items():
        line = synonyms.key_lines[slot]
        if slot not in values:
            bad(f"synonyms: unknown slot {slot!r} (slots: {', '.join(values)})", line)
            continue
        if not isinstance(table, _Map):
            bad(f"synonyms: {slot!r} takes a mapping of phrases to values, not {show(table)}", line)
            continue
        for said, value in table.items():
            line = table.key_lines[said]
            if not isinstance(said, str) or not said.strip():
                bad(f"synonym {show(said)}: a phrase must be a non-empty string", line)
            elif not isinstance(value, str) or value not in values[slot]:
                bad(f"synonym {said!r} maps to {show(value)}, which is not {_a(slot)} value", line)
            else:
                phrases[said] = (slot, value)


def _served(data: _Map, values: dict[str, tuple], bad: _Collect) -> tuple:
    """The food values served (``served``)."""
    served: tuple = ()
    if "served" in data:
        line = data.key_lines["served"]
        served, wrong = _strings(data["served"], "'served'")
        if wrong:
            bad(wrong, line)
            served = ()
        for value in served:
            if "food" not in values:
                bad("'served' lists food values, and this ontology has no food slot", line)
                break
            if values["food"] and value not in values["food"]:
                bad(f"served: {value!r} is not a food value", line)
    return served


def _spaced_names(data: _Map, bad: _Collect) -> tuple:
    """``spaced_names``: each restaurant name as the results write it, and with spaces."""
    spaced: tuple = ()
    if "spaced_names" in data:
        names, wrong = _strings(data["spaced_names"], "'spaced_names'")
        if wrong or any(" " in n or "_" not in n for n in names):
            bad(wrong or "'spaced_names' takes restaurant names as the results write them (with _, no spaces)",
                data.key_lines["spaced_names"])
        else:
            spaced = tuple((n, n.replace("_", " ")) for n in names)
    return spaced


# ---------------------------------------------------------------- rules

def _when(node: Any, patterns: dict, rule_id: str | None, bad: _Collect, depth: int = 0):
    """The conditions of a mapping as Clause / Combine nodes; None if one has a problem
    (each one noted). ``patterns``: name -> template, or None for a pattern with a problem
    of its own."""
    nodes, ok = [], True
    moved = {key: migration(key, value) for key, value in node.items() if isinstance(key, str)}
    negations = sum(1 for key, found in moved.items() if key == "not" or found and found.negated)
    for key, value in node.items():
        at = node.key_lines[key]
        if key in COMBINATORS:
            built = _combine(key, value, patterns, at, rule_id, bad, depth)
            ok = ok and built is not None
            nodes.append(built)
            continue
        if moved.get(key):
            more = " (with the other negation of this 'when', as one not: {any: [{...}, {...}]})" \
                if negations > 1 and moved[key].negated else ""
            bad(moved[key].message + more, at, rule_id)
            ok = False
            continue
        entry = CONDITIONS.get(key) if isinstance(key, str) else None
        if entry is None:
            bad(f"unknown condition {show(key)} (known: {', '.join(sorted(CONDITIONS))}; "
                f"and {', '.join(COMBINATORS)})", at, rule_id)
            ok = False
            continue
        try:
            compiled = entry.kind.compile(key, value, patterns, Site(Problem(bad.path, at, TOO_SLOW, rule_id),
                                                                     bad.regexes, bad.slots))
        except Invalid as exc:
            if exc.message:
                bad(exc.message, at, rule_id)
            ok = False
            continue
        nodes.append(Clause(key, compiled, at))
    return tuple(nodes) if ok else None


def _combine(op: str, value: Any, patterns: dict, line: int, rule_id: str | None, bad: _Collect, depth: int):
    """``not: {conditions}``, ``any: [{conditions}, ...]``, ``all: [...]``."""
    if depth >= MAX_DEPTH:
        bad(f"not / any / all nested more than {MAX_DEPTH} deep", line, rule_id)
        return None
    if op == "not":
        if not isinstance(value, _Map) or not value:
            bad(f"'not' takes a non-empty mapping of conditions, not {show(value)}", line, rule_id)
            return None
        branches, lines = [value], [line]
    else:
        if not isinstance(value, _Seq) or not value:
            bad(f"{op!r} takes a non-empty list of mappings of conditions, not {show(value)}", line, rule_id)
            return None
        branches, lines = value, value.item_lines
    built = []
    for branch, at in zip(branches, lines):
        if not isinstance(branch, _Map) or not branch:
            bad(f"{op!r}: each item is a non-empty mapping of conditions, not {show(branch)}", at, rule_id)
            return None
        built.append(_when(branch, patterns, rule_id, bad, depth + 1))
    return Combine(op, tuple(built), line) if all(b is not None for b in built) else None

def _patterns(data: _Map, bad: _Collect) -> dict:
    """name -> template, or None for a pattern with a problem (noted). Its fields:
    ``{name}``, the restaurants offered (``OFFERED_FIELDS``) and the slots of the
    ontology (``bad.slots``)."""
    fields_known = None if bad.slots is None else ("name", *OFFERED_FIELDS, *bad.slots)
    patterns = data.get("patterns")
    if not isinstance(patterns, _Map) or not patterns:
        bad("'patterns' must be a non-empty mapping of names to responses", data.key_lines.get("patterns", data.line))
        return {}
    templates = {}
    for name, template in patterns.items():
        line = patterns.key_lines[name]
        if not isinstance(name, str):
            bad(f"pattern name {show(name)} must be a string", line)
            continue
        templates[name] = None
        if not isinstance(template, str):
            bad(f"pattern {name!r} must be a string, not {show(template)}", line)
            continue
        fields = [f for f in FIELD_RE.findall(template) if fields_known is not None and f not in fields_known]
        if fields:
            bad(f"pattern {name!r}: unknown field {{{fields[0]}}} (fields: {', '.join(fields_known)})", line)
            continue
        if any(len(FIELD_RE.findall(word)) > 1 for word in template.split()):
            # each field is one word: two in one word could not be told apart (and their
            # regex would backtrack without end)
            bad(f"pattern {name!r}: two fields in one word", line)
            continue
        try:        # (matched as a regular expression: bounded as one, with the file's others)
            charge_regex(pattern_source(template, named=True), bad.regexes, f"pattern {name!r}")
        except Invalid as exc:
            if exc.message:
                bad(exc.message, line)
            continue
        templates[name] = template
    return templates


def _empty_map() -> _Map:
    out = _Map()
    out.key_lines = {}
    out.columns = {}
    out.spans = {}
    return out


# ---------------------------------------------------------------- the keys of a rule

@dataclass(frozen=True)
class _Checking:
    """What a key's check needs besides its value: the file's patterns and ontology, and
    where to note a problem (the key's line, for the rule)."""
    patterns: dict
    ontology: RuleOntology | None
    bad: _Collect
    line: int
    rule_id: str | None

    def note(self, message: str) -> None:
        self.bad(message, self.line, self.rule_id)


@dataclass(frozen=True)
class RuleKey:
    """A key a rule may have, declared: the type its value takes (``valid``), the
    problem when it does not (``message``, then ``, not VALUE`` if ``shown``), its value
    when absent (``default``; also for null when ``nullable``; absent is the same problem
    when ``required``), and ``check``: a further check of a value of the right type,
    with the file's patterns and ontology, that gives the value the Rule holds (None: a
    problem, noted where it is)."""
    name: str
    valid: Callable[[Any], bool]
    message: str
    default: Any = None
    nullable: bool = False
    check: Callable[[Any, _Checking], Any] | None = None
    shown: bool = True
    required: bool = False


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool)


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _is_name(value: Any) -> bool:
    """Text with a visible character, and none that a terminal would act on (an id is printed)."""
    return isinstance(value, str) and bool(value.strip()) and value.isprintable()


def _is_mapping(value: Any) -> bool:
    return isinstance(value, _Map)


def _is_say(value: Any) -> bool:
    return isinstance(value, (str, dict))


def _is_flags(value: Any) -> bool:
    flags, wrong = _strings(value, "'mark'")
    return not wrong and all(FLAG_RE.fullmatch(flag) for flag in flags)


def _check_when(value: _Map, c: _Checking) -> tuple | None:
    return _when(value, c.patterns, c.rule_id, c.bad)


SAY_TAKES = f"'say' takes a pattern name or {' or '.join(f'{{like: {name}}}' for name in LIKE)}"


def _check_say(value: str | dict, c: _Checking) -> tuple[str | None, str | None]:
    """(the pattern name, or None) and (what ``{like: ...}`` names, or None)."""
    if isinstance(value, str):
        if value not in c.patterns:
            c.note(f"no pattern named {show(value)}")
        return value, None
    like = value.get("like") if list(value) == ["like"] else None
    if list(value) == ["like"] and like not in LIKE:
        c.note(f"'say': 'like' takes {' or '.join(LIKE)}, not {show(like)}")
    elif like not in LIKE:
        keys = ", ".join(repr(k) for k in value)
        c.note(f"{SAY_TAKES}, not {f'a mapping with {keys}' if value else show(value)}")
    return None, like


def _check_set(value: _Map, c: _Checking) -> tuple:
    """The (slot, value) pairs; each slot must be one, each value one of its own
    (or dontcare, or null)."""
    slots = c.bad.slots
    for slot, said in value.items():
        if slots is not None and slot not in slots:
            c.note(f"'set': unknown slot {show(slot)} (slots: {', '.join(slots)})")
        elif said is not None and not isinstance(said, str):
            c.note(f"'set': {slot} takes a value, dontcare or null, not {show(said)}")
        elif said not in (DONTCARE, None) and c.ontology is not None and said not in c.ontology.values[slot]:
            c.note(f"'set': {said!r} is not {_a(slot)} value (or dontcare, null)")
    return tuple(value.items())


def _check_mark(value: str | list, c: _Checking) -> tuple:
    return (value,) if isinstance(value, str) else tuple(value)


# The id names the rule in every other problem: it is checked first, then the keys are
# checked against RULE_KEYS, then each of them in this order.
RULE_ID = RuleKey("id", _is_name, "a rule needs an 'id' (a string of printable characters)", shown=False, required=True)
RULE_KEYS = (
    RuleKey("priority", _is_int, "'priority' must be an integer", 0),
    RuleKey("enabled", _is_bool, "'enabled' must be true or false", True),
    RuleKey("api_call", _is_bool, "'api_call' must be true or false", False),
    RuleKey("offer", _is_bool, "'offer' must be true or false", False),
    RuleKey("note", _is_text, "'note' must be text", None, nullable=True),
    RuleKey("when", _is_mapping, "'when' must be a mapping of conditions", (), nullable=True, check=_check_when),
    RuleKey("say", _is_say, SAY_TAKES, (None, None), nullable=True, check=_check_say),
    RuleKey("set", _is_mapping, "'set' must be a mapping of slots to values", (), nullable=True, check=_check_set),
    RuleKey("mark", _is_flags, "'mark' takes a flag name or a list of them (letters, digits, - and _)", (),
            nullable=True, check=_check_mark, shown=False),
    RuleKey("take_named", _is_bool, "'take_named' must be true or false", False),
)
KNOWN_RULE_KEYS = frozenset([RULE_ID.name, *(key.name for key in RULE_KEYS)])


def _unknown_keys(node: _Map, known, bad: _Collect, rule_id: str | None = None, name=show) -> None:
    """Note the keys of ``node`` that are not ``known``, by name, at their lines: the first
    SHOWN_KEYS of them, then how many more (a file that is no rule file is not echoed)."""
    unknown = [key for key in node if key not in known]
    for key in unknown[:SHOWN_KEYS]:
        bad(f"unknown key {name(key)} (known: {', '.join(sorted(known))})", node.key_lines[key], rule_id)
    if len(unknown) > SHOWN_KEYS:
        bad(f"and {len(unknown) - SHOWN_KEYS} more unknown keys", node.key_lines[unknown[SHOWN_KEYS]], rule_id)


def _checked(item: _Map, key: RuleKey, line: int, patterns: dict, ontology: RuleOntology | None,
             bad: _Collect, rule_id: str | None) -> tuple[Any, bool]:
    """The value of one key of a rule, checked as ``key`` declares; and whether it passed."""
    value = item.get(key.name)
    if key.name not in item and key.required:
        bad(key.message, line, rule_id)
        return key.default, False
    if key.name not in item or value is None and key.nullable:
        return key.default, True
    at = item.key_lines[key.name]
    if not key.valid(value):
        bad(f"{key.message}, not {show(value)}" if key.shown else key.message, at, rule_id)
        return key.default, False
    if key.check is None:
        return value, True
    count = len(bad.problems)
    value = key.check(value, _Checking(patterns, ontology, bad, at, rule_id))
    return value, value is not None and len(bad.problems) == count


def _checked_rule(item: _Map, line: int, patterns: dict, ontology: RuleOntology | None,
                  bad: _Collect) -> dict | None:
    """Key name -> the checked value of each key of a rule (RULE_ID, then RULE_KEYS), or
    None when the rule has a problem (each one noted): a key not in the table, a value
    its entry refuses, or keys that do not go together."""
    count = len(bad.problems)
    rule_id, ok = _checked(item, RULE_ID, line, patterns, ontology, bad, None)
    values = {"id": rule_id}
    _unknown_keys(item, KNOWN_RULE_KEYS, bad, rule_id)
    for key in RULE_KEYS:
        values[key.name], passed = _checked(item, key, line, patterns, ontology, bad, rule_id)
        ok = ok and passed
    says = item.get("say") is not None
    responds = says or values["api_call"]
    updates = bool(values["set"] or "mark" in item or "take_named" in item)
    if responds == updates:
        bad("a rule either responds (say / api_call) or updates the state (set / mark)", line, rule_id)
    elif says and values["api_call"]:
        bad("a rule says a pattern or makes an api_call, not both", line, rule_id)
    elif values["offer"] and not says:
        bad("'offer' goes with 'say' (a response that names the restaurant offered)", item.key_lines["offer"], rule_id)
    return values if ok and len(bad.problems) == count else None


def _rule(item: Any, index: int, line: int, patterns: dict, ontology: RuleOntology | None,
          bad: _Collect) -> Rule | None:
    """One rule, or None when it has a problem (each one noted)."""
    if not isinstance(item, _Map):
        bad(f"a rule must be a mapping, not {show(item)}", line)
        return None
    v = _checked_rule(item, line, patterns, ontology, bad)
    if v is None:
        return None
    say, like = v["say"]
    written = Written(not item.flow, item.columns["id"],
                      tuple((key, item.spans[key]) for key in ("id", "priority", "enabled") if key in item))
    return Rule(v["id"], v["priority"], index, line, v["enabled"], v["when"], say, v["api_call"], v["offer"],
                v["set"], v["mark"], like, written, v["take_named"])


def load_rules(path: str | os.PathLike, text: str | None = None) -> RuleSet:
    """Load and validate a rule file; raise RuleFileError carrying every problem found.
    With ``text``, that is read as the file's content instead (its ontology still found
    from ``path``'s folder)."""
    path = os.fspath(path)
    raw = read_bytes(path, "a rule file", MAX_RULE_FILE) if text is None else text.encode("utf-8")
    bad = _Collect(path)
    data = _load_yaml(_decode(raw, path), path, bad)
    if not isinstance(data, _Map):
        raise RuleFileError([Problem(path, 1, "a rule file is a mapping with 'ontology', 'patterns' and 'rules'")])
    _unknown_keys(data, TOP_KEYS, bad)
    ontology = None
    ontology_path = data.get("ontology")
    ontology_file = ""
    if not isinstance(ontology_path, str) or not ontology_path:
        bad("'ontology' must name an ontology file", data.key_lines.get("ontology", data.line))
    else:
        ontology_file = os.path.join(os.path.dirname(path), ontology_path)
        try:
            ontology = load_ontology(ontology_file)
        except RuleFileError as exc:
            bad.problems.extend(exc.problems)
        except Dstc2ConvError as exc:     # cannot read it
            bad(f"ontology {ontology_path!r} ({ontology_file}): {exc.message}", data.key_lines["ontology"])
    bad.slots = ontology.slot_names if ontology is not None else None   # (no ontology: its problems are said)
    patterns = _patterns(data, bad)
    items = data.get("rules")
    rules = []
    if not isinstance(items, _Seq) or not items:
        bad("'rules' must be a non-empty list of rules", data.key_lines.get("rules", data.line))
        items = _Seq()
        items.item_lines = []
    first: dict[str, int] = {}
    raised: set[str] = set()          # flags some rule marks
    tested = []                       # (flags, line, rule id) of the conditions on flags
    for index, (item, line) in enumerate(zip(items, items.item_lines)):
        item_map = item if isinstance(item, _Map) else _empty_map()
        rule_id = item_map.get("id")
        if isinstance(rule_id, str) and rule_id in first:
            bad(f"duplicate rule id (first at line {first[rule_id]})", item_map.key_lines["id"], rule_id)
        elif isinstance(rule_id, str):
            first[rule_id] = line
        marks = item_map.get("mark")
        raised.update(m for m in ([marks] if isinstance(marks, str) else marks if isinstance(marks, list) else ())
                      if isinstance(m, str))
        rule = _rule(item, index, line, patterns, ontology, bad)
        if rule is None:
            continue
        rules.append(rule)
        for clause in walk(rule.when):
            if CONDITIONS[clause.condition].kind is FLAG_CHOICE:
                tested.append((clause.value.items, clause.line, rule.id))
    for flags, line, rule_id in tested:
        for flag in flags:
            if flag not in raised:
                bad(f"no rule marks the flag {flag!r}", line, rule_id)
    bad.problems.sort(key=lambda p: (p.path != path, p.path, p.line or 0))
    bad.raise_any()
    return RuleSet(path, rules_sha256(hashlib.sha256(raw).hexdigest(), ontology.sha256), patterns, tuple(rules),
                   ontology, ontology_path, ontology_file)
