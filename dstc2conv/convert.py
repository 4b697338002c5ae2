"""Turn one DSTC2 call into one task-6 dialog.

The steps, in order (each is a small function below):
1. clean the user's transcriptions and the system's transcripts (delexicalise names,
   phones, addresses and postcodes; underscore multiword values);
2. pair each system turn with the user turn before it, dropping repeated system turns;
3. at each turn where the system offers a KB restaurant or says it cannot help with two or
   more constraints, write ``api_call <cuisine> <location> <price>`` when the values
   differ from the last call, followed by its result lines (or ``api_call no result``);
4. give each result restaurant a rating so that the system's next offers go to the
   highest-rated restaurant not yet offered.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass

from .apicall import plan_calls
from .dstc2 import Call, Turn
from .kb import ATTRIBUTES, KB, Restaurant, underscore
from .task6 import NO_RESULT, SILENCE, Context, Dialog, Exchange

WELCOME_BOT = " you are welcome"
PLACEHOLDERS = ("R_cuisine", "R_location", "R_price")
SLOTS = ("food", "area", "pricerange")
USER_FILLERS = frozenset({"noise", "sil", "unintelligible"})
# Removed after the silence test: a turn of only tv_noise became an empty user turn.
USER_LATE_FILLERS = frozenset({"tv_noise"})
DETAIL_SLOTS = {"phone": "phone", "addr": "address", "postcode": "post_code"}


@dataclass(frozen=True)
class Ontology:
    foods: tuple[str, ...]
    areas: tuple[str, ...]
    prices: tuple[str, ...]
    names: tuple[str, ...]

    @classmethod
    def from_json(cls, data: dict) -> "Ontology":
        informable = data["informable"]
        return cls(*(tuple(informable[k]) for k in ("food", "area", "pricerange", "name")))


@dataclass(frozen=True)
class Lexicon:
    """Compiled patterns for one ontology and KB (built once per build)."""
    multiword: re.Pattern   # multiword foods and names (of at most MAX_NAME_WORDS words), longest first
    names: frozenset        # the KB's restaurant names, underscored


# Restaurant names of more than five words were never joined in the published files
# (the good luck chinese food takeaway, ...); their phone/address/postcode tokens are.
MAX_NAME_WORDS = 5
COUNT = re.compile(r"\b(There are|there are) \d+ ")


def make_lexicon(ontology: Ontology, kb: KB) -> Lexicon:
    names = [n for n in ontology.names if len(n.split()) <= MAX_NAME_WORDS]
    phrases = sorted({p for p in ontology.foods + tuple(names) if " " in p}, key=lambda p: (-len(p), p))
    multiword = re.compile("|".join(re.escape(p) for p in phrases) if phrases else r"(?!x)x")
    return Lexicon(multiword, frozenset(r.name for r in kb.restaurants))


# ---------------------------------------------------------------- cleaning

def clean_user(text: str, lexicon: Lexicon) -> str:
    words = [w for w in text.lower().split() if w not in USER_FILLERS]
    if not words:
        return SILENCE
    words = [w for w in words if w not in USER_LATE_FILLERS]
    return lexicon.multiword.sub(_join, " ".join(words))


def clean_system(turn: Turn, lexicon: Lexicon) -> str:
    text = " ".join(turn.system.split())
    acts = turn.system_acts
    if any(a.act == "welcomemsg" for a in acts):
        text = text.replace("system?", "system .")
        if text.endswith("help you?"):
            text = text[:-1] + " ?"
        elif "How may I help you" not in text:
            text += " How may I help you ?"
    text = COUNT.sub(r"\1 ", text)
    name = _offered_name(acts)
    # Phone, address and postcode: replace the value by the placeholder and cut the rest.
    if name is not None:
        for act in acts:
            if act.act != "inform":
                continue
            for slot, value in act.slots:
                kind = DETAIL_SLOTS.get(slot)
                if kind is None:
                    continue
                at = text.lower().find(value.lower())
                if at >= 0:
                    text = text[:at] + f"{underscore(name)}_{kind}"
    return lexicon.multiword.sub(_join, text)


def _join(match: re.Match) -> str:
    return match.group(0).replace(" ", "_")


def _offered_name(acts) -> str | None:
    for act in acts:
        if act.act == "offer":
            for slot, value in act.slots:
                if slot == "name":
                    return value
    return None


# ---------------------------------------------------------------- api calls

def format_call(values) -> str:
    return "api_call " + " ".join(v if v is not None else p for v, p in zip(values, PLACEHOLDERS))


# ---------------------------------------------------------------- results and ratings

def result_lines(restaurants: list[Restaurant], ratings: dict[str, int]) -> list[Context]:
    lines = []
    for r in restaurants:
        lines.extend(Context(f"{r.name} {a} {v}") for a, v in r.attrs)
        lines.append(Context(f"{r.name} R_rating {ratings[r.name]}"))
    return lines


def assign_ratings(restaurants: list[Restaurant], offered_order: list[str], rng: random.Random) -> dict[str, int]:
    """Random distinct-enough ratings where the restaurants offered after the call, in
    their order, hold the highest ratings in decreasing order."""
    n = len(restaurants)
    pool = rng.sample(range(1, max(10, n) + 1), n) if n else []
    pool.sort(reverse=True)
    ratings: dict[str, int] = {}
    names = [r.name for r in restaurants]
    first = [name for name in offered_order if name in names]
    rest = [name for name in names if name not in first]
    rng.shuffle(rest)
    for name, rating in zip(first + rest, pool):
        ratings[name] = rating
    return ratings


# ---------------------------------------------------------------- the dialog

def convert_call(call: Call, kb: KB, lexicon: Lexicon, rng: random.Random) -> Dialog:
    turns = call.turns
    system = [clean_system(t, lexicon) for t in turns]
    users = [clean_user(t.user, lexicon) for t in turns]
    kb_index = kb.by_name()

    # Runs of identical system turns become one line. Its user turn is the later one,
    # unless the earlier was silence (then silence); its acts are the run's first turn's.
    kept: list[list[int | str]] = []  # [first system turn of the run, last system turn, user]
    for i, text in enumerate(system):
        user = SILENCE if i == 0 else users[i - 1]
        if kept and system[kept[-1][1]] == text:
            if kept[-1][2] != SILENCE:
                kept[-1][2] = user
            kept[-1][1] = i
        else:
            kept.append([i, i, user])

    calls = plan_calls(call, [(first, last) for first, last, _ in kept], lexicon.names)
    lines: list = []
    pending: list[tuple[int, list[Restaurant], dict]] = []  # blocks whose ratings wait for offers
    blocks: list[tuple[int, list[Restaurant]]] = []
    for run, (first, i, user) in enumerate(kept):
        values = calls.get(run)
        if values is not None:
            lines.append(Exchange(user, format_call(values)))
            restaurants = [] if values == (None, None, None) else kb.matching(*values)
            blocks.append((len(lines), restaurants))
            lines.append(None)  # placeholder for the result block
            user = SILENCE
        lines.append(Exchange(user, system[i]))
    lines.append(Exchange(users[-1], WELCOME_BOT))

    # Ratings: the offers made after each block, in order, get its highest ratings.
    out: list = []
    block_at = {pos: restaurants for pos, restaurants in blocks}
    for pos, line in enumerate(lines):
        if line is not None:
            out.append(line)
            continue
        restaurants = block_at[pos]
        if not restaurants:
            out.append(Context(NO_RESULT))
            continue
        names = {r.name for r in restaurants}
        end = next((p for p, _ in blocks if p > pos), len(lines))
        offered = []
        for later in lines[pos + 1:end]:
            if later is None:
                continue
            name = _first_name(later.bot, names)
            if name is not None and name not in offered:
                offered.append(name)
        ratings = assign_ratings(restaurants, offered, rng)
        out.extend(result_lines(restaurants, ratings))
    del kb_index, pending
    return Dialog(tuple(out))


def _first_name(bot: str, names: set) -> str | None:
    for token in bot.split():
        if token in names:
            return token
    return None


__all__ = ["Ontology", "Lexicon", "make_lexicon", "convert_call", "clean_user", "clean_system",
           "format_call", "assign_ratings", "ATTRIBUTES"]
