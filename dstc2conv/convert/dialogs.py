"""Turn one DSTC2 call into one task-6 dialog.

The steps, in order (each is a small function below):
1. clean the user's transcriptions and the system's transcripts (``task6.text.clean``:
   one space between words, no control or format character; delexicalise names,
   phones, addresses and postcodes; underscore multiword values);
2. pair each system turn with the user turn before it, dropping repeated system turns;
3. at each turn where the system offers a KB restaurant or says it cannot help with two or
   more constraints, write ``api_call <cuisine> <location> <price>`` when the values
   (the user's, less those the offered restaurant contradicts: ``apicall``) differ from
   the last call, followed by its result lines (or ``api_call no result``);
4. give each result restaurant a rating so that the system's next offers go to the
   highest-rated restaurant not yet offered.
"""
from __future__ import annotations

import functools
import random
import re

from ..dstc2.calls import Call, CallTurn
from ..task6.format import NO_RESULT, SILENCE, Context, Dialog, Exchange
from ..task6.text import clean
from ..task6.vocabulary import DETAIL_BY_DSTC2, PLACEHOLDERS
from .apicall import plan_calls, shown_offer
from .kb import KB, Restaurant, underscore
from .lexicon import Lexicon

WELCOME_BOT = " you are welcome"
USER_FILLERS = frozenset({"noise", "sil", "unintelligible"})
# Removed after the silence test: a turn of only tv_noise became an empty user turn.
USER_LATE_FILLERS = frozenset({"tv_noise"})
COUNT = re.compile(r"\b(There are|there are) \d+ ")


# ---------------------------------------------------------------- cleaning

def clean_user(text: str, lexicon: Lexicon) -> str:
    cleaned = lexicon.cleaned.get(text)   # (the same words come back in many calls)
    if cleaned is None:
        cleaned = lexicon.cleaned[text] = _clean_user(text, lexicon)
    return cleaned


def _clean_user(text: str, lexicon: Lexicon) -> str:
    words = [w for w in clean(text).lower().split() if w not in USER_FILLERS]
    if not words:
        return SILENCE
    words = [w for w in words if w not in USER_LATE_FILLERS]
    return lexicon.multiword.sub(_join, " ".join(words))


def clean_system(turn: CallTurn, lexicon: Lexicon) -> str:
    key = (turn.system, turn.system_acts)
    cleaned = lexicon.cleaned.get(key)
    if cleaned is None:
        cleaned = lexicon.cleaned[key] = _clean_system(turn, lexicon)
    return cleaned


def _clean_system(turn: CallTurn, lexicon: Lexicon) -> str:
    text = clean(turn.system)
    acts = turn.system_acts
    if any(a.act == "welcomemsg" for a in acts):
        text = text.replace("system?", "system .")
        if text.endswith("help you?"):
            text = text[:-1] + " ?"
        elif "How may I help you" not in text:
            text += " How may I help you ?"
    if "here are " in text:
        text = COUNT.sub(r"\1 ", text)
    name = turn.offered
    # Phone, address and postcode: replace the value by the placeholder and cut the rest,
    # when it is the first informed value the turn says (the published files left
    # "X is in the centre , at C.B 2, 1 U.F" as it was).
    if name is not None:
        lowered = text.lower()
        said = sorted((lowered.find(value.lower()), slot) for act in acts if act.act == "inform"
                      for slot, value in act.slots if value and lowered.find(value.lower()) >= 0)
        if said and said[0][1] in DETAIL_BY_DSTC2:
            at, slot = said[0]
            text = text[:at] + f"{underscore(name)}_{DETAIL_BY_DSTC2[slot].suffix}"
    return lexicon.multiword.sub(_join, text)


def _join(match: re.Match) -> str:
    return match.group(0).replace(" ", "_")


# ---------------------------------------------------------------- api calls

def format_call(values) -> str:
    return "api_call " + " ".join(v if v is not None else p for v, p in zip(values, PLACEHOLDERS))


# ---------------------------------------------------------------- results and ratings

def result_lines(restaurants: list[Restaurant], ratings: dict[str, int]) -> list[Context]:
    lines = []
    for r in restaurants:
        lines.extend(_fact_lines(r))
        lines.append(Context(f"{r.name} R_rating {ratings[r.name]}"))
    return lines


