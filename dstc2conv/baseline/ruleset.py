"""Load and validate a rule file: response patterns, rules, and the ontology they use.

A rule file is YAML::

    ontology: ontology.yaml            # food/area/price values and synonyms (path relative to this file)
    patterns:                          # named responses; {name} {food} {area} {price} are filled in
      ask_area: What part of town do you have in mind?
    rules:
      - id: ask-area                   # unique
        priority: 50                   # higher first; ties: the earlier rule in the file (see rule_order)
        when: {missing: [area], prev_bot_not: [ask_area]}
        say: ask_area

A rule either responds (``say: PATTERN``, optionally ``offer: true``; or ``api_call: true``)
or updates the state (``set: {slot: value}``, ``mark: [flag]``: a flag that stays raised for
the rest of the dialog, tested by ``marked`` / ``not_marked``). Types are checked strictly
(a bool is true or false, an int is not a bool, a list holds strings). Every problem of a
file is collected and raised at once as a ``RuleFileError``, each ``file:line: message (rule-id)``.
"""
from __future__ import annotations

import hashlib
import os
import re as std_re
import reprlib
from dataclasses import dataclass
from typing import Any

import regex
import yaml

from ..errors import Dstc2ConvError
from ..files import read_bytes
from .problems import Problem, RuleFileError

SLOTS = ("food", "area", "price")
FIELDS = ("name", "food", "area", "price")
TOP_KEYS = {"ontology", "patterns", "rules"}
ONTOLOGY_KEYS = {"food", "area", "price", "served", "synonyms"}
RULE_KEYS = {"id", "priority", "enabled", "when", "say", "api_call", "offer", "set", "mark", "note"}
# condition -> kind of value it takes
CONDITIONS = {
    "first_turn": bool, "turn_at_least": int, "turn_at_most": int,
    "user_silent": bool, "user_words": list, "user_regex": str, "user_not_regex": str,
    "said_before_regex": str, "marked": list, "not_marked": list,
    "user_mentions": list, "user_mentions_none": bool,
    "prev_bot": list, "prev_bot_not": list, "prev_bot_regex": str, "said": list, "not_said": list,
    "filled": list, "unfilled": list, "known": list, "missing": list, "dontcare": list, "food_served": bool,
    "state_changed": bool, "called": bool, "has_results": bool, "remaining": bool, "has_current": bool,
}
SLOT_LIST_CONDITIONS = {"user_mentions", "filled", "unfilled", "known", "missing", "dontcare"}
PATTERN_LIST_CONDITIONS = {"prev_bot", "prev_bot_not", "said", "not_said"}
REGEX_CONDITIONS = {"user_regex", "user_not_regex", "prev_bot_regex", "said_before_regex"}
FIELD_RE = std_re.compile(r"\{([a-z_]+)\}")
FLAG_RE = std_re.compile(r"[A-Za-z0-9_-]+")
ALIAS_LIMIT = 10_000        # YAML nodes that aliases may bring into one file, in all
PROBE_TIMEOUT = 0.25        # seconds a regular expression may take on one probe (see _too_slow)
TOO_SLOW = "regular expression too slow"


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


@dataclass(frozen=True)
class Rule:
    id: str
    priority: int
    index: int                  # position in the file
    line: int
    enabled: bool
    when: tuple                 # (condition, value) pairs, values compiled
    say: str | None
    api_call: bool
    offer: bool
    set: tuple                  # (slot, value) pairs
    mark: tuple = ()            # flags the rule raises for the rest of the dialog

    @property
    def updates_state(self) -> bool:
        return bool(self.set or self.mark)


@dataclass(frozen=True)
class Ontology:
    values: dict               # slot -> tuple of values
    served: frozenset          # the food values some restaurant of the KB serves
    phrases: dict              # phrase said by users -> (slot, value)
    matcher: Any               # compiled regex over all phrases (escaped literals only)


@dataclass(frozen=True)
class RuleSet:
    path: str
    sha256: str
    patterns: dict              # name -> template
    rules: tuple                # Rule, in file order
    ontology: Ontology

    def ordered(self) -> list[Rule]:
        return sorted((r for r in self.rules if r.enabled), key=rule_order)


