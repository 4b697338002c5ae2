"""The chooser's actions: bot turns made templates (delexicalised) by the rules' state,
and filled again from it.

A template is written in the rule files' pattern language (``{name}``, ``{food}``,
``{area}``, ``{price}``; ``{name}_phone`` and the like for a restaurant's details) with a
source for its fields: ``current`` (the restaurant last named), ``upcoming`` (the next to
offer) or ``""`` (the state's slots: an api_call is ``api_call {food} R_location {price}``
when the state has a food and a price and the call leaves the area open). ``delex`` makes
a bot turn an action in a state; ``fill`` gives the action's text in a state, or None when
a field it needs has no value there (the action mask).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...task6.vocabulary import DETAILS, DONTCARE, SLOTS

SOURCES = ("", "current", "upcoming")
FIELDS = tuple(slot.rule for slot in SLOTS)            # food, area, price
SUFFIXES = frozenset(detail.suffix for detail in DETAILS)
# availability bits of a source: it is there (a restaurant for current/upcoming), then each field
PRESENT = 1
BIT = {field: 2 << i for i, field in enumerate(FIELDS)}


@dataclass(frozen=True, order=True)
class Action:
    source: str          # one of SOURCES
    template: str        # with {fields}; literal braces doubled

    @property
    def key(self) -> str:
        return f"{self.source}|{self.template}"

    @staticmethod
    def from_key(key: str) -> Action:
        source, _, template = key.partition("|")
        if source not in SOURCES or not template:
            raise ValueError(f"not an action: {key!r}")
        return Action(source, template)

    @property
    def needs(self) -> int:
        """The availability bits the action needs of its source."""
        bits = PRESENT if self.source in ("current", "upcoming") else 0
        for field in FIELDS:
            if "{" + field + "}" in self.template:
                bits |= BIT[field]
        return bits


def _restaurant(state, source: str) -> str | None:
    return state.current if source == "current" else state.upcoming if source == "upcoming" else None


def fields(state, source: str) -> dict | None:
    """The values an action of ``source`` is filled with (None: its restaurant is missing)."""
    if source in ("current", "upcoming"):
        name = _restaurant(state, source)
        if name is None:
            return None
        attrs = state.results.get(name, {})
        out = {"name": name}
        out.update((slot.rule, attrs.get(slot.attribute)) for slot in SLOTS)
        return out
    out = {}
    for slot in SLOTS:
        value = getattr(state, slot.rule)
        out[slot.rule] = None if value == DONTCARE else value
    return out


def available(state) -> tuple[int, ...]:
    """Per source (SOURCES' order), its availability bits in ``state``."""
    out = []
    for source in SOURCES:
        found = fields(state, source)
        bits = 0
        if found is not None:
            bits = PRESENT
            for field in FIELDS:
                if found.get(field) is not None:
                    bits |= BIT[field]
        out.append(bits)
    return tuple(out)


def fill(spaced: dict, action: Action, state) -> str | None:
    """The action's text in ``state``; None when a field has no value. ``spaced``: the
    restaurants bot turns name with spaces (name -> as written)."""
    found = fields(state, action.source)
    if found is None:
        return None
    template = action.template
    if "{" not in template.replace("{{", ""):
        return template.replace("{{", "{").replace("}}", "}")
    for field in FIELDS:
        if found[field] is None and "{" + field + "}" in template:
            return None
    name = found.get("name")
    if name is not None and name in spaced:
        template = template.replace("{name}_", "{token}_")
        found = dict(found, token=name, name=spaced[name])
    return template.format(**found)


class Delexer:
    """``delex`` for one compiled rule set, with its caches (bounded)."""

    LIMIT = 200_000

    def __init__(self, compiled):
        self.compiled = compiled
        values = compiled.ontology.values
        self._values = {field: frozenset(values.get(field, ())) for field in FIELDS}
        self._tokens: dict = {}      # text -> (underscored tokens, the fields it names 2+ values of)
        self._done: dict = {}

    def __call__(self, text: str, state) -> Action:
        key = (text, state.upcoming, state.current, state.food, state.area, state.price)
        found = self._done.get(key)
        if found is None:
            if len(self._done) > self.LIMIT:
                self._done.clear()
            found = self._done[key] = self._delex(text, state)
        return found

    def _split(self, text: str):
        found = self._tokens.get(text)
        if found is None:
            if len(self._tokens) > self.LIMIT:
                self._tokens.clear()
            under = self.compiled._underscored(text.strip())
            tokens = tuple(under.replace("{", "{{").replace("}", "}}").split())
            several = frozenset(f for f in FIELDS if len(self._values[f].intersection(tokens)) >= 2)
            found = self._tokens[text] = (tokens, several)
        return found

    def _delex(self, text: str, state) -> Action:
        tokens, several = self._split(text)
        source = ""
        for candidate in ("upcoming", "current"):
            name = _restaurant(state, candidate)
            if name is not None and any(_names(token, name) for token in tokens):
                source = candidate
                break
        found = fields(state, source) or {}
        name = found.get("name")
        out = []
        for token in tokens:
            if name is not None and _names(token, name):
                out.append("{name}" + token[len(name):])
                continue
            for field in FIELDS:
                if field not in several and found.get(field) is not None and token == found[field]:
                    out.append("{" + field + "}")
                    break
            else:
                out.append(token)
        return Action(source, " ".join(out))


def delex(compiled, text: str, state) -> Action:
    """``text`` (a bot turn) as an action in ``state``: the restaurant it names (the one to
    offer, else the current one) and its values made fields. A slot the text names two or
    more values of ("cheap , moderate , or expensive") stays as written."""
    return Delexer(compiled)(text, state)


def _names(token: str, name: str) -> bool:
    """``token`` is the restaurant ``name`` or one of its details (``name_phone``)."""
    return token == name or (token.startswith(name + "_") and token[len(name) + 1:] in SUFFIXES)


__all__ = ["SOURCES", "FIELDS", "Action", "Delexer", "fields", "available", "fill", "delex"]
