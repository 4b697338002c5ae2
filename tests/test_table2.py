"""`dstc2conv table2` on tiny hand-written files: each system's figures are those of its
own command, the comparison with the rules is the paired bootstrap's, what TST is and
what its figures compare with is said, systems not installed are one line."""
from __future__ import annotations

import json
from importlib import resources

import pytest
import toy

from dstc2conv.cli import run
from dstc2conv.evaluate.published import PUBLISHED
from dstc2conv.evaluate.responses import paired_bootstrap
from dstc2conv.systems import registry
from dstc2conv.systems.table2 import DataFile, comparable
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import turns_of

SHA = {split: sha for sha, (_, split) in PUBLISHED.items()}


@pytest.fixture
def files(tmp_path):
    return toy.write(tmp_path)


def _run(capsys, *argv):
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _table2(files, *more):
    return ["table2", "--train", files["trn"], "--dev", files["dev"], "--test", files["tst"], *more]


def test_each_systems_figures_are_those_of_its_own_command(files, tmp_path, capsys):
    code, out, err = _run(capsys, *_table2(files, "--systems", "rules,tfidf,nn", "--json"))
    assert code == 0
    result = json.loads(out)
    assert list(result["systems"]) == ["rules", "tfidf", "nn"] and result["unavailable"] == {}
    # the candidates: every distinct bot utterance of TRN, DEV and TST, in that order
    golds = [t.gold for name in ("trn", "dev", "tst") for t in turns_of(task6.read(files[name]))]
    assert result["candidates"] == {"count": len(dict.fromkeys(golds)), "from": "TRN, DEV and TST", "missing_gold": 0}
    candidates = tmp_path / "c.txt"
    candidates.write_text("".join(f"1 {g}\n" for g in dict.fromkeys(golds)))
    shipped = str(resources.files("dstc2conv.rulefiles") / "dstc2.yaml")
    own = {
        "rules": ["rules", "score", "--rules", shipped, "--data", files["tst"], "--no-history", "--json"],
        "tfidf": ["ir", "tfidf", "--train", files["trn"], "--dev", files["dev"], "--data", files["tst"],
                  "--candidates", str(candidates), "--out", str(tmp_path / "p.txt"), "--json", "--quiet"],
        "nn": ["ir", "nn", "--train", files["trn"], "--data", files["tst"], "--out", str(tmp_path / "p.txt"),
               "--json", "--quiet"]}
    for name, argv in own.items():
        code, printed, _ = _run(capsys, *argv)
        figures = json.loads(printed)
        keys = ("per_response", "per_dialog", "responses", "correct", "dialogs", "dialogs_correct")
        assert code == 0 and {k: result["systems"][name][k] for k in keys} == {k: figures[k] for k in keys}, name
    for name, (paper, _) in zip(("rules", "tfidf", "nn"), ((33.3, 0), (1.6, 0), (21.9, 0))):
        assert result["systems"][name]["paper"] == {"per_response": round(paper / 100, 4), "per_dialog": 0.0}


def test_the_comparison_with_the_rules_is_the_paired_bootstrap(files, capsys):
    code, out, _ = _run(capsys, *_table2(files, "--systems", "rules,nn", "--json", "--bootstrap", "200", "--seed", "3"))
    systems = json.loads(out)["systems"]
    assert code == 0 and "vs_rules" not in systems["rules"]
    turns = turns_of(task6.read(files["tst"]))
    # the outcomes, from the counts: rebuild them from each system's predictions
    from dstc2conv.systems.interface import predict
    from dstc2conv.systems.ir.nearest import NearestNeighbor
    from dstc2conv.systems.rules.system import Rules

    rules = [p.strip() == t.gold.strip() for p, t in zip(predict(Rules().fit(), turns), turns)]
    train = turns_of(task6.read(files["trn"]))
    nn = [p.strip() == t.gold.strip() for p, t in zip(predict(NearestNeighbor().fit(train), turns), turns)]
    boot = paired_bootstrap(rules, nn, turns, 200, 3)
    assert systems["nn"]["vs_rules"] == {"difference": (sum(nn) - sum(rules)) / len(turns), **boot.to_dict()}


def test_the_text_names_the_files_the_candidates_and_what_to_compare_with(files, capsys):
    code, out, err = _run(capsys, *_table2(files, "--systems", "rules,nn"))
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == f"TST                    {files['tst']} (7 bot turns)"
    assert lines[2] == "candidates             6 (every distinct bot utterance of TRN, DEV and TST)"
    assert lines[3] == ("note                   TST is no published task-6 file: its figures compare only with "
                        "figures on the same file")
    assert lines[6].split() == ["system", "per_response", "per_dialog", "paper", "vs", "rules", "95%", "interval"]
    assert lines[7].startswith("rules ") and lines[7].split()[3:] == ["33.3%", "/", "0.0%", "-", "-"]
    assert lines[8].startswith("nn ") and lines[8].split()[3:6] == ["21.9%", "/", "0.0%"]
    assert lines[9] == "(paper: per response / per dialog, Bordes & Weston 2017, Table 2, task 6, on the test file)"
    assert lines[10].startswith("(vs rules: the difference in per-response accuracy, and its 95% interval")
    assert len(lines) == 11       # no learned row: nothing said of seeds
    assert [line.split(":")[:2] for line in err.splitlines()] == [["table2", " rules"], ["table2", " nn"]]


