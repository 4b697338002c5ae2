"""The simulated user of the bAbI dialog tasks 1-5 as a state machine: it reads the bot's
utterance and answers as the user of the published files would, with the simulator's
wording and draws (``wording``, ``tasks``, ``requests``), whatever the bot said before.

A goal (``draw_goal``) is what a dialog of the task is about, drawn as ``tasks`` draws
it: the request and the fields the opening says, the updates (tasks 2 and 5), the
restaurants the dialog opens with (tasks 3 and 4), the phone or address asked for (tasks
4 and 5). ``User.reply`` answers each bot utterance: the field asked for, ``<SILENCE>``
after ``i'm on it`` and the like, the next update, a proposal accepted (p = 0.25, always
the last restaurant left) or rejected, the phone or address asked, thanks. A bot
utterance the user cannot go on from ends the dialog with a failure of one of ``KINDS``.

The environment, not the system, answers an ``api_call``: ``call_results`` gives the KB
facts of the restaurants it matches. The published files show them after task 5's last
call only (the user updates its request right after the first call, and tasks 1 and 2
show none), so the user's reply carries them there.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from .kb import KB, Restaurant
from .requests import MIN_OPTIONS, World
from .tasks import ACCEPT_P, MAX_TRIES, _updated
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
    FIELDS,
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

# how a dialog fails
WRONG_CALL = "wrong call"
SLOT_QUESTION = "wrong or missing slot question"
WRONG_PROPOSAL = "wrong proposal"
NO_BOOKING = "no booking"
WRONG_INFO = "wrong info"
UNEXPECTED = "unexpected utterance"
TURN_LIMIT = "turn limit reached"
KINDS = (WRONG_CALL, SLOT_QUESTION, WRONG_PROPOSAL, NO_BOOKING, WRONG_INFO, UNEXPECTED, TURN_LIMIT)


@dataclass(frozen=True)
class Goal:
    """What a dialog is about."""
    request: tuple[str, str, str, str]      # the request the dialog opens with
    fields: tuple[int, ...]                 # the fields the opening says, in order
    final: tuple[str, str, str, str]        # the request after the updates (tasks 2, 5; else the request)
    changed: tuple[int, ...]                # the fields updated, in order
    opening: tuple[Restaurant, ...]         # the restaurants whose facts open the dialog (tasks 3, 4)
    asks: tuple[str, ...]                   # "phone", "address": asked after the booking, in order


def _asks(rng: random.Random) -> tuple[str, ...]:
    draw = rng.random()
    return ("phone",) if draw < 0.25 else ("address",) if draw < 0.5 else tuple(rng.sample(["phone", "address"], 2))


def draw_goal(task: int, rng: random.Random, w: World) -> Goal:
    """A goal of ``task`` drawn from the split's world ``w`` as ``tasks`` draws its dialogs."""
    if task == 4:
        r = rng.choice(w.restaurants)
        return Goal(r.request, (), r.request, (), (r,), _asks(rng))
    if task == 3:
        request = rng.choice(w.options)
        opening = list(w.matches[request])
        rng.shuffle(opening)
        return Goal(request, tuple(rng.sample(range(4), rng.randrange(5))), request, (), tuple(opening), ())
    if task == 1:
        request = rng.choice(w.requests)
        return Goal(request, tuple(rng.sample(range(4), rng.randrange(5))), request, (), (), ())
    if task == 2:
        request = rng.choice(w.requests)
        new, changed = _updated(rng, w, request, 4)
        return Goal(request, tuple(rng.sample(range(4), 4)), new, tuple(changed), (), ())
    for _ in range(MAX_TRIES):      # task 5: the updated request matches MIN_OPTIONS restaurants or more
        request = rng.choice(w.requests)
        new, changed = _updated(rng, w, request, 3)
        if len(w.matches.get(new, ())) >= MIN_OPTIONS:
            return Goal(request, tuple(rng.sample(range(4), rng.randint(1, 3))), new, tuple(changed), (), _asks(rng))
    raise Dstc2ConvError(f"task 5: no update of this split's requests matches {MIN_OPTIONS} restaurants "
                         f"in {MAX_TRIES:,} draws")


