"""How closely generated bAbI files match the published ones: per task, the dialogs, the
lines per dialog by kind, the number of slots in the opening request, the restaurants per
API result, the share of each bot utterance kind and of each user pattern; the KB and
candidates files as sets of lines."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field

from ..errors import Dstc2ConvError
from ..files import read_text
from .kb import CANDIDATES_FILE, KB_FILE, PAPER_VALUES, read_kb
from .tasks import file_name
from .wording import FIXED, HERE_IT_IS, PREFIXES, PROPOSE, SILENCE

TARGET = 0.05      # generated train files within 5% (relative) of the published ones on every per-dialog average
AVERAGES = ("user lines", "<SILENCE> lines", "bot lines", "API output lines", "lines", "api_calls",
            "slots in the opening", "restaurants per API result", "proposals", "updates")


@dataclass
class FileStats:
    """One dialog file's figures: per-dialog averages and shares."""
    dialogs: int = 0
    sums: dict = field(default_factory=dict)         # average name -> [total, total of squares, count]
    bot: dict = field(default_factory=dict)          # bot utterance kind -> count
    user: dict = field(default_factory=dict)         # user pattern -> count

    def add(self, name: str, value: float) -> None:
        sums = self.sums.setdefault(name, [0.0, 0.0, 0])
        sums[0] += value
        sums[1] += value * value
        sums[2] += 1

    def average(self, name: str) -> float | None:
        total, _, n = self.sums.get(name, (0.0, 0.0, 0))
        return total / n if n else None

    def variance_of_mean(self, name: str) -> float:
        total, squares, n = self.sums.get(name, (0.0, 0.0, 0))
        return max(squares / n - (total / n) ** 2, 0.0) / (n - 1) if n > 1 else 0.0


def _lexicon(*folders: str) -> dict[str, str]:
    """Value word -> placeholder (<c>, <l>, <n>, <p>), from the KB files of the folders
    (both halves), else the paper's values."""
    words: dict[str, str] = {}
    for folder in folders:
        path = os.path.join(folder, KB_FILE)
        if os.path.isfile(path):
            for half in read_kb(path).halves:
                for tag, values in zip("clnp", (half.cuisines, half.locations, half.sizes, half.prices)):
                    words.update({v: f"<{tag}>" for v in values})
    if not words:
        for key in ("plain", "oov"):
            v = PAPER_VALUES[key]
            for tag, name in zip("clnp", ("cuisines", "locations", "sizes", "prices")):
                words.update({w: f"<{tag}>" for w in v[name]})
    return words


def read_dialogs(path: str) -> list[list[str]]:
    """The dialogs of a bAbI dialog file, each a list of its lines without their ids."""
    dialogs: list[list[str]] = []
    current: list[str] = []
    for number, line in enumerate(read_text(path, "a bAbI dialog file").split("\n"), 1):
        if not line:
            if current:
                dialogs.append(current)
            current = []
            continue
        ident, _, rest = line.partition(" ")
        if not ident.isdigit() or int(ident) != len(current) + 1 or not rest:
            raise Dstc2ConvError(f"expected '{len(current) + 1} <text>': ids run from 1 in each dialog", path, number)
        current.append(rest)
    if current:
        dialogs.append(current)
    return dialogs


def _bot_kind(bot: str) -> str:
    if bot.startswith("api_call "):
        return "api_call"
    if bot.startswith(PROPOSE):
        return "what do you think of this option: <name>"
    if bot.startswith(HERE_IT_IS):
        return "here it is <name>_phone" if bot.endswith("_phone") else "here it is <name>_address"
    return bot if bot in FIXED else "(other)"


def _user_pattern(user: str, words: dict) -> tuple[str, int | None]:
    """The user utterance's pattern, and the slots it gives if it is an opening request."""
    for prefix in PREFIXES:
        if user == prefix or user.startswith(prefix + " "):
            rest = user[len(prefix):].split()
            if rest[:1] == ["at"]:
                return f"{prefix} at <name>", None
            return f"{prefix} ...", sum(1 for w in rest if w in words)
    return " ".join("<name>" if w.startswith("resto_") else words.get(w, w) for w in user.split()), None


def file_stats(path: str, words: dict) -> FileStats:
    stats = FileStats()
    for dialog in read_dialogs(path):
        stats.dialogs += 1
        _dialog_stats(dialog, words, stats)
    return stats


def _dialog_stats(dialog: list[str], words: dict, stats: FileStats) -> None:
    counts = dict.fromkeys(("user lines", "<SILENCE> lines", "bot lines", "API output lines", "api_calls",
                            "proposals", "updates"), 0)
    blocks: list[int] = []        # fact lines of each API result
    in_block = False
    for line in dialog:
        user, tab, bot = line.partition("\t")
        if not tab:
            counts["API output lines"] += 1
            if not in_block:
                blocks.append(0)
            blocks[-1] += 1
            in_block = True
            continue
        in_block = False
        counts["bot lines"] += 1
        kind = _bot_kind(bot)
        stats.bot[kind] = stats.bot.get(kind, 0) + 1
        counts["api_calls"] += kind == "api_call"
        counts["proposals"] += bot.startswith(PROPOSE)
        counts["updates"] += bot == "sure is there anything else to update"
        if user == SILENCE:
            counts["<SILENCE> lines"] += 1
            continue
        counts["user lines"] += 1
        pattern, slots = _user_pattern(user, words)
        stats.user[pattern] = stats.user.get(pattern, 0) + 1
        if slots is not None:
            stats.add("slots in the opening", slots)
    for name, value in counts.items():
        stats.add(name, value)
    stats.add("lines", len(dialog))
    for facts in blocks:
        stats.add("restaurants per API result", facts / 7)


