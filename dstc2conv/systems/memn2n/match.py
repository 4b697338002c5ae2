"""Match-type features: the KB's entity words by type, and which of a candidate's words
are entities (a candidate's bag gains a type word for each of its entity words that was
said earlier in the dialog)."""
from __future__ import annotations

from ...errors import Dstc2ConvError
from ...evaluate.entities import shipped_kb
from ...files import read_text

TYPES = ("R_cuisine", "R_location", "R_price", "R_rating", "R_phone", "R_address", "R_post_code")
OTHER = ("R_name", "R_number")          # relations a KB line may have that give no type


def type_word(attribute: str) -> str:
    return "$" + attribute[2:]          # R_cuisine -> $cuisine


def kb_entities(path: str | None = None) -> dict[str, tuple[str, ...]]:
    """Entity word (lower-cased) -> the types it is a value of, in TYPES order; from the
    KB file (default: the published KB shipped with dstc2conv). A line is task 6's
    ``1 name R_rel value`` or bAbI's ``1 name R_rel<TAB>value``; a relation outside TYPES
    (bAbI's ``R_number``) gives no type."""
    path = path or shipped_kb()
    if path is None:
        raise Dstc2ConvError("the KB file shipped with dstc2conv is missing: reinstall dstc2conv")
    found: dict[str, set[str]] = {}
    for lineno, line in enumerate(read_text(path, "a KB file").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4 or parts[2] not in TYPES + OTHER:
            raise Dstc2ConvError(f"expected '1 <name> R_<attribute> <value>', found {line[:60]!r}", path, lineno)
        if parts[2] in TYPES:
            found.setdefault(parts[3].lower(), set()).add(parts[2])
    return {word: tuple(t for t in TYPES if t in types) for word, types in sorted(found.items())}
