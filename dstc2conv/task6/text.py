"""What text a task-6 line may hold: the one rule that the reader, ``write()``, the
candidates file and the converter share, so that whatever is written reads back equal.

A task-6 file is read as UTF-8 and cut into lines at LF only. A field of a line (a user
or bot utterance, a context line, a candidate) may hold any character but these, which
the reader refuses and every writer refuses (``problem``) or, in the converter, turns
into what the reader accepts (``clean``):

- line breaks of any kind: LF, CR, and those Python's ``str.splitlines`` and editors also
  break lines at (VT, FF, FS, GS, RS, NEL U+0085, LINE SEPARATOR U+2028, PARAGRAPH
  SEPARATOR U+2029): a line of ours must be one line for every reader;
- the tab, which separates the user utterance from the bot's (the one tab of an exchange);
- U+FEFF, the byte-order mark, a sign of files pasted together;
- a lone surrogate (U+D800 to U+DFFF), which UTF-8 cannot encode.

Anything else, other control and format characters included, is kept and reads back as
it was. The converter (``clean``) goes further for the text it takes from DSTC2 calls:
whitespace of any kind separates words (one space), and control and format characters,
which are never words, are dropped; a lone surrogate becomes U+FFFD; and the text is put
in Unicode normal form C (NFC), as scoring expects of a gold utterance.
"""
from __future__ import annotations

import json
import re
import unicodedata

# The characters no field of a task-6 line may hold, with the names messages give them.
NAMES = {
    "\n": "line feed", "\r": "carriage return", "\v": "vertical tab", "\f": "form feed",
    "\x1c": "file separator", "\x1d": "group separator", "\x1e": "record separator",
    "\x85": "next line (U+0085)", "\u2028": "line separator (U+2028)", "\u2029": "paragraph separator (U+2029)",
    "\t": "tab", "\ufeff": "byte-order mark (U+FEFF)",
}
FORBIDDEN = re.compile("[" + "".join(NAMES) + "\ud800-\udfff]")
BAD_IN_LINE = re.compile("[" + "".join(c for c in NAMES if c != "\t") + "\ud800-\udfff]")   # a tab allowed
BAD_IN_TEXT = re.compile("[" + "".join(c for c in NAMES if c not in "\t\n") + "\ud800-\udfff]")   # tabs, LFs allowed
BOM_MESSAGE = "a byte-order mark that is not at the start of the file"


def name(char: str) -> str:
    """How a message names a forbidden character."""
    return NAMES.get(char) or f"lone surrogate (U+{ord(char):04X})"


def problem(text: str, allow_tab: bool = False) -> str | None:
    """What keeps ``text`` from being written in a task-6 line (``allow_tab``: the line as
    a whole, whose one tab is allowed), or None if nothing does."""
    found = (BAD_IN_LINE if allow_tab else FORBIDDEN).search(text)
    if found is None:
        return None
    if found.group() == "\ufeff":
        return BOM_MESSAGE
    if found.group() == "\t":
        return "a tab: the one tab of an exchange separates the user utterance from the bot's"
    return (f"a {name(found.group())}: a task-6 line holds no line break but the LF that ends it, no byte-order "
            "mark and no lone surrogate")


def clean(text: str) -> str:
    """``text`` as the converter writes it: words separated by one space, control and
    format characters dropped, a lone surrogate replaced by U+FFFD, in NFC. (What it
    returns has no character ``problem`` refuses.)"""
    if text.isascii() and text.isprintable():
        return " ".join(text.split())
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char.isspace():
            kept.append(" ")
        elif category == "Cs":
            kept.append("\ufffd")
        elif category not in ("Cc", "Cf"):
            kept.append(char)
    return unicodedata.normalize("NFC", " ".join("".join(kept).split()))


_JSON_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(value, **options) -> str:
    """``value`` as JSON text of one line for every reader: ``json.dumps`` (UTF-8 kept,
    ``ensure_ascii=False``) escapes the line breaks below U+0020, and this also the three
    that it leaves and ``str.splitlines`` breaks at (NEL, U+2028, U+2029), which only
    strings can hold."""
    return json.dumps(value, ensure_ascii=False, **options).translate(_JSON_BREAKS)
