"""The build's bytes, whatever the number of processes and the readers installed."""
from __future__ import annotations

import pytest
from conftest import GOLDEN, SAMPLE

from dstc2conv.build import BuildOptions, build


def _built(out) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def _golden(name: str) -> dict[str, bytes]:
    files = _built(GOLDEN / name)
    files["manifest.json"] = files["manifest.json"].replace(b"<sample>", str(SAMPLE).encode())
    return files


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("user, golden", [("transcription", "sample-all"), ("asr", "sample-all-asr")])
def test_sample_build_is_the_golden_bytes(tmp_path, jobs, user, golden):
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(tmp_path / "o"), user=user, jobs=jobs))
    assert _built(tmp_path / "o") == _golden(golden)