def rule_order(rule: Rule) -> tuple[int, int]:
    """The one tie-break: higher priority first; equal priorities keep file order."""
    return (-rule.priority, rule.index)


class _Collect:
    """The problems of one file, collected so that all are reported at once."""

    def __init__(self, path: str):
        self.path = path
        self.problems: list[Problem] = []

    def __call__(self, message: str, line: int | None, rule_id: str | None = None) -> None:
        self.problems.append(Problem(self.path, line, message, rule_id))

    def raise_any(self) -> None:
        if self.problems:
            raise RuleFileError(self.problems)


# ---------------------------------------------------------------- YAML with line numbers

class _Map(dict):
    line = 0
    key_lines: dict


class _Seq(list):
    line = 0
    item_lines: list


class _Loader(yaml.SafeLoader):
    """Builds _Map / _Seq with line numbers, collects duplicate keys, and refuses aliases
    that bring in more than ALIAS_LIMIT nodes in all (an "alias bomb": nine levels of
    nine aliases each are 9**9 nodes, shared in memory but not in what reads them)."""

    def __init__(self, text: str, path: str):
        super().__init__(text)
        self.path = path
        self.duplicates: list[tuple[Any, int]] = []
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
    return out


def _seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    out = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [child.start_mark.line + 1 for child in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _seq)


def _load_yaml(text: str, path: str, bad: _Collect):
    """The document; a problem that stops the parse is raised, duplicate keys are collected."""
    loader = _Loader(text, path)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise RuleFileError([Problem(path, mark.line + 1 if mark else None, f"YAML: {exc.problem}")]) from None
    except yaml.YAMLError as exc:
        raise RuleFileError([Problem(path, None, f"YAML: {exc}")]) from None
    except RecursionError:
        raise RuleFileError([Problem(path, None, "YAML: nested too deeply")]) from None
    finally:
        loader.dispose()
    for key, line in loader.duplicates:
        bad(f"duplicate key {key!r}", line)
    return data


