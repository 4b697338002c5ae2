"""The score history of ``rules score``: every scoring of a rule file on a data file, kept
so that the next one can say what changed, and scorings pinned by name.

It lives in the user's cache, not beside the data (which may be read-only or shared):
``$XDG_CACHE_HOME/dstc2conv/history/``, else ``~/.cache/dstc2conv/history/``; one folder
per data file, named after the file and a hash of its absolute path, holding

- ``index.json``: the data file's path, its entries in the order they were scored (rule
  file, the SHA-256 of the rule file, of its ontology and of the data, the score, the
  time) and the pinned entries by name;
- one ``<rules sha>-<data sha>.json`` per scoring kept: every turn's prediction, the rule
  behind it and whether it was right (the distinct predictions once, then an index per
  turn).

A scoring is added unless the same rule file's latest entry has the same rules and data
(a rerun with other flags). Bounded: at most ``PER_RULES`` entries per rule file and
``ENTRIES`` in all (the oldest go first) and ``PINS`` pinned names; a file no entry or pin
names is removed. Every file is written atomically (predictions, then the index); if the
index cannot be written (a full disk), the predictions just written are removed: a
scoring is kept whole or not at all. Writers take turns: each locks the folder
(``fcntl.flock``), reads the index again and adds its entry to what it finds, so that
two scorings at once keep both entries and both pins. An index or an entry that cannot
be read is an error (the pinned scores are not thrown away on the quiet): remove the
folder, or score with ``--no-history``.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass

try:  # POSIX: writers of a history folder take turns
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None

from ...errors import Dstc2ConvError
from ...evaluate.responses import Score
from ...files import parse_json, read_text, write_text_atomic

HISTORY_VERSION = 3
PER_RULES = 20          # entries kept per rule file
ENTRIES = 60            # entries kept in all, per data file
PINS = 20               # pinned names per data file
INDEX = "index.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
KEYWORDS = ("shipped", "last", "best")     # what --against names that is not a pin or a file
LOCK_WAIT = 30.0        # seconds a writer waits for another to finish


@dataclass(frozen=True)
class Entry:
    """One scoring of a rule set on a data file (what the index keeps of it)."""
    rules: str               # the rule file, absolute
    rules_sha256: str        # of the rule file
    ontology_sha256: str     # of its ontology
    sha256: str              # of the rule set (both files, as RuleSet.sha256)
    data_sha256: str
    score: dict              # Score.to_dict()
    time: str                # UTC, ISO 8601

    @property
    def file(self) -> str:
        return f"{self.sha256[:16]}-{self.data_sha256[:16]}.json"

    @property
    def per_response(self) -> float:
        return self.score["correct"] / self.score["responses"] if self.score["responses"] else 0.0

    def to_score(self) -> Score:
        return Score(*(int(self.score[k]) for k in ("responses", "correct", "dialogs", "dialogs_correct")),
                     signature=str(self.score["signature"]))


@dataclass(frozen=True)
class Scored:
    """Every turn's prediction (engine.Prediction) and whether it was right."""
    predictions: tuple
    results: tuple[bool, ...]


def history_dir() -> str:
    """The default folder of the score history, in the user's cache."""
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):     # unset, empty or relative: ignored, as the XDG spec says
        cache = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "dstc2conv", "history")


