"""The tool as users get the data: the three official tarballs in any combination, with
or without the ontology; one consistent output folder; builds that fail or are killed."""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time

import pytest
from conftest import GOLDEN, REFERENCE, ROOT, SAMPLE, TRAINDEV, need

from dstc2conv.builder.pipeline import BuildOptions, build, candidates
from dstc2conv.cli import run
from dstc2conv.reporter import reporting
from dstc2conv.task6.format import read

CONFIG = SAMPLE / "scripts" / "config"
# As in the release, the test calls and the train/dev calls are apart.
FLISTS = {"dstc2_train.flist": ["Mar13_S9A1/voip-sample00004-20260101_130000"],
          "dstc2_dev.flist": ["Mar13_S9A0/voip-sample00001-20260101_100000"],
          "dstc2_test.flist": ["Mar13_S9A0/voip-sample00002-20260101_110000",
                               "Mar13_S9A1/voip-sample00003-20260101_120000"]}
TEST_CALLS = FLISTS["dstc2_test.flist"]
TRAINDEV_CALLS = sorted(FLISTS["dstc2_train.flist"] + FLISTS["dstc2_dev.flist"])
TST = "dialog-babi-task6-dstc2-tst.txt"
TRN = "dialog-babi-task6-dstc2-trn.txt"
DEV = "dialog-babi-task6-dstc2-dev.txt"
CANDIDATES = "dialog-babi-task6-dstc2-candidates.txt"
KB_FILE = "dialog-babi-task6-dstc2-kb.txt"


