"""The knowledge base of the bAbI dialog tasks 1-5: built as the paper describes, read
from a KB file, or built from a YAML of values; its two halves (the plain and the OOV
one), the KB file and the candidates file it allows."""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

import yaml

from ..errors import Dstc2ConvError
from ..files import read_text
from .wording import FIXED, HERE_IT_IS, PROPOSE, api_call

# the relations of a restaurant: in the KB file's order, and in the order dialogs give its facts
KB_ORDER = ("R_cuisine", "R_location", "R_price", "R_rating", "R_phone", "R_address", "R_number")
DIALOG_ORDER = ("R_phone", "R_cuisine", "R_address", "R_location", "R_number", "R_price", "R_rating")
KB_FILE = "dialog-babi-kb-all.txt"
CANDIDATES_FILE = "dialog-babi-candidates.txt"

# the paper's values (section 3.1): the published KB's two halves
PAPER_VALUES = {
    "plain": {"cuisines": ["british", "french", "indian", "italian", "spanish"],
              "locations": ["bombay", "london", "madrid", "paris", "rome"],
              "prices": ["cheap", "moderate", "expensive"], "sizes": ["two", "four", "six", "eight"]},
    "oov": {"cuisines": ["cantonese", "japanese", "korean", "thai", "vietnamese"],
            "locations": ["bangkok", "beijing", "hanoi", "seoul", "tokyo"],
            "prices": ["cheap", "moderate", "expensive"], "sizes": ["two", "four", "six", "eight"]},
    "ratings": 8,
}
VALUE_KEYS = ("cuisines", "locations", "prices", "sizes")
_TOKEN = re.compile(r"[^\s]+")


@dataclass(frozen=True)
class Restaurant:
    name: str
    cuisine: str
    location: str
    price: str
    rating: int
    number: str
    phone: str
    address: str

    @property
    def request(self) -> tuple[str, str, str, str]:
        """The request it answers: cuisine, location, party size, price (api_call's order)."""
        return (self.cuisine, self.location, self.number, self.price)

    def value(self, relation: str) -> str:
        return str(getattr(self, relation[2:]))

    def facts(self) -> list[str]:
        """Its 7 fact lines as a dialog gives them (without the id)."""
        return [f"{self.name} {rel} {self.value(rel)}" for rel in DIALOG_ORDER]


@dataclass(frozen=True)
class Half:
    """One half of the KB: its values and its restaurants (KB order)."""
    cuisines: tuple[str, ...]
    locations: tuple[str, ...]
    prices: tuple[str, ...]
    sizes: tuple[str, ...]
    restaurants: tuple[Restaurant, ...]

    def values(self, field: int) -> tuple[str, ...]:
        return (self.cuisines, self.locations, self.sizes, self.prices)[field]

    def requests(self) -> list[tuple[str, str, str, str]]:
        """Every request its values allow: cuisine x location x size x price."""
        return [(c, loc, n, p) for c in self.cuisines for loc in self.locations for n in self.sizes for p in self.prices]


@dataclass(frozen=True)
class KB:
    halves: tuple[Half, ...]     # the plain half first, then the OOV half (when there is one)

    @property
    def restaurants(self) -> tuple[Restaurant, ...]:
        return tuple(r for half in self.halves for r in half.restaurants)


def named(location: str, price: str, cuisine: str, rating: int, number: str) -> Restaurant:
    name = f"resto_{location}_{price}_{cuisine}_{rating}stars"
    return Restaurant(name, cuisine, location, price, rating, number, f"{name}_phone", f"{name}_address")


def kb_from_values(values: dict, seed: int = 0) -> KB:
    """A KB as the paper builds it: every cuisine x location x price of a half, one
    restaurant per rating 1..ratings, each with one party size drawn uniformly."""
    rng = random.Random(seed)
    ratings = values.get("ratings", 8)
    halves = []
    for key in ("plain", "oov"):
        if key not in values:
            continue
        v = values[key]
        rests = tuple(named(loc, price, cuisine, rating, rng.choice(v["sizes"]))
                      for cuisine in v["cuisines"] for loc in v["locations"] for price in v["prices"]
                      for rating in range(1, ratings + 1))
        halves.append(Half(*(tuple(v[k]) for k in VALUE_KEYS), rests))
    return KB(tuple(halves))


def paper_kb(seed: int = 0) -> KB:
    return kb_from_values(PAPER_VALUES, seed)


