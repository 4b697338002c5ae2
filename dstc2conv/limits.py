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

# A regular expression of a rule file, written out: its length with each counted repeat
# written out as copies (an upper estimate, ``regex_size``). Compiling takes memory that
# grows with it (the regex module took 24 GB for ``a{4294967294}``) and time that grows
# with its square for some patterns (empty groups: 1 s for ``(){4999}``), so it is
# bounded before compiling, each expression and a rule file's in all (its regular
# expressions, words and patterns; an ontology's values and synonyms, as one expression).
# The shipped rules' largest is 171 (a pattern), all of them 3,951; DSTC2's ontology 842.
MAX_REGEX_SIZE = 5_000
MAX_REGEX_TOTAL = 50_000

_CAP = 10 ** 12          # past any bound: sizes are not grown further (they would only be refused)


def regex_size(pattern: str) -> int:
    """An upper estimate of the length of ``pattern`` with its counted repeats written
    out as copies: every character counts (parentheses, ``|`` and flags too, so that an
    empty group is never free), and ``{m}``, ``{m,n}``, ``{m,}`` or ``{,n}`` (spaces
    allowed, as the verbose flag reads them) multiply by the larger count everything
    before them in their alternative of their group (whatever they repeat: an atom, a
    group, or one after a space or a comment). Read before compiling, in a time and
    memory linear in the pattern's length."""
    done, current = [0], [0]     # per open group: its alternatives so far, and the current one
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        start = i
        if c == "\\":
            i += 2
            if pattern[i - 1:i] in ("p", "P", "N", "x", "u", "U", "g", "k") and pattern[i:i + 1] in ("{", "<"):
                close = pattern.find("}" if pattern[i] == "{" else ">", i)
                i = n if close < 0 else close + 1
            current[-1] += i - start
        elif c == "[":
            i = _class_end(pattern, i + 1)
            current[-1] += i - start
        elif c == "(":
            done.append(0)
            current.append(1)
            i += 1
        elif c == ")" and len(done) > 1:
            group = done.pop() + current.pop() + 1
            current[-1] = min(current[-1] + group, _CAP)
            i += 1
        elif c == "|":
            done[-1] = min(done[-1] + current[-1] + 1, _CAP)
            current[-1] = 0
            i += 1
        else:
            count, close = _repeat(pattern, i) if c == "{" else (None, i)
            if count is None:
                current[-1] += 1
                i += 1
            else:
                current[-1] = min(current[-1] * max(count, 1), _CAP) + close + 1 - i
                i = close + 1
    return min(sum(done) + sum(current), _CAP)


def _repeat(pattern: str, i: int) -> tuple[int | None, int]:
    """The larger count of a counted repeat ``{...}`` at ``i`` (None if it is not one:
    then the brace is a character), and the index of its ``}``."""
    close = pattern.find("}", i)
    if close < 0:
        return None, i
    parts = "".join(pattern[i + 1:close].split()).split(",")
    if not 1 <= len(parts) <= 2 or not all(p.isdecimal() or p == "" for p in parts) or not any(parts):
        return None, i
    return max(_count(p) for p in parts), close


def _count(digits: str) -> int:
    """A repeat count; past any sensible bound (thousands of digits) counts as that bound."""
    if not digits:
        return 0
    return int(digits) if len(digits) <= 9 else 10 ** 9


def _class_end(pattern: str, i: int) -> int:
    """The index after the first ``]`` that can close the character class starting
    before ``i``. (A nested class, as the regex module's V1 allows, then ends early and
    the rest counts as characters: too much, never too little.)"""
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
    return min(i, len(pattern))


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
