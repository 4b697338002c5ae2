"""The DSTC6 track 1 variant of the bAbI dialog tasks 1-5 (``simulate --variant dstc6``):
the extended KB (``dstc6_kb``), an atmosphere slot in every set and a dietary
restrictions slot in tst3 and tst4, the variant's wording and user behaviour, and the
track's JSON files: a list of entries ``{"dialog_id", "utterances", "candidates":
[{"candidate_id", "utterance"}], "answer"}`` (``answer`` in the train file only; a truth
file in the track's result format beside each test file, the answer alone at rank 1).

An entry is one simulated dialog cut before one of its bot turns, drawn uniformly:
``utterances`` the dialog so far (facts, user and bot turns, ending with the user's),
the answer that bot turn. Its candidates: the answer, up to half of the others near
misses of it (an api_call with one value changed; the same kind of utterance with
another restaurant's name, or another kind with the same name), the rest drawn from
the task's bot utterances (its fixed ones, api_calls of other requests, other
restaurants' names), in a drawn order. Ids (dialog and candidate) are UUID-4 strings
drawn from the seed.

The user's hesitations, friend checks and corrections, out-of-scope questions and
repeat requests: the released files have them, not how often; the rates and most
templates here are this project's (``*_P`` below, docs/simulate.md).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..files import refuse_inputs
from ..reporter import note
from .dstc6_kb import KB_FILES, Half6, Restaurant6, extended_kb, kb6_text
from .splits import SPLITS6
from .wording import ANSWERS as BABI_ANSWERS
from .wording import (
    ANYTHING_ELSE,
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
    THANKS,
    UPDATE_OK,
    UPDATES,
    UPDATES_DONE,
    WELCOME,
)
from .wording import ASK as BABI_ASK
from .wording import SLOT_PHRASES as BABI_PHRASES

SILENCE = "<silence>"

TOKENS = {1: "task1API", 2: "task2REFINE", 3: "task3OPTIONS", 4: "task4INFOS", 5: "task5FULL"}
TRAIN_CANDIDATES, TEST_CANDIDATES = 10, 11     # the track's scorer's default, the released test files' count

# the fields in api_call's order; the bot asks them in ASK_ORDER
FIELDS6 = ("cuisine", "location", "number", "price", "atmosphere", "restrictions")
ASK_ORDER = (4, 0, 1, 2, 3, 5)
ASK = (*BABI_ASK[:3], "which price range are you looking for", "are you looking for a specific atmosphere",
       "do you have any dietary restrictions")
SLOT_PHRASES = (*BABI_PHRASES, ("with a {} atmosphere",), ("with {} menu options",))
ANSWERS = (*BABI_ANSWERS, ("i am looking for a {} atmosphere",), ("i eat {}",))
ANOTHER = "sure let me find another option for you"
WAIT = "whenever you're ready"
SORRY = "i am sorry, i don't have an answer to that question"
OPTION_WAS = "the option was "
ACCEPTS = ("let's do it", "that looks great", "ok i like it", "it's perfect")
REJECTS = ("do you have something else", "no this does not work for me", "no i don't like it")
ACCEPT_P = 0.25

# the user's asides: rates and most templates invented (the released files show some, not how often)
HESITATE_P = 0.1        # before answering a bot's question
FRIEND_P = 0.1          # an answer given as the friend's correction
FRIEND_CHECK_P = 0.2    # before asking for the phone number or the address
OUT_OF_SCOPE_P = 0.1    # after a proposal (tasks 3, 5) or the booking (task 4)
REPEAT_P = 0.15         # after the second proposal or a later one
PAUSES = ("wait,", "hold on,", "one moment,", "one minute please,", "sorry one sec,")
HESITATIONS = (
    "let me check if {a} or {b} would work", "leaning towards {a}, but give me a bit more time",
    "i am not sure, maybe {a} or {b}", "hmm, {a} or {b}, let me think", "give me a second to decide between {a} and {b}",
    "i am torn between {a} and {b}", "probably {a}, but let me think about it", "either {a} or {b}, give me a moment",
    "let me think about it", "i need a moment to decide", "not sure yet, let me check",
    "can i think about it for a second", "{a} sounds good but so does {b}, one moment",
    "i was thinking {a}, let me double check", "let me ask around, maybe {a}", "hard to choose, {a} or {b}")
OUT_OF_SCOPE = (
    "is this place dog-friendly", "will it be raining", "is there parking nearby", "do they have live music",
    "is it wheelchair accessible", "can i bring my own wine", "do they take credit cards", "is there a dress code",
    "how long is the wait usually", "do they have outdoor seating", "is it kid-friendly", "what time does it close")
REPEAT_FIRST = ("what was the first option again", "can you remind me of the first option", "what was the first one")
REPEAT_PREVIOUS = ("what was the previous option", "what was the option before", "can you repeat the one before")

Request = tuple[str, ...]


@dataclass(frozen=True)
class Split6:
    half: int            # 0: kb1, 1: kb2 (OOV)
    fields: int          # 5 (atmosphere) or 6 (and restrictions)
    part: int | None     # the part of kb1's requests its first requests come from (None: all of kb2's)

    @property
    def label(self) -> str:
        return f"kb{self.half + 1}_atmosphere" + ("_restrictions" if self.fields == 6 else "")


SPLIT_INFO = {"trn": Split6(0, 5, 0), "tst1": Split6(0, 5, 1), "tst2": Split6(1, 5, None),
              "tst3": Split6(0, 6, 1), "tst4": Split6(1, 6, None)}


def file_name6(task: int, split: str, entries: int) -> str:
    """dialog-task1API-kb1_atmosphere-distr0.5-trn10000.json and the like."""
    word = "trn" if split == "trn" else "tst"
    return f"dialog-{TOKENS[task]}-{SPLIT_INFO[split].label}-distr0.5-{word}{entries}.json"


def truth_name(name: str) -> str:
    return name[:-len(".json")] + "-truth.json"


def _part(request: Request) -> int:
    """Which part of kb1's requests a request is in (its first 5 fields), whatever the seed."""
    return hashlib.sha256(" ".join(request[:5]).encode()).digest()[0] & 1


