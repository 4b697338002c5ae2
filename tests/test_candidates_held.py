"""What a candidates file holds: the build says which splits' bot utterances (manifest and
stderr), and `ir`, `score --candidates` and `export dstc6` note when the file does not
hold the training utterances (the manifest beside it says so, or, for `ir`, --train
does)."""
from __future__ import annotations

import json

from conftest import SAMPLE

from dstc2conv.builder.manifest import CandidatesEntry, Manifest
from dstc2conv.cli import run

CANDS = "dialog-babi-task6-dstc2-candidates.txt"
TEST = "dialog-babi-task6-dstc2-tst.txt"


def _build(capsys, out, split, *extra):
    assert run(["build", "--split", split, "--raw", str(SAMPLE), "--out", str(out), *extra]) == 0
    return capsys.readouterr().err


def _note(path) -> str:
    return (f"dstc2conv: note: {path} holds the bot utterances of test only, not of the training split (says "
            "manifest.json beside it): ranked figures on it are not comparable with the paper's, whose candidates "
            "are every bot utterance of train, dev and test (dstc2conv build --split all writes them)\n")


def test_the_build_says_which_splits_the_candidates_are_of(tmp_path, capsys):
    out = tmp_path / "o"
    err = _build(capsys, out, "test")
    lines = (out / CANDS).read_text().count("\n")
    assert json.loads((out / "manifest.json").read_text())["candidates"] == {
        "file": CANDS, "splits": ["test"], "utterances": lines}
    assert (f"{CANDS}: the {lines} distinct bot utterances of test (not of the training split: the paper's "
            "candidates, every bot utterance of train, dev and test, come of dstc2conv build --split all)\n") in err
    err = _build(capsys, tmp_path / "all", "all")
    every = (tmp_path / "all" / CANDS).read_text().count("\n")
    assert every > lines
    assert json.loads((tmp_path / "all" / "manifest.json").read_text())["candidates"]["splits"] == [
        "train", "dev", "test"]
    assert f"{CANDS}: the {every} distinct bot utterances of train, dev, test\n" in err
    # the test split again into the folder of the whole build: the kept train and dev count in
    err = _build(capsys, tmp_path / "all", "test")
    assert json.loads((tmp_path / "all" / "manifest.json").read_text())["candidates"] == {
        "file": CANDS, "splits": ["train", "dev", "test"], "utterances": every}


def test_the_manifests_candidates_read_back():
    manifest = Manifest(candidates=CandidatesEntry(CANDS, ("dev", "test"), 12))
    assert Manifest.from_json(manifest.to_json(), "m.json") == manifest
    assert Manifest.from_json('{"files": {}}', "m.json").candidates is None   # a manifest before 0.2


def test_the_commands_that_rank_candidates_say_when_they_lack_the_training_split(tmp_path, capsys):
    out = tmp_path / "o"
    _build(capsys, out, "test", "--quiet")
    ref, cands = str(out / TEST), out / CANDS
    ir = ["ir", "tfidf", "--train", ref, "--data", ref, "--rank", "3", "--out", str(tmp_path / "r.jsonl")]
    assert run([*ir, "--candidates", str(cands)]) == 0
    assert _note(cands) in capsys.readouterr().err
    assert run([*ir, "--candidates", str(cands), "--quiet"]) == 0
    assert "note" not in capsys.readouterr().err
    assert run(["score", str(tmp_path / "r.jsonl"), ref, "--candidates", str(cands)]) == 0
    assert capsys.readouterr().err == _note(cands)
    dstc6 = ["export", "dstc6", ref, "--candidates", str(cands), "--k", "3", "--out", str(tmp_path / "s.json")]
    assert run(dstc6) == 0
    assert _note(cands) in capsys.readouterr().err
    # a whole build's candidates: nothing to say
    _build(capsys, tmp_path / "all", "all", "--quiet")
    every = tmp_path / "all" / CANDS
    assert run([*ir, "--candidates", str(every)]) == 0
    assert "note" not in capsys.readouterr().err


def test_without_a_manifest_ir_compares_the_candidates_with_train(tmp_path, capsys):
    out = tmp_path / "o"
    _build(capsys, out, "test", "--quiet")
    ref = str(out / TEST)
    lines = (out / CANDS).read_text().splitlines()
    (out / CANDS).write_text("".join(line + "\n" for line in lines[:5]))   # changed: the manifest no longer says
    ir = ["ir", "tfidf", "--train", ref, "--data", ref, "--rank", "3", "--out", str(tmp_path / "r.jsonl")]
    assert run([*ir, "--candidates", str(out / CANDS)]) == 0
    assert (f"dstc2conv: note: {out / CANDS} lacks {len(lines) - 5} of the {len(lines)} distinct bot utterances of "
            f"{ref}: ranked figures on it are not comparable") in capsys.readouterr().err
    (tmp_path / "every.txt").write_text("".join(line + "\n" for line in lines))   # every one: no manifest, no note
    assert run([*ir, "--candidates", str(tmp_path / "every.txt")]) == 0
    assert "note" not in capsys.readouterr().err
