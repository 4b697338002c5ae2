"""The JSON-lines export: one dialog record (``records.FEATURES``) per line, as Hugging
Face ``datasets.load_dataset("json", data_files=...)`` loads it."""
from __future__ import annotations

import json


def jsonl_dialog(record: dict) -> str:
    """A dialog record as one line of JSON."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
