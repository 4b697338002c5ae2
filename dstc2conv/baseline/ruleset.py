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

A rule either responds (``say: PATTERN``, ``api_call: true``, optionally ``offer: true``)
or updates the state (``set: {slot: value}``, ``mark: [flag]``: a flag that stays raised for
the rest of the dialog, tested by ``marked`` / ``not_marked``). Every problem is reported as
``file:line: message (rule-id)``.
"""
from __future__ import annotations

import hashlib
import os
import re as std_re
from dataclasses import dataclass
from typing import Any

import regex
import yaml

from ..errors import Dstc2ConvError
from ..files import read_bytes

SLOTS = ("food", "area", "price")
FIELDS = ("name", "food", "area", "price")
TOP_KEYS = {"ontology", "patterns", "rules"}
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
FIELD_RE = std_re.compile(r"\{([a-z_]+)\}")
FLAG_RE = std_re.compile(r"[A-Za-z0-9_-]+")


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
    matcher: Any               # compiled regex over all phrases


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


# ---------------------------------------------------------------- YAML with line numbers

class _Map(dict):
    line = 0
    key_lines: dict


class _Seq(list):
    line = 0
    item_lines: list


class _Loader(yaml.SafeLoader):
    pass


def _map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    out = _Map()
    out.line = node.start_mark.line + 1
    out.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise Dstc2ConvError(f"duplicate key {key!r}", getattr(loader, "path", None), key_node.start_mark.line + 1)
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


def _load_yaml(text: str, path: str):
    loader = _Loader(text)
    loader.path = path
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise Dstc2ConvError(f"YAML: {exc.problem}", path, mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


# ---------------------------------------------------------------- ontology

def load_ontology(path: str) -> Ontology:
    data = _load_yaml(read_bytes(path).decode("utf-8", "replace"), path)
    if not isinstance(data, dict):
        raise Dstc2ConvError("an ontology file is a mapping with food, area, price (and synonyms)", path)
    values = {}
    phrases: dict[str, tuple[str, str]] = {}
    for slot in SLOTS:
        items = data.get(slot)
        if not isinstance(items, list) or not items:
            raise Dstc2ConvError(f"'{slot}' must be a non-empty list", path, getattr(data, "line", None))
        values[slot] = tuple(str(v) for v in items)
        for value in values[slot]:
            phrases[value] = (slot, value)
            phrases.setdefault(value.replace("_", " "), (slot, value))
    for slot, table in (data.get("synonyms") or {}).items():
        if slot not in SLOTS or not isinstance(table, dict):
            raise Dstc2ConvError(f"synonyms: unknown slot {slot!r}", path, data.key_lines.get("synonyms"))
        for said, value in table.items():
            if str(value) not in values[slot]:
                raise Dstc2ConvError(f"synonym {said!r} maps to {value!r}, which is not a {slot} value",
                                     path, table.key_lines.get(said))
            phrases[str(said)] = (slot, str(value))
    served = data.get("served") or []
    unknown = [v for v in served if v not in values["food"]]
    if unknown:
        raise Dstc2ConvError(f"served: {unknown[0]!r} is not a food value", path, data.key_lines.get("served"))
    ordered = sorted(phrases, key=lambda p: (-len(p), p))
    matcher = regex.compile(r"\b(" + "|".join(regex.escape(p) for p in ordered) + r")\b")
    return Ontology(values, frozenset(served), phrases, matcher)


# ---------------------------------------------------------------- rules

def _fail(message: str, path: str, line: int | None, rule_id: str | None = None):
    raise Dstc2ConvError(message, path, line, rule_id)


def _compile_regex(text: Any, path: str, line: int, rule_id: str):
    if not isinstance(text, str):
        _fail("a regular expression must be a string", path, line, rule_id)
    try:
        return regex.compile(text)
    except regex.error as exc:
        _fail(f"bad regular expression {text!r}: {exc}", path, line, rule_id)


def _condition(key: str, value: Any, patterns: dict, path: str, line: int, rule_id: str):
    kind = CONDITIONS.get(key)
    if kind is None:
        _fail(f"unknown condition {key!r} (known: {', '.join(sorted(CONDITIONS))})", path, line, rule_id)
    if kind is bool and not isinstance(value, bool) or kind is int and (
            not isinstance(value, int) or isinstance(value, bool)):
        _fail(f"condition {key!r} takes a {kind.__name__}, not {value!r}", path, line, rule_id)
    if kind is list:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value:
            _fail(f"condition {key!r} takes a non-empty list", path, line, rule_id)
        if key in SLOT_LIST_CONDITIONS:
            bad = [v for v in value if v not in SLOTS]
            if bad:
                _fail(f"condition {key!r}: unknown slot {bad[0]!r} (slots: food, area, price)", path, line, rule_id)
            return tuple(value)
        if key in PATTERN_LIST_CONDITIONS:
            for name in value:
                if name not in patterns:
                    _fail(f"condition {key!r}: no pattern named {name!r}", path, line, rule_id)
            return tuple(pattern_regex(patterns[name]) for name in value)
        if key == "user_words":
            words = [str(w) for w in value]
            return regex.compile(r"\b(?:" + "|".join(regex.escape(w) for w in words) + r")\b")
        if key in ("marked", "not_marked"):
            bad = [v for v in value if not isinstance(v, str) or not FLAG_RE.fullmatch(v)]
            if bad:
                _fail(f"condition {key!r}: {bad[0]!r} is not a flag name (letters, digits, - and _)",
                      path, line, rule_id)
            return tuple(value)
    if key in ("user_regex", "user_not_regex", "prev_bot_regex", "said_before_regex"):
        return _compile_regex(value, path, line, rule_id)
    return value


def pattern_regex(template: str):
    """A regex matching any rendering of a pattern (each field one token)."""
    parts = FIELD_RE.split(template)
    out = []
    for i, part in enumerate(parts):
        out.append(r"\S+" if i % 2 else regex.escape(part))
    return regex.compile("".join(out) + r"\Z")


def load_rules(path: str | os.PathLike) -> RuleSet:
    """Load and validate a rule file; raise Dstc2ConvError at the first problem."""
    path = os.fspath(path)
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Dstc2ConvError(f"not UTF-8 ({exc.reason} at byte {exc.start})", path) from None
    data = _load_yaml(text, path)
    if not isinstance(data, _Map):
        _fail("a rule file is a mapping with 'patterns' and 'rules'", path, 1)
    for key in data:
        if key not in TOP_KEYS:
            _fail(f"unknown key {key!r} (known: {', '.join(sorted(TOP_KEYS))})", path, data.key_lines[key])
    ontology_path = data.get("ontology")
    if not isinstance(ontology_path, str):
        _fail("'ontology' must name an ontology file", path, data.key_lines.get("ontology", data.line))
    ontology = load_ontology(os.path.join(os.path.dirname(path), ontology_path))
    patterns = data.get("patterns")
    if not isinstance(patterns, _Map) or not patterns:
        _fail("'patterns' must be a mapping of names to responses", path, data.key_lines.get("patterns", data.line))
    for name, template in patterns.items():
        if not isinstance(template, str):
            _fail(f"pattern {name!r} must be a string", path, patterns.key_lines[name])
        for field in FIELD_RE.findall(template):
            if field not in FIELDS:
                _fail(f"pattern {name!r}: unknown field {{{field}}} (fields: {', '.join(FIELDS)})",
                      path, patterns.key_lines[name])
    items = data.get("rules")
    if not isinstance(items, _Seq) or not items:
        _fail("'rules' must be a list of rules", path, data.key_lines.get("rules", data.line))
    rules, seen = [], {}
    raised: dict[str, int] = {}       # flag -> line of a rule that marks it
    tested: list = []                 # (flags, line, rule id) of marked / not_marked conditions
    for index, (item, line) in enumerate(zip(items, items.item_lines)):
        if not isinstance(item, _Map):
            _fail("a rule must be a mapping", path, line)
        rule_id = item.get("id")
        if not isinstance(rule_id, str) or not rule_id:
            _fail("a rule needs an 'id'", path, line)
        if rule_id in seen:
            _fail(f"duplicate rule id (first at line {seen[rule_id]})", path, item.key_lines["id"], rule_id)
        seen[rule_id] = line
        for key in item:
            if key not in RULE_KEYS:
                _fail(f"unknown key {key!r} (known: {', '.join(sorted(RULE_KEYS))})", path,
                      item.key_lines[key], rule_id)
        priority = item.get("priority", 0)
        if not isinstance(priority, int) or isinstance(priority, bool):
            _fail("'priority' must be an integer", path, item.key_lines.get("priority", line), rule_id)
        when = item.get("when") or _Map()
        if not isinstance(when, _Map):
            _fail("'when' must be a mapping of conditions", path, item.key_lines.get("when", line), rule_id)
        conditions = tuple((k, _condition(k, v, patterns, path, when.key_lines[k], rule_id)) for k, v in when.items())
        say = item.get("say")
        if say is not None and say not in patterns:
            _fail(f"no pattern named {say!r}", path, item.key_lines["say"], rule_id)
        sets = item.get("set") or {}
        if not isinstance(sets, dict):
            _fail("'set' must be a mapping of slots to values", path, item.key_lines["set"], rule_id)
        for slot, value in sets.items():
            if slot not in SLOTS:
                _fail(f"'set': unknown slot {slot!r}", path, item.key_lines["set"], rule_id)
            if value not in ("dontcare", None) and value not in ontology.values[slot]:
                _fail(f"'set': {value!r} is not a {slot} value (or dontcare, null)", path,
                      item.key_lines["set"], rule_id)
        marks = item.get("mark") or []
        if isinstance(marks, str):
            marks = [marks]
        if not isinstance(marks, list) or any(not isinstance(m, str) or not FLAG_RE.fullmatch(m) for m in marks):
            _fail("'mark' takes a flag name or a list of them (letters, digits, - and _)", path,
                  item.key_lines["mark"], rule_id)
        for flag in marks:
            raised.setdefault(flag, item.key_lines["mark"])
        api_call = bool(item.get("api_call", False))
        responds = say is not None or api_call
        if responds == bool(sets or marks):
            _fail("a rule either responds (say / api_call) or updates the state (set / mark)", path, line, rule_id)
        if say is not None and api_call:
            _fail("a rule says a pattern or makes an api_call, not both", path, line, rule_id)
        rules.append(Rule(rule_id, priority, index, line, bool(item.get("enabled", True)), conditions, say,
                          api_call, bool(item.get("offer", False)), tuple(sets.items()), tuple(marks)))
        for key, value in when.items():
            if key in ("marked", "not_marked"):
                tested.append((value, when.key_lines[key], rule_id))
    for flags, line, rule_id in tested:
        for flag in flags:
            if flag not in raised:
                _fail(f"no rule marks the flag {flag!r}", path, line, rule_id)
    return RuleSet(path, hashlib.sha256(raw).hexdigest(), dict(patterns), tuple(rules), ontology)
