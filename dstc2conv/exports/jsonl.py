"""The JSON-lines export: one dialog record (``records.FEATURES``) per line, as Hugging
Face ``datasets.load_dataset("json", data_files=...)`` loads it."""
from __future__ import annotations

from ..task6.text import json_line


def jsonl_dialog(record: dict) -> str:
    """A dialog record as one line of JSON."""
    return json_line(record, separators=(",", ":")) + "\n"
