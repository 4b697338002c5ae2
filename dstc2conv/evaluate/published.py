"""The published bAbI dialog files (tasks 1-6), known by their SHA-256 or failing that by
their names, and the figures the paper reports on each task's test files (Bordes & Weston
2017, Table 2: every row), shown beside a score on a published file.

A data file's *row* is the paper's row for it: ``T1``..``T5`` for a task's train, dev
and test files, ``T1-OOV``..``T5-OOV`` for its OOV test file, ``T6`` for task 6's."""
from __future__ import annotations

import os
import re

from ..errors import Dstc2ConvError

# SHA-256 -> (file name, split); split one of train, dev, test, test-OOV, KB, candidates
PUBLISHED = {
    "bd7c5728825edba23e308cba5b9b24412ea363cd54c3d2fd6a99854447585852": ("dialog-babi-task6-dstc2-trn.txt", "train"),
    "24e8827b8889ef9bc9f1a0c625cef2ca6e3b7097f765ce71d186e2bdef27074b": ("dialog-babi-task6-dstc2-dev.txt", "dev"),
    "794890f7190c77af0ed0d5855f6c9ed015671a9790ec44ec3f29ff5455da24ff": ("dialog-babi-task6-dstc2-tst.txt", "test"),
    "cae1e86f50c4bc40d0cc1b5429ea0fa6245a83d99ce6a68b120634b373328552": ("dialog-babi-task6-dstc2-kb.txt", "KB"),
    "0ad2c7f9f8a34ee4d700ea6e1ac5dd3b0c4b1af4a3233b018b62c8c3c235827d": ("dialog-babi-task6-dstc2-candidates.txt",
                                                                         "candidates"),
    # tasks 1-5: the KB and candidates as FAIR's archive has them (no line end after the last line)
    "956f7db35b0e735a06709668e775a27e61cd5dff5c94cad28f50ecaa32e036d8": ("dialog-babi-candidates.txt", "candidates"),
    "eff1de888f0307022369a9b555a5057c631e21ab95d683141bd46fe644b993b9": ("dialog-babi-kb-all.txt", "KB"),
    "ab73b5f54248dfc8aa6fdee8cc3909e09afab9591686f7a6e306d274c6bbf10a": ("dialog-babi-task1-API-calls-dev.txt", "dev"),
    "8eef6011ab86e886eb218e5859ee1015fdcdd8088aba53bd83b2c055671b9575": ("dialog-babi-task1-API-calls-trn.txt", "train"),
    "71a294d91bef207b26f9c29981a501d20b4392262f6873bb4f9c18ffee522c60": ("dialog-babi-task1-API-calls-tst-OOV.txt",
                                                                         "test-OOV"),
    "21a3ed26c483ec205d268fa3919f9c48cde48c34e26f79b2f96bd6f4edb60583": ("dialog-babi-task1-API-calls-tst.txt", "test"),
    "7825f7c3f48bab3f48f398ef0e40a9689fa40c3979a199df615bc7aad5db11c4": ("dialog-babi-task2-API-refine-dev.txt", "dev"),
    "2bd2d0ee376077878754ad4bf0892ca192658f4f0359ef92b18163ba20eeb568": ("dialog-babi-task2-API-refine-trn.txt",
                                                                         "train"),
    "9fd9ab3b3522ebba0ce0e76416ba9ba57634edd67f88005af8198063c854fc15": ("dialog-babi-task2-API-refine-tst-OOV.txt",
                                                                         "test-OOV"),
    "2d79edb4bcfa120e9e293ddba52b790f109c1648be8c491442a26e6a9a286b40": ("dialog-babi-task2-API-refine-tst.txt", "test"),
    "f2b28ff18f3aa0664924862d185bee0ba29b76981f1cc36c5fb80598cc642985": ("dialog-babi-task3-options-dev.txt", "dev"),
    "3e53cf51a2346b7090f9cd5c3a83397b4b63d0c9e1780a6789b6a24781abdead": ("dialog-babi-task3-options-trn.txt", "train"),
    "8b9c68288f4240874e63da8720b136fee2a7e2dc4d38c97174acecfdb36e0adb": ("dialog-babi-task3-options-tst-OOV.txt",
                                                                         "test-OOV"),
    "bf3cf65eb059a422fd3839fe2706f62171a0b196ed5216d555843ed0c78a2c40": ("dialog-babi-task3-options-tst.txt", "test"),
    "956969c043b7476944f5dee93e4fb0f6899917c62522bc336948a3d40ad127e4": ("dialog-babi-task4-phone-address-dev.txt",
                                                                         "dev"),
    "5c9471e4e0992412de71e2427d03152f1198238ada99d1a463550486bd14f551": ("dialog-babi-task4-phone-address-trn.txt",
                                                                         "train"),
    "504db67af3dad160b9c4af3d8c4e25ac8136408a161a0f4005f648402d194e59": ("dialog-babi-task4-phone-address-tst-OOV.txt",
                                                                         "test-OOV"),
    "19fa3c011d4bc90e6e6d299644f7203a5a613f448a7d127eb866fe58512adbb3": ("dialog-babi-task4-phone-address-tst.txt",
                                                                         "test"),
    "1b5c95aee4b3120872af02840537508f9c585daea95e893c1ee7bc85c320d0e3": ("dialog-babi-task5-full-dialogs-dev.txt", "dev"),
    "4200d60e301a94ba5a3f0675179d0f5f51ea1ac52d8cc855cd62a2e7e2a6b2d9": ("dialog-babi-task5-full-dialogs-trn.txt",
                                                                         "train"),
    "e009111ff20308c0abdb3356d2449f140939ded022623578b2e1e4263b1a8350": ("dialog-babi-task5-full-dialogs-tst-OOV.txt",
                                                                         "test-OOV"),
    "584d16f1931de4793a983fbf0bfbfc3adb5f2feff974005eaddf7459debce8af": ("dialog-babi-task5-full-dialogs-tst.txt",
                                                                         "test"),
}
DATA_SPLITS = ("train", "dev", "test", "test-OOV")    # the splits of dialog files (not KB, candidates)

