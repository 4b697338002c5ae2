"""DSTC2's ontology: the values of its informable slots, from ``ontology_dstc2.json`` or,
when no input holds that file, from what the calls show."""
from __future__ import annotations

from dataclasses import dataclass

from ..task6.vocabulary import DONTCARE, DSTC2_SLOTS

ONTOLOGY_SLOTS = (*DSTC2_SLOTS, "name")   # food, area, pricerange, name


@dataclass(frozen=True)
class Dstc2Ontology:
    foods: tuple[str, ...]
    areas: tuple[str, ...]
    prices: tuple[str, ...]
    names: tuple[str, ...]

    @classmethod
    def from_json(cls, data: dict) -> "Dstc2Ontology":
        """From DSTC2's ``ontology_dstc2.json``; KeyError or TypeError if its
        ``informable`` food/area/pricerange/name lists are missing or hold other than text."""
        informable = data["informable"]
        lists = [informable[k] for k in ONTOLOGY_SLOTS]
        if not all(isinstance(values, list) and all(isinstance(v, str) for v in values) for values in lists):
            raise TypeError("not lists of text")
        return cls(*(tuple(values) for values in lists))

    @classmethod
    def from_calls(cls, calls) -> "Dstc2Ontology":
        """The values the calls show, for a build with no ontology file: every food, area,
        price range and name in the system's dialog acts, the user turns' semantics and the
        goal labels (``dontcare`` left out), sorted."""
        found: dict[str, set] = {slot: set() for slot in ONTOLOGY_SLOTS}
        for call in calls:
            for turn in call.turns:
                pairs = [pair for act in turn.system_acts + turn.user_acts for pair in act.slots]
                for slot, value in pairs + list(turn.goals):
                    if slot in found and value != DONTCARE:
                        found[slot].add(value)
        return cls(*(tuple(sorted(found[slot])) for slot in ONTOLOGY_SLOTS))

    def __or__(self, other: "Dstc2Ontology") -> "Dstc2Ontology":
        """The values of both, sorted: ``from_calls(a) | from_calls(b) == from_calls(a + b)``."""
        mine, theirs = (self.foods, self.areas, self.prices, self.names), (other.foods, other.areas,
                                                                            other.prices, other.names)
        return Dstc2Ontology(*(tuple(sorted(set(a) | set(b))) for a, b in zip(mine, theirs)))
