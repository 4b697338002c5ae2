"""The build's manifest: one definition writes and reads it; 0.1.0's are read too."""
from __future__ import annotations

import json

import pytest
from conftest import GOLDEN, SAMPLE

from dstc2conv.builder.manifest import FileEntry, Manifest, Settings
from dstc2conv.builder.partition import PARTITIONS, Dstc2Partition, PublishedPartition, RandomPartition, partition_named
from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.evaluate.sessions import read_sessions

TST = "dialog-babi-task6-dstc2-tst.txt"
DEV = "dialog-babi-task6-dstc2-dev.txt"


@pytest.mark.parametrize("golden", ["sample-all", "sample-all-asr"])
def test_a_written_manifest_reads_back_to_the_same_text(golden):
    text = (GOLDEN / golden / "manifest.json").read_text()
    manifest = Manifest.from_json(text, "m.json")
    assert manifest.to_json() == text
    assert manifest.settings.partition == "published" and manifest.files[TST].split == "test"
    assert manifest.settings.user == ("asr" if golden.endswith("asr") else None)


def _as_version_010(path) -> None:
    """The manifest as version 0.1.0 wrote it: the partition under "split"."""
    data = json.loads(path.read_text())
    path.write_text(json.dumps({("split" if k == "partition" else k): v for k, v in data.items()}, indent=2) + "\n")


def test_a_manifest_of_version_010_is_read(tmp_path):
    path = tmp_path / "manifest.json"
    path.write_text((GOLDEN / "sample-all" / "manifest.json").read_text())
    _as_version_010(path)
    assert '"split": "published"' in path.read_text()
    manifest = Manifest.read(str(path))
    assert manifest.settings == Settings("dstc2conv", "0.1.0", 0, "published", False, None)
    assert '"partition": "published"' in manifest.to_json() and '"split": "published"' not in manifest.to_json()
    (tmp_path / TST).write_text("")
    sessions = read_sessions(tmp_path / TST, len(manifest.files[TST].dialogs))
    assert sessions.split == "test" and sessions.sessions == manifest.files[TST].dialogs


def test_the_files_of_a_build_of_version_010_are_kept(tmp_path):
    out = tmp_path / "o"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out)))
    _as_version_010(out / "manifest.json")
    build(BuildOptions(split="dev", raw=(str(SAMPLE),), out=str(out)))
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(manifest["files"]) == [DEV, TST] and manifest["partition"] == "published"
    assert "split" not in manifest


def test_only_files_is_needed_and_types_are_checked(tmp_path):
    listing = Manifest.from_json(json.dumps({"files": {"a.txt": {"dialogs": ["S/x"]}}}), "m.json")
    assert listing.files == {"a.txt": FileEntry(None, ("S/x",))} and listing.settings.partition is None
    with pytest.raises(Dstc2ConvError) as raised:
        Manifest.from_json(json.dumps({"seed": "0", "files": {}}), "m.json")
    assert str(raised.value) == "m.json: the manifest's 'seed' must be a whole number"
    with pytest.raises(Dstc2ConvError) as raised:
        Manifest.from_json(json.dumps({"split": 3, "files": {}}), "m.json")
    assert str(raised.value) == "m.json: the manifest's 'partition' must be text"
    with pytest.raises(Dstc2ConvError) as raised:
        Manifest.from_json("[]", "m.json")
    assert str(raised.value) == "m.json: not a dstc2conv manifest (no 'files')"


def test_partitions_by_name():
    assert partition_named("published") == PublishedPartition()
    assert partition_named("dstc2") == Dstc2Partition()
    assert partition_named("random", 7) == RandomPartition(7) != RandomPartition(8)
    assert [PARTITIONS[name].name for name in PARTITIONS] == list(PARTITIONS)
    assert RandomPartition.pooled == ("train", "dev", "test") and PublishedPartition.pooled == ("train", "dev")
    assert RandomPartition.every_call and not Dstc2Partition.every_call
    with pytest.raises(Dstc2ConvError, match="unknown partition 'mine': choose published, dstc2, random"):
        partition_named("mine")