# The published archives that hold the files: SHA-256 -> name
ARCHIVES = {
    "bb36155ccd41eac91f806446c5728ee90374e5596156a9f7c1b86f8342cfc383": "dialog_babi.tar.gz",   # ParlAI's download
}

# The paper's rows, in its order
ROWS = ("T1", "T2", "T3", "T4", "T5", "T1-OOV", "T2-OOV", "T3-OOV", "T4-OOV", "T5-OOV", "T6")

# The paper's systems, in its column order (the names ``systems.registry`` entries give as ``paper``)
SYSTEMS = ("rule-based", "TF-IDF Match", "Nearest Neighbor", "supervised embeddings", "MemN2N",
           "MemN2N + match type")

# Table 2, row -> (per-response accuracy %, per-dialog accuracy %) of each of SYSTEMS, as the paper prints them
TABLE2 = {
    "T1": ((100, 100), (5.6, 0), (55.1, 0), (100, 100), (99.9, 99.6), (100, 100)),
    "T2": ((100, 100), (3.4, 0), (68.3, 0), (68.4, 0), (100, 100), (98.3, 83.9)),
    "T3": ((100, 100), (8.0, 0), (58.8, 0), (64.9, 0), (74.9, 2.0), (74.9, 0)),
    "T4": ((100, 100), (9.5, 0), (28.6, 0), (57.2, 0), (59.5, 3.0), (100, 100)),
    "T5": ((100, 100), (4.6, 0), (57.1, 0), (75.4, 0), (96.1, 49.4), (93.4, 19.7)),
    "T1-OOV": ((100, 100), (5.8, 0), (44.1, 0), (60.0, 0), (72.3, 0), (96.5, 82.7)),
    "T2-OOV": ((100, 100), (3.5, 0), (68.3, 0), (68.3, 0), (78.9, 0), (94.5, 48.4)),
    "T3-OOV": ((100, 100), (8.3, 0), (58.8, 0), (65.0, 0), (74.4, 0), (75.2, 0)),
    "T4-OOV": ((100, 100), (9.8, 0), (28.6, 0), (57.0, 0), (57.6, 0), (100, 100)),
    "T5-OOV": ((100, 100), (4.6, 0), (48.4, 0), (58.2, 0), (65.5, 0), (77.7, 0)),
    "T6": ((33.3, 0), (1.6, 0), (21.9, 0), (22.6, 0), (41.1, 0), (41.0, 0)),
}

