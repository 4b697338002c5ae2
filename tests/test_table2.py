"""`dstc2conv table2` on tiny hand-written files: each system's figures are those of its
own command, the comparison with the rules is the paired bootstrap's, what TST is and
what its figures compare with is said, systems not installed are one line."""
from __future__ import annotations

import json
from dataclasses import replace
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
    assert out.splitlines()[-2:] == [
        "(embeddings: one training each, seed 0, and another seed moves their figures: --seeds 0,1,2 gives the "
        "mean (min-max) of three; rules: one run, nothing drawn at random)",
        "(vs rules: the difference in per-response accuracy, and its 95% interval by a paired bootstrap of 1000 "
        "resamples of the dialogs, seed 0)"]
    code, out, _ = _run(capsys, *_table2(files, "--systems", "embeddings", "--quiet", "--json"))
    row = json.loads(out)["systems"]["embeddings"]
    assert [run["seed"] for run in row["seeds"]] == [0] and row["mean"] == row["min"] == row["max"]
    assert row["mean"] == {"per_response": row["per_response"], "per_dialog": row["per_dialog"]}


def _by_hand(files, name, seed):
    """The system of ``name`` fitted with ``seed`` in Python: its outcome at each turn of TST."""
    from dstc2conv.systems.interface import predict
    from dstc2conv.task6.candidates import distinct

    trn, dev, tst = (turns_of(task6.read(files[k])) for k in ("trn", "dev", "tst"))
    pool = distinct(t.gold for t in (*trn, *dev, *tst))
    system = registry.build(name, pool, seed=seed, epochs=4).fit(trn, dev)
    return [p.strip() == t.gold.strip() for p, t in zip(predict(system, tst), tst)], tst


def test_a_learned_row_is_trained_once_per_seed(files, capsys, monkeypatch):
    from dstc2conv.systems.memn2n import MemN2N

    monkeypatch.setitem(registry.SYSTEMS, "memn2n", registry.Entry(
        "memn2n", "dstc2conv.systems.memn2n:MemN2N", "MemN2N", "four epochs", (("epochs", 4),)))
    assert MemN2N(seed=3).seeded()
    code, out, _ = _run(capsys, *_table2(files, "--systems", "rules,nn,memn2n", "--seeds", "2,0,5", "--json",
                                         "--quiet", "--bootstrap", "100"))
    result = json.loads(out)
    rows = result["systems"]
    assert code == 0 and result["seeds"] == [2, 0, 5]
    assert rows["rules"]["seeds"] is None and rows["nn"]["seeds"] is None
    runs = rows["memn2n"]["seeds"]
    assert [one["seed"] for one in runs] == [2, 0, 5]
    rules = [bool(x) for x in _rules_outcomes(files)]
    for one in runs:
        outcomes, tst = _by_hand(files, "memn2n", one["seed"])
        assert one["correct"] == sum(outcomes) and one["per_response"] == sum(outcomes) / len(tst)
        if one["seed"] == 2:     # the first seed's training: the counts and the comparison with the rules
            first = outcomes
            assert rows["memn2n"]["correct"] == one["correct"]
    figures = [one["per_response"] for one in runs]
    assert rows["memn2n"]["per_response"] == rows["memn2n"]["mean"]["per_response"] == pytest.approx(sum(figures) / 3)
    assert (rows["memn2n"]["min"]["per_response"], rows["memn2n"]["max"]["per_response"]) == (min(figures), max(figures))
    boot = paired_bootstrap(rules, first, tst, 100, 0)
    assert rows["memn2n"]["vs_rules"] == {"difference": (sum(first) - sum(rules)) / len(tst), **boot.to_dict()}


def _rules_outcomes(files):
    from dstc2conv.systems.interface import predict
    from dstc2conv.systems.rules.system import Rules

    turns = turns_of(task6.read(files["tst"]))
    return [p.strip() == t.gold.strip() for p, t in zip(predict(Rules().fit(), turns), turns)]