def call_results(kb: KB, utterance: str, rng: random.Random) -> tuple[str, ...]:
    """The environment's answer to an ``api_call``: the 7 facts (dialog order) of every KB
    restaurant matching its cuisine, location, party size and price, the restaurants in
    random order (as the published files give them); none for no match (the published
    files have no line for that) or for another utterance."""
    words = utterance.split()
    if len(words) != 5 or words[0] != "api_call":
        return ()
    found = [r for r in kb.restaurants if r.request == tuple(words[1:])]
    rng.shuffle(found)
    return tuple(line for r in found for line in r.facts())


@dataclass(frozen=True)
class Reply:
    """The user's answer to a bot utterance: what it says next (None once the dialog is
    over), the result lines the environment adds after the bot's utterance, and, when the
    dialog fails there, how and why."""
    user: str | None
    context: tuple[str, ...] = ()
    failure: str | None = None
    why: str = ""


def _parse(bot: str) -> tuple[str, object]:
    """The kind of a bot utterance, and its value."""
    text = " ".join(bot.split())
    fixed = {HELLO: "hello", ON_IT: "on_it", LOOKING: "look", UPDATE_OK: "update_ok", ANOTHER: "another",
             BOOK: "book", ANYTHING_ELSE: "anything_else", WELCOME: "welcome"}
    if text in fixed:
        return fixed[text], None
    if text in ASK:
        return "ask", ASK.index(text)
    words = text.split()
    if words[:1] == ["api_call"]:
        return "call", tuple(words[1:])
    if text.startswith(PROPOSE) and len(words) == len(PROPOSE.split()) + 1:
        return "propose", words[-1]
    if text.startswith(HERE_IT_IS) and len(words) == 4:
        return "info", words[-1]
    return "other", text


