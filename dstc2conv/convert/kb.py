"""The restaurant KB: read and write the published KB file's format, or build one from the logs.

A KB file has one fact per line, ``1 <name> R_<attr> <value>`` (bAbI tasks 1-5's KB
has a tab before the value, and a party size ``R_number``, read and left out as the
rating is). Names and values are underscored (``yippee_noodle_bar``,
``modern_european``); phone, address and postcode values are the placeholders
``<name>_phone``, ``<name>_address``, ``<name>_post_code``.
"""
from __future__ import annotations

import io
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

from ..errors import Dstc2ConvError
from ..files import read_text
from ..task6.format import Fact
from ..task6.text import clean, problem
from ..task6.vocabulary import ATTRIBUTES, DETAILS, DONTCARE, PLACEHOLDERS, RATING, SLOT_BY_DSTC2, SLOTS

NUMBER = "R_number"      # bAbI tasks 1-5: the party size a restaurant has room for


@dataclass(frozen=True)
class Restaurant:
    name: str
    attrs: tuple[tuple[str, str], ...]   # (attribute, value) in ATTRIBUTES order, missing ones left out

    def get(self, attribute: str) -> str | None:
        for key, value in self.attrs:
            if key == attribute:
                return value
        return None


@dataclass(frozen=True)
class KB:
    restaurants: tuple[Restaurant, ...]   # sorted by name
    source: str                           # a file path, or "logs"
    text: str | None = field(default=None, repr=False, compare=False)   # a KB file's text, exactly as read

    @cached_property
    def _by_name(self) -> dict[str, Restaurant]:
        return {r.name: r for r in self.restaurants}

    def restaurant(self, name: str) -> Restaurant | None:
        """The restaurant of this (underscored) name, or None."""
        return self._by_name.get(name)

    @cached_property
    def _positions(self) -> dict[tuple[str, str], frozenset]:
        """(attribute, value) -> positions of the restaurants that have it."""
        index: dict[tuple[str, str], set] = {}
        for position, restaurant in enumerate(self.restaurants):
            for fact in restaurant.attrs:
                index.setdefault(fact, set()).add(position)
        return {fact: frozenset(found) for fact, found in index.items()}

    def matching(self, cuisine: str | None, location: str | None, price: str | None) -> list[Restaurant]:
        """Restaurants, in KB order, whose attributes equal every given value (None: any)."""
        found = None
        for attribute, value in zip(PLACEHOLDERS, (cuisine, location, price)):
            if value is not None:
                have = self._positions.get((attribute, value), frozenset())
                found = have if found is None else found & have
        positions = range(len(self.restaurants)) if found is None else sorted(found)
        return [self.restaurants[p] for p in positions]


def underscore(text: str) -> str:
    """A name or value as task-6 lines write it: its words joined by underscores (and
    cleaned as the converter cleans utterances: ``task6.text.clean``)."""
    return clean(text).replace(" ", "_")


def _make(name: str, facts: dict[str, str]) -> Restaurant:
    return Restaurant(name, tuple((a, facts[a]) for a in ATTRIBUTES if a in facts))


def read_kb(path: str | os.PathLike) -> KB:
    """Read a KB file in the published format; errors name the file and line."""
    path = os.fspath(path)
    try:
        text = read_text(path, "a KB file")
    except Dstc2ConvError as exc:
        raise Dstc2ConvError(exc.message.replace("cannot read:", "cannot read the KB file:"), path) from None
    return parse_kb(text, path)


def parse_kb(text: str, path: str) -> KB:
    """The KB of a KB file's ``text`` (read from ``path``, which errors name with the line)."""
    facts: dict[str, dict[str, str]] = {}
    for lineno, line in enumerate(io.StringIO(text, newline=None), 1):   # lines as a text file has them
        if not line.strip():
            continue
        number, *rest = line.split()
        bad = problem(" ".join(rest))    # what would make the result lines unreadable
        if bad is not None:
            raise Dstc2ConvError(bad, path, lineno)
        fact = Fact.match(" ".join(rest)) if number.isascii() and number.isdigit() else None
        if fact is None or fact.attribute not in ATTRIBUTES + (RATING, NUMBER):
            raise Dstc2ConvError(
                f"expected '1 <name> R_<attribute> <value>', found {line.strip()[:60]!r}", path, lineno)
        if fact.attribute not in (RATING, NUMBER):
            facts.setdefault(fact.name, {})[fact.attribute] = fact.value
    if not facts:
        raise Dstc2ConvError("the KB file has no facts", path)
    return KB(tuple(_make(n, facts[n]) for n in sorted(facts)), path, text)


def kb_from_acts(names: Iterable[str], offers: Iterable[tuple[str, str, str]]) -> KB:
    """A KB built from the system's own acts.

    ``names``: every restaurant name (the ontology's); ``offers``: (name, slot, value) for
    each ``inform(slot=value)`` the system made about an offered restaurant. A restaurant's
    value for an attribute is the one the system said most often (ties: alphabetical).
    Every restaurant gets its phone, address and postcode placeholders.
    """
    votes: dict[tuple[str, str], Counter] = {}
    for name, slot, value in offers:
        if slot in SLOT_BY_DSTC2 and value != DONTCARE:
            votes.setdefault((underscore(name), SLOT_BY_DSTC2[slot].attribute), Counter())[underscore(value)] += 1
    restaurants = []
    for name in sorted({underscore(n) for n in names}):
        facts = {detail.attribute: f"{name}_{detail.suffix}" for detail in DETAILS}
        for slot in SLOTS:
            counter = votes.get((name, slot.attribute))
            if counter:
                facts[slot.attribute] = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        restaurants.append(_make(name, facts))
    return KB(tuple(restaurants), "logs")


def format_kb(kb: KB) -> str:
    """The KB in the published format, sorted by name (the facts of each restaurant in
    ATTRIBUTES order)."""
    return "".join(f"1 {r.name} {a} {v}\n" for r in kb.restaurants for a, v in r.attrs)


def kb_file_text(kb: KB) -> str:
    """The KB file a build writes: a KB file's text byte for byte (so that its SHA-256,
    and a score signature's ``kb:``, are the file's), else ``format_kb``."""
    return kb.text if kb.text is not None else format_kb(kb)