def read_values(path: str) -> dict:
    """A YAML of values: ``plain`` and (optionally) ``oov``, each with ``cuisines``,
    ``locations``, ``prices``, ``sizes`` (lists of single words); ``ratings`` (default 8)."""
    try:
        values = yaml.safe_load(read_text(path, "a values file"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise Dstc2ConvError(f"not YAML: {getattr(exc, 'problem', None) or exc}", path,
                             mark.line + 1 if mark else None) from None
    if not isinstance(values, dict) or "plain" not in values:
        raise Dstc2ConvError("give a mapping with plain: (and oov:), each with cuisines, locations, prices, sizes", path)
    unknown = set(values) - {"plain", "oov", "ratings"}
    if unknown:
        raise Dstc2ConvError(f"unknown key {sorted(unknown)[0]!r}: the keys are plain, oov, ratings", path)
    ratings = values.get("ratings", 8)
    if not isinstance(ratings, int) or isinstance(ratings, bool) or not 1 <= ratings <= 1000:
        raise Dstc2ConvError(f"ratings: {ratings!r}: give a whole number from 1 to 1000", path)
    seen: dict[str, str] = {}
    for key in ("plain", "oov"):
        if key in values:
            _check_half(values[key], key, path, seen)
    return values


def _check_half(half, key: str, path: str, seen: dict) -> None:
    if not isinstance(half, dict) or set(half) != set(VALUE_KEYS):
        raise Dstc2ConvError(f"{key}: give exactly {', '.join(VALUE_KEYS)}, each a list of words", path)
    for name in VALUE_KEYS:
        items = half[name]
        if not isinstance(items, list) or not items:
            raise Dstc2ConvError(f"{key}.{name}: give a non-empty list of words", path)
        for item in items:
            if not isinstance(item, str) or not _TOKEN.fullmatch(item) or item != item.lower():
                raise Dstc2ConvError(f"{key}.{name}: {item!r} is not one lower-case word", path)
        if len(set(items)) != len(items):
            raise Dstc2ConvError(f"{key}.{name}: a value is given twice", path)
        if name in ("cuisines", "locations"):
            for item in items:
                if item in seen:
                    raise Dstc2ConvError(f"{key}.{name}: {item!r} is also in {seen[item]}: the halves' cuisines "
                                         "and locations are disjoint", path)
                seen[item] = f"{key}.{name}"


def read_kb(path: str) -> KB:
    """A KB file in the published format (``1 <name> <R_rel>\\t<value>``, 7 relations a
    restaurant; a final line end or none); its halves are the groups of cuisines and
    locations its restaurants join (the one with the alphabetically first cuisine first)."""
    text = read_text(path, "a KB file")
    found: dict[str, dict[str, str]] = {}
    first: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line and number == text.count("\n") + 1:
            break           # after the final line end
        name, rel, value = _kb_line(line, path, number)
        facts = found.setdefault(name, {})
        first.setdefault(name, number)
        if rel in facts:
            raise Dstc2ConvError(f"{name} has {rel} twice", path, number)
        facts[rel] = value
    if not found:
        raise Dstc2ConvError("no restaurant in the KB file", path)
    restaurants = [_restaurant(name, facts, path, first[name]) for name, facts in found.items()]
    return _split_halves(restaurants, path)


def _kb_line(line: str, path: str, number: int) -> tuple[str, str, str]:
    head, tab, value = line.partition("\t")
    parts = head.split(" ")
    if not tab or len(parts) != 3 or parts[0] != "1":
        raise Dstc2ConvError("not a KB line: expected '1 <restaurant> <R_relation>\\t<value>'", path, number)
    if parts[2] not in KB_ORDER:
        raise Dstc2ConvError(f"unknown relation {parts[2]!r}: the relations are {', '.join(KB_ORDER)}", path, number)
    if not _TOKEN.fullmatch(value) or not parts[1]:
        raise Dstc2ConvError(f"{parts[2]}: the value must be one word, not {value!r}", path, number)
    return parts[1], parts[2], value


def _restaurant(name: str, facts: dict, path: str, number: int) -> Restaurant:
    missing = [rel for rel in KB_ORDER if rel not in facts]
    if missing:
        raise Dstc2ConvError(f"{name} has no {missing[0]}: a restaurant needs all of {', '.join(KB_ORDER)}",
                             path, number)
    if not facts["R_rating"].isdigit():
        raise Dstc2ConvError(f"{name}: R_rating {facts['R_rating']!r} is not a whole number", path, number)
    return Restaurant(name, facts["R_cuisine"], facts["R_location"], facts["R_price"], int(facts["R_rating"]),
                      facts["R_number"], facts["R_phone"], facts["R_address"])


def _split_halves(restaurants: list[Restaurant], path: str) -> KB:
    """Group the restaurants by the cuisines and locations they join (union-find)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for r in restaurants:
        parent[root("c:" + r.cuisine)] = root("l:" + r.location)
    groups: dict[str, list[Restaurant]] = {}
    for r in restaurants:
        groups.setdefault(root("c:" + r.cuisine), []).append(r)
    if len(groups) > 2:
        raise Dstc2ConvError(f"the KB's cuisines and locations make {len(groups)} disjoint groups: a KB has one "
                             "half, or two (plain and OOV)", path)
    halves = []
    for rests in groups.values():
        def values(attr: str) -> tuple[str, ...]:
            return tuple(sorted({getattr(r, attr) for r in rests}))
        halves.append(Half(values("cuisine"), values("location"), values("price"), _sizes(rests), tuple(rests)))
    return KB(tuple(sorted(halves, key=lambda h: h.cuisines[0])))


def _sizes(rests) -> tuple[str, ...]:
    order = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
             "ten": 10}
    return tuple(sorted({r.number for r in rests}, key=lambda s: (order.get(s, 99), s)))


def kb_text(kb: KB) -> str:
    """The KB file: ``1 <name> <R_rel>\\t<value>`` in the published relation order."""
    return "".join(f"1 {r.name} {rel}\t{r.value(rel)}\n" for r in kb.restaurants for rel in KB_ORDER)


def candidates(kb: KB) -> list[str]:
    """Every bot utterance the KB allows: the 12 fixed ones, the api_calls of every
    (cuisine, location) pair the KB has a restaurant for x the half's sizes x its prices,
    and a proposal, a phone and an address per restaurant."""
    out = list(FIXED)
    for half in kb.halves:
        pairs = sorted({(r.cuisine, r.location) for r in half.restaurants})
        out += [api_call((c, loc, n, p)) for c, loc in pairs for n in half.sizes for p in half.prices]
    for r in kb.restaurants:
        out += [PROPOSE + r.name, HERE_IT_IS + r.phone, HERE_IT_IS + r.address]
    return list(dict.fromkeys(out))


def candidates_text(kb: KB) -> str:
    return "".join(f"1 {c}\n" for c in candidates(kb))