def _request(r: Restaurant6, fields: int) -> Request:
    return (r.cuisine, r.location, r.number, r.price, r.atmosphere, r.restrictions)[:fields]


@dataclass(frozen=True)
class World6:
    half: Half6
    fields: int
    requests: tuple[Request, ...]           # the split's first requests
    matches: dict                           # request -> its restaurants, best rated first
    options: tuple[Request, ...]            # the split's requests with 3 restaurants or more
    restaurants: tuple[Restaurant6, ...]    # the restaurants answering a request of the split

    def values(self, f: int) -> tuple[str, ...]:
        return self.half.values[f]


def world6(halves: tuple[Half6, Half6], split: str) -> World6:
    info = SPLIT_INFO[split]
    half = halves[info.half]
    matches: dict = {}
    for r in half.restaurants:
        matches.setdefault(_request(r, info.fields), []).append(r)
    matches = {k: tuple(sorted(v, key=lambda r: (-r.rating, r.name))) for k, v in matches.items()}
    requests = [()]
    for f in range(info.fields):
        requests = [(*r, v) for r in requests for v in half.values[f]]
    if info.part is not None:
        requests = [r for r in requests if _part(r) == info.part]
    allowed = set(requests)
    return World6(half, info.fields, tuple(requests), matches,
                  tuple(r for r in requests if len(matches.get(r, ())) >= 3),
                  tuple(r for r in half.restaurants if _request(r, info.fields) in allowed))


def api_call6(request: Request) -> str:
    return "api_call " + " ".join(request)


# -- the dialogs: lists of (kind, text), kind "u" (user), "b" (bot) or "f" (a fact) --

def _turn(items: list, user: str, bot: str) -> None:
    items.append(("u", user))
    items.append(("b", bot))


def _facts(rng: random.Random, restaurants, items: list) -> None:
    shuffled = list(restaurants)
    rng.shuffle(shuffled)
    for r in shuffled:
        items.extend(("f", fact) for fact in r.facts())


def _phrase(rng: random.Random, f: int, value: str) -> str:
    return rng.choice(SLOT_PHRASES[f]).format(value)


def _answer(rng: random.Random, w: World6, f: int, value: str) -> str:
    if rng.random() < FRIEND_P:
        if f == 0 and len(w.values(0)) > 1:
            other = rng.choice([v for v in w.values(0) if v != value])
            return f"i want {other} food but my friend insists on {value} so let's do that"
        return f"{rng.choice(PAUSES)} i am asking my friend and she wants {_phrase(rng, f, value)}"
    return rng.choice(ANSWERS[f]).format(value)


