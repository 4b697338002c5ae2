"""`dstc2conv table2 --release`: the paper's whole Table 2 over a release's tasks, on a
tiny hand-written release (tests/babi_toy.py): each task's systems fitted once and scored
on its test and OOV test files, each row beside its own paper figures, the tasks a
release lacks skipped in one line, an archive read like its folder."""
from __future__ import annotations

import json

import babi_toy
import pytest

from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import registry
from dstc2conv.systems.whole_table import COLUMNS, columns

SYSTEMS = "rules,tfidf,nn"


def _run(capsys, *argv):
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def release(tmp_path):
    return babi_toy.write(tmp_path)


def test_each_test_file_is_a_row_beside_its_own_paper_figures(release, capsys):
    code, out, err = _run(capsys, "table2", "--release", str(release), "--systems", SYSTEMS, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert list(result["tasks"]) == ["T1", "T1-OOV"]
    assert result["systems"] == ["rules", "tfidf", "nn"]
    t1, oov = result["tasks"]["T1"], result["tasks"]["T1-OOV"]
    assert t1["test"]["file"].endswith("dialog-babi-task1-API-calls-tst.txt")
    assert oov["test"]["file"].endswith("dialog-babi-task1-API-calls-tst-OOV.txt")
    # the paper's figures of each row (Bordes & Weston 2017, Table 2)
    assert t1["systems"]["tfidf"]["paper"] == {"per_response": 0.056, "per_dialog": 0.0}
    assert oov["systems"]["tfidf"]["paper"] == {"per_response": 0.058, "per_dialog": 0.0}
    assert oov["systems"]["nn"]["paper"] == {"per_response": 0.441, "per_dialog": 0.0}
    # the release's candidates file, the paper's protocol
    assert t1["candidates"]["from"].endswith("dialog-babi-candidates.txt")
    # task 2 has no test file, tasks 3 to 6 no file at all: one line each, skipped
    assert result["skipped"] == {"T2": "no test file in the release", "T3": "no train or dev or test file in the release",
                                 "T4": "no train or dev or test file in the release",
                                 "T5": "no train or dev or test file in the release",
                                 "T6": "no train or dev or test file in the release"}
    assert "table2: T2: no test file in the release: skipped" in err
    assert set(result["seconds"]) == {"T1"}


def test_a_task_without_its_oov_test_file_is_scored_on_its_test_file_and_says_so(release, capsys):
    (release / "dialog-babi-task1-API-calls-tst-OOV.txt").unlink()
    code, out, err = _run(capsys, "table2", "--release", str(release), "--systems", "rules", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert list(result["tasks"]) == ["T1"]
    assert result["skipped"]["T1-OOV"] == "no OOV test file in the release"
    assert "table2: T1-OOV: no OOV test file in the release: skipped" in err
    assert "table2: T1: 1 system, fitted on" in err


def test_each_test_files_progress_line_names_its_row(release, capsys):
    code, out, err = _run(capsys, "table2", "--release", str(release), "--systems", "rules")
    assert code == 0, err
    scored = [line.partition(":")[2].partition(":")[0] for line in err.splitlines() if "% per response" in line]
    assert scored == [" rules on T1", " rules on T1-OOV"]


def test_the_figures_are_those_of_table2_on_each_test_file(release, capsys):
    code, out, _ = _run(capsys, "table2", "--release", str(release), "--systems", SYSTEMS, "--json", "--quiet")
    whole = json.loads(out)["tasks"]
    for row, name in (("T1", "tst"), ("T1-OOV", "tst-OOV")):
        code, out, _ = _run(capsys, "table2", "--train", str(release / "dialog-babi-task1-API-calls-trn.txt"),
                            "--dev", str(release / "dialog-babi-task1-API-calls-dev.txt"),
                            "--test", str(release / f"dialog-babi-task1-API-calls-{name}.txt"),
                            "--candidates", str(release / "dialog-babi-candidates.txt"),
                            "--systems", SYSTEMS, "--json", "--quiet")
        single = json.loads(out)
        for system in SYSTEMS.split(","):
            keys = ("per_response", "per_dialog", "correct", "dialogs_correct", "paper", "vs_rules")
            assert {k: whole[row]["systems"][system].get(k) for k in keys} == \
                {k: single["systems"][system].get(k) for k in keys}, (row, system)


def test_a_system_is_fitted_once_per_task(release, capsys, monkeypatch):
    cls = registry.entry("nn").system_class()
    fits = []
    original = cls.fit

    def counted(self, train, dev=None):
        fits.append(len(train))
        return original(self, train, dev)
    monkeypatch.setattr(cls, "fit", counted)
    code, _, err = _run(capsys, "table2", "--release", str(release), "--systems", "nn", "--json")
    assert code == 0, err
    assert len(fits) == 1          # T1 only: scored on its test and OOV test files from the one fit


def test_an_archive_is_read_as_its_folder(release, tmp_path, capsys):
    tarball = babi_toy.archive(release, tmp_path / "dialog_babi.tar.gz")
    _, folder, _ = _run(capsys, "table2", "--release", str(release), "--systems", SYSTEMS, "--json", "--quiet")
    code, packed, err = _run(capsys, "table2", "--release", str(tarball), "--systems", SYSTEMS, "--json", "--quiet")
    assert code == 0, err
    folder, packed = json.loads(folder), json.loads(packed)
    for row in ("T1", "T1-OOV"):
        assert packed["tasks"][row]["systems"]["nn"]["per_response"] == \
            folder["tasks"][row]["systems"]["nn"]["per_response"]
    # the files are named in the archive (the folder they were unpacked into is gone)
    assert packed["tasks"]["T1"]["test"]["file"] == f"{tarball}:dialog-babi-task1-API-calls-tst.txt"
    assert packed["release"] == str(tarball)


def test_the_text_gives_each_row_and_the_papers_under_it(release, capsys):
    code, out, _ = _run(capsys, "table2", "--release", str(release), "--systems", SYSTEMS, "--quiet")
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[:1] == ["row"])
    assert lines[head].split() == ["row", "rules", "tfidf", "nn"]
    assert lines[head + 1].split()[0] == "T1"
    assert lines[head + 2].split() == ["paper", "100", "(100)", "5.6", "(0)", "55.1", "(0)"]
    assert lines[head + 3].split()[0] == "T1-OOV"
    assert lines[head + 4].split() == ["paper", "100", "(100)", "5.8", "(0)", "44.1", "(0)"]
    assert "(skipped T2: no test file in the release)" in lines


def test_columns_are_the_papers_six_or_changes_to_them():
    assert columns(None) == COLUMNS == ("rules", "tfidf", "nn", "embeddings", "memn2n", "memn2n+match")
    assert columns("-tfidf,+hcn") == ("rules", "nn", "embeddings", "memn2n", "memn2n+match", "hcn")
    assert columns("nn,rules") == ("nn", "rules")
    for bad, says in (("nn,-tfidf", "not both"), ("+nn", "a column already"), ("-hcn", "not a column"),
                      ("nosuch", "nosuch")):
        with pytest.raises(Dstc2ConvError, match=says):
            columns(bad)


def test_release_and_files_together_or_neither_are_refused(release, capsys):
    code, _, err = _run(capsys, "table2", "--release", str(release), "--test", str(release))
    assert code == 2 and "without --test" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(capsys, "table2", "--train", str(release))
    assert code == 2 and "missing: --dev, --test" in err
    code, _, err = _run(capsys, "table2", "--release", str(release.parent / "nosuch"))
    assert code == 2 and "nosuch" in err


def test_the_python_api_gives_the_table_and_its_frame(release, capsys):
    import dstc2conv

    result = dstc2conv.whole_table(release, systems=["rules", "nn"])
    code, out, _ = _run(capsys, "table2", "--release", str(release), "--systems", "rules,nn", "--json", "--quiet")
    assert code == 0
    printed = json.loads(out)
    def figures(whole):      # what holds whatever the timing: not the seconds
        return {row: {name: {k: v for k, v in system.items() if k not in ("seconds", "seeds")}
                      for name, system in table["systems"].items()} for row, table in whole["tasks"].items()}
    assert figures(result.to_dict()) == figures(printed)
    assert result.to_dict()["skipped"] == printed["skipped"]
    frame = result.frame()
    assert list(frame.index.names) == ["row", "system"]
    assert list(frame.index) == [("T1", "rules"), ("T1", "nn"), ("T1-OOV", "rules"), ("T1-OOV", "nn")]
    assert frame.loc[("T1-OOV", "nn"), "paper_per_response"] == 0.441
    assert frame.loc[("T1", "nn"), "per_response"] == printed["tasks"]["T1"]["systems"]["nn"]["per_response"]
    wide = frame["per_response"].unstack("system")
    assert list(wide.index) == ["T1", "T1-OOV"]


def test_a_release_without_its_candidates_file_says_so(release, capsys):
    (release / "dialog-babi-candidates.txt").unlink()
    code, out, err = _run(capsys, "table2", "--release", str(release), "--systems", "nn", "--json")
    assert code == 0
    assert "table2: T1: no candidates file in the release" in err
    assert json.loads(out)["tasks"]["T1"]["candidates"]["from"] == "TRN, DEV and every TST"