def history_path(data_path: str, folder: str | None = None) -> str:
    """The history folder of a data file: ``<folder>/<name>-<hash of its absolute path>``,
    by default in ``history_dir()``."""
    absolute = os.path.abspath(data_path)
    key = hashlib.sha256(absolute.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(folder or history_dir(), f"{os.path.basename(absolute)}-{key}")


def check_name(name: str) -> str:
    """A name to pin a score under: letters, digits, ``_.-``, not a word --against keeps."""
    if not NAME.fullmatch(name) or name in KEYWORDS or name.endswith((".yaml", ".yml")):
        raise Dstc2ConvError(f"--save {name!r}: a name is up to 64 letters, digits, '_', '.' or '-', not "
                             f"{', '.join(KEYWORDS)} nor ending in .yaml")
    return name


def _entry(value) -> Entry:
    if not isinstance(value, dict) or set(value) != set(Entry.__dataclass_fields__):
        raise ValueError("an entry")
    entry = Entry(**value)
    if not all(isinstance(getattr(entry, k), str) for k in ("rules", "rules_sha256", "ontology_sha256", "sha256",
                                                           "data_sha256", "time")):
        raise ValueError("an entry")
    entry.to_score()
    return entry


class History:
    """The history folder of one data file: its entries and pins, read at once."""

    def __init__(self, folder: str, data_path: str):
        self.folder = folder
        self.data = os.path.abspath(data_path)
        self.entries: list[Entry] = []
        self.pinned: dict[str, Entry] = {}
        self._load()

    def _load(self) -> None:
        """Read the index (none there: no entries)."""
        index = os.path.join(self.folder, INDEX)
        try:
            os.lstat(index)
        except FileNotFoundError:
            self.entries, self.pinned = [], {}
            return
        except OSError:
            pass        # read_text says what is wrong
        try:
            text = read_text(index, "a score history")
        except Dstc2ConvError as exc:
            raise Dstc2ConvError(f"cannot read the score history: {exc.message.removeprefix('cannot read: ')} "
                                 "(--no-history scores without it)", index) from None
        try:
            saved = parse_json(text, index)
            if saved.get("version") != HISTORY_VERSION:
                raise ValueError("another version")
            self.entries = [_entry(e) for e in saved["entries"]]
            self.pinned = {str(k): _entry(e) for k, e in saved["pinned"].items()}
        except (Dstc2ConvError, ValueError, KeyError, TypeError, AttributeError):
            raise Dstc2ConvError("the score history is unreadable: remove the folder to start a new one, "
                                 "or score with --no-history", index) from None

    # ------------------------------------------------------------ finding entries

    def last_other(self, rules: str, sha256: str, data_sha: str) -> Entry | None:
        """The latest entry of the rule file ``rules`` on this data whose rules differ from
        ``sha256``."""
        rules = os.path.abspath(rules)
        return next((e for e in reversed(self.entries)
                     if e.rules == rules and e.sha256 != sha256 and e.data_sha256 == data_sha), None)

    def best_other(self, sha256: str, data_sha: str) -> Entry | None:
        """The best entry (per response; ties: the latest) on this data, of any rule file,
        whose rules differ from ``sha256``; pinned ones count too."""
        found = [e for e in (*self.entries, *self.pinned.values()) if e.sha256 != sha256 and e.data_sha256 == data_sha]
        return max(reversed(found), key=lambda e: e.per_response, default=None)

    def changed_data(self, data_sha: str) -> bool:
        """Whether the entries there are were all scored on another version of the data."""
        return bool(self.entries) and all(e.data_sha256 != data_sha for e in self.entries)

    def scored(self, entry: Entry, turns: int) -> Scored:
        """The predictions of an entry (``turns`` of them)."""
        from .engine import Prediction

        path = os.path.join(self.folder, entry.file)
        try:
            if not os.path.lexists(path):
                raise FileNotFoundError(path)
            saved = parse_json(read_text(path, "a scoring of the score history"), path)
            pairs = [Prediction(str(text), None if rule is None else str(rule)) for text, rule in saved["pairs"]]
            predictions = tuple(pairs[i] for i in saved["turns"])
            marks = saved["results"]
            if (saved["sha256"], saved["data_sha256"]) != (entry.sha256, entry.data_sha256) or \
                    not isinstance(marks, str) or len(marks) != len(predictions) or set(marks) - {"0", "1"}:
                raise ValueError("results")
        except FileNotFoundError:
            raise Dstc2ConvError("a scoring the score history lists is missing: remove the folder to start a "
                                 "new history, or score with --no-history", path) from None
        except (Dstc2ConvError, ValueError, KeyError, TypeError, IndexError):
            raise Dstc2ConvError("a scoring of the score history is unreadable: remove the folder to start a "
                                 "new history, or score with --no-history", path) from None
        if len(predictions) != turns:
            raise Dstc2ConvError(f"a scoring of the score history has {len(predictions)} turns, the data "
                                 f"{turns}", path)
        return Scored(predictions, tuple(c == "1" for c in marks))

    # ------------------------------------------------------------ adding

    def add(self, entry: Entry, scored: Scored, pin: str | None = None) -> bool:
        """Keep a scoring (unless the rule file's latest entry is the same rules on the
        same data) and pin it under ``pin``; write the history, all of it or nothing. Whether
        an entry was added. The folder is locked meanwhile, and the index read again: what
        other writers added since this history was read is kept."""
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", self.folder) from None
        with _locked(self.folder):
            self._load()
            latest = next((e for e in reversed(self.entries) if e.rules == entry.rules), None)
            added = latest is None or (latest.sha256, latest.data_sha256) != (entry.sha256, entry.data_sha256)
            if pin is not None and pin not in self.pinned and len(self.pinned) >= PINS:
                raise Dstc2ConvError(f"{PINS} scores are pinned already ({', '.join(sorted(self.pinned))}): "
                                     "--save one of these names to replace it", os.path.join(self.folder, INDEX))
            if not added and pin is None:
                return False
            entries, pinned = list(self.entries), dict(self.pinned)
            if added:
                entries.append(entry)
                mine = [e for e in entries if e.rules == entry.rules]
                drop = {id(e) for e in mine[:-PER_RULES]}
                entries = [e for e in entries if id(e) not in drop][-ENTRIES:]
            if pin is not None:
                pinned[pin] = entry
            path = os.path.join(self.folder, entry.file)
            new = not os.path.lexists(path)
            if new:
                write_text_atomic(path, _scored_json(entry, scored))
            index = {"version": HISTORY_VERSION, "data": self.data, "entries": [asdict(e) for e in entries],
                     "pinned": {k: asdict(e) for k, e in sorted(pinned.items())}}
            try:
                write_text_atomic(os.path.join(self.folder, INDEX), json.dumps(index, indent=1) + "\n", updates=True)
            except BaseException:
                if new:   # no index lists it: not left behind
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                raise
            self.entries, self.pinned = entries, pinned
            self._prune()
        return added

    def _prune(self) -> None:
        """Remove the scorings that no entry or pin names."""
        kept = {e.file for e in (*self.entries, *self.pinned.values())} | {INDEX}
        for name in os.listdir(self.folder):
            if name not in kept and name.endswith(".json"):
                try:   # (the folder is locked: no other writer is writing it)
                    os.unlink(os.path.join(self.folder, name))
                except OSError:
                    pass     # the next scoring removes it


@contextlib.contextmanager
def _locked(folder: str):
    """Hold the history folder's lock (``fcntl.flock`` on the folder itself), waiting up
    to ``LOCK_WAIT`` seconds for another writer to finish."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot open the score history: {exc.strerror}", folder) from None
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise Dstc2ConvError(f"another dstc2conv has been writing the score history for "
                                         f"{LOCK_WAIT:.0f} s: try again, or score with --no-history", folder) from None
                time.sleep(0.02)
            except OSError:
                break    # a file system without locks: as before, unlocked
        yield
    finally:
        os.close(fd)


def _scored_json(entry: Entry, scored: Scored) -> str:
    pairs = sorted({(p.text, p.rule) for p in scored.predictions}, key=lambda pair: (pair[0], pair[1] or ""))
    where = {pair: i for i, pair in enumerate(pairs)}
    return json.dumps({"version": HISTORY_VERSION, "sha256": entry.sha256, "data_sha256": entry.data_sha256,
                       "results": "".join("1" if r else "0" for r in scored.results),
                       "pairs": [list(p) for p in pairs],
                       "turns": [where[(p.text, p.rule)] for p in scored.predictions]}) + "\n"


def now_utc() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
