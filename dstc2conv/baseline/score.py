"""Score predictions: per-response and per-dialog accuracy, with a signature, and what
changed since the previous score of the same data."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

from .. import __version__
from ..files import write_text_atomic
from .engine import Prediction, Turn, correct


@dataclass(frozen=True)
class Score:
    responses: int
    correct: int
    dialogs: int
    dialogs_correct: int
    signature: str

    @property
    def per_response(self) -> float:
        return self.correct / self.responses if self.responses else 0.0

    @property
    def per_dialog(self) -> float:
        return self.dialogs_correct / self.dialogs if self.dialogs else 0.0

    def to_dict(self) -> dict:
        return {"per_response": self.per_response, "per_dialog": self.per_dialog,
                "responses": self.responses, "correct": self.correct,
                "dialogs": self.dialogs, "dialogs_correct": self.dialogs_correct,
                "signature": self.signature}


def signature(rules_sha: str, data_sha: str) -> str:
    return f"rules:{rules_sha[:12]}|data:{data_sha[:12]}|match:strip|version:{__version__}"


def outcomes(predictions: list[Prediction], turns: list[Turn]) -> list[bool]:
    return [correct(p.text, t.gold) for p, t in zip(predictions, turns)]


def score(results: list[bool], turns: list[Turn], sig: str = "") -> Score:
    """Per-response: correct turns / turns. Per-dialog: dialogs whose every turn is correct."""
    ok_dialogs: dict[int, bool] = {}
    for ok, turn in zip(results, turns):
        ok_dialogs[turn.dialog] = ok_dialogs.get(turn.dialog, True) and ok
    return Score(len(results), sum(results), len(ok_dialogs), sum(ok_dialogs.values()), sig)


# ---------------------------------------------------------------- history

@dataclass(frozen=True)
class Change:
    previous: Score
    flipped_right: tuple[int, ...]   # turn positions wrong before, right now
    flipped_wrong: tuple[int, ...]   # right before, wrong now


def history_path(data_path: str, history_dir: str | None) -> str:
    """Where the last score of a data file is kept: ``<history_dir>/<data file name>.json``,
    by default in ``.dstc2conv-history/`` in the data file's folder."""
    base = history_dir or os.path.join(os.path.dirname(os.path.abspath(data_path)), ".dstc2conv-history")
    return os.path.join(base, f"{os.path.basename(data_path)}.json")


def compare_with_history(path: str, results: list[bool], data_sha: str) -> Change | None:
    """The change since the score saved at ``path`` for the same data, if there is one."""
    try:
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
    except (OSError, ValueError):
        return None
    if saved.get("data_sha256") != data_sha or len(saved.get("results", "")) != len(results):
        return None
    before = [c == "1" for c in saved["results"]]
    previous = Score(**{k: saved["score"][k] for k in ("responses", "correct", "dialogs", "dialogs_correct")},
                     signature=saved["score"]["signature"])
    right = tuple(i for i, (a, b) in enumerate(zip(before, results)) if not a and b)
    wrong = tuple(i for i, (a, b) in enumerate(zip(before, results)) if a and not b)
    return Change(previous, right, wrong)


def save_history(path: str, results: list[bool], data_sha: str, now: Score) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    record = {"data_sha256": data_sha, "score": now.to_dict(), "results": "".join("1" if r else "0" for r in results)}
    write_text_atomic(path, json.dumps(record))