def _rel(ours: float | None, ref: float | None) -> float | None:
    if ours is None or ref is None:
        return None
    if ref == 0:
        return 0.0 if ours == 0 else None     # none to compare with: not within
    return ours / ref - 1


def _shares(ours: dict, ref: dict) -> list[dict]:
    n_ours, n_ref = sum(ours.values()) or 1, sum(ref.values()) or 1
    return [{"kind": k, "generated": ours.get(k, 0) / n_ours, "published": ref.get(k, 0) / n_ref}
            for k in sorted(set(ours) | set(ref), key=lambda k: (-ref.get(k, 0), k))]


def compare_task(ours_path: str, ref_path: str, words: dict) -> dict:
    ours, ref = file_stats(ours_path, words), file_stats(ref_path, words)
    averages = []
    for name in AVERAGES:
        a, b = ours.average(name), ref.average(name)
        if a is None and b is None:
            continue
        rel = _rel(a, b)
        noise = 2 * math.sqrt(ours.variance_of_mean(name) + ref.variance_of_mean(name)) / b if b else None
        averages.append({"average": name, "generated": a, "published": b, "relative": rel, "noise": noise,
                         "within": rel is not None and abs(rel) <= TARGET})
    return {"file": os.path.basename(ours_path), "dialogs": [ours.dialogs, ref.dialogs], "averages": averages,
            "bot": _shares(ours.bot, ref.bot), "user": _shares(ours.user, ref.user)}


def _line_sets(ours: str, ref: str) -> dict | None:
    if not (os.path.isfile(ours) and os.path.isfile(ref)):
        return None
    a = set(filter(None, read_text(ours, "a file").split("\n")))
    b = set(filter(None, read_text(ref, "a file").split("\n")))
    return {"file": os.path.basename(ours), "generated": len(a), "published": len(b), "both": len(a & b),
            "equal": a == b}


def compare_folders(ours: str, reference: str, tasks: tuple[int, ...] = ()) -> dict:
    """Every task whose train file is in ``ours``, against the same file in ``reference``."""
    if not os.path.isdir(ours):
        raise Dstc2ConvError("no such folder", ours)
    words = _lexicon(reference, ours)
    report: dict = {"target": TARGET, "tasks": {}, "files": []}
    for task in tasks or range(1, 6):
        name = file_name(task, "trn")
        mine, theirs = os.path.join(ours, name), os.path.join(reference, name)
        if not os.path.isfile(mine):
            if tasks:
                raise Dstc2ConvError(f"no {name} here", ours)
            continue
        if not os.path.isfile(theirs):
            raise Dstc2ConvError(f"no {name} here to compare with: give --reference DIR", reference)
        report["tasks"][task] = compare_task(mine, theirs, words)
    if not report["tasks"]:
        raise Dstc2ConvError("no train file of tasks 1-5 (dialog-babi-task*-trn.txt) here", ours)
    for name in (KB_FILE, CANDIDATES_FILE):
        found = _line_sets(os.path.join(ours, name), os.path.join(reference, name))
        if found:
            report["files"].append(found)
    report["within"] = all(a["within"] for t in report["tasks"].values() for a in t["averages"])
    return report


def format_json(report: dict) -> str:
    return json.dumps(report, indent=2, default=str)


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _rel_text(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def _noise(value: float | None) -> str:
    return "-" if value is None else f"±{value:.1%}"


def format_text(report: dict) -> str:
    out = []
    for task, t in report["tasks"].items():
        out.append(f"task {task}: {t['file']}  dialogs {t['dialogs'][0]:,} generated, {t['dialogs'][1]:,} published")
        out.append(f"  {'per dialog':<30} {'generated':>10} {'published':>10} {'relative':>9} {'noise':>7}")
        for a in t["averages"]:
            mark = "" if a["within"] else f"  (beyond {report['target']:.0%})"
            out.append(f"  {a['average']:<30} {_num(a['generated']):>10} {_num(a['published']):>10} "
                       f"{_rel_text(a['relative']):>9} {_noise(a['noise']):>7}{mark}")
        for what, title in (("bot", "bot utterance kind"), ("user", "user pattern")):
            out.append(f"  {'share of ' + title:<44} {'generated':>10} {'published':>10}")
            for s in t[what]:
                out.append(f"  {s['kind'][:44]:<44} {s['generated']:>10.2%} {s['published']:>10.2%}")
        out.append("")
    for f in report["files"]:
        out.append(f"{f['file']}: {f['generated']:,} lines generated, {f['published']:,} published, {f['both']:,} in "
                   f"both: {'the same set' if f['equal'] else 'different sets'}")
    verdict = "within" if report["within"] else "NOT within"
    out.append(f"every per-dialog average {verdict} {report['target']:.0%} of the published one (noise: twice the "
               "standard error of the difference of the two means, relative)")
    return "\n".join(out)