def _hesitation(rng: random.Random, w: World6, f: int) -> str:
    values = w.values(f)
    a, b = rng.sample(values, 2) if len(values) > 1 else (values[0], values[0])
    return rng.choice(HESITATIONS).format(a=a, b=b)


def _greet_and_fill(rng: random.Random, w: World6, request: Request, given: list[int], items: list) -> None:
    _turn(items, rng.choice(GREETINGS), HELLO)
    _turn(items, " ".join([rng.choice(PREFIXES)] + [_phrase(rng, f, request[f]) for f in given]), ON_IT)
    user = SILENCE
    for f in ASK_ORDER:
        if f < w.fields and f not in given:
            _turn(items, user, ASK[f])
            if rng.random() < HESITATE_P:
                _turn(items, _hesitation(rng, w, f), WAIT)
            user = _answer(rng, w, f, request[f])
    _turn(items, user, LOOKING)


def _updated(rng: random.Random, w: World6, request: Request, most: int) -> tuple[Request, list[int]]:
    changed = rng.sample(range(w.fields), rng.randint(1, min(most, w.fields)))
    new = list(request)
    for f in changed:
        new[f] = rng.choice([v for v in w.values(f) if v != request[f]])
    return tuple(new), changed


def _update_turns(rng: random.Random, new: Request, changed: list[int], items: list) -> None:
    for f in changed:
        _turn(items, f"{rng.choice(UPDATES)} {_phrase(rng, f, new[f])}", UPDATE_OK)
    _turn(items, UPDATES_DONE, LOOKING)
    _turn(items, SILENCE, api_call6(new))


def _offered(rng: random.Random, found, least: int) -> tuple[Restaurant6, ...]:
    """What the API returns: ``least``..4 of the matching restaurants, best rated first."""
    chosen = rng.sample(found, rng.randint(least, min(4, len(found))))
    return tuple(sorted(chosen, key=lambda r: (-r.rating, r.name)))


def _propose(rng: random.Random, ranked, items: list) -> Restaurant6:
    for i, r in enumerate(ranked):
        _turn(items, SILENCE, PROPOSE + r.name)
        if rng.random() < OUT_OF_SCOPE_P:
            _turn(items, rng.choice(OUT_OF_SCOPE), SORRY)
        if i and rng.random() < REPEAT_P:
            if rng.random() < 0.5:
                _turn(items, rng.choice(REPEAT_FIRST), OPTION_WAS + ranked[0].name)
            else:
                _turn(items, rng.choice(REPEAT_PREVIOUS), OPTION_WAS + ranked[i - 1].name)
        if i == len(ranked) - 1 or rng.random() < ACCEPT_P:
            _turn(items, rng.choice(ACCEPTS), BOOK)
            return r
        _turn(items, rng.choice(REJECTS), ANOTHER)
    raise AssertionError("no restaurant to propose")


def _infos(rng: random.Random, r: Restaurant6, items: list) -> None:
    draw = rng.random()
    asks = ["phone"] if draw < 0.25 else ["address"] if draw < 0.5 else rng.sample(["phone", "address"], 2)
    for what in asks:
        if rng.random() < FRIEND_CHECK_P:
            need = "phone number" if what == "phone" else "address"
            _turn(items, f"{rng.choice(PAUSES)} i am asking my friend if we need the {need}", WAIT)
        if what == "phone":
            _turn(items, rng.choice(ASK_PHONE), HERE_IT_IS + r.phone)
        else:
            _turn(items, rng.choice(ASK_ADDRESS), HERE_IT_IS + r.address)


def task1(rng: random.Random, w: World6) -> list:
    request = rng.choice(w.requests)
    items: list = []
    _greet_and_fill(rng, w, request, rng.sample(range(w.fields), rng.randrange(w.fields + 1)), items)
    _turn(items, SILENCE, api_call6(request))
    return items


def task2(rng: random.Random, w: World6) -> list:
    request = rng.choice(w.requests)
    new, changed = _updated(rng, w, request, w.fields)
    items: list = []
    _greet_and_fill(rng, w, request, rng.sample(range(w.fields), w.fields), items)
    _turn(items, SILENCE, api_call6(request))
    _update_turns(rng, new, changed, items)
    _turn(items, rng.choice(THANKS), WELCOME)
    return items


