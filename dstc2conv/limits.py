"""The bounds on what dstc2conv reads: file and member sizes, and regular expressions.

Each bound is far above what real inputs need (the figures are in docs/reliability.md)
and low enough that an input past it is refused before it can take much memory.
"""
from __future__ import annotations

MB = 1 << 20

# A file read whole (task-6, predictions, candidates, KB, manifest, ontology, rule file,
# score history, flist): the published trn file, the largest, is 4 MB.
MAX_FILE = 64 * MB

# A rule or ontology file (YAML, which takes far more memory to parse than its size):
# the shipped rules/dstc2.yaml is 14 kB.
MAX_RULE_FILE = 2 * MB

# A file inside a DSTC2 tarball or release folder (log.json, label.json, a flist, the
# ontology): the largest of the train/dev corpus is a log.json of 1.2 MB.
MAX_MEMBER = 16 * MB

# The members of a tarball held at once while their call's other file is awaited (a
# call's log.json and label.json are side by side in the official tarballs).
MAX_PENDING = 64 * MB

# A regular expression of a rule file, with each counted repeat written out (``a{3}`` is
# three a's): what the regex module compiles it to grows with this, by about 300 bytes a
# unit, so it is bounded before compiling.
MAX_REGEX_SIZE = 10_000


def regex_size(pattern: str) -> int:
    """An upper estimate of the size of ``pattern`` with its counted repeats written out
    (``(ab){3}c`` is 7): each atom counts 1, a group the sum of its parts, ``{m}``,
    ``{m,n}`` and ``{m,}`` multiply what they repeat by the larger count. Read before
    compiling, so it never takes more than the pattern's length in time and memory."""
    totals = [0]             # the size so far of each open group
    last = 0                 # the size of the atom or group a quantifier would repeat
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            if pattern[i - 1:i] in ("p", "P", "N", "x", "u", "U", "g", "k") and pattern[i:i + 1] in ("{", "<"):
                close = pattern.find("}" if pattern[i] == "{" else ">", i)
                i = n if close < 0 else close + 1
            last = 1
            totals[-1] += 1
            continue
        if c == "[":
            i = _class_end(pattern, i + 1)
            last = 1
            totals[-1] += 1
            continue
        if c == "(":
            totals.append(0)
            last = 0
            i += 1
            continue
        if c == ")":
            group = totals.pop() if len(totals) > 1 else 0
            totals[-1] += group
            last = group
            i += 1
            continue
        if c == "{":
            close = pattern.find("}", i)
            counts = pattern[i + 1:close].split(",") if close > 0 else ()
            if 1 <= len(counts) <= 2 and all(part.isdecimal() or part == "" for part in counts) \
                    and any(counts):
                biggest = max(_count(part) for part in counts)
                totals[-1] += last * (biggest - 1) if biggest > 0 else 0
                last *= max(biggest, 1)
                i = close + 1
                continue
        if c not in "*+?|":
            last = 1
            totals[-1] += 1
        i += 1
    return sum(totals)


def _count(digits: str) -> int:
    """A repeat count; past any sensible bound (thousands of digits) counts as that bound."""
    if not digits:
        return 0
    return int(digits) if len(digits) <= 9 else 10 ** 9


def _class_end(pattern: str, i: int) -> int:
    """The index after the first ``]`` that can close the character class starting
    before ``i``. (A nested class, as the regex module's V1 allows, then ends early and
    the rest counts as atoms: too much, never too little.)"""
    if pattern[i:i + 1] == "^":
        i += 1
    if pattern[i:i + 1] == "]":
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        if pattern[i] == "]":
            return i + 1
        i += 1
    return i

# The lines of a task-6 file (and of a predictions file, one line a bot turn): what is
# read is held as a Python object a line, several hundred bytes each once scored, so
# bytes alone do not bound the memory. The published trn file has 85,101 lines, the
# whole corpus as one file about 140,000.
MAX_LINES = 500_000

# The characters of one line of those files: what is computed of a line (BLEU's n-grams,
# the tokens ``stats`` counts) grows with it. The published files' longest line has 187.
MAX_LINE = 10_000

# The distinct tokens ``stats`` counts in a file (its vocabulary, held as a set: about
# 80 bytes a token): the published trn file has about 1,200 (whole corpus: under 2,000).
MAX_VOCABULARY = 1_000_000
