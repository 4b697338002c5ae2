"""The slot vocabulary, once: each informable slot and each restaurant detail under every
name it goes by (DSTC2's, the rule files', task 6's result attribute, the word for it).

Every module that needs a slot's name in one of these spellings takes it from here.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """An informable slot: what the user constrains and an api_call carries."""
    dstc2: str        # DSTC2's name (dialog acts, goal labels, ontology_dstc2.json)
    rule: str         # its name in a rule file (``price``, shorter than DSTC2's ``pricerange``)
    attribute: str    # the task-6 result attribute, also its placeholder in an api_call
    word: str         # how reports name it


@dataclass(frozen=True)
class Detail:
    """A restaurant detail the system gives once a restaurant is offered."""
    dstc2: str        # DSTC2's slot name in an inform act
    attribute: str    # the task-6 result attribute
    suffix: str       # the placeholder in a bot turn: ``<name>_<suffix>``


# In the order an api_call gives their values.
SLOTS = (
    Slot("food", "food", "R_cuisine", "cuisine"),
    Slot("area", "area", "R_location", "location"),
    Slot("pricerange", "price", "R_price", "price"),
)
DETAILS = (
    Detail("phone", "R_phone", "phone"),
    Detail("addr", "R_address", "address"),
    Detail("postcode", "R_post_code", "post_code"),
)
# The attributes of a restaurant's result lines, in the order the published files give them.
ATTRIBUTES = ("R_post_code", "R_cuisine", "R_location", "R_phone", "R_address", "R_price")
RATING = "R_rating"
DONTCARE = "dontcare"

DSTC2_SLOTS = tuple(slot.dstc2 for slot in SLOTS)          # food, area, pricerange
RULE_SLOTS = tuple(slot.rule for slot in SLOTS)            # food, area, price
PLACEHOLDERS = tuple(slot.attribute for slot in SLOTS)     # R_cuisine, R_location, R_price
SLOT_BY_DSTC2 = {slot.dstc2: slot for slot in SLOTS}
SLOT_BY_RULE = {slot.rule: slot for slot in SLOTS}
DETAIL_BY_DSTC2 = {detail.dstc2: detail for detail in DETAILS}
