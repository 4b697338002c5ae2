"""HCN's own entity tracker (``tracker="kb"``): instead of the rules' slot state, a turn's
features say which slots the user has named so far in the dialog and which this turn, by
string matching the KB's values (the KB file shipped with dstc2conv) in the user's words.
The rules still fill the chosen template and give the action mask."""
from __future__ import annotations

import re

from ...convert.kb import read_kb
from ...task6.vocabulary import SLOTS

TRACKERS = ("rules", "kb")
KB_FILE = "dialog-babi-task6-dstc2-kb.txt"       # the KB file shipped in dstc2conv/data/
# the rules' tracking among the chooser's features, left out with the KB's tracker
RULES_STATE = ("slot:", "said:", "flag:", "prev&")
_VALUES: dict = {}


def kb_values(path: str | None = None) -> dict[str, re.Pattern]:
    """Per slot (food, area, price), a pattern of its KB values as the user writes them
    (words apart); ``path``: a KB file (default: the one shipped with dstc2conv)."""
    if path is None:
        from importlib import resources

        path = str(resources.files("dstc2conv") / "data" / KB_FILE)
    if path not in _VALUES:
        kb = read_kb(path)
        out = {}
        for slot in SLOTS:
            values = sorted({v.replace("_", " ") for r in kb.restaurants if (v := r.get(slot.attribute))},
                            key=lambda v: (-len(v), v))
            out[slot.rule] = re.compile(r"(?<![a-z0-9'])(" + "|".join(re.escape(v) for v in values) + r")(?![a-z0-9'])")
        _VALUES[path] = out
    return _VALUES[path]


class KbTracker:
    """The slots a dialog's user turns have named, by the KB's values: ``features`` at a
    turn (the rules' tracking replaced), ``observe`` once the turn is over."""

    def __init__(self):
        self.values = kb_values()
        self.reset()

    def reset(self) -> None:
        self.named: frozenset = frozenset()

    def said(self, user: str) -> frozenset:
        text = user.lower()
        return frozenset(slot for slot, pattern in self.values.items() if pattern.search(text))

    def features(self, features: tuple[str, ...], user: str) -> tuple[str, ...]:
        said = self.said(user)
        named = self.named | said
        kept = tuple(f for f in features if not f.startswith(RULES_STATE))
        return kept + tuple(f"kb:{slot}:{int(slot in named)}" for slot in self.values) + \
            tuple(f"kbsaid:{slot}" for slot in sorted(said))

    def observe(self, user: str) -> None:
        self.named = self.named | self.said(user)


__all__ = ["TRACKERS", "KB_FILE", "KbTracker", "kb_values"]
