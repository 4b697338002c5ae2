"""The registry of export formats: ``build --export NAME`` writes, beside each task-6
file, that split's dialogs in the format ``NAME`` (``EXPORTS``, the one list of them).

A format turns a dialog record (``records.dialog_record``) into its text; the split's
file is the texts of its dialogs in the task-6 file's order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import Dstc2ConvError
from .deeppavlov import deeppavlov_dialog
from .jsonl import jsonl_dialog

# The short names of the task-6 files' splits, as the published file names have them.
TASK6_SPLIT = {"train": "trn", "dev": "dev", "test": "tst"}


@dataclass(frozen=True)
class ExportFormat:
    name: str
    description: str
    files: dict                          # split -> the file name
    dialog: Callable[[dict], str]        # a dialog record -> its text in the file


EXPORTS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("jsonl", "one JSON record per dialog, with the raw DSTC2 annotations of every turn "
                          "(loads with Hugging Face datasets)",
                 {split: f"dialog-babi-task6-dstc2-{short}.jsonl" for split, short in TASK6_SPLIT.items()},
                 jsonl_dialog),
    ExportFormat("deeppavlov", "DeepPavlov's DSTC2 JSON lines: a turn per line, an empty line between dialogs",
                 {"train": "dstc2-trn.jsonlist", "dev": "dstc2-val.jsonlist", "test": "dstc2-tst.jsonlist"},
                 deeppavlov_dialog),
)}


def export_format(name: str) -> ExportFormat:
    """The format of this name; an unknown one is an error naming the known ones."""
    try:
        return EXPORTS[name]
    except KeyError:
        raise Dstc2ConvError(f"unknown export format {name!r}: choose {', '.join(EXPORTS)}") from None
