"""When an ``api_call`` is written, and which values it carries.

A call is written before a system turn that shows the outcome of a database query: an
offer of a KB restaurant whose name the turn says (``shown_offer``) or, from the MDP
system (DSTC2 dialog manager 0, or a log that does not say), a ``canthelp`` with two or
more constraints. The POMDP systems' ``canthelp`` turns carry no call in the published
files (0 of 113 in train and dev, against 262 of 271 of the MDP system's, where the
values changed).

The values are the user's: the ontology's values found in what the user said so far
(``said_values``), fitted to the offer (``fit_offer``): a value that the offered
restaurant contradicts in the KB is left out, so that the restaurant the system offers is
among the call's results; unless that would leave no value at all. In a call of the MDP
system the values stay as the user gave them when the user's reply disputes the offer
(``disputed``): rejects it, or says again a value it contradicts.

``plan_calls`` sees one call and the runs of identical system turns that become its
task-6 lines, and returns, for the runs that are preceded by an api_call, the call's
values (cuisine, location, price; None for a missing or dontcare slot).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ..dstc2.calls import Call, CallTurn
from ..task6.vocabulary import DSTC2_SLOTS, PLACEHOLDERS
from .kb import KB, Restaurant, underscore

if TYPE_CHECKING:
    from .lexicon import Lexicon

Values = tuple  # (cuisine, location, price), each a str or None


MDP_MANAGER = 0
REJECTIONS = frozenset({"reqalts", "negate", "deny"})


def mdp_system(call: Call) -> bool:
    """Whether the call is the MDP system's, or its log does not say which system ran.
    The MDP system's calls query the database when it cannot help, and keep the user's
    values at a disputed offer."""
    return call.dialog_manager in (MDP_MANAGER, None)


def shown_offer(turn: CallTurn) -> str | None:
    """The restaurant the system offers at this turn (``offer(name=X)``), if what it says
    shows the name: X's words in a row among its words, lowercased, ``_`` read as a space
    (``pizza express Fen Ditton``). An offer the system does not say (its words are
    "Sorry, I can't hear you") is no offer."""
    name = turn.offered
    return name if name is not None and _shows(turn.system, name) else None


@functools.lru_cache(maxsize=4096)
def _shows(system: str, name: str) -> bool:
    """Whether ``name``'s words stand in ``system`` between non-word characters (as the
    pattern ``(?<!\\w)name(?!\\w)`` would say, without compiling one per name)."""
    said = " ".join(system.lower().replace("_", " ").split())
    words = " ".join(name.lower().split())
    at = said.find(words)
    while at >= 0:
        end = at + len(words)
        if (at == 0 or not _word(said[at - 1])) and (end == len(said) or not _word(said[end])):
            return True
        at = said.find(words, at + 1)
    return False


def _word(char: str) -> bool:
    """Whether ``char`` is a word character (``\\w``)."""
    return char.isalnum() or char == "_"


def eligible(turn: CallTurn, kb_names: frozenset, canthelp_calls: bool = True) -> bool:
    """The system offers a KB restaurant whose name it says or, with ``canthelp_calls``,
    cannot help with two or more constraints."""
    name = shown_offer(turn)
    if name is not None and underscore(name) in kb_names:
        return True
    return canthelp_calls and any(act.act == "canthelp" and len(act.slots) >= 2
                                  for act in turn.system_acts)


def said_values(call: Call, upto: int, lexicon: Lexicon) -> Values:
    """The user's values at system turn ``upto``: the ontology's foods, areas and price
    ranges (``lexicon.values``) found in the user's transcriptions so far, lowercased,
    where a word starts (``moderately`` says moderate, ``at least`` does not say east);
    where several start at one place the longest
    (``modern european``, not ``european``; ``north american`` says no area); a slot's last
    mention wins. "any" or "i dont care" names no value: the slot keeps the value said
    before it, if any, else stays open."""
    found = {}
    for turn in call.turns[:upto]:
        found.update(_values_in(turn.user, lexicon))
    return tuple(found.get(slot) for slot in DSTC2_SLOTS)


def _values_in(user: str, lexicon: Lexicon) -> tuple[tuple[str, str], ...]:
    """(slot, value) for each ontology value in one user turn, in order (kept in
    ``lexicon.memo``: a call looks again at every earlier user turn at each offer)."""
    found = lexicon.memo.get(user)
    if found is None:
        found = lexicon.memo[user] = tuple(
            (lexicon.slot_of[match.group(0)], underscore(match.group(0)))
            for match in lexicon.values.finditer(" ".join(user.lower().split())))
    return found


def offered_restaurant(turn: CallTurn, kb: KB) -> Restaurant | None:
    """The KB restaurant the system offers at this turn and names, if any."""
    name = shown_offer(turn)
    return kb.restaurant(underscore(name)) if name else None


def _contradicted(values: Values, offered: Restaurant) -> tuple[bool, ...]:
    """Per slot: the value is given and the offered restaurant's KB fact differs (a fact
    the KB lacks contradicts nothing)."""
    return tuple(value is not None and offered.get(attribute) not in (None, value)
                 for value, attribute in zip(values, PLACEHOLDERS))


def fit_offer(values: Values, offered: Restaurant | None) -> Values:
    """``values`` less those the offered restaurant's KB facts contradict, unless that
    leaves none (then ``values`` as they are)."""
    if offered is None:
        return values
    fitted = tuple(None if bad else value for value, bad in zip(values, _contradicted(values, offered)))
    return fitted if any(fitted) else values


def disputed(turn: CallTurn, values: Values, offered: Restaurant | None) -> bool:
    """The user's reply to this offer (the user turn after it) rejects it (``reqalts``,
    ``negate``, ``deny``) or says again a value of ``values`` that it contradicts."""
    if offered is None:
        return False
    if any(act.act in REJECTIONS for act in turn.user_acts):
        return True
    reply = turn.user.lower()
    return any(bad and value.replace("_", " ") in reply
               for value, bad in zip(values, _contradicted(values, offered)))


def offer_values(call: Call, turn: CallTurn, values: Values, offered: Restaurant | None) -> Values:
    """The user's ``values`` as the call at ``turn`` carries them: fitted to the offer,
    unless the call is the MDP system's and the user disputes the offer."""
    if mdp_system(call) and disputed(turn, values, offered):
        return values
    return fit_offer(values, offered)


def plan_calls(call: Call, runs: list[tuple[int, int]], lexicon: Lexicon, kb: KB,
               values_at=None) -> dict[int, Values]:
    """``runs``: (first, last) system-turn index of each task-6 line, in order.
    ``lexicon.names``: the restaurants whose offers are eligible; ``kb``: their facts.
    Returns {run index: values} for the runs whose line is preceded by an api_call.
    ``values_at(call, turn)``: another reading of the user's values (default ``said_values``)."""
    planned: dict[int, Values] = {}
    last = None
    mdp = mdp_system(call)
    for index, (first, _last) in enumerate(runs):
        turn = call.turns[first]
        if eligible(turn, lexicon.names, canthelp_calls=mdp):
            said = values_at(call, first) if values_at else said_values(call, first, lexicon)
            values = offer_values(call, turn, said, offered_restaurant(turn, kb))
            if values != last:
                planned[index] = values
                last = values
    return planned