def _decode(raw: bytes, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError([Problem(path, None, f"not UTF-8 ({exc.reason} at byte {exc.start})")]) from None


# ---------------------------------------------------------------- types

def _show(value: Any) -> str:
    """A value for a message, short (a list or mapping is not printed: it may be huge)."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null (nothing)"
    return reprlib.repr(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _strings(value: Any, what: str) -> tuple[tuple | None, str | None]:
    """(strings, None) for a non-empty list of non-empty strings (one string counts as a
    list of one); else (None, what is wrong)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        return None, f"{what} takes a non-empty list of strings, not {_show(value)}"
    for i, item in enumerate(value, 1):
        if not isinstance(item, str) or not item.strip():
            return None, f"{what}: item {i} must be a non-empty string, not {_show(item)}"
    return tuple(value), None


# ---------------------------------------------------------------- ontology

def load_ontology(path: str) -> Ontology:
    """Load an ontology file; raise RuleFileError with all its problems."""
    bad = _Collect(path)
    data = _load_yaml(_decode(read_bytes(path), path), path, bad)
    if not isinstance(data, _Map):
        raise RuleFileError([Problem(path, 1, "an ontology file is a mapping with food, area, price "
                                              "(and synonyms, served)")])
    for key in data:
        if key not in ONTOLOGY_KEYS:
            bad(f"unknown key {key!r} (known: {', '.join(sorted(ONTOLOGY_KEYS))})", data.key_lines[key])
    values: dict[str, tuple] = {}
    phrases: dict[str, tuple[str, str]] = {}
    for slot in SLOTS:
        items, wrong = _strings(data.get(slot), f"{slot!r}")
        if wrong or isinstance(data.get(slot), str):
            bad(wrong or f"{slot!r} takes a list of values", data.key_lines.get(slot, data.line))
            values[slot] = ()
            continue
        values[slot] = items
        for value in items:
            phrases[value] = (slot, value)
            phrases.setdefault(value.replace("_", " "), (slot, value))
    synonyms = data.get("synonyms")
    if synonyms is not None and not isinstance(synonyms, _Map):
        bad("'synonyms' takes a mapping of slots to {phrase: value}", data.key_lines["synonyms"])
        synonyms = None
    for slot, table in (synonyms or {}).items():
        line = synonyms.key_lines[slot]
        if slot not in SLOTS:
            bad(f"synonyms: unknown slot {slot!r} (slots: food, area, price)", line)
            continue
        if not isinstance(table, _Map):
            bad(f"synonyms: {slot!r} takes a mapping of phrases to values, not {_show(table)}", line)
            continue
        for said, value in table.items():
            line = table.key_lines[said]
            if not isinstance(said, str) or not said.strip():
                bad(f"synonym {_show(said)}: a phrase must be a non-empty string", line)
            elif not isinstance(value, str) or value not in values[slot]:
                bad(f"synonym {said!r} maps to {_show(value)}, which is not {'an' if slot[0] in 'aeiou' else 'a'} {slot} value", line)
            else:
                phrases[said] = (slot, value)
    served: tuple = ()
    if "served" in data:
        line = data.key_lines["served"]
        served, wrong = _strings(data["served"], "'served'")
        if wrong:
            bad(wrong, line)
            served = ()
        for value in served:
            if values["food"] and value not in values["food"]:
                bad(f"served: {value!r} is not a food value", line)
    bad.raise_any()
    ordered = sorted(phrases, key=lambda p: (-len(p), p))
    matcher = regex.compile(r"\b(" + "|".join(regex.escape(p) for p in ordered) + r")\b")
    return Ontology(values, frozenset(served), phrases, matcher)


# ---------------------------------------------------------------- regular expressions

def search_bounded(compiled, text: str, timeout: float):
    """``compiled.search(text)`` within ``timeout`` seconds, tried a second time before
    giving up (a pause of the whole process is not the expression's fault); past that,
    TimeoutError."""
    try:
        return compiled.search(text, timeout=timeout)
    except TimeoutError:
        return compiled.search(text, timeout=timeout)


def _too_slow(compiled) -> bool:
    """Whether a regular expression backtracks catastrophically on a probe: a run of one
    character it names (or a, 0, space), alone or between spaces, then one it cannot match.
    Any other slow case is stopped when the rules run (see engine.TIMEOUT)."""
    chars = {c for c in compiled.pattern if c.isalnum() or c == " "} | {"a", "0", " "}
    try:
        for c in sorted(chars):
            search_bounded(compiled, c * 30 + "\x00", PROBE_TIMEOUT)
            search_bounded(compiled, (c + " ") * 15 + "\x00", PROBE_TIMEOUT)
    except TimeoutError:
        return True
    return False


def _regex(source: str, slow: Problem, bad: _Collect) -> Regex | None:
    try:
        compiled = regex.compile(source)
    except regex.error as exc:
        bad(f"bad regular expression {source!r}: {exc}", slow.line, slow.rule_id)
        return None
    if _too_slow(compiled):
        bad(slow.message, slow.line, slow.rule_id)
        return None
    return Regex(compiled, slow)


def pattern_regex(template: str):
    """A regex matching any rendering of a pattern (each field one token)."""
    parts = FIELD_RE.split(template)
    out = []
    for i, part in enumerate(parts):
        out.append(r"\S+" if i % 2 else regex.escape(part))
    return regex.compile("".join(out) + r"\Z")


# ---------------------------------------------------------------- rules

def _condition(key: Any, value: Any, patterns: dict, line: int, rule_id: str | None, bad: _Collect):
    """The condition's value, compiled (``patterns``: name -> template, or None for a
    pattern with a problem of its own); None, with a problem noted, if it is wrong."""
    kind = CONDITIONS.get(key) if isinstance(key, str) else None
    if kind is None:
        bad(f"unknown condition {_show(key)} (known: {', '.join(sorted(CONDITIONS))})", line, rule_id)
        return None
    if kind is bool and not isinstance(value, bool):
        bad(f"condition {key!r} takes true or false, not {_show(value)}", line, rule_id)
        return None
    if kind is int and not _is_int(value):
        bad(f"condition {key!r} takes an integer, not {_show(value)}", line, rule_id)
        return None
    if kind is str:
        if not isinstance(value, str):
            bad(f"condition {key!r} takes a regular expression (a string), not {_show(value)}", line, rule_id)
            return None
        return _regex(value, Problem(bad.path, line, TOO_SLOW, rule_id), bad)
    if kind is not list:
        return value
    items, wrong = _strings(value, f"condition {key!r}")
    if wrong:
        bad(wrong, line, rule_id)
        return None
    if key in SLOT_LIST_CONDITIONS:
        unknown = [v for v in items if v not in SLOTS]
        if unknown:
            bad(f"condition {key!r}: unknown slot {unknown[0]!r} (slots: food, area, price)", line, rule_id)
            return None
        return items
    if key in PATTERN_LIST_CONDITIONS:
        missing = [name for name in items if name not in patterns]
        if missing:
            bad(f"condition {key!r}: no pattern named {missing[0]!r}", line, rule_id)
            return None
        return tuple(pattern_regex(patterns[name]) for name in items) if all(patterns[n] for n in items) else None
    if key == "user_words":
        source = r"\b(?:" + "|".join(regex.escape(w) for w in items) + r")\b"
        return Regex(regex.compile(source), Problem(bad.path, line, TOO_SLOW, rule_id))
    # marked, not_marked
    unknown = [v for v in items if not FLAG_RE.fullmatch(v)]
    if unknown:
        bad(f"condition {key!r}: {unknown[0]!r} is not a flag name (letters, digits, - and _)", line, rule_id)
        return None
    return items


def _patterns(data: _Map, bad: _Collect) -> dict:
    """name -> template, or None for a pattern with a problem (noted)."""
    patterns = data.get("patterns")
    if not isinstance(patterns, _Map) or not patterns:
        bad("'patterns' must be a non-empty mapping of names to responses", data.key_lines.get("patterns", data.line))
        return {}
    templates = {}
    for name, template in patterns.items():
        line = patterns.key_lines[name]
        if not isinstance(name, str):
            bad(f"pattern name {_show(name)} must be a string", line)
            continue
        templates[name] = None
        if not isinstance(template, str):
            bad(f"pattern {name!r} must be a string, not {_show(template)}", line)
            continue
        fields = [f for f in FIELD_RE.findall(template) if f not in FIELDS]
        if fields:
            bad(f"pattern {name!r}: unknown field {{{fields[0]}}} (fields: {', '.join(FIELDS)})", line)
            continue
        if any(len(FIELD_RE.findall(word)) > 1 for word in template.split()):
            # each field is one word: two in one word could not be told apart (and their
            # regex would backtrack without end)
            bad(f"pattern {name!r}: two fields in one word", line)
            continue
        templates[name] = template
    return templates


def _empty_map() -> _Map:
    out = _Map()
    out.key_lines = {}
    return out


def _rule(item: Any, index: int, line: int, patterns: dict, ontology: Ontology | None,
          bad: _Collect) -> Rule | None:
    """One rule, or None when it has a problem (each one noted)."""
    if not isinstance(item, _Map):
        bad(f"a rule must be a mapping, not {_show(item)}", line)
        return None
    count = len(bad.problems)
    rule_id = item.get("id")
    if not isinstance(rule_id, str) or not rule_id.strip():
        bad("a rule needs an 'id' (a string)", item.key_lines.get("id", line))
        rule_id = None
    at = item.key_lines.get
    for key in item:
        if key not in RULE_KEYS:
            bad(f"unknown key {_show(key)} (known: {', '.join(sorted(RULE_KEYS))})", at(key), rule_id)
    priority = item.get("priority", 0)
    if not _is_int(priority):
        bad(f"'priority' must be an integer, not {_show(priority)}", at("priority", line), rule_id)
    flags = {}
    for key in ("enabled", "api_call", "offer"):
        flags[key] = item.get(key, key == "enabled")
        if not isinstance(flags[key], bool):
            bad(f"{key!r} must be true or false, not {_show(flags[key])}", at(key), rule_id)
    note = item.get("note")
    if note is not None and not isinstance(note, str):
        bad(f"'note' must be text, not {_show(note)}", at("note"), rule_id)
    when = item.get("when")
    if when is None:
        when = _empty_map()
    if not isinstance(when, _Map):
        bad(f"'when' must be a mapping of conditions, not {_show(when)}", at("when", line), rule_id)
        when = _empty_map()
    conditions = tuple((k, _condition(k, v, patterns, when.key_lines[k], rule_id, bad)) for k, v in when.items())
    say = item.get("say")
    if say is not None and (not isinstance(say, str) or say not in patterns):
        bad(f"no pattern named {_show(say)}", at("say"), rule_id)
    sets = item.get("set")
    if sets is None:
        sets = {}
    if not isinstance(sets, dict):
        bad(f"'set' must be a mapping of slots to values, not {_show(sets)}", at("set"), rule_id)
        sets = {}
    for slot, value in sets.items():
        if slot not in SLOTS:
            bad(f"'set': unknown slot {_show(slot)} (slots: food, area, price)", at("set"), rule_id)
        elif value is not None and not isinstance(value, str):
            bad(f"'set': {slot} takes a value, dontcare or null, not {_show(value)}", at("set"), rule_id)
        elif value not in ("dontcare", None) and ontology is not None and value not in ontology.values[slot]:
            bad(f"'set': {value!r} is not {'an' if slot[0] in 'aeiou' else 'a'} {slot} value (or dontcare, null)",
                at("set"), rule_id)
    marks = item.get("mark")
    if marks is None:
        marks = ()
    else:
        marks, wrong = _strings(marks, "'mark'")
        if wrong or any(not FLAG_RE.fullmatch(m) for m in marks):
            bad("'mark' takes a flag name or a list of them (letters, digits, - and _)", at("mark"), rule_id)
            marks = ()
    api_call, offer = flags["api_call"] is True, flags["offer"] is True
    responds = say is not None or api_call
    updates = bool(sets or "mark" in item)
    if responds == updates:
        bad("a rule either responds (say / api_call) or updates the state (set / mark)", line, rule_id)
    elif say is not None and api_call:
        bad("a rule says a pattern or makes an api_call, not both", line, rule_id)
    elif offer and say is None:
        bad("'offer' goes with 'say' (a response that names the restaurant offered)", at("offer"), rule_id)
    if len(bad.problems) > count or any(v is None for _, v in conditions):
        return None
    return Rule(rule_id, priority, index, line, flags["enabled"], conditions, say, api_call, offer,
                tuple(sets.items()), marks)


def load_rules(path: str | os.PathLike) -> RuleSet:
    """Load and validate a rule file; raise RuleFileError carrying every problem found."""
    path = os.fspath(path)
    raw = read_bytes(path)
    bad = _Collect(path)
    data = _load_yaml(_decode(raw, path), path, bad)
    if not isinstance(data, _Map):
        raise RuleFileError([Problem(path, 1, "a rule file is a mapping with 'ontology', 'patterns' and 'rules'")])
    for key in data:
        if key not in TOP_KEYS:
            bad(f"unknown key {_show(key)} (known: {', '.join(sorted(TOP_KEYS))})", data.key_lines[key])
    ontology = None
    ontology_path = data.get("ontology")
    if not isinstance(ontology_path, str) or not ontology_path:
        bad("'ontology' must name an ontology file", data.key_lines.get("ontology", data.line))
    else:
        try:
            ontology = load_ontology(os.path.join(os.path.dirname(path), ontology_path))
        except RuleFileError as exc:
            bad.problems.extend(exc.problems)
        except Dstc2ConvError as exc:     # cannot read it
            bad.problems.append(Problem(exc.path, exc.line, exc.message))
    patterns = _patterns(data, bad)
    items = data.get("rules")
    rules = []
    if not isinstance(items, _Seq) or not items:
        bad("'rules' must be a non-empty list of rules", data.key_lines.get("rules", data.line))
        items = _Seq()
        items.item_lines = []
    first: dict[str, int] = {}
    raised: set[str] = set()          # flags some rule marks
    tested = []                       # (flags, line, rule id) of marked / not_marked conditions
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
        for key, value in rule.when:
            if key in ("marked", "not_marked"):
                tested.append((value, item_map["when"].key_lines[key], rule.id))
    for flags, line, rule_id in tested:
        for flag in flags:
            if flag not in raised:
                bad(f"no rule marks the flag {flag!r}", line, rule_id)
    bad.problems.sort(key=lambda p: (p.path != path, p.path, p.line or 0))
    bad.raise_any()
    return RuleSet(path, hashlib.sha256(raw).hexdigest(), patterns, tuple(rules), ontology)