SOURCE = "Bordes & Weston 2017, Table 2, task 6, on the test file"     # T6's (as ever)

# (system, per-response accuracy %, per-dialog accuracy %) on task 6, as the paper prints them
REPORTED = tuple((name, float(r), float(d)) for name, (r, d) in zip(SYSTEMS, TABLE2["T6"]))

# A later system's figure on the task-6 test file, shown beside the system of ours that aims at it:
# (system, per-response accuracy %, per-dialog accuracy % or None where the paper gives none).
LATER = (
    ("HCN (Williams, Asadi & Zweig 2017)", 55.6, None),
    ("Variational HCN + turn dropout (Shalyminov & Lee 2018)", 56.5, None),
)

# a bAbI dialog file's name: its task, then any words (the published names'), then its split
_NAME = re.compile(r"dialog-babi-task([1-6])(?:\D.*)?(trn|dev|tst|test)(-oov)?\.txt", re.IGNORECASE)


def published(sha256: str) -> tuple[str, str] | None:
    """(file name, split) of a published file, None for any other file."""
    return PUBLISHED.get(sha256)


def row_of(name: str, sha: str | None = None) -> str | None:
    """The paper's row (``ROWS``) of a published data file known by its SHA-256 ``sha``,
    or failing that by its file name (``name``, a path or a name): ``T1`` for
    ``dialog-babi-task1-API-calls-trn.txt``, ``T1-OOV`` for its ``tst-OOV`` file, ``T6``
    for task 6's. None for a KB or candidates file, and any other name."""
    known = published(sha) if sha else None
    if known is not None:
        if known[1] not in DATA_SPLITS:
            return None
        name = known[0]
    found = _NAME.fullmatch(os.path.basename(os.fspath(name)))
    if found is None:
        return None
    task = found.group(1)
    if task == "6":
        return "T6"
    return f"T{task}-OOV" if found.group(3) else f"T{task}"


def by_name(name: str, sha: str) -> bool:
    """Whether a file's row (``row_of``) comes from its name alone: it is no published file."""
    return published(sha) is None and row_of(name) is not None


def _checked(row: str) -> str:
    if row not in TABLE2:
        raise Dstc2ConvError(f"no row {row!r} in the paper's Table 2: one of {', '.join(ROWS)}")
    return row


def reported(row: str) -> tuple[tuple[str, float, float], ...]:
    """The paper's (system, per-response %, per-dialog %) on ``row``, in its column order."""
    return tuple((name, float(r), float(d)) for name, (r, d) in zip(SYSTEMS, TABLE2[_checked(row)]))


def source(row: str) -> str:
    """Where ``row``'s figures come from, e.g. ``Bordes & Weston 2017, Table 2, T1-OOV, on
    the OOV test file``."""
    if _checked(row) == "T6":
        return SOURCE
    return f"Bordes & Weston 2017, Table 2, {row}, on the {'OOV test' if row.endswith('OOV') else 'test'} file"


SOURCE_FOR = source


def as_dict(known: tuple[str, str]) -> dict:
    """``score --json``'s ``published`` (the file's name) and, for a data file, ``reported``:
    the paper's figures on the file's row."""
    out: dict = {"published": known[0]}
    row = row_of(known[0]) if known[1] in DATA_SPLITS else None
    if row is not None:
        out["reported"] = {"source": source(row), "row": row, "systems": [
            {"system": n, "per_response": p, "per_dialog": d} for n, p, d in reported(row)]}
    return out


__all__ = ["PUBLISHED", "ARCHIVES", "ROWS", "SYSTEMS", "TABLE2", "SOURCE", "REPORTED", "LATER", "published",
           "row_of", "by_name", "reported", "source", "SOURCE_FOR", "as_dict"]
