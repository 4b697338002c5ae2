"""A tiny bAbI dialog release written by hand: task-1 style dialogs (a greeting, the
bot's questions, the api_call) with the published file names, for the tests of the
commands that read a release. Each system fits it in a second."""
from __future__ import annotations

import tarfile
from pathlib import Path

HELLO = "hello what can i help you with today"
ASK = {"cuisine": "any preference on a type of cuisine", "location": "where should it be",
       "number": "how many people would be in your party", "price": "which price range are looking for"}
LOOK = "ok let me look into some options for you"


def dialog(opening: str, answers: list[tuple[str, str]], call: tuple[str, str, str, str]) -> str:
    """One task-1 dialog: the greeting, ``opening``, each (slot asked, user answer), the call."""
    lines = ["hi\t" + HELLO, f"{opening}\ti'm on it"]
    asked = [slot for slot, _ in answers]
    if asked:
        lines.append(f"<SILENCE>\t{ASK[asked[0]]}")
    for i, (_, answer) in enumerate(answers):
        lines.append(f"{answer}\t{ASK[asked[i + 1]] if i + 1 < len(asked) else LOOK}")
    if not asked:
        lines.append(f"<SILENCE>\t{LOOK}")
    lines.append("<SILENCE>\tapi_call " + " ".join(call))
    return "".join(f"{i} {line}\n" for i, line in enumerate(lines, 1)) + "\n"


def task1(cuisines: tuple[str, str], places: tuple[str, str]) -> str:
    """Two dialogs over the given cuisines and places."""
    (c1, c2), (l1, l2) = cuisines, places
    return (dialog(f"may i have a table with {c1} food in {l1} for two in a cheap price range", [],
                   (c1, l1, "two", "cheap")) +
            dialog("can you book a table", [("cuisine", f"i love {c2} food"), ("location", f"{l2} please"),
                                            ("number", "we will be four"),
                                            ("price", "i am looking for a moderate restaurant")],
                   (c2, l2, "four", "moderate")))


FILES = {
    "dialog-babi-task1-API-calls-trn.txt": task1(("french", "italian"), ("paris", "rome")) +
    task1(("italian", "french"), ("rome", "paris")),
    "dialog-babi-task1-API-calls-dev.txt": task1(("french", "italian"), ("rome", "paris")),
    "dialog-babi-task1-API-calls-tst.txt": task1(("italian", "italian"), ("paris", "paris")),
    "dialog-babi-task1-API-calls-tst-OOV.txt": task1(("thai", "korean"), ("seoul", "tokyo")),
    "dialog-babi-task2-API-refine-trn.txt": task1(("italian", "french"), ("rome", "paris")),
    "dialog-babi-task2-API-refine-dev.txt": task1(("french", "french"), ("rome", "rome")),
}


def candidates() -> str:
    """Every bot utterance of the files, and a few more, ``1 <utterance>`` a line."""
    seen = dict.fromkeys([HELLO, "i'm on it", *ASK.values(), LOOK, "you're welcome"])
    for text in FILES.values():
        for line in text.splitlines():
            if "\t" in line:
                seen.setdefault(line.split("\t")[1])
    for c in ("french", "italian", "thai", "korean"):
        for loc in ("paris", "rome", "seoul", "tokyo"):
            for n, p in (("two", "cheap"), ("four", "moderate")):
                seen.setdefault(f"api_call {c} {loc} {n} {p}")
    return "".join(f"1 {u}\n" for u in seen)


def write(folder: Path, tasks: tuple[str, ...] = ("task1", "task2")) -> Path:
    """The release folder ``folder/dialog-bAbI-tasks``, with the files of ``tasks``."""
    root = folder / "dialog-bAbI-tasks"
    root.mkdir(parents=True)
    for name, text in FILES.items():
        if any(f"-{task}-" in name for task in tasks):
            (root / name).write_text(text)
    (root / "dialog-babi-candidates.txt").write_text(candidates())
    return root


def archive(folder: Path, path: Path) -> Path:
    """The release folder as a tar.gz holding ``dialog-bAbI-tasks/``."""
    with tarfile.open(path, "w:gz") as tar:
        tar.add(folder, arcname="dialog-bAbI-tasks")
    return path
