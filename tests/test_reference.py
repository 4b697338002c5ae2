"""A full build of train and dev from the DSTC2 tarball, compared with the published
files at the fidelity targets. Needs ../shared (the corpus and the published files)."""
from __future__ import annotations

import pytest
from conftest import REFERENCE, TRAINDEV, need

from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.evaluate.align import compare_files

# Measure key -> the rate a build must keep (docs/building.md: "Fidelity"): the targets, and for
# api_calls the 86% that the build now meets on both files (target 85%).
TARGETS = {
    "system_turns": 0.995,
    "api_calls": 0.86,
    "result_blocks": 0.99,
    "dialogs": 0.75,
    "split": 1.0,
    "order": 1.0,
    "rating_ours": 1.0,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    need(TRAINDEV)
    need(REFERENCE / "dialog-babi-task6-dstc2-kb.txt")
    out = tmp_path_factory.mktemp("build")
    build(BuildOptions(split="all", raw=(str(TRAINDEV),), out=str(out), jobs=2,
                       kb=str(REFERENCE / "dialog-babi-task6-dstc2-kb.txt")))
    return out


@pytest.mark.parametrize("name", ["trn", "dev"])
def test_build_reproduces_the_published_file(built, name):
    ref = need(REFERENCE / f"dialog-babi-task6-dstc2-{name}.txt")
    report = compare_files(built / f"dialog-babi-task6-dstc2-{name}.txt", ref,
                           kb=REFERENCE / "dialog-babi-task6-dstc2-kb.txt")
    rates = {m.key: m for m in report.measures}
    short = {key: f"{m.count}/{m.total}" for key, m in rates.items() if m.total and m.count / m.total < TARGETS.get(key, 0)}
    assert not short, f"{name}: below target: {short}"
    assert all(a.explained for a in report.accounting), f"{name}: a gap is not accounted for by kinds"


def test_published_split_sizes(built):
    import json

    manifest = json.loads((built / "manifest.json").read_text())
    files = manifest["files"]
    assert len(files["dialog-babi-task6-dstc2-trn.txt"]["dialogs"]) == 1618
    assert len(files["dialog-babi-task6-dstc2-dev.txt"]["dialogs"]) == 500
    assert manifest["kb"]["source"] == "file"
