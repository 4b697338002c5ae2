"""One dialog of each bAbI task, drawn with a ``random.Random``: the flows, wording and
distributions of the published files (notes: bAbI tasks, sections 4-8).

A dialog is a list of lines without their ids: a turn ``user\\tbot``, a fact
``name R_rel value``.
"""
from __future__ import annotations

import random

from ..errors import Dstc2ConvError
from .requests import MIN_OPTIONS, World
from .wording import (
    ACCEPTS,
    ANOTHER,
    ANSWERS,
    ANYTHING_ELSE,
    ASK,
    ASK_ADDRESS,
    ASK_PHONE,
    BOOK,
    DECLINES,
    GREETINGS,
    HELLO,
    HERE_IT_IS,
    LOOKING,
    ON_IT,
    PREFIXES,
    PROPOSE,
    REJECTS,
    SILENCE,
    SLOT_PHRASES,
    THANKS,
    UPDATE_OK,
    UPDATES,
    UPDATES_DONE,
    WELCOME,
    api_call,
)

ACCEPT_P = 0.25        # the user accepts each proposal with this probability, and always the last one
MAX_TRIES = 100_000    # draws of a dialog's updates before its part of the KB is judged unable to give them


def _turn(user: str, bot: str) -> str:
    return f"{user}\t{bot}"


def _opening(rng: random.Random, request, fields: list[int]) -> str:
    words = [rng.choice(PREFIXES)]
    words += [rng.choice(SLOT_PHRASES[f]).format(request[f]) for f in fields]
    return " ".join(words)


def _greet_and_fill(rng: random.Random, request, fields: list[int], lines: list[str]) -> None:
    """The greeting, the opening with ``fields`` (in that order), and the bot's questions
    for the others, each answered; ends with ``ok let me look into some options``."""
    lines.append(_turn(rng.choice(GREETINGS), HELLO))
    lines.append(_turn(_opening(rng, request, fields), ON_IT))
    user = SILENCE
    for f in range(4):
        if f not in fields:
            lines.append(_turn(user, ASK[f]))
            user = rng.choice(ANSWERS[f]).format(request[f])
    lines.append(_turn(user, LOOKING))


def _updated(rng: random.Random, w: World, request, most: int) -> tuple[tuple, list[int]]:
    """The request after 1..most updates of distinct fields (random order), each to another value."""
    fields = [f for f in range(4) if len(w.half.values(f)) > 1]
    changed = rng.sample(fields, rng.randint(1, min(most, len(fields))))
    new = list(request)
    for f in changed:
        new[f] = rng.choice([v for v in w.half.values(f) if v != request[f]])
    return tuple(new), changed


def _update_turns(rng: random.Random, new, changed: list[int], lines: list[str]) -> None:
    for f in changed:
        phrase = rng.choice(SLOT_PHRASES[f]).format(new[f])
        lines.append(_turn(f"{rng.choice(UPDATES)} {phrase}", UPDATE_OK))
    lines.append(_turn(UPDATES_DONE, LOOKING))
    lines.append(_turn(SILENCE, api_call(new)))


# How the published task 3 and 5 files order a call's restaurants (measured on their train
# files, 2,000 dialogs): best rated first in 35%, worst first in 18.5%, else in neither order.
FACTS_DESCENDING, FACTS_ASCENDING = 0.35, 0.185


def _facts(rng: random.Random, restaurants, lines: list[str]) -> None:
    """The restaurants' facts, 7 lines each: the restaurants by rating, best first or worst
    first, or in an order that is neither, as often as the published files have each."""
    ranked = sorted(restaurants, key=lambda r: r.rating, reverse=True)
    draw = rng.random()
    if draw < FACTS_DESCENDING:
        ordered = ranked
    elif draw < FACTS_DESCENDING + FACTS_ASCENDING:
        ordered = ranked[::-1]
    else:
        ordered = list(ranked)
        rng.shuffle(ordered)
        while len(ordered) > 2 and ordered in (ranked, ranked[::-1]):
            rng.shuffle(ordered)
    for r in ordered:
        lines.extend(r.facts())