def _tarball(path, calls=(), config=()):
    """A tarball laid out as the official ones: data/<session>/{log,label}.json, then
    scripts/config/<name> for each name in ``config``."""
    with tarfile.open(path, "w:gz") as tf:
        for session in calls:
            for part in ("log.json", "label.json"):
                tf.add(SAMPLE / "data" / session / part, arcname=f"data/{session}/{part}")
        for name in config:
            if name in FLISTS:
                data = "".join(f"{session}\n" for session in FLISTS[name]).encode()
                info = tarfile.TarInfo(f"scripts/config/{name}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
            else:
                tf.add(CONFIG / name, arcname=f"scripts/config/{name}")
        if not calls:  # the scripts tarball also holds the scripts
            info = tarfile.TarInfo("scripts/score.py")
            info.size = 6
            tf.addfile(info, io.BytesIO(b"pass\n\n"))
    return path


@pytest.fixture
def official(tmp_path):
    """The three official downloads, made from the sample."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    return {
        "test": _tarball(folder / "dstc2_test.tar.gz", TEST_CALLS, ["dstc2_test.flist"]),
        "traindev": _tarball(folder / "dstc2_traindev.tar.gz", TRAINDEV_CALLS,
                             ["dstc2_train.flist", "dstc2_dev.flist", "ontology_dstc2.json"]),
        "scripts": _tarball(folder / "dstc2_scripts.tar.gz", (),
                            ["dstc2_train.flist", "dstc2_dev.flist", "dstc2_test.flist", "ontology_dstc2.json"]),
    }


def _build(capsys, out, split, *raw, extra=()):
    args = ["build", "--split", split, "--out", str(out), *extra]
    for path in raw:
        args += ["--raw", str(path)]
    code = run(args)
    captured = capsys.readouterr()
    return code, captured.err


def _manifest(out):
    return json.loads((out / "manifest.json").read_text())


def _used(out):
    return {os.path.basename(i["path"]): (i["used_for"], i["calls"]) for i in _manifest(out)["inputs"]}


# ---------------------------------------------------------------- the ontology

def test_test_tarball_alone_builds_the_same_bytes_as_with_the_ontology(tmp_path, capsys, official):
    code, err = _build(capsys, tmp_path / "alone", "test", official["test"])
    assert code == 0, err
    assert "no ontology_dstc2.json in the inputs: taking the foods, areas, price ranges and restaurant " \
           "names from the calls themselves (2 calls) and the KB" in err
    assert _manifest(tmp_path / "alone")["files"][TST]["ontology"] == "derived from the calls and the KB"

    code, err = _build(capsys, tmp_path / "with", "test", official["test"], official["scripts"])
    assert code == 0, err
    assert _manifest(tmp_path / "with")["files"][TST]["ontology"] == \
        f"{official['scripts']}:scripts/config/ontology_dstc2.json"
    assert _used(tmp_path / "with")["dstc2_scripts.tar.gz"] == (["flists", "ontology"], 0)
    for name in (TST, CANDIDATES, "dialog-babi-task6-dstc2-kb.txt"):
        assert (tmp_path / "alone" / name).read_bytes() == (tmp_path / "with" / name).read_bytes(), name


def test_the_ontology_is_read_from_another_input_without_parsing_its_calls(tmp_path, capsys, official):
    kb = ["--kb", str(GOLDEN / "sample-kb.txt")]   # with a KB built from the logs, its calls are read
    code, err = _build(capsys, tmp_path / "o", "test", official["test"], official["traindev"], extra=kb)
    assert code == 0, err
    assert f"the ontology comes from {official['traindev']}:scripts/config/ontology_dstc2.json" in err
    assert _used(tmp_path / "o") == {"dstc2_test.tar.gz": (["calls", "flists"], 2),
                                     "dstc2_traindev.tar.gz": (["ontology"], 0)}


def test_split_train_does_not_read_the_test_tarball(tmp_path, capsys, official):
    official["test"].write_bytes(b"not a tarball at all")   # reading it would fail
    kb = ["--kb", str(GOLDEN / "sample-kb.txt")]   # with a KB built from the logs, its calls are read
    code, err = _build(capsys, tmp_path / "o", "train", official["test"], official["traindev"], extra=kb)
    assert code == 0, err
    assert f"skipping {official['test']}: not needed for --split train" in err
    assert _used(tmp_path / "o") == {"dstc2_test.tar.gz": ([], 0),
                                     "dstc2_traindev.tar.gz": (["calls", "flists", "ontology"], 2)}


def test_an_official_name_decides_what_is_read(tmp_path, capsys, official):
    code, err = _build(capsys, tmp_path / "o", "train", official["test"])
    assert code == 2
    assert err == f"dstc2conv: error: no dstc2_dev.flist, dstc2_train.flist in the inputs: --split train needs " \
                  f"dstc2_traindev.tar.gz (not read, as by its name it holds no train calls: {official['test']})\n"
    renamed = tmp_path / "train-and-dev.tar.gz"   # another name: read to find out
    renamed.write_bytes(official["traindev"].read_bytes())
    code, err = _build(capsys, tmp_path / "o", "dev", renamed)
    assert code == 0, err
    assert _manifest(tmp_path / "o")["files"][DEV]["dialogs"] == TRAINDEV_CALLS


def test_inputs_that_disagree_are_an_error(tmp_path, capsys, official):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(SAMPLE, other)
    (other / "scripts" / "config" / "dstc2_test.flist").write_text(TEST_CALLS[0] + "\n")
    code, err = _build(capsys, tmp_path / "o", "test", other, official["test"])
    assert code == 2 and err == f"dstc2conv: error: dstc2_test.flist of {other} and of {official['test']} " \
                                "name other calls\n"
    label = other / "data" / TEST_CALLS[0] / "label.json"
    label.write_text(label.read_text().replace('"transcription": "', '"transcription": "well ', 1))
    (other / "scripts" / "config" / "dstc2_test.flist").write_text("".join(c + "\n" for c in TEST_CALLS))
    code, err = _build(capsys, tmp_path / "o", "test", other, official["test"])
    assert code == 2 and err == f"dstc2conv: error: call {TEST_CALLS[0]} is in {other} and in " \
                                f"{official['test']}, with other turns\n"


def test_scripts_tarball_gives_flists_and_ontology(tmp_path, capsys, official):
    code, err = _build(capsys, tmp_path / "o", "all", official["scripts"], official["test"])
    assert code == 0, err
    assert "--split all: building test (what the inputs hold)" in err   # train/dev: flists but no calls
    assert sorted(_manifest(tmp_path / "o")["files"]) == [TST]
    code, err = _build(capsys, tmp_path / "o2", "train", official["scripts"], official["test"])
    assert code == 2
    assert "dstc2_dev.flist names call Mar13_S9A0/voip-sample00001-20260101_100000, which is not in the data, " \
           "one of 2 calls of the train split's flists: --split train needs dstc2_traindev.tar.gz" in err


@pytest.mark.parametrize("informable", [{"food": ["thai"]}, {"food": [3], "area": [], "pricerange": [], "name": []},
                                        "everything"])
def test_a_malformed_ontology_is_named(tmp_path, capsys, informable):
    import shutil

    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    (raw / "scripts" / "config" / "ontology_dstc2.json").write_text(json.dumps({"informable": informable}))
    code, err = _build(capsys, tmp_path / "o", "test", raw)
    assert code == 2
    assert err.endswith(f"dstc2conv: error: {raw / 'scripts' / 'config' / 'ontology_dstc2.json'}: malformed ontology: it needs " \
                  "informable food, area, pricerange and name lists of text\n")


def test_the_ontology_derived_from_the_calls():
    from dstc2conv.dstc2.archive import read_source
    from dstc2conv.dstc2.ontology import Dstc2Ontology

    derived = Dstc2Ontology.from_calls(read_source(SAMPLE).calls.values())
    given = Dstc2Ontology.from_json(json.loads((CONFIG / "ontology_dstc2.json").read_text()))
    assert derived.areas == ("centre", "north", "south")     # never "dontcare"
    assert set(derived.foods) <= set(given.foods) and set(derived.names) <= set(given.names)
    assert "modern european" in derived.foods and "the grand old curry house and tea room" in derived.names


@pytest.mark.parametrize("kb_from", ["published", "logs"])
def test_without_the_ontology_only_unmentioned_multiword_values_differ(kb_from):
    """On train and dev, the conversion with the ontology derived from the calls and the
    KB is the same, but where a user says a multiword value of the ontology that neither
    the calls' acts and labels nor the KB contain (it is then not joined with ``_``):
    with the published KB file, nowhere."""
    import random

    from dstc2conv.builder.pipeline import choose_kb
    from dstc2conv.convert.dialogs import convert_call
    from dstc2conv.convert.kb import read_kb
    from dstc2conv.convert.lexicon import kb_ontology, make_lexicon
    from dstc2conv.dstc2.archive import read_source
    from dstc2conv.dstc2.ontology import Dstc2Ontology
    from dstc2conv.task6.format import serialize

    source = read_source(need(TRAINDEV), workers=2)
    if kb_from == "published":
        kb = read_kb(need(REFERENCE / "dialog-babi-task6-dstc2-kb.txt"))
    else:
        kb = choose_kb(BuildOptions(split="all", kb="logs"), source.calls, from_raw_dir=False)
    given = Dstc2Ontology.from_json(source.ontology)
    derived = Dstc2Ontology.from_calls(source.calls[s] for s in sorted(source.calls)) | kb_ontology(kb)
    unmentioned = [v for v in given.foods + given.names if " " in v and v not in derived.foods + derived.names]
    differ = 0
    lexicons = make_lexicon(given, kb), make_lexicon(derived, kb)
    for session in sorted(source.calls):
        one, two = (serialize([convert_call(source.calls[session], kb, lex, random.Random(session))])
                    for lex in lexicons)
        assert one.count("\n") == two.count("\n")
        for a, b in zip(one.split("\n"), two.split("\n")):
            if a != b:
                differ += 1
                fixed = b
                for value in unmentioned:
                    fixed = fixed.replace(value, value.replace(" ", "_"))
                assert fixed == a, (session, a, b)
    assert differ == (0 if kb_from == "published" else 2)   # docs/building.md: "pizza hut", said twice


def test_kb_from_the_logs_holds_the_offered_restaurants(tmp_path, capsys):
    code, err = _build(capsys, tmp_path / "o", "test", SAMPLE, extra=["--kb", "logs"])
    kb = (tmp_path / "o" / "dialog-babi-task6-dstc2-kb.txt").read_text()
    assert kb == (GOLDEN / "sample-kb.txt").read_text()
    assert "wok_this_way" not in kb   # in the ontology, never offered


def test_kb_from_the_logs_of_every_input(tmp_path, capsys, official):
    """The test calls offer no pasta_palace (dev) nor curry_corner (train): a test split
    built with both tarballs has them in its KB, read from the train/dev calls."""
    logs = ["--kb", "logs"]
    code, err = _build(capsys, tmp_path / "alone", "test", official["test"], extra=logs)
    assert code == 0, err
    alone = (tmp_path / "alone" / KB_FILE).read_text()
    assert "pasta_palace" not in alone and "curry_corner" not in alone
    code, err = _build(capsys, tmp_path / "both", "test", official["test"], official["traindev"], extra=logs)
    assert code == 0, err
    assert f"result lines from a KB built from the logs of the 4 calls read (5 restaurants): " \
           f"{official['test']}: 2 test; {official['traindev']}: 1 train, 1 dev" in err
    kb = (tmp_path / "both" / KB_FILE).read_text()
    assert "1 pasta_palace R_cuisine italian\n" in kb and "1 curry_corner R_location centre\n" in kb
    manifest = _manifest(tmp_path / "both")
    assert manifest["kb"]["calls"] == {str(official["test"]): {"test": 2},
                                       str(official["traindev"]): {"train": 1, "dev": 1}}
    assert _used(tmp_path / "both") == {"dstc2_test.tar.gz": (["calls", "flists"], 2),
                                        "dstc2_traindev.tar.gz": (["kb", "ontology"], 2)}
    assert list(manifest["files"]) == [TST]
    # the same KB as --split all: the splits built apart make one set
    out = tmp_path / "both"
    assert _build(capsys, out, "train", official["test"], official["traindev"], extra=logs)[0] == 0
    assert _build(capsys, tmp_path / "all", "all", official["test"], official["traindev"], extra=logs)[0] == 0
    for name in (TRN, TST, KB_FILE):
        assert (out / name).read_bytes() == (tmp_path / "all" / name).read_bytes(), name


# ---------------------------------------------------------------- defaults

def test_kb_in_data_raw_is_used_only_without_raw(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data_raw").mkdir()
    (tmp_path / "data_raw" / "dialog-babi-task6-dstc2-kb.txt").write_text("1 pasta_palace R_cuisine italian\n")
    code, err = _build(capsys, tmp_path / "with-raw", "test", SAMPLE)
    assert code == 0 and _manifest(tmp_path / "with-raw")["kb"]["source"] == "shipped"
    (tmp_path / "data_raw" / "dstc2_test.tar.gz").write_bytes(
        _tarball(tmp_path / "t.tar.gz", TEST_CALLS, ["dstc2_test.flist"]).read_bytes())
    code, err = _build(capsys, tmp_path / "default", "test")
    assert code == 0, err
    assert _manifest(tmp_path / "default")["kb"]["path"] == os.path.join("data_raw", "dialog-babi-task6-dstc2-kb.txt")


def test_default_rules_outside_a_checkout_are_the_shipped_ones(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(["rules", "check"]) == 0
    shipped = capsys.readouterr().out.split(":")[0]
    assert os.path.samefile(shipped, ROOT / "rules" / "dstc2.yaml")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "dstc2.yaml").write_text(
        "ontology: ontology.yaml\npatterns: {hi: hello}\nrules:\n  - {id: greet, priority: 1, say: hi}\n")
    (tmp_path / "rules" / "ontology.yaml").write_text("food: [thai]\narea: [north]\nprice: [cheap]\n")
    assert run(["rules", "check"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith(os.path.join("rules", "dstc2.yaml") + ": 1 rule, 1 pattern")


# ---------------------------------------------------------------- one consistent set

def test_train_then_dev_into_one_folder_is_one_set(tmp_path, capsys, official):
    out = tmp_path / "o"
    assert _build(capsys, out, "train", official["traindev"])[0] == 0
    assert _build(capsys, out, "dev", official["traindev"])[0] == 0
    manifest = _manifest(out)
    assert sorted(manifest["files"]) == [DEV, TRN]
    both = read(out / TRN) + read(out / DEV)
    assert (out / CANDIDATES).read_text() == candidates(both)
    for name, digest in manifest["checksums"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest


def test_a_set_of_other_settings_is_not_mixed_in(tmp_path, capsys, official):
    out = tmp_path / "o"
    assert _build(capsys, out, "test", official["test"], extra=["--kb", "logs"])[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    code, err = _build(capsys, out, "dev", official["traindev"], extra=["--kb", "logs"])   # the KB from the logs differs
    assert code == 2
    assert f"dstc2conv: error: {out}: it holds {TST} and it was built with another KB (a KB built from the logs); " \
           "a folder holds one " \
           "consistent set: build that split too from the same inputs, choose another --out, or pass --replace" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    code, err = _build(capsys, out, "dev", official["traindev"], extra=["--seed", "1", "--replace"])
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [CANDIDATES, DEV, "dialog-babi-task6-dstc2-kb.txt",
                                                     "manifest.json"]


def test_a_changed_file_is_not_kept(tmp_path, capsys, official):
    out = tmp_path / "o"
    kb = tmp_path / "kb.txt"
    kb.write_text((GOLDEN / "sample-kb.txt").read_text())
    assert _build(capsys, out, "test", official["test"], extra=["--kb", str(kb)])[0] == 0
    tst = out / TST
    tst.write_bytes(tst.read_bytes().replace(b"\n", b"\r\n"))   # the same text, other bytes
    code, err = _build(capsys, out, "dev", official["traindev"], extra=["--kb", str(kb)])
    assert code == 2 and f"it holds {TST} and it is not the file its manifest.json lists" in err


def test_a_kept_file_keeps_its_inputs_in_the_manifest(tmp_path, capsys, official):
    out = tmp_path / "o"
    kb = tmp_path / "kb.txt"
    kb.write_text((GOLDEN / "sample-kb.txt").read_text())
    assert _build(capsys, out, "test", official["test"], extra=["--kb", str(kb)])[0] == 0
    assert _build(capsys, out, "dev", official["traindev"], extra=["--kb", str(kb)])[0] == 0
    manifest = _manifest(out)
    digest = hashlib.sha256(official["test"].read_bytes()).hexdigest()
    assert manifest["files"][TST]["inputs"] == [{"path": str(official["test"]), "sha256": digest}]
    assert {"path": str(official["test"]), "used_for": ["calls", "flists"], "sha256": digest,
            "calls": 2} in manifest["inputs"]
    assert sorted(manifest["files"]) == [DEV, TST]


def test_train_and_dev_are_kept_together_only_from_the_same_inputs(tmp_path, capsys, official):
    out = tmp_path / "o"
    assert _build(capsys, out, "train", official["traindev"])[0] == 0
    copy = tmp_path / "copy" / "dstc2_traindev.tar.gz"
    copy.parent.mkdir()
    copy.write_bytes(official["traindev"].read_bytes())
    code, err = _build(capsys, out, "dev", copy)
    assert code == 2 and f"it holds {TRN} and it was built from other inputs (train and dev are split " \
                         "from one pool of calls)" in err


def test_the_kb_in_data_raw_is_not_used_for_the_sample(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data_raw").mkdir()
    (tmp_path / "data_raw" / "dialog-babi-task6-dstc2-kb.txt").write_text("1 pasta_palace R_cuisine italian\n")
    code, err = _build(capsys, tmp_path / "o", "test")
    assert code == 0 and "building the small hand-written sample" in err
    assert "result lines from a KB built from the logs of the 4 calls read (5 restaurants)" in err
    assert (tmp_path / "o" / TST).read_text() == (GOLDEN / "sample-tst.txt").read_text()


def test_the_sample_set_gives_way_to_the_corpus(tmp_path, capsys, monkeypatch, official):
    """The quick start builds the sample into outputs/; the corpus built there next
    replaces it (saying so), while the sample never replaces a corpus set."""
    monkeypatch.chdir(tmp_path)
    code, err = _build(capsys, tmp_path / "outputs", "test")
    assert code == 0 and "building the small hand-written sample" in err
    code, err = _build(capsys, tmp_path / "outputs", "train", official["traindev"])
    assert code == 0
    assert f"removing the sample's {TST} from {tmp_path / 'outputs'}: this build is of the corpus" in err
    assert sorted(p.name for p in (tmp_path / "outputs").iterdir()) == [CANDIDATES, KB_FILE, TRN, "manifest.json"]
    before = (tmp_path / "outputs" / TRN).read_bytes()
    code, err = _build(capsys, tmp_path / "outputs", "test")
    assert code == 2 and (f"it holds {TRN} and it was built with other settings (from the sample calls no, "
                          "this build yes)") in err
    assert (tmp_path / "outputs" / TRN).read_bytes() == before


def test_a_folder_of_downloads_as_raw(tmp_path, capsys, official):
    """--raw data_raw: a folder of tarballs stands for the tarballs in it; a folder
    holding no DSTC2 data is one line."""
    code, _ = _build(capsys, tmp_path / "a", "all", official["traindev"], official["test"])
    assert code == 0
    code, _ = _build(capsys, tmp_path / "b", "all", official["traindev"].parent)
    assert code == 0
    for name in (TRN, DEV, TST, CANDIDATES, KB_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    (tmp_path / "empty").mkdir()
    code, err = _build(capsys, tmp_path / "c", "all", tmp_path / "empty")
    assert code == 2 and err == (f"dstc2conv: error: {tmp_path / 'empty'}: holds no DSTC2 data: neither data/ and "
                                 "scripts/config/ (an unpacked release) nor DSTC2 tarballs\n")


def test_a_failed_write_leaves_the_old_set(tmp_path, capsys, monkeypatch):
    out = tmp_path / "o"
    assert _build(capsys, out, "test", SAMPLE)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real_open = open

    def full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode and ".dstc2conv-build-" in str(path) and str(path).endswith("kb.txt"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", full_disk)
    code, err = _build(capsys, out, "test", SAMPLE, extra=["--seed", "1"])
    monkeypatch.undo()
    assert code == 2 and f"{out}: cannot write the outputs: No space left on device" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_build_stopped_while_renaming_is_finished_by_the_next(tmp_path, capsys):
    out = tmp_path / "o"
    assert _build(capsys, out, "test", SAMPLE)[0] == 0
    stopped = out / ".dstc2conv-build-12345"
    stopped.mkdir()
    (stopped / TST).write_text("1 hi\tnew\n\n")
    (stopped / "COMMIT").write_text(json.dumps({"remove": [], "move": [TST, "manifest.json"]}))
    (out / "manifest.json").rename(stopped / "manifest.json")   # the manifest was not yet put in place
    (stopped / "manifest.json").write_text((stopped / "manifest.json").read_text().replace('"seed": 0', '"seed": 7'))
    (out / f"{TST}.tmp-999").write_text("left by an older version")
    unfinished = out / ".dstc2conv-build-777"
    unfinished.mkdir()
    (unfinished / TST).write_text("half")
    assert _build(capsys, tmp_path / "elsewhere", "test", SAMPLE)[0] == 0   # another folder: untouched
    assert stopped.exists()
    assert _build(capsys, out, "dev", SAMPLE)[0] == 2   # refused, after finishing the stopped build
    assert (out / TST).read_text() == "1 hi\tnew\n\n" and _manifest(out)["seed"] == 7
    assert sorted(p.name for p in out.iterdir()) == sorted([CANDIDATES, TST, "dialog-babi-task6-dstc2-kb.txt",
                                                     "manifest.json"])


def _consistent(out) -> bool:
    manifest = _manifest(out)
    return all(hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
               for name, digest in manifest["checksums"].items())


KILLED_AT_THE_FIRST_RENAME = """
import os, sys
from dstc2conv.builder import output_set as outputs
real = os.replace
def replace(source, target):
    if os.path.dirname(target) == sys.argv[-1] and not outputs.os.path.basename(source) == "COMMIT":
        real(source, target)
        os._exit(9)   # killed between two renames
    real(source, target)
outputs.os.replace = replace
from dstc2conv.cli import main
sys.argv = ["dstc2conv"] + sys.argv[1:]
main()
"""


def test_a_build_killed_between_two_renames_is_finished_by_the_next(tmp_path):
    out = tmp_path / "o"
    # (with the KB from the sample's logs, whose result blocks' ratings change with the seed)
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out), kb="logs"))
    proc = subprocess.run([sys.executable, "-c", KILLED_AT_THE_FIRST_RENAME, "build", "--split", "test",
                           "--raw", str(SAMPLE), "--seed", "5", "--kb", "logs", "--out", str(out)], capture_output=True)
    assert proc.returncode == 9
    assert not _consistent(out)                       # one new file beside the old ones, for now
    assert [p.name for p in out.iterdir() if p.name.startswith(".dstc2conv-build-")]
    build(BuildOptions(split="dev", raw=(str(SAMPLE),), out=str(out), seed=5, kb="logs"))   # finishes it first
    assert _consistent(out) and _manifest(out)["seed"] == 5
    assert sorted(_manifest(out)["files"]) == [DEV, TST]
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="kills a build process")
def test_a_build_killed_at_any_moment_leaves_one_set(tmp_path):
    out = tmp_path / "o"
    command = [sys.executable, "-m", "dstc2conv", "build", "--split", "test", "--raw", str(SAMPLE),
               "--out", str(out)]
    subprocess.run(command, check=True, capture_output=True)
    for i in range(12):
        proc = subprocess.Popen(command + ["--seed", str(i + 1)], stderr=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL)
        time.sleep(0.05 * i)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        leftovers = [p.name for p in out.iterdir() if p.name.startswith(".dstc2conv-build-")]
        committing = any((out / name / "COMMIT").exists() for name in leftovers)
        assert committing or _consistent(out), i   # a COMMIT list is finished by the next build
    subprocess.run(command + ["--seed", "99"], check=True, capture_output=True)
    assert _consistent(out) and _manifest(out)["seed"] == 99
    assert not [p for p in out.iterdir() if p.name.startswith(".dstc2conv-build-") or ".tmp-" in p.name]


def test_odd_leftovers_in_the_output_folder(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / f"{TST}.tmp-12").mkdir()               # a folder of that name is not removed
    (out / "notes.tmp-3").write_text("mine")       # nor a file that is not an output
    assert _build(capsys, out, "test", SAMPLE)[0] == 0
    assert (out / f"{TST}.tmp-12").is_dir() and (out / "notes.tmp-3").exists()
    for plan in ("[]", '{"remove": ["../../x"], "move": []}'):
        stopped = out / ".dstc2conv-build-4"
        stopped.mkdir()
        (stopped / "COMMIT").write_text(plan)
        code, err = _build(capsys, out, "test", SAMPLE)
        assert code == 2 and err.endswith(f"dstc2conv: error: {stopped}: a build's COMMIT list cannot be read "
                                          "(not a list of file names to remove and move): remove the folder\n")
        (stopped / "COMMIT").unlink()
        stopped.rmdir()


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as fh:
                if name.isdigit() and int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(name))
        except (OSError, IndexError, ValueError):
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="looks for the workers in /proc")
def test_workers_die_with_a_killed_build(tmp_path):
    many = tmp_path / "many.tar.gz"
    log, label = ((SAMPLE / "data" / TEST_CALLS[0] / part).read_bytes() for part in ("log.json", "label.json"))
    sessions = [f"Mar13_S9A0/voip-copy{i:05d}-20260101_100000" for i in range(4000)]
    with tarfile.open(many, "w:gz", compresslevel=1) as tf:   # reading takes a few seconds
        for name, data in [(f"data/{s}/{p}", d) for s in sessions for p, d in (("log.json", log),
                                                                             ("label.json", label))] + [
                ("scripts/config/dstc2_test.flist", "".join(s + "\n" for s in sessions).encode())]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    proc = subprocess.Popen([sys.executable, "-m", "dstc2conv", "build", "--split", "test", "--jobs", "2",
                             "--raw", str(many), "--out", str(tmp_path / "o")], stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    workers = []
    while not workers and proc.poll() is None and time.time() < deadline:
        workers = _children(proc.pid)
        time.sleep(0.01)
    assert workers, "the build started no worker process"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 5
    while any(_alive(w) for w in workers) and time.time() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="looks for the workers in /proc")
def test_an_idle_worker_dies_with_a_killed_build():
    """A worker that has done its share and waits for work also stops with the build."""
    script = ("import concurrent.futures, multiprocessing, os, sys, time\n"
              "from dstc2conv.dstc2.workers import _die_with\n"
              "pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('fork'), "
              "initializer=_die_with, initargs=(os.getpid(),))\n"
              "print(pool.submit(os.getpid).result(), flush=True)\n"
              "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(proc.stdout.readline())
    assert _alive(worker)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 5
    while _alive(worker) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(worker)


# ---------------------------------------------------------------- usage errors

@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_must_be_a_positive_number(jobs, capsys):
    with pytest.raises(SystemExit) as exc:
        run(["build", "--split", "test", "--jobs", jobs])
    assert exc.value.code == 2 and "--jobs" in capsys.readouterr().err


def test_more_jobs_than_cores_are_capped(tmp_path, capsys):
    code, err = _build(capsys, tmp_path / "o", "test", SAMPLE, extra=["--jobs", "512"])
    assert code == 0 and f"--jobs 512: this machine has {os.cpu_count()} cores" in err


def test_out_that_is_a_file_or_cannot_be_made(tmp_path, capsys):
    taken = tmp_path / "taken"
    taken.write_text("a file")
    code, err = _build(capsys, taken, "test", SAMPLE)
    assert code == 2 and err == f"dstc2conv: error: {taken}: cannot create the output folder: " \
                                "it is a file, not a folder\n"
    code, err = _build(capsys, taken / "sub", "test", SAMPLE)
    assert code == 2 and err.startswith(f"dstc2conv: error: {taken / 'sub'}: cannot create the output folder: ")
    code, err = _build(capsys, "/proc/dstc2conv-out", "test", SAMPLE)
    assert code == 2 and err.count("\n") == 1 and "cannot create the output folder" in err


def test_progress_only_on_a_terminal_and_never_quiet(tmp_path, capsys):
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(tmp_path / "a")))
    assert capsys.readouterr().err == ""   # a library call shows nothing
    with reporting(notes=False, progress=True):
        build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(tmp_path / "a")))
    stages = capsys.readouterr().err.splitlines()
    assert [s.split(" (")[0] for s in stages] == [
        f"build: reading {SAMPLE}", f"build: converting 3 calls into {TST}", "build: writing", "build: done"]
    code, err = _build(capsys, tmp_path / "b", "test", SAMPLE)
    assert code == 0 and "build: reading" not in err           # stderr is not a terminal here
    code, err = _build(capsys, tmp_path / "c", "test", SAMPLE, extra=["--quiet"])
    assert code == 0 and err == ""


def test_progress_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, err = _build(capsys, tmp_path / "a", "test", SAMPLE)
    assert code == 0 and f"build: converting 3 calls into {TST} (" in err
    code, err = _build(capsys, tmp_path / "b", "test", SAMPLE, extra=["--quiet"])
    assert code == 0 and err == ""


# ---------------------------------------------------------------- the shipped KB

SHIPPED_SHA256 = "cae1e86f50c4bc40d0cc1b5429ea0fa6245a83d99ce6a68b120634b373328552"   # the published KB file's


def test_the_shipped_kb_is_the_published_file():
    from dstc2conv.builder.pipeline import shipped_kb

    assert hashlib.sha256(open(shipped_kb(), "rb").read()).hexdigest() == SHIPPED_SHA256
    if REFERENCE.exists():
        assert open(shipped_kb(), "rb").read() == (REFERENCE / KB_FILE).read_bytes()


def test_a_test_only_build_uses_the_shipped_kb_and_says_so(tmp_path, capsys, official):
    code, err = _build(capsys, tmp_path / "o", "test", official["test"])
    assert code == 0, err
    assert f"result lines from the shipped KB (the published {KB_FILE}, SHA-256 {SHIPPED_SHA256}; " \
           "--kb logs builds one from the logs instead)" in err
    assert _manifest(tmp_path / "o")["kb"] == {"source": "shipped", "path": None, "sha256": SHIPPED_SHA256,
                                               "restaurants": 113}
    # the sample's test calls: the canthelp's call finds nothing in the published KB
    assert "4 expensive\tapi_call modern_european centre expensive\n5 api_call no result\n" in \
        (tmp_path / "o" / TST).read_text()


def test_a_test_only_build_with_the_kb_from_the_logs_is_as_before(tmp_path, capsys, official):
    """``--kb logs`` is the build of the previous default, byte for byte (the golden files
    were made by it, before the shipped KB)."""
    code, err = _build(capsys, tmp_path / "o", "test", official["test"], extra=["--kb", "logs"])
    assert code == 0, err
    golden = GOLDEN / "sample-test-only-kb-logs"
    for path in golden.iterdir():
        assert (tmp_path / "o" / path.name).read_bytes() == path.read_bytes(), path.name
    assert _manifest(tmp_path / "o")["kb"]["source"] == "logs"


def test_another_kb_is_refused_before_the_inputs_are_read(tmp_path, capsys, official):
    out = tmp_path / "o"
    assert _build(capsys, out, "test", official["test"])[0] == 0
    broken = tmp_path / "broken" / "dstc2_traindev.tar.gz"
    broken.parent.mkdir()
    broken.write_bytes(b"not a tarball")   # read first, it would be the error
    code, err = _build(capsys, out, "dev", broken, extra=["--kb", "logs"])
    assert code == 2
    assert err == f"dstc2conv: error: {out}: it holds {TST} and it was built with another KB (the shipped KB); " \
                  "a folder holds one consistent set: build that split too from the same inputs, choose another " \
                  "--out, or pass --replace to remove such files\n"
    kb = tmp_path / "kb.txt"
    kb.write_text("1 pasta_palace R_cuisine italian\n")
    code, err = _build(capsys, out, "dev", broken, extra=["--kb", str(kb)])
    assert code == 2 and "it was built with another KB (the shipped KB)" in err
    code, err = _build(capsys, out, "dev", broken, extra=["--kb", str(tmp_path / "absent.txt")])
    assert code == 2 and err.startswith(f"dstc2conv: error: {tmp_path / 'absent.txt'}: cannot read the KB file")
    code, err = _build(capsys, out, "dev", broken)   # the same KB: on to the inputs
    assert code == 2 and "cannot read the tarball" in err