def test_the_text_gives_the_mean_and_range_of_the_seeds(files, capsys, monkeypatch):
    from dstc2conv.systems import table2 as module

    runs = [module.Run(seed, {"per_response": share, "per_dialog": 0.0, "correct": 0, "dialogs_correct": 0,
                              "responses": 7, "dialogs": 2}, (False,) * 7, 1.0, 1.0)
            for seed, share in ((0, 0.5), (1, 0.25), (2, 0.75))]

    def fitted(names, pool, trn, dv, tst, seeds, task=None):
        assert seeds == (0, 1, 2)
        return [module.Row("memn2n", "", (41.1, 0.0), tuple(runs)),
                module.Row("nn", "", (21.9, 0.0), (replace(runs[0], seed=None),))], []
    monkeypatch.setattr(module, "_fitted_rows", fitted)
    code, out, _ = _run(capsys, *_table2(files, "--systems", "memn2n,nn", "--seeds", "0,1,2", "--quiet"))
    lines = out.splitlines()
    assert code == 0
    assert lines[7].split() == ["memn2n", "50.00%", "(25.00%-75.00%)", "0.00%", "(0.00%-0.00%)", "41.1%", "/", "0.0%"]
    assert lines[8].split() == ["nn", "50.00%", "0.00%", "21.9%", "/", "0.0%"]
    assert lines[-1] == ("(memn2n: the mean (min-max) of 3 trainings each, seeds 0, 1 and 2; the widest range per "
                         "response: memn2n, 50.00 points; nn: one run, nothing drawn at random)")


@pytest.mark.parametrize("seeds, message", [
    ("0,0", "argument --seeds: a seed is given twice: 0, 0"),
    ("a", "argument --seeds: 'a': give seeds as whole numbers from 0, comma-separated (0,1,2)"),
    ("", "argument --seeds: '': give seeds"), ("-1", "argument --seeds: '-1': give seeds")])
def test_bad_seeds_are_one_line(files, capsys, seeds, message):
    with pytest.raises(SystemExit) as stopped:
        run(_table2(files, "--systems", "nn", "--seeds", seeds))
    captured = capsys.readouterr()
    assert (stopped.value.code, captured.out) == (2, "") and len(captured.err.splitlines()) == 1
    assert captured.err.startswith(f"dstc2conv table2: error: {message}"), captured.err


@pytest.mark.parametrize("seeds, message", [
    ([], "seeds: give one seed or more"), ("0,1", "seeds: give a list of whole numbers, e.g. [0, 1, 2], not '0,1'"),
    ([0, 1.5], "seeds: 1.5 is not a whole number from 0 to 2**63 - 1"), ([1, 1], "seeds: a seed is given twice: 1, 1")])
def test_bad_seeds_from_python_are_a_dstc2conv_error(files, seeds, message):
    import dstc2conv

    with pytest.raises(dstc2conv.Dstc2ConvError) as raised:
        dstc2conv.table2(files["trn"], files["dev"], files["tst"], systems=["nn"], seeds=seeds)
    assert raised.value.message == message


def test_the_python_tables_carry_the_seeds(files):
    import dstc2conv

    result = dstc2conv.table2(files["trn"], files["dev"], files["tst"], systems=["rules", "nn", "embeddings"],
                              seeds=[0, 1], resamples=50)
    frame = result.frame()
    assert list(frame.index) == ["rules", "nn", "embeddings"] and list(frame["seeds"]) == [1, 1, 2]
    row = result.to_dict()["systems"]["embeddings"]
    assert frame.loc["embeddings", "per_response"] == pytest.approx(row["mean"]["per_response"])
    assert (frame.loc["embeddings", "per_response_min"], frame.loc["embeddings", "per_response_max"]) == (
        row["min"]["per_response"], row["max"]["per_response"])
    assert frame.loc["embeddings", "vs_rules"] == row["vs_rules"]["difference"]
    assert frame.loc["nn", "paper_per_response"] == 0.219
    runs = result.runs_frame()
    assert list(zip(runs["system"], runs["seed"])) == [("rules", None), ("nn", None), ("embeddings", 0),
                                                       ("embeddings", 1)]
    assert list(runs["correct"][2:]) == [run["correct"] for run in row["seeds"]]


def test_the_chooser_is_trained_once_unless_it_hides_proposals(files, tmp_path):
    """With hide 0 (the default) its training draws nothing: seeds 0 and 1 give the same model."""
    from dstc2conv.systems.chooser.system import RulesLearned

    assert not RulesLearned().seeded() and RulesLearned(hide=0.2).seeded()
    trn, dev = turns_of(task6.read(files["trn"])), turns_of(task6.read(files["dev"]))
    for seed in (0, 1):
        RulesLearned(seed=seed).fit(trn, dev).save(tmp_path / str(seed))
    assert (tmp_path / "0" / "weights.npz").read_bytes() == (tmp_path / "1" / "weights.npz").read_bytes()


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