def _propose(rng: random.Random, ranked, lines: list[str]):
    """Proposals best rated first until one is accepted; the accepted restaurant."""
    for i, r in enumerate(ranked):
        lines.append(_turn(SILENCE, PROPOSE + r.name))
        if i == len(ranked) - 1 or rng.random() < ACCEPT_P:
            lines.append(_turn(rng.choice(ACCEPTS), BOOK))
            return r
        lines.append(_turn(rng.choice(REJECTS), ANOTHER))
    raise AssertionError("no restaurant to propose")


def _infos(rng: random.Random, r, lines: list[str]) -> None:
    """Phone only, address only (a quarter each) or both in either order (half)."""
    draw = rng.random()
    asks = ["phone"] if draw < 0.25 else ["address"] if draw < 0.5 else rng.sample(["phone", "address"], 2)
    for what in asks:
        if what == "phone":
            lines.append(_turn(rng.choice(ASK_PHONE), HERE_IT_IS + r.phone))
        else:
            lines.append(_turn(rng.choice(ASK_ADDRESS), HERE_IT_IS + r.address))


def task1(rng: random.Random, w: World) -> list[str]:
    request = rng.choice(w.requests)
    lines: list[str] = []
    _greet_and_fill(rng, request, rng.sample(range(4), rng.randrange(5)), lines)
    lines.append(_turn(SILENCE, api_call(request)))
    return lines


def task2(rng: random.Random, w: World) -> list[str]:
    request = rng.choice(w.requests)
    new, changed = _updated(rng, w, request, 4)
    lines: list[str] = []
    _greet_and_fill(rng, request, rng.sample(range(4), 4), lines)
    lines.append(_turn(SILENCE, api_call(request)))
    _update_turns(rng, new, changed, lines)
    lines.append(_turn(rng.choice(THANKS), WELCOME))
    return lines


def task3(rng: random.Random, w: World) -> list[str]:
    request = rng.choice(w.options)
    lines: list[str] = []
    _facts(rng, w.matches[request], lines)
    _greet_and_fill(rng, request, rng.sample(range(4), rng.randrange(5)), lines)
    _propose(rng, w.matches[request], lines)
    return lines


def task4(rng: random.Random, w: World) -> list[str]:
    r = rng.choice(w.restaurants)
    lines = r.facts()
    lines.append(_turn(rng.choice(GREETINGS), HELLO))
    lines.append(_turn(f"{rng.choice(PREFIXES)} at {r.name}", BOOK))
    _infos(rng, r, lines)
    return lines


def task5(rng: random.Random, w: World) -> list[str]:
    for _ in range(MAX_TRIES):
        request = rng.choice(w.requests)
        new, changed = _updated(rng, w, request, 3)
        if len(w.matches.get(new, ())) >= MIN_OPTIONS:
            break
    else:
        raise Dstc2ConvError(f"task 5: no update of this split's requests matches {MIN_OPTIONS} restaurants "
                             f"in {MAX_TRIES:,} draws")
    lines: list[str] = []
    _greet_and_fill(rng, request, rng.sample(range(4), rng.randint(1, 3)), lines)
    lines.append(_turn(SILENCE, api_call(request)))
    _update_turns(rng, new, changed, lines)
    _facts(rng, w.matches[new], lines)
    accepted = _propose(rng, w.matches[new], lines)
    _infos(rng, accepted, lines)
    lines.append(_turn(rng.choice(THANKS), ANYTHING_ELSE))
    lines.append(_turn(rng.choice(DECLINES), WELCOME))
    return lines


TASKS = {1: task1, 2: task2, 3: task3, 4: task4, 5: task5}
FILE_NAMES = {1: "task1-API-calls", 2: "task2-API-refine", 3: "task3-options", 4: "task4-phone-address",
              5: "task5-full-dialogs"}


def file_name(task: int, split: str) -> str:
    return f"dialog-babi-{FILE_NAMES[task]}-{split}.txt"


def dialog_text(lines: list[str]) -> str:
    """A dialog as a file holds it: ids from 1, LF line ends, one empty line after it."""
    return "".join(f"{i} {line}\n" for i, line in enumerate(lines, 1)) + "\n"
