"""What changed since the previous score of the same data (``rules score``'s history);
the scoring itself is ``dstc2conv.evaluate.responses``."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..evaluate.responses import Score
from ..files import parse_json, read_text, write_text_atomic
from .engine import Prediction

# The last score of each data file is kept in the user's cache, not beside the data
# (which may be read-only or shared): $XDG_CACHE_HOME/dstc2conv/history/, else
# ~/.cache/dstc2conv/history/, one JSON file per data file, named after the file and a
# hash of its absolute path. It holds the data file's SHA-256 (a changed file is not
# compared with), the score, and every turn's prediction and rule.

HISTORY_VERSION = 2


@dataclass(frozen=True)
class Change:
    previous: Score
    flipped_right: tuple[int, ...]   # turn positions wrong before, right now
    flipped_wrong: tuple[int, ...]   # right before, wrong now
    before: tuple[Prediction, ...]   # the previous prediction of every turn


@dataclass(frozen=True)
class Recalled:
    change: Change | None            # None: nothing to compare with
    note: str | None = None          # why not, when that is worth saying
    warning: bool = False            # the note is about a problem (an unreadable history)


def history_dir() -> str:
    """The default folder of the score history, in the user's cache."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):     # unset, empty or relative: ignored, as the XDG spec says
        cache = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "dstc2conv", "history")


def history_path(data_path: str, folder: str | None = None) -> str:
    """Where the last score of a data file is kept: ``<folder>/<name>-<hash of its absolute
    path>.json``, by default in ``history_dir()``."""
    absolute = os.path.abspath(data_path)
    key = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(folder or history_dir(), f"{os.path.basename(absolute)}-{key}.json")


def recall(path: str, results: list[bool], data_sha: str) -> Recalled:
    """The change since the score saved at ``path``, or why there is none."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return Recalled(None)
    except OSError:
        pass   # read_text says what is wrong
    try:
        text = read_text(path, "a score history")
    except Dstc2ConvError as exc:
        reason = exc.message.removeprefix("cannot read: ")
        return Recalled(None, f"cannot read the score history {path}: {reason}", warning=True)
    try:
        saved = parse_json(text, path)
        if saved.get("version") != HISTORY_VERSION:
            raise ValueError("another version")
        sha = saved["data_sha256"]
        kept = saved["score"]
        previous = Score(*(int(kept[k]) for k in ("responses", "correct", "dialogs", "dialogs_correct")),
                         signature=str(kept["signature"]))
        before = tuple(Prediction(str(text), None if rule is None else str(rule))
                       for text, rule in saved["predictions"])
        marks = saved["results"]
        if not isinstance(marks, str) or len(marks) != len(before) or set(marks) - {"0", "1"}:
            raise ValueError("results")
    except (ValueError, KeyError, TypeError, AttributeError, Dstc2ConvError):
        return Recalled(None, f"the score history {path} is unreadable: not compared, replaced", warning=True)
    if sha != data_sha or len(before) != len(results):
        return Recalled(None, "the data file changed since the last score: no comparison")
    old = [c == "1" for c in marks]
    right = tuple(i for i, (a, b) in enumerate(zip(old, results)) if not a and b)
    wrong = tuple(i for i, (a, b) in enumerate(zip(old, results)) if a and not b)
    return Recalled(Change(previous, right, wrong, before))


def save_history(path: str, predictions: list[Prediction], results: list[bool], data_path: str,
                 data_sha: str, now: Score) -> None:
    """Keep this score for the next one; raise Dstc2ConvError if it cannot be written."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", os.path.dirname(path)) from None
    record = {"version": HISTORY_VERSION, "data": os.path.abspath(data_path), "data_sha256": data_sha,
              "score": now.to_dict(), "results": "".join("1" if r else "0" for r in results),
              "predictions": [[p.text, p.rule] for p in predictions]}
    write_text_atomic(path, json.dumps(record), updates=True)
