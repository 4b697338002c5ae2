#!/usr/bin/env python3
"""An out-of-vocabulary stand-in for a bAbI dialog task (1-5): a copy of its dev file with
the standard KB half's cuisines, locations and restaurants mapped onto the other half's.

    python benchmarks/babi_standin.py DEV [--out FILE]

The published OOV test files are the same dialogs drawn from the other half of the KB
(cuisines cantonese, japanese, korean, thai, vietnamese; locations bangkok, beijing,
hanoi, seoul, tokyo), which no training dialog uses. They are held out, so choices are
checked on this stand-in instead: every word of the dev file that is a standard-half
cuisine or location is replaced by its counterpart (british -> cantonese, ...; bombay ->
bangkok, ...), and so is each part of a restaurant name
``resto_<location>_<price>_<cuisine>_<rating>stars`` (and of its ``_phone`` and
``_address`` tokens). Prices, ratings and party sizes are shared by both halves and kept.
A restaurant's party size in the stand-in is the one of the dev file's restaurant, not
necessarily the OOV KB's for the mapped name (no system reads the KB file's R_number of
a restaurant it is shown in the dialog). The copy is written to a temporary file (or
--out), never into the project.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CUISINES = {"british": "cantonese", "french": "japanese", "indian": "korean", "italian": "thai",
            "spanish": "vietnamese"}
LOCATIONS = {"bombay": "bangkok", "london": "beijing", "madrid": "hanoi", "paris": "seoul", "rome": "tokyo"}
WORDS = {**CUISINES, **LOCATIONS}


def oov_word(word: str) -> str:
    """The word with the standard half's cuisines and locations, as words or as parts of a
    restaurant's name (``resto_...``, its phone and address), mapped onto the OOV half's."""
    if word.startswith("resto_"):
        return "_".join(WORDS.get(part, part) for part in word.split("_"))
    return WORDS.get(word, word)


def oov_line(line: str) -> str:
    """A dialog line with its words mapped (``oov_word``); spaces and tabs kept."""
    out, word = [], []
    for ch in line:
        if ch in " \t\n":
            out.append(oov_word("".join(word)))
            out.append(ch)
            word = []
        else:
            word.append(ch)
    out.append(oov_word("".join(word)))
    return "".join(out)


def write_standin(dev: str, out: str | None = None) -> str:
    """Write the stand-in of the dev file ``dev`` to ``out`` (default: a new file in the
    temporary folder, named after ``dev`` with ``-oovstandin``) and return its path."""
    from dstc2conv.files import read_text

    text = read_text(dev, "a bAbI dialog file")
    if out is None:
        stem = os.path.splitext(os.path.basename(dev))[0]
        fd, out = tempfile.mkstemp(prefix=f"{stem}-oovstandin-", suffix=".txt")
        os.close(fd)
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write("".join(oov_line(line) for line in text.splitlines(keepends=True)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dev", help="a bAbI task's dev file")
    parser.add_argument("--out", help="where to write the stand-in (default: a temporary file)")
    args = parser.parse_args()
    print(write_standin(args.dev, args.out))


if __name__ == "__main__":
    from script import run_main

    run_main(main)