def task3(rng: random.Random, w: World6) -> list:
    request = rng.choice(w.options)
    offered = _offered(rng, w.matches[request], 3)
    items: list = []
    _facts(rng, offered, items)
    _greet_and_fill(rng, w, request, rng.sample(range(w.fields), rng.randrange(w.fields + 1)), items)
    _propose(rng, offered, items)
    return items


def task4(rng: random.Random, w: World6) -> list:
    r = rng.choice(w.restaurants)
    items: list = []
    _facts(rng, [r], items)
    _turn(items, rng.choice(GREETINGS), HELLO)
    _turn(items, f"{rng.choice(PREFIXES)} at {r.name}", BOOK)
    if rng.random() < OUT_OF_SCOPE_P:
        _turn(items, rng.choice(OUT_OF_SCOPE), SORRY)
    _infos(rng, r, items)
    return items


def task5(rng: random.Random, w: World6) -> list:
    while True:       # an update matches a restaurant 9 times in 10 or more: this ends
        request = rng.choice(w.requests)
        new, changed = _updated(rng, w, request, 3)
        if w.matches.get(new):
            break
    items: list = []
    _greet_and_fill(rng, w, request, rng.sample(range(w.fields), rng.randint(1, w.fields - 1)), items)
    _turn(items, SILENCE, api_call6(request))
    _update_turns(rng, new, changed, items)
    offered = _offered(rng, w.matches[new], 1)
    _facts(rng, offered, items)
    accepted = _propose(rng, offered, items)
    _infos(rng, accepted, items)
    _turn(items, rng.choice(THANKS), ANYTHING_ELSE)
    _turn(items, rng.choice(DECLINES), WELCOME)
    return items


TASKS6 = {1: task1, 2: task2, 3: task3, 4: task4, 5: task5}


# -- the candidates --

def _fixed(task: int, fields: int) -> tuple[str, ...]:
    """The task's bot utterances without a value in them."""
    asks = tuple(ASK[f] for f in ASK_ORDER if f < fields)
    if task == 4:
        return (HELLO, BOOK, WAIT, SORRY)
    out = (HELLO, ON_IT, *asks, LOOKING, WAIT)
    if task in (2, 5):
        out += (UPDATE_OK, WELCOME)
    if task in (3, 5):
        out += (SORRY, ANOTHER, BOOK)
    if task == 5:
        out += (ANYTHING_ELSE,)
    return out


def _named(task: int) -> tuple[str, ...]:
    """The task's utterances around a restaurant's name ({} the name)."""
    return {1: (), 2: (), 3: (PROPOSE + "{}", OPTION_WAS + "{}"), 4: (HERE_IT_IS + "{}_phone", HERE_IT_IS + "{}_address"),
            5: (PROPOSE + "{}", OPTION_WAS + "{}", HERE_IT_IS + "{}_phone", HERE_IT_IS + "{}_address")}[task]


def _name_of(answer: str, task: int) -> tuple[str, str] | None:
    """(the template, the name) of an answer with a name in it."""
    for template in _named(task):
        head, tail = template.split("{}")
        if answer.startswith(head) and answer.endswith(tail) and len(answer) > len(head) + len(tail):
            return template, answer[len(head):len(answer) - len(tail)]
    return None


def _near(answer: str, task: int, w: World6, context: list[str]) -> list[str]:
    if answer.startswith("api_call "):
        values = answer.split()[1:]
        return [api_call6((*values[:f], v, *values[f + 1:])) for f in range(len(values))
                for v in w.values(f) if v != values[f]]
    found = _name_of(answer, task)
    if found is None:
        return []
    template, name = found
    names = list(dict.fromkeys(u.split()[0] for u in context if " r_" in u))
    return [t.format(name) for t in _named(task) if t != template] + [template.format(n) for n in names if n != name]


