"""Which requests each split draws from: train and test dialogs never share a user
request (Bordes & Weston 2017, section 3.1.2).

A request is a (cuisine, location, party size, price) tuple of one KB half. The plain
half's requests are dealt into two parts by a hash of the request's words, whatever the
seed (so files made by separate runs keep the rule): ``trn`` and ``dev`` draw from one
part, ``tst`` from the other; ``tst-OOV`` draws from every request of the other half.
Every request a dialog makes (the opening one and, in tasks 2 and 5, the updated one;
in task 4 the booked restaurant's) lies in its split's part.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from .kb import KB, Half, Restaurant

SPLITS = ("trn", "dev", "tst", "tst-OOV")
MIN_OPTIONS = 3       # tasks 3 and 5 keep only api_calls that retrieve at least 3 restaurants

Request = tuple[str, str, str, str]


def held_out(request: Request) -> bool:
    """Whether a plain-half request belongs to the test part (about half of them)."""
    return hashlib.sha256(" ".join(request).encode()).digest()[0] & 1 == 1


@dataclass(frozen=True)
class World:
    """What a split's dialogs draw from."""
    half: Half
    requests: tuple[Request, ...]                    # the split's part of the request space
    allowed: frozenset                               # the same, as a set
    matches: dict                                    # request -> its restaurants, best rated first
    options: tuple[Request, ...]                     # the part's requests with >= MIN_OPTIONS restaurants
    restaurants: tuple[Restaurant, ...]              # the restaurants whose request is in the part


def world(kb: KB, split: str) -> World:
    if split == "tst-OOV":
        if len(kb.halves) < 2:
            raise Dstc2ConvError("tst-OOV needs a KB with a second (OOV) half: this KB's cuisines and locations "
                                 "make one group")
        half = kb.halves[1]
        requests = half.requests()
    else:
        half = kb.halves[0]
        test = split == "tst"
        requests = [r for r in half.requests() if held_out(r) == test]
    matches: dict = {}
    for r in half.restaurants:
        matches.setdefault(r.request, []).append(r)
    for found in matches.values():
        found.sort(key=lambda r: (-r.rating, r.name))
    allowed = frozenset(requests)
    options = tuple(r for r in requests if len(matches.get(r, ())) >= MIN_OPTIONS)
    return World(half, tuple(requests), allowed, {k: tuple(v) for k, v in matches.items()}, options,
                  tuple(r for r in half.restaurants if r.request in allowed))


def check(w: World, task: int, split: str) -> None:
    """Refuse a split its part of the KB cannot make dialogs of ``task`` for."""
    if not w.requests:
        raise Dstc2ConvError(f"task {task} {split}: the KB leaves this split no request")
    if task in (3, 5) and not w.options:
        raise Dstc2ConvError(f"task {task} {split}: no request of this split's part of the KB matches "
                             f"{MIN_OPTIONS} restaurants or more")
    if task == 4 and not w.restaurants:
        raise Dstc2ConvError(f"task {task} {split}: no restaurant of the KB answers a request of this split")
    if task in (2, 5) and not any(len(w.half.values(f)) > 1 for f in range(4)):
        raise Dstc2ConvError(f"task {task} {split}: updates need a field with two values or more")