class User:
    """The user of one dialog of ``task`` with ``goal``: ``first()`` is its first utterance,
    ``reply(bot)`` its answer to each bot utterance (the draws from ``rng``)."""

    def __init__(self, task: int, goal: Goal, rng: random.Random, kb: KB):
        self.task, self.goal, self.rng, self.kb = task, goal, rng, kb
        self.want = list(goal.request)
        self.told: set[int] = set()
        self.pending = list(goal.changed)
        self.asks = list(goal.asks)
        self.options = tuple(goal.opening) if task == 3 else ()    # the restaurants it may be offered
        self.proposed: set[str] = set()
        self.booked: Restaurant | None = goal.opening[0] if task == 4 else None
        self.last = "greeting"      # what the user's last utterance was

    # -- what the user says
    def first(self) -> str:
        return self.rng.choice(GREETINGS)

    def _say(self, what: str, text: str, context: tuple[str, ...] = ()) -> Reply:
        self.last = what
        return Reply(text, context)

    def _opening(self) -> Reply:
        prefix = self.rng.choice(PREFIXES)
        if self.task == 4:
            return self._say("book-at", f"{prefix} at {self.booked.name}")
        words = [prefix] + [self.rng.choice(SLOT_PHRASES[f]).format(self.want[f]) for f in self.goal.fields]
        self.told.update(self.goal.fields)
        return self._say("opening", " ".join(words))

    def _ask_info(self) -> Reply:
        what = self.asks[0]
        return self._say("ask-info", self.rng.choice(ASK_PHONE if what == "phone" else ASK_ADDRESS))

    def _update(self) -> Reply:
        f = self.pending.pop(0)
        self.want[f] = self.goal.final[f]
        phrase = self.rng.choice(SLOT_PHRASES[f]).format(self.want[f])
        return self._say("update", f"{self.rng.choice(UPDATES)} {phrase}")

    @staticmethod
    def _fail(kind: str, why: str) -> Reply:
        return Reply(None, (), kind, why)

    def _done(self, context: tuple[str, ...] = ()) -> Reply:
        self.last = "done"
        return Reply(None, context)

    # -- the answer to the bot
    def reply(self, bot: str) -> Reply:
        kind, value = _parse(bot)
        last = self.last
        if last == "greeting":
            return self._opening() if kind == "hello" else self._fail(UNEXPECTED, f"{bot!r} to the greeting")
        if last in ("accept", "book-at"):
            if kind != "book":
                return self._fail(NO_BOOKING, f"{bot!r} to the restaurant {'accepted' if last == 'accept' else 'named'}")
            return self._ask_info() if self.asks else self._done()
        if last == "ask-info":
            return self._info(kind, value, bot)
        if last == "thanks":
            if self.task == 2 and kind == "welcome" or self.task == 5 and kind == "anything_else":
                return self._done() if self.task == 2 else self._say("decline", self.rng.choice(DECLINES))
            return self._fail(UNEXPECTED, f"{bot!r} to the thanks")
        if last == "decline":
            return self._done() if kind == "welcome" else self._fail(UNEXPECTED, f"{bot!r} to the closing")
        if last == "update":
            if kind != "update_ok":
                return self._fail(UNEXPECTED, f"{bot!r} to an update")
            return self._update() if self.pending else self._say("updates-done", UPDATES_DONE)
        if last == "reject" and kind == "another":
            return self._say("waiting", SILENCE)
        if last in ("reject", "updates-done") and kind not in ("propose", "call", "look"):
            return self._fail(UNEXPECTED, f"{bot!r} to {'a rejection' if last == 'reject' else 'the end of the updates'}")
        if kind == "on_it" and last == "opening":
            return self._say("waiting", SILENCE)
        if kind == "ask":
            if value in self.told:
                return self._fail(SLOT_QUESTION, f"{bot!r}: the {FIELDS[value]} was given")
            self.told.add(value)
            return self._say("answer", self.rng.choice(ANSWERS[value]).format(self.want[value]))
        missing = [FIELDS[f] for f in range(4) if f not in self.told]
        if kind in ("look", "call", "propose") and missing and self.task != 4:
            return self._fail(SLOT_QUESTION, f"{bot!r} before asking for the {', '.join(missing)}")
        if kind == "look" and self.task in (1, 2, 3, 5):
            return self._say("waiting", SILENCE)
        if kind == "call" and self.task in (1, 2, 5):
            return self._call(value, bot)
        if kind == "propose" and self.task in (3, 5):
            return self._proposal(value, bot)
        return self._fail(UNEXPECTED, f"{bot!r} after the user's {last.replace('-', ' ')}")

    def _call(self, values: tuple, bot: str) -> Reply:
        if values != tuple(self.want):
            return self._fail(WRONG_CALL, f"{bot!r} for {api_call(tuple(self.want))!r}")
        if self.task == 1:
            return self._done()
        if self.pending:
            return self._update()
        if self.task == 2:
            return self._say("thanks", self.rng.choice(THANKS))
        context = call_results(self.kb, bot, self.rng)
        names = list(dict.fromkeys(line.split()[0] for line in context))
        self.options = tuple(r for r in self.kb.restaurants if r.name in names)
        return self._say("waiting", SILENCE, context)

    def _proposal(self, name: str, bot: str) -> Reply:
        offered = {r.name: r for r in self.options}
        if not offered:
            return self._fail(WRONG_CALL, f"{bot!r} before the call that finds the restaurants")
        if name not in offered:
            return self._fail(WRONG_PROPOSAL, f"{bot!r}: {name} does not answer {api_call(tuple(self.want))!r}")
        if name in self.proposed:
            return self._fail(WRONG_PROPOSAL, f"{bot!r}: {name} was rejected")
        self.proposed.add(name)
        if len(self.proposed) == len(offered) or self.rng.random() < ACCEPT_P:
            self.booked = offered[name]
            return self._say("accept", self.rng.choice(ACCEPTS))
        return self._say("reject", self.rng.choice(REJECTS))

    def _info(self, kind: str, value, bot: str) -> Reply:
        what = self.asks[0]
        right = self.booked.phone if what == "phone" else self.booked.address
        if kind != "info" or value != right:
            return self._fail(WRONG_INFO, f"{bot!r} for {HERE_IT_IS + right!r}")
        self.asks.pop(0)
        if self.asks:
            return self._ask_info()
        return self._say("thanks", self.rng.choice(THANKS)) if self.task == 5 else self._done()


__all__ = ["KINDS", "Goal", "Reply", "User", "call_results", "draw_goal"]
