"""The published task-6 files, known by their SHA-256, and the figures the paper reports
on task 6 (Bordes & Weston 2017, Table 2), shown beside a score on a published file."""
from __future__ import annotations

PUBLISHED = {
    "bd7c5728825edba23e308cba5b9b24412ea363cd54c3d2fd6a99854447585852": ("dialog-babi-task6-dstc2-trn.txt", "train"),
    "24e8827b8889ef9bc9f1a0c625cef2ca6e3b7097f765ce71d186e2bdef27074b": ("dialog-babi-task6-dstc2-dev.txt", "dev"),
    "794890f7190c77af0ed0d5855f6c9ed015671a9790ec44ec3f29ff5455da24ff": ("dialog-babi-task6-dstc2-tst.txt", "test"),
    "cae1e86f50c4bc40d0cc1b5429ea0fa6245a83d99ce6a68b120634b373328552": ("dialog-babi-task6-dstc2-kb.txt", "KB"),
    "0ad2c7f9f8a34ee4d700ea6e1ac5dd3b0c4b1af4a3233b018b62c8c3c235827d": ("dialog-babi-task6-dstc2-candidates.txt",
                                                                         "candidates"),
}

SOURCE = "Bordes & Weston 2017, Table 2, task 6, on the test file"

# (system, per-response accuracy %, per-dialog accuracy %), as the paper prints them
REPORTED = (
    ("rule-based", 33.3, 0.0),
    ("TF-IDF Match", 1.6, 0.0),
    ("Nearest Neighbor", 21.9, 0.0),
    ("supervised embeddings", 22.6, 0.0),
    ("MemN2N", 41.1, 0.0),
    ("MemN2N + match type", 41.0, 0.0),
)

# A later system's figure on the test file, shown beside the system of ours that aims at it:
# (system, per-response accuracy %, per-dialog accuracy % or None where the paper gives none).
LATER = (
    ("HCN (Williams, Asadi & Zweig 2017)", 55.6, None),
    ("Variational HCN + turn dropout (Shalyminov & Lee 2018)", 56.5, None),
)


def published(sha256: str) -> tuple[str, str] | None:
    """(file name, split) of a published task-6 file, None for any other file."""
    return PUBLISHED.get(sha256)


def as_dict(known: tuple[str, str]) -> dict:
    """``score --json``'s ``published`` (the file's name) and, for a task-6 file, ``reported``."""
    out: dict = {"published": known[0]}
    if known[1] in ("train", "dev", "test"):
        out["reported"] = {"source": SOURCE, "systems": [
            {"system": n, "per_response": p, "per_dialog": d} for n, p, d in REPORTED]}
    return out
