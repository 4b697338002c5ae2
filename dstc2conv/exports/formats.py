"""The registry of export formats: ``build --export NAME`` writes, beside each task-6
file, that split's dialogs in the format ``NAME`` (``EXPORTS``, the one list of them).

A format turns a dialog record (``records.dialog_record``) into its text; the split's
file is the texts of its dialogs in the task-6 file's order. A format that needs the raw
calls (``needs_calls``: their annotations are not in the task-6 text) cannot be made of
task-6 files alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..errors import Dstc2ConvError

if TYPE_CHECKING:   # (the command line builds its parser from this registry: the rest is imported when used)
    from ..convert.lexicon import Lexicon
    from ..dstc2.calls import Call
    from ..task6.format import Dialog


def jsonl_dialog(record: dict) -> str:
    from .jsonl import jsonl_dialog

    return jsonl_dialog(record)


def deeppavlov_dialog(record: dict) -> str:
    from .deeppavlov import deeppavlov_dialog

    return deeppavlov_dialog(record)

# The short names of the task-6 files' splits, as the published file names have them.
TASK6_SPLIT = {"train": "trn", "dev": "dev", "test": "tst"}


@dataclass(frozen=True)
class ExportFormat:
    name: str
    description: str
    files: dict                          # split -> the file name
    dialog: Callable[[dict], str]        # a dialog record -> its text in the file
    needs_calls: bool = True             # made from the raw calls, not from task-6 files alone


EXPORTS: dict[str, ExportFormat] = {f.name: f for f in (
    ExportFormat("jsonl", "one JSON record per dialog, with the raw DSTC2 annotations of every turn "
                          "(loads with Hugging Face datasets)",
                 {split: f"dialog-babi-task6-dstc2-{short}.jsonl" for split, short in TASK6_SPLIT.items()},
                 jsonl_dialog),
    ExportFormat("deeppavlov", "DeepPavlov's DSTC2 JSON lines: a turn per line, an empty line between dialogs",
                 {"train": "dstc2-trn.jsonlist", "dev": "dstc2-val.jsonlist", "test": "dstc2-tst.jsonlist"},
                 deeppavlov_dialog),
)}


def export_format(name: str, have_calls: bool = True) -> ExportFormat:
    """The format of this name; an unknown one is an error naming the known ones, and so
    is one that needs the raw calls when there are none (``have_calls``)."""
    try:
        found = EXPORTS[name]
    except KeyError:
        raise Dstc2ConvError(f"unknown export format {name!r}: choose {', '.join(EXPORTS)}") from None
    if found.needs_calls and not have_calls:
        raise Dstc2ConvError(f"the {name} export needs the raw DSTC2 calls (log.json and label.json) the task-6 "
                             f"files are built from, not task-6 files: dstc2conv build --split SPLIT --export {name}")
    return found


def export_dialog(call: Call, dialog: Dialog, split: str, number: int, lexicon: Lexicon, asr: bool,
                  names: tuple[str, ...]) -> dict[str, str]:
    """The text of ``dialog`` (made of ``call``, the ``number``-th of its split) in each
    format of ``names``: format name -> text."""
    from .records import dialog_record

    record = dialog_record(call, dialog, split, number, lexicon, asr)
    return {name: EXPORTS[name].dialog(record) for name in names}