def _drawn(rng: random.Random, task: int, w: World6, fixed: tuple[str, ...]) -> str:
    kinds = len(fixed) + (1 if task in (1, 2, 5) else 0) + len(_named(task))
    k = rng.randrange(kinds)
    if k < len(fixed):
        return fixed[k]
    k -= len(fixed)
    if task in (1, 2, 5):
        if k == 0:
            return api_call6(tuple(rng.choice(w.values(f)) for f in range(w.fields)))
        k -= 1
    return _named(task)[k].format(rng.choice(w.half.restaurants).name)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def entry(rng: random.Random, task: int, w: World6, items: list, count: int, train: bool) -> tuple[dict, str]:
    """An entry of a dialog (cut before one of its bot turns), and its answer's candidate_id."""
    bots = [i for i, (kind, _) in enumerate(items) if kind == "b"]
    cut = rng.choice(bots)
    utterances = [text for _, text in items[:cut]]
    answer = items[cut][1]
    chosen = [answer]
    near = [c for c in dict.fromkeys(_near(answer, task, w, utterances)) if c != answer]
    chosen += rng.sample(near, min(len(near), (count - 1) // 2))
    fixed = _fixed(task, w.fields)
    while len(chosen) < count:
        drawn = _drawn(rng, task, w, fixed)
        if drawn not in chosen:
            chosen.append(drawn)
    rng.shuffle(chosen)
    dialog_id = _uuid(rng)
    candidates = [{"candidate_id": _uuid(rng), "utterance": c} for c in chosen]
    gold = candidates[chosen.index(answer)]
    out = {"dialog_id": dialog_id, "utterances": utterances, "candidates": candidates}
    if train:
        out["answer"] = dict(gold)
    return out, gold["candidate_id"]


def _seed(seed: int, task: int, split: str) -> int:
    return int.from_bytes(hashlib.sha256(f"dstc6:{seed}:{task}:{split}".encode()).digest()[:8], "big")


def _array(items) -> Iterator[bytes]:
    """A JSON array, one element a line, piece by piece (UTF-8)."""
    yield b"["
    for i, item in enumerate(items):
        yield ("\n" if i == 0 else ",\n").encode() + json.dumps(item, ensure_ascii=False).encode()
    yield b"\n]\n"


def task_entries(halves, task: int, split: str, entries: int, seed: int, count: int,
                 truth: list) -> Iterator[dict]:
    """The entries of a task file, one at a time; the test sets' truth entries go to ``truth``."""
    w = world6(halves, split)
    if task == 3 and not w.options:
        raise Dstc2ConvError(f"task 3 {split}: no request matches 3 restaurants or more")
    rng = random.Random(_seed(seed, task, split))
    make = TASKS6[task]
    train = split == "trn"
    for _ in range(entries):
        e, gold = entry(rng, task, w, make(rng, w), count, train)
        if not train:
            truth.append({"dialog_id": e["dialog_id"], "lst_candidate_id": [{"candidate_id": gold, "rank": 1}]})
        yield e


@dataclass(frozen=True)
class Dstc6Options:
    tasks: tuple[int, ...]
    splits: tuple[str, ...]
    entries: int = 1000
    seed: int = 0
    out: str = "outputs"
    kb_seed: int = 0
    candidates: int | None = None      # None: 10 in the train file, 11 in the test files


def simulate6(options: Dstc6Options) -> list[str]:
    """Write the JSON files of every task and split asked for (and the test sets' truth
    files), extendedkb1.txt and extendedkb2.txt into ``options.out``; the paths written."""
    from .generate import _Folder

    for split in options.splits:
        if split not in SPLIT_INFO:
            raise Dstc2ConvError(f"unknown split {split!r} for --variant dstc6: the splits are {', '.join(SPLITS6)}")
    if options.candidates is not None and not 2 <= options.candidates <= 100:
        raise Dstc2ConvError(f"--candidates {options.candidates}: give 2 to 100 (the answer and a distractor or more)")
    halves = extended_kb(options.kb_seed)
    texts = {name: kb6_text(half) for name, half in zip(KB_FILES, halves)}
    names = []
    for task in options.tasks:
        for split in options.splits:
            name = file_name6(task, split, options.entries)
            names += [name] if split == "trn" else [name, truth_name(name)]
    with _Folder(options.out) as folder:
        for name in [*names, *texts]:
            if texts.get(name) is None or texts[name] != folder.existing(name):
                refuse_inputs(os.path.join(folder.path, name))
        for task in options.tasks:
            for split in options.splits:
                count = options.candidates or (TRAIN_CANDIDATES if split == "trn" else TEST_CANDIDATES)
                note(f"task {task} {split}: {options.entries:,} entries, {count} candidates each")
                name = file_name6(task, split, options.entries)
                truth: list = []
                folder.stream(name, _array(task_entries(halves, task, split, options.entries, options.seed, count,
                                                        truth)))
                if split != "trn":
                    folder.stream(truth_name(name), _array(truth))
        for name, text in texts.items():
            folder.stream(name, [text.encode()])
        return folder.put_in_place([*names, *texts])
