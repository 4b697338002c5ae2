"""Shared paths. The DSTC2 corpus and the published task-6 files are read at run time
from ../shared beside the checkout; tests that need them skip when it is absent."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TRAINDEV = SHARED / "dstc2" / "dstc2_traindev.tar.gz"
REFERENCE = SHARED / "reference"
SAMPLE = ROOT / "dstc2conv" / "sample"
GOLDEN = ROOT / "tests" / "golden"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is absent: this test reads the DSTC2 corpus / published task-6 files from ../shared")
    return path
