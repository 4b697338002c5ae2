"""The kinds of bot response, for accuracy per kind: one registry, in order; a gold bot
utterance is of the first kind whose test it passes, ``other`` if none.

A kind is decided from the gold utterance alone, by its wording as the task-6 files
write it (the published train and dev files and this project's builds), never from a
prediction. Restaurant names are not checked against the result lines: the published
files also name restaurants that no result line lists (``nandos_city_centre``), and
write some names with spaces (``the cow pizza kitchen and bar``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ResponseKind:
    name: str
    doc: str
    pattern: re.Pattern    # the whole stripped gold utterance matches it

    def test(self, gold: str) -> bool:
        return self.pattern.fullmatch(gold.strip()) is not None


def _kind(name: str, doc: str, pattern: str) -> ResponseKind:
    return ResponseKind(name, doc, re.compile(pattern))


KINDS: tuple[ResponseKind, ...] = (
    _kind("api_call", "a call to the KB: api_call <food> <area> <price>", r"api_call( \S+){3}"),
    _kind("greeting", "the opening: Hello , welcome to the Cambridge restaurant system ...",
         r"Hello , welcome to the Cambridge restaurant system .*"),
    _kind("ask_food", "What kind of food would you like?", r"What kind of food would you like\?"),
    _kind("ask_area", "What part of town do you have in mind?", r"What part of town do you have in mind\?"),
    _kind("ask_price", "Would you like something in the cheap , moderate , or expensive price range?",
         r"Would you like something in the cheap , moderate , or expensive price range\?"),
    _kind("confirm", "checks a constraint: You are looking for ... right? / Did you say ...? / "
                    "Let me confirm , ... / Ok , a restaurant in any part of town is that right?",
         r"(You are looking for .*|Let me confirm , .*|Ok , .*is that right)\?|Did you say .*\?"),
    _kind("select", "offers a choice: Sorry would you like ... or ...", r"Sorry would you like .* or .*"),
    _kind("no_match", "nothing (or nothing else) matches: I'm sorry but there is no ... / "
                     "Sorry there is no ... / I am sorry but there is no ...",
         r"(I'm sorry|I am sorry|Sorry)( but)? there is no .*"),
    _kind("offer", "a restaurant with one of the offer wordings: X is a nice place ... / X is a great "
                  "restaurant ... / X is a nice restaurant ... / X serves F food ... / X is in the P price range",
         r".+? (is a (nice|great) (place|restaurant)( .*)?|serves \S+ food( .*)?|is in the \S+ price range)"),
    _kind("phone", "The phone number of X is X_phone", r"The phone number of .+ is \S+"),
    _kind("address", "X is on X_address, with or without Sure ,", r"(Sure , )?.+ is on \S+"),
    _kind("post_code", "The post code of X is X_post_code", r"The post code of .+ is \S+"),
    _kind("area_price", "the area or price range of a restaurant asked about: The price range at X is P . / "
                       "X is in the A part of town .",
         r"The price range at .+ is \S+ \.|.+ is in the \S+ part of town \."),
    _kind("anything_else", "Can I help you with anything else?", r"Can I help you with anything else\?"),
    _kind("closing", "you are welcome", r"you are welcome"),
    _kind("not_understood", "asks the user to say it again: Sorry I am a bit confused ... / "
                           "Sorry, I can't hear you", r"Sorry I am a bit confused .*|Sorry, I can't hear you"),
)
OTHER = "other"
NAMES: tuple[str, ...] = tuple(k.name for k in KINDS) + (OTHER,)


def kind_of(gold: str) -> str:
    """The kind of a gold bot utterance: the first of ``KINDS`` it passes, else ``other``."""
    return next((k.name for k in KINDS if k.test(gold)), OTHER)
