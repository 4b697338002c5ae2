"""Match-type features: the KB's entity words by type, and which of a candidate's words
are entities (a candidate's bag gains a type word for each of its entity words that was
said earlier in the dialog).

Two KBs ship with dstc2conv: task 6's (its types: cuisine, location, price, rating,
phone, address, post code) and the bAbI dialog tasks 1-5's, both halves (the paper's 7
types: cuisine, location, price, party size, rating, phone, address). A model chooses
the one whose values the training file uses (``choose_kb``), or is given one by name or
file."""
from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from importlib import resources

from ...errors import Dstc2ConvError
from ...evaluate.entities import shipped_kb
from ...files import read_text
from ..ir.words import words

TYPES = ("R_cuisine", "R_location", "R_price", "R_rating", "R_phone", "R_address", "R_post_code")
BABI_TYPES = ("R_cuisine", "R_location", "R_price", "R_number", "R_rating", "R_phone", "R_address")
BABI_KB_FILE = "dialog-babi-kb-all.txt"
KBS = ("task6", "babi")      # the shipped KBs, by name; a setting may also name a KB file


def type_word(attribute: str) -> str:
    return "$" + attribute[2:]          # R_cuisine -> $cuisine


def babi_kb() -> str | None:
    """The bAbI tasks 1-5 KB file shipped with dstc2conv (``dstc2conv/data/``), if it is there."""
    try:
        found = resources.files("dstc2conv").joinpath("data", BABI_KB_FILE)
    except (ModuleNotFoundError, FileNotFoundError):
        return None
    return str(found) if found.is_file() else None


def kb_path(kb: str) -> str:
    """The file of a KB: ``task6``, ``babi`` (the shipped ones) or a file's path."""
    if kb not in KBS:
        return kb
    path = shipped_kb() if kb == "task6" else babi_kb()
    if path is None:
        raise Dstc2ConvError(f"the {kb} KB file shipped with dstc2conv is missing: reinstall dstc2conv")
    return path


def kb_types(kb: str) -> tuple[str, ...]:
    """The KB's types, in the order of their type words: task 6's (``TYPES``) or the bAbI
    tasks' (``BABI_TYPES``), whichever holds every relation of the file."""
    if kb in KBS:
        return TYPES if kb == "task6" else BABI_TYPES
    return _read(kb)[1]


def kb_entities(path: str | None = None) -> dict[str, tuple[str, ...]]:
    """Entity word (lower-cased) -> the types it is a value of, in its KB's type order;
    from the KB ``task6`` (the default), ``babi`` or a KB file."""
    return _read(path or "task6")[0]


def _read(kb: str) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """A KB's entities and types: a shipped one's read once, a file's each time."""
    return _shipped(kb) if kb in KBS else _parse(kb)


@lru_cache(maxsize=len(KBS))
def _shipped(kb: str) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    return _parse(kb_path(kb))


def _parse(path: str) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    found: dict[str, set[str]] = {}
    for lineno, line in enumerate(read_text(path, "a KB file").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4 or not parts[2].startswith("R_"):
            raise Dstc2ConvError(f"expected '1 <name> R_<attribute> <value>', found {line[:60]!r}", path, lineno)
        if parts[2] not in (*TYPES, *BABI_TYPES, "R_name"):
            raise Dstc2ConvError(f"{parts[2]} is no type of the match features (task 6's: {', '.join(TYPES)}; the "
                                 f"bAbI tasks': {', '.join(BABI_TYPES)})", path, lineno)
        if parts[2] != "R_name":
            found.setdefault(parts[3].lower(), set()).add(parts[2])
    relations = set().union(*found.values()) if found else set()
    types = TYPES if relations <= set(TYPES) else BABI_TYPES
    if not relations <= set(types):
        raise Dstc2ConvError(f"a KB of both task 6's types and the bAbI tasks' ({', '.join(sorted(relations))}): "
                             "give one of the two", path)
    return {word: tuple(t for t in types if t in kinds) for word, kinds in sorted(found.items())}, types


def choose_kb(texts: Iterable[str]) -> str:
    """The shipped KB for a training file's texts: ``babi`` when more of its distinct words
    are values of the bAbI tasks' KB alone than of task 6's alone, else ``task6``."""
    task6, babi = set(kb_entities("task6")), set(kb_entities("babi"))
    seen = {w for text in texts for w in words(text)}
    return "babi" if len(seen & (babi - task6)) > len(seen & (task6 - babi)) else "task6"
