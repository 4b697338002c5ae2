"""The extended KB of the DSTC6 track 1 variant of the bAbI dialog tasks: 9 relations a
restaurant, 5 cuisines x 5 locations x 3 prices x 3 atmospheres x 3 dietary restrictions
x 8 restaurants in each half (kb1 the plain half, kb2 the OOV one, the bAbI values),
ratings a permutation of 1..72 within each (location, cuisine, price) group, names
``[the_]<adj>_<adj>_<noun>_<noun>`` drawn from word lists written here (the released
ones are unknown), one party size each drawn uniformly (the released sampling is unknown).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .kb import PAPER_VALUES

ATMOSPHERES = ("romantic", "business", "casual")
RESTRICTIONS = ("vegan", "vegetarian", "glutenfree")
PER_GROUP = 8          # restaurants a (cuisine, location, price, atmosphere, restrictions) combination
THE_P = 0.5            # the share of names starting with the_

# the dialogs' order of a restaurant's facts (the released files'), and the KB files' (invented)
FACT_ORDER = ("location", "price", "rating", "phone", "cuisine", "atmosphere", "restrictions", "number", "address")
KB_FILES = ("extendedkb1.txt", "extendedkb2.txt")

ADJECTIVES = (
    "able", "bold", "brave", "bright", "busy", "calm", "clever", "cosy", "curious", "daring", "eager", "early",
    "fancy", "gentle", "giant", "glad", "golden", "grand", "happy", "hidden", "honest", "humble", "jolly", "kind",
    "large", "lazy", "little", "lively", "lucky", "merry", "modest", "noble", "odd", "plain", "polite", "proud",
    "quick", "quiet", "rapid", "royal", "rustic", "shiny", "silent", "silver", "simple", "sleepy", "small",
    "smart", "snowy", "sour", "spicy", "steady", "sunny", "swift", "tall", "tender", "tiny", "urban", "velvet",
    "vivid", "warm", "wild", "wise", "witty", "young", "zesty")
NOUNS = (
    "anchor", "apple", "arrow", "badger", "barrel", "basket", "bear", "bell", "bridge", "brook", "candle",
    "castle", "cedar", "clock", "cloud", "comet", "crane", "crown", "dragon", "drum", "eagle", "falcon", "fern",
    "fiddle", "flame", "forest", "fox", "garden", "goose", "harbor", "hare", "harp", "hill", "horse", "island",
    "kettle", "lantern", "lemon", "lion", "meadow", "mill", "moon", "otter", "owl", "pearl", "pepper", "pine",
    "plum", "pond", "rabbit", "raven", "river", "robin", "rose", "sail", "spoon", "star", "stone", "story",
    "swan", "thistle", "tiger", "tower", "violin", "willow", "wolf")


@dataclass(frozen=True)
class Restaurant6:
    name: str
    cuisine: str
    location: str
    price: str
    rating: int
    number: str
    atmosphere: str
    restrictions: str

    @property
    def phone(self) -> str:
        return f"{self.name}_phone"

    @property
    def address(self) -> str:
        return f"{self.name}_address"

    def value(self, relation: str) -> str:
        return str(getattr(self, relation))

    def facts(self) -> list[str]:
        """Its 9 facts as a DSTC6 dialog gives them: ``<name> r_<rel> <value>``."""
        return [f"{self.name} r_{rel} {self.value(rel)}" for rel in FACT_ORDER]


@dataclass(frozen=True)
class Half6:
    """One half of the extended KB: its values (api_call's order: cuisine, location,
    party size, price, atmosphere, restrictions) and its restaurants."""
    values: tuple[tuple[str, ...], ...]
    restaurants: tuple[Restaurant6, ...]


def _names(rng: random.Random, count: int) -> list[str]:
    seen: set[str] = set()
    out = []
    while len(out) < count:
        words = [rng.choice(ADJECTIVES), rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(NOUNS)]
        if words[0] == words[1] or words[2] == words[3]:
            continue
        name = ("the_" if rng.random() < THE_P else "") + "_".join(words)
        if name not in seen:
            seen.add(name)
            out.append(name)
    return out


def extended_kb(seed: int = 0) -> tuple[Half6, Half6]:
    """kb1 (the plain half) and kb2 (the OOV half), the same whatever the dialogs' seed."""
    rng = random.Random(f"dstc6-kb:{seed}")
    halves = []
    per_half = 5 * 5 * 3 * 3 * 3 * PER_GROUP
    names = _names(rng, 2 * per_half)
    for h, key in enumerate(("plain", "oov")):
        v = PAPER_VALUES[key]
        mine = iter(names[h * per_half:(h + 1) * per_half])
        rests = []
        for cuisine in v["cuisines"]:
            for location in v["locations"]:
                for price in v["prices"]:
                    ratings = list(range(1, 3 * 3 * PER_GROUP + 1))
                    rng.shuffle(ratings)
                    rating = iter(ratings)
                    for atmosphere in ATMOSPHERES:
                        for restriction in RESTRICTIONS:
                            for _ in range(PER_GROUP):
                                rests.append(Restaurant6(next(mine), cuisine, location, price, next(rating),
                                                         rng.choice(v["sizes"]), atmosphere, restriction))
        values = (tuple(v["cuisines"]), tuple(v["locations"]), tuple(v["sizes"]), tuple(v["prices"]), ATMOSPHERES,
                  RESTRICTIONS)
        halves.append(Half6(values, tuple(rests)))
    return halves[0], halves[1]


def kb6_text(half: Half6) -> str:
    """An extendedkb file: ``1 <name> R_<rel>\\t<value>``, 9 lines a restaurant."""
    return "".join(f"1 {r.name} R_{rel}\t{r.value(rel)}\n" for r in half.restaurants for rel in FACT_ORDER)
