"""Which requests each split draws from: train and test dialogs never share a user
request (Bordes & Weston 2017, section 3.1.2).

A request is a (cuisine, location, party size, price) tuple of one KB half. The plain
half's requests are dealt into two parts, whatever the seed (so files made by separate
runs keep the rule): ``trn`` draws its dialogs' first request from one part, ``dev`` and
``tst`` from the other (as in the published files, whose train and dev dialogs share no
first request), ``tst-OOV`` from every request of the other half. The first request is
the opening one (tasks 1, 2, 3, 5) or the booked restaurant's (task 4); an update (tasks
2 and 5) may lead anywhere in the half, as in the published files.

The deal is stratified: the requests matching the same number of restaurants are sorted
by a hash of their words and dealt in turn, so that each part has as many requests with
3, 4, 5 ... matching restaurants as the other (to one): the options tasks 3 and 5 offer
are distributed alike in every split.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from .kb import KB, Half, Restaurant
from .splits import SPLITS

MIN_OPTIONS = 3       # tasks 3 and 5 keep only api_calls that retrieve at least 3 restaurants

Request = tuple[str, str, str, str]


def _key(request: Request) -> bytes:
    return hashlib.sha256(" ".join(request).encode()).digest()


def held_out(half: Half, matches: dict) -> frozenset:
    """The requests of ``half`` dealt to the held-out part (dev, tst)."""
    by_count: dict[int, list[Request]] = {}
    for request in half.requests():
        by_count.setdefault(len(matches.get(request, ())), []).append(request)
    out = set()
    for count in sorted(by_count):
        out.update(sorted(by_count[count], key=_key)[1::2])
    return frozenset(out)


@dataclass(frozen=True)
class World:
    """What a split's dialogs draw from."""
    half: Half
    requests: tuple[Request, ...]                    # the split's part: its dialogs' first requests
    matches: dict                                    # request -> its restaurants, best rated first
    options: tuple[Request, ...]                     # the part's requests with >= MIN_OPTIONS restaurants
    restaurants: tuple[Restaurant, ...]              # the restaurants whose request is in the part


def matching(half: Half) -> dict:
    matches: dict = {}
    for r in half.restaurants:
        matches.setdefault(r.request, []).append(r)
    return {k: tuple(sorted(v, key=lambda r: (-r.rating, r.name))) for k, v in matches.items()}


def world(kb: KB, split: str) -> World:
    if split not in SPLITS:
        raise Dstc2ConvError(f"unknown split {split!r}: the splits are {', '.join(SPLITS)}")
    if split == "tst-OOV" and len(kb.halves) < 2:
        raise Dstc2ConvError("tst-OOV needs a KB with a second (OOV) half: this KB's cuisines and locations "
                             "make one group")
    half = kb.halves[1] if split == "tst-OOV" else kb.halves[0]
    matches = matching(half)
    requests = half.requests()
    if split != "tst-OOV":
        test = held_out(half, matches)
        requests = [r for r in requests if (r in test) == (split != "trn")]
    allowed = set(requests)
    return World(half, tuple(requests), matches, tuple(r for r in requests if len(matches.get(r, ())) >= MIN_OPTIONS),
                 tuple(r for r in half.restaurants if r.request in allowed))


def check(w: World, task: int, split: str) -> None:
    """Refuse a split its part of the KB cannot make dialogs of ``task`` for."""
    if not w.requests:
        raise Dstc2ConvError(f"task {task} {split}: the KB leaves this split no request")
    if task == 3 and not w.options:
        raise Dstc2ConvError(f"task {task} {split}: no request of this split's part of the KB matches "
                             f"{MIN_OPTIONS} restaurants or more")
    if task == 5 and not any(len(found) >= MIN_OPTIONS for found in w.matches.values()):
        raise Dstc2ConvError(f"task {task} {split}: no request of the KB matches {MIN_OPTIONS} restaurants or more")
    if task == 4 and not w.restaurants:
        raise Dstc2ConvError(f"task {task} {split}: no restaurant of the KB answers a request of this split")
    if task in (2, 5) and not any(len(w.half.values(f)) > 1 for f in range(4)):
        raise Dstc2ConvError(f"task {task} {split}: updates need a field with two values or more")