@functools.lru_cache(maxsize=None)
def _fact_lines(restaurant: Restaurant) -> tuple[Context, ...]:
    """A restaurant's result lines but the rating (the same in every block)."""
    return tuple(Context(f"{restaurant.name} {a} {v}") for a, v in restaurant.attrs)


# Ratings look like the published ones: offered restaurants rate 5-10, the others 0-4.
OFFERED_RATINGS = range(5, 11)
OTHER_RATINGS = range(0, 5)


def assign_ratings(names: list[str], offered: list[str], rng: random.Random) -> dict[str, int]:
    """Random ratings under which each restaurant in ``offered`` (in the order the system
    offered them) is the highest rated of the restaurants not offered before it."""
    ratings = {name: rng.choice(OTHER_RATINGS) for name in names}
    offered = [name for name in offered if name in ratings]
    if len(offered) <= len(OFFERED_RATINGS):
        top = sorted(rng.sample(OFFERED_RATINGS, len(offered)), reverse=True)
    else:  # more offers than the usual scale holds: extend it upwards
        top = list(range(OFFERED_RATINGS.start + len(offered) - 1, OFFERED_RATINGS.start - 1, -1))
    ratings.update(zip(offered, top))
    return ratings


# ---------------------------------------------------------------- the dialog

def merge_repeats(system: list[str], users: list[str]) -> list[tuple[int, int, str]]:
    """Pair system turn i with user turn i-1; runs of identical system turns become one
    line. Returns (first turn of the run, last turn of the run, user) per line. The user
    is the last turn's, unless an earlier one in the run was silence (then silence)."""
    runs: list[list] = []
    for i, text in enumerate(system):
        user = SILENCE if i == 0 else users[i - 1]
        if runs and system[runs[-1][1]] == text:
            runs[-1][1] = i
            if runs[-1][2] != SILENCE:
                runs[-1][2] = user
        else:
            runs.append([i, i, user])
    return [tuple(run) for run in runs]


def convert_call(call: Call, kb: KB, lexicon: Lexicon, rng: random.Random, plan=plan_calls,
                 asr: bool = False) -> Dialog:
    """One DSTC2 call as a task-6 dialog. ``plan``: when calls are written and with which
    values (``apicall.plan_calls``; other readings can be measured against it). ``asr``:
    the user turns are what the system heard (``CallTurn.heard``), not the transcriptions; the
    api_calls still read the transcriptions."""
    turns = call.turns
    system = [clean_system(t, lexicon) for t in turns]
    users = [clean_user(t.heard if asr else t.user, lexicon) for t in turns]
    runs = merge_repeats(system, users)
    calls = plan(call, [(first, last) for first, last, _ in runs], lexicon, kb)

    # Lines, with each result block as a list of restaurants to be rated once the
    # offers that follow it are known.
    lines: list = []
    for k, (first, last, user) in enumerate(runs):
        values = calls.get(k)
        if values is not None:
            # the call answers the run's first user turn; the run's later ones are dropped
            lines.append(Exchange(SILENCE if first == 0 else users[first - 1], format_call(values)))
            lines.append([] if values == (None, None, None) else kb.matching(*values))
            user = SILENCE
        lines.append((Exchange(user, system[last]), shown_offer(turns[first])))
    lines.append((Exchange(users[-1], WELCOME_BOT), None))

    out: list = []
    for pos, line in enumerate(lines):
        if isinstance(line, Exchange):
            out.append(line)
        elif isinstance(line, tuple):
            out.append(line[0])
        elif not line:
            out.append(Context(NO_RESULT))
        else:
            names = {r.name for r in line}
            offered = []
            for later in lines[pos + 1:]:
                if isinstance(later, list):
                    break
                if isinstance(later, tuple) and later[1] is not None:
                    name = _shown_offer(later[0].bot, underscore(later[1]), names)
                    if name not in offered:
                        offered.append(name)
            ratings = assign_ratings([r.name for r in line], offered, rng)
            out.extend(result_lines(line, ratings))
    return Dialog(tuple(out))


def _shown_offer(bot: str, offered: str, block: set) -> str:
    """The restaurant an offer shows: the offered name if the turn shows it as a token,
    else the first restaurant of the block it shows (``pizza_express Fen Ditton``)."""
    tokens = bot.split()
    if offered in tokens:
        return offered
    return next((t for t in tokens if t in block), offered)


__all__ = ["convert_call", "clean_user", "clean_system",
           "merge_repeats", "format_call", "assign_ratings"]
