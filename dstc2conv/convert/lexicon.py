"""The words of a build: the patterns compiled once per build from the DSTC2 ontology's
values and the KB (``Lexicon``)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..dstc2.ontology import Dstc2Ontology
from ..task6.vocabulary import DONTCARE, DSTC2_SLOTS, SLOT_BY_DSTC2
from .kb import KB


@dataclass(frozen=True)
class Lexicon:
    """Compiled patterns for one ontology and KB (built once per build)."""
    multiword: re.Pattern   # multiword foods and names (of at most MAX_NAME_WORDS words), longest first
    names: frozenset        # the KB's restaurant names that are joined in system turns, underscored
    values: re.Pattern      # the ontology's foods, areas and price ranges (lowercased), longest first
    slot_of: dict = field(compare=False)   # value (as ``values`` matches it) -> food, area or pricerange
    memo: dict = field(default_factory=dict, compare=False, repr=False)   # user turn -> values in it
    cleaned: dict = field(default_factory=dict, compare=False, repr=False)   # turn's words -> clean_*'s


# Restaurant names of more than five words were never joined in the published files
# (the good luck chinese food takeaway, ...); their phone/address/postcode tokens are.
MAX_NAME_WORDS = 5


def kb_ontology(kb: KB) -> Dstc2Ontology:
    """The names and cuisines of the KB's restaurants (``_`` read as a space), as an
    ontology to join with one derived from the calls."""
    names = sorted({r.name.replace("_", " ") for r in kb.restaurants})
    cuisine = SLOT_BY_DSTC2["food"].attribute
    foods = sorted({r.get(cuisine).replace("_", " ") for r in kb.restaurants if r.get(cuisine) is not None})
    return Dstc2Ontology(tuple(foods), (), (), tuple(names))


def make_lexicon(ontology: Dstc2Ontology, kb: KB) -> Lexicon:
    joined = [n for n in ontology.names if len(n.split()) <= MAX_NAME_WORDS]
    multiword = _alternation({p for p in ontology.foods + tuple(joined) if " " in p})
    # An offer triggers an api_call only when its name shows as a KB token in the system
    # turn: the published files wrote no call at offers of the six-word names.
    names = frozenset(r.name for r in kb.restaurants if len(r.name.split("_")) <= MAX_NAME_WORDS)
    slot_of = {" ".join(value.lower().split()): slot
               for slot, values in zip(DSTC2_SLOTS, (ontology.foods, ontology.areas, ontology.prices))
               for value in values if value.strip() and value != DONTCARE}
    # A value starts a word ("inexpensive" does not say expensive, "at least" not east),
    # and may end inside one ("moderately" says moderate).
    values = re.compile(r"(?<!\w)(?:%s)" % _alternation(slot_of).pattern)
    return Lexicon(multiword, names, values, slot_of)


def _alternation(phrases) -> re.Pattern:
    """One pattern matching any of ``phrases``, the longest where several start at one
    place. It is shaped as their trie (``ab(?:c|d(?:e)?)?`` for ab, abc, abd, abde), so
    that at each place the engine follows one path instead of trying every phrase."""
    trie: dict = {}
    for phrase in phrases:
        node = trie
        for char in phrase:
            node = node.setdefault(char, {})
        node[""] = {}   # a phrase ends here
    return re.compile(_trie_pattern(trie) if trie else r"(?!x)x")


def _trie_pattern(node: dict) -> str:
    branches = [re.escape(char) + _trie_pattern(child) for char, child in sorted(node.items()) if char]
    if not branches:
        return ""
    pattern = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:   # a phrase may end here: a longer one is tried first
        pattern = f"(?:{pattern})?" if len(branches) == 1 else pattern + "?"
    return pattern