def test_a_learned_row_says_it_is_one_training(files, capsys):
    code, out, _ = _run(capsys, *_table2(files, "--systems", "rules,embeddings", "--quiet"))
    assert code == 0
    assert [line for line in out.splitlines() if "seed 0" in line and "one training" in line] == [
        "(embeddings: one training each, seed 0; MemN2N trained with seeds 0, 1 and 2 scored 54.12%, 53.11% and "
        "52.34% on the published dev file, a spread as large as some gaps here: docs/learned.md)"]


def test_the_hcn_rows_say_whose_figures_stand_beside_them(files, capsys):
    code, out, _ = _run(capsys, *_table2(files, "--systems", "rules,hcn,hcn+turn-dropout", "--quiet"))
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("hcn")}
    assert "55.6% / -" in rows["hcn"] and "56.5% / -" in rows["hcn+turn-dropout"]
    assert [line for line in out.splitlines() if line.startswith("(paper:")] == [
        "(paper: per response / per dialog, Bordes & Weston 2017, Table 2, task 6, on the test file; hcn: HCN's; "
        "hcn+turn-dropout: the variational HCN's (Shalyminov & Lee 2018))"]


def test_systems_not_installed_are_one_line_and_the_others_still_print(files, capsys, monkeypatch):
    ghosts = {name: registry.Entry(name, f"dstc2conv.systems.ghost_{name}:Model", "MemN2N", "not here")
              for name in ("ghost1", "ghost2")}
    monkeypatch.setattr(registry, "SYSTEMS", {**registry.SYSTEMS, **ghosts})
    code, out, _ = _run(capsys, *_table2(files, "--systems", "nn,ghost1,ghost2", "--quiet"))
    assert code == 0 and "\nnn " in out
    assert [line for line in out.splitlines() if "not available" in line] == [
        "not available          ghost1, ghost2 (not in this version of dstc2conv)"]
    code, out, _ = _run(capsys, *_table2(files, "--systems", "nn,ghost1", "--json", "--quiet"))
    assert json.loads(out)["unavailable"] == {"ghost1": "not in this version of dstc2conv"}
    code, out, err = _run(capsys, *_table2(files, "--systems", "ghost1"))
    assert (code, out) == (2, "")
    assert err == ("dstc2conv: error: none of the systems asked for is available: "
                   "ghost1: not in this version of dstc2conv\n")


def test_a_candidates_file_without_some_gold_is_said(files, tmp_path, capsys):
    candidates = tmp_path / "c.txt"
    candidates.write_text(f"1 {toy.WELCOME}\n1 you are welcome\n")
    code, out, _ = _run(capsys, *_table2(files, "--systems", "tfidf", "--candidates", str(candidates), "--quiet"))
    assert code == 0
    assert out.splitlines()[2] == (f"candidates             2 ({candidates}); 3 distinct gold responses of TST "
                                   "are not among them")


@pytest.mark.parametrize("argv, message", [
    (["--systems", "rules,tfdf"], "no system 'tfdf' (did you mean tfidf?): give one of rules, tfidf, nn, embeddings, "
                                  "memn2n, memn2n+match, rules+learned, hcn, hcn+turn-dropout, or module:Class"),
    (["--systems", "nn,nn"], "a system is named twice: nn, nn"),
    (["--systems", " , "], "no system named: give some of rules, tfidf, nn, embeddings, memn2n, memn2n+match, rules+learned, "
                           "hcn, hcn+turn-dropout"),
])
def test_bad_systems_are_one_line(files, capsys, argv, message):
    code, out, err = _run(capsys, *_table2(files, *argv))
    assert (code, out, err) == (2, "", f"dstc2conv: error: {message}\n")


def test_a_bad_test_file_is_one_line(files, tmp_path, capsys):
    (tmp_path / "tst.txt").write_text("1 hello\n")
    code, out, err = _run(capsys, *_table2(files, "--systems", "nn"))
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and f"{files['tst']}:1" in err


def _file(split):
    return DataFile(split, SHA[split], 1, f"dialog-babi-task6-dstc2-{split}.txt", split)


def test_what_the_figures_compare_with():
    other = DataFile("x.txt", "0" * 64, 1, None, None)
    trn, dev, tst = _file("train"), _file("dev"), _file("test")
    assert comparable(trn, dev, tst, None) == (
        "TST is the published test file (dialog-babi-task6-dstc2-test.txt), TRN and DEV the published ones, the "
        "candidates the paper's set: comparable with the paper's row")
    assert comparable(trn, dev, tst, SHA["candidates"]).endswith("comparable with the paper's row")
    assert comparable(other, dev, tst, "1" * 64) == (
        "TST is the published test file (dialog-babi-task6-dstc2-test.txt), but TRN is not the published train "
        "file; the candidates are not the published candidates file: the paper's figures are a guide, not a "
        "like-for-like comparison")
    assert comparable(trn, dev, dev, None) == (
        "TST is the published dev file (dialog-babi-task6-dstc2-dev.txt), not the test file: the paper's figures "
        "are on the test file; compare with figures on this file only")
