"""Every kind of bad input: a clear error naming the file and turn, exit code 2, and no
output file left behind (not even a partly written one)."""
from __future__ import annotations

import json
import shutil
import tarfile

import pytest
from conftest import SAMPLE

from dstc2conv.cli import run

CALL = "Mar13_S9A0/voip-sample00002-20260101_110000"


@pytest.fixture
def sample(tmp_path):
    copy = tmp_path / "dstc2"
    shutil.copytree(SAMPLE, copy)
    return copy


def _tarball(folder, path):
    with tarfile.open(path, "w:gz") as tf:
        tf.add(folder / "data", arcname="data")
        tf.add(folder / "scripts", arcname="scripts")
    return path


def _fails(capsys, tmp_path, raw, *expected, split="test"):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "keep.txt").write_text("earlier output\n")
    code = run(["build", "--split", split, "--raw", str(raw), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    for text in expected:
        assert text in err, err
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]  # nothing written, nothing half-written
    return err


def test_missing_tarball(capsys, tmp_path):
    _fails(capsys, tmp_path, tmp_path / "dstc2_test.tar.gz", "dstc2_test.tar.gz", "no such file")


def test_truncated_tarball(capsys, tmp_path, sample):
    whole = _tarball(sample, tmp_path / "whole.tar.gz").read_bytes()
    cut = tmp_path / "dstc2_test.tar.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    _fails(capsys, tmp_path, cut, "dstc2_test.tar.gz", "truncated")


@pytest.mark.parametrize("content", [b"1 hello\tWelcome\n", b"garbage"])
def test_not_a_tarball_is_one_line(capsys, tmp_path, content):
    """A task-6 file or anything else given as a tarball: one line, not tarfile's list."""
    wrong = tmp_path / "dstc2_test.tar.gz"
    wrong.write_bytes(content)
    err = _fails(capsys, tmp_path, wrong)
    assert err == (f"dstc2conv: error: {wrong}: cannot read the tarball (truncated or not a tarball?): "
                   "not a tarball (neither gzip, bzip2, xz nor plain tar)\n")


def test_tarball_reads_like_the_folder(tmp_path, sample):
    tarball = _tarball(sample, tmp_path / "dstc2_test.tar.gz")
    assert run(["build", "--split", "test", "--raw", str(tarball), "--out", str(tmp_path / "a")]) == 0
    assert run(["build", "--split", "test", "--raw", str(sample), "--out", str(tmp_path / "b")]) == 0
    name = "dialog-babi-task6-dstc2-tst.txt"
    assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_flist_names_a_missing_call(capsys, tmp_path, sample):
    flist = sample / "scripts" / "config" / "dstc2_test.flist"
    flist.write_text(flist.read_text() + "Mar13_S9A0/voip-notthere-20260101_000000\n")
    _fails(capsys, tmp_path, sample, "dstc2_test.flist names call Mar13_S9A0/voip-notthere-20260101_000000", "not in the data")


def test_flist_names_a_missing_call_in_a_tarball(capsys, tmp_path, sample):
    flist = sample / "scripts" / "config" / "dstc2_test.flist"
    flist.write_text(flist.read_text() + "Mar13_S9A0/voip-notthere-20260101_000000\n")
    tarball = _tarball(sample, tmp_path / "t.tar.gz")
    _fails(capsys, tmp_path, tarball, "dstc2_test.flist", "voip-notthere-20260101_000000")


def test_malformed_json(capsys, tmp_path, sample):
    log = sample / "data" / CALL / "log.json"
    log.write_text(log.read_text()[:-40])
    _fails(capsys, tmp_path, sample, f"{CALL}/log.json", "malformed JSON")


def test_turn_counts_differ(capsys, tmp_path, sample):
    label_path = sample / "data" / CALL / "label.json"
    label = json.loads(label_path.read_text())
    label["turns"].pop()
    label_path.write_text(json.dumps(label))
    _fails(capsys, tmp_path, sample, f"{CALL}/label.json", "7 turns in log.json but 6 in label.json")


def test_unknown_dialog_act(capsys, tmp_path, sample):
    log_path = sample / "data" / CALL / "log.json"
    log = json.loads(log_path.read_text())
    log["turns"][3]["output"]["dialog-acts"][0]["act"] = "teleport"
    log_path.write_text(json.dumps(log))
    _fails(capsys, tmp_path, sample, f"{CALL}/log.json", "turn 3", "unknown dialog act 'teleport'")


def test_dialog_manager_not_a_number(capsys, tmp_path, sample):
    log_path = sample / "data" / CALL / "log.json"
    log = json.loads(log_path.read_text())
    log["system-specific"]["dialog-manager"] = "mdp"
    log_path.write_text(json.dumps(log))
    _fails(capsys, tmp_path, sample, f"{CALL}/log.json", "system-specific.dialog-manager is 'mdp', not a whole number")


def test_not_utf8(capsys, tmp_path, sample):
    label_path = sample / "data" / CALL / "label.json"
    label_path.write_bytes(label_path.read_bytes().replace(b"chinese", b"chin\xe9se", 1))
    _fails(capsys, tmp_path, sample, f"{CALL}/label.json", "not UTF-8")


def test_split_whose_flist_is_absent(capsys, tmp_path, sample):
    (sample / "scripts" / "config" / "dstc2_test.flist").unlink()
    _fails(capsys, tmp_path, sample, "dstc2_test.flist", "dstc2_test.tar.gz")


def test_bad_kb_file(capsys, tmp_path, sample):
    kb = tmp_path / "kb.txt"
    kb.write_text("1 pasta_palace R_cuisine italian\n1 pasta_palace R_colour red\n")
    out = tmp_path / "out"
    code = run(["build", "--split", "test", "--raw", str(sample), "--out", str(out), "--kb", str(kb)])
    err = capsys.readouterr().err
    assert code == 2 and f"{kb}:2:" in err
    assert not out.exists()


def test_bad_task6_file_for_stats(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 hello\tworld\nthree words here\n")
    assert run(["stats", str(bad)]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err


def test_in_memory_tarball_member_order_does_not_matter(tmp_path, sample):
    # flists last or first: the reader handles both
    path = tmp_path / "reordered.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        tf.add(sample / "scripts", arcname="scripts")
        tf.add(sample / "data", arcname="data")
    assert run(["build", "--split", "test", "--raw", str(path), "--out", str(tmp_path / "o")]) == 0


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_bytes(b""), "no dialogs (the file is empty or only empty lines)"),
    (lambda p: p.write_text("\n\n"), "no dialogs (the file is empty or only empty lines)"),
    (lambda p: None, "cannot read: No such file or directory"),
    (lambda p: p.mkdir(), "is a directory, not a task-6 file"),
])
def test_stats_on_an_empty_or_missing_file_or_a_directory(capsys, tmp_path, make, message):
    path = tmp_path / "dialog-babi-task6-dstc2-dev.txt"
    make(path)
    assert run(["stats", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"dstc2conv: error: {path}: {message}\n"
    assert captured.out == ""
