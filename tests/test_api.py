"""The Python API (``import dstc2conv``, dstc2conv/api/): each function against the command
it stands for, run in the same test; the pandas tables and their figures, worked out by
hand on tiny files; the errors; the lazy imports. (The examples of docs/api.md run in
test_docs_examples.py.)"""
from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GOLDEN, REFERENCE, ROOT, SAMPLE, need, write_rule_files

import dstc2conv
from dstc2conv.cli import run
from dstc2conv.evaluate.tables import cell

GREETING = ("Hello , welcome to the Cambridge restaurant system . You can ask for restaurants by area , "
            "price range or food type . How may I help you ?")

# 2 dialogs, 6 bot turns. Gold kinds: greeting 2, api_call 1, offer 1, closing 2.
TINY = f"""\
1 <SILENCE>\t{GREETING}
2 thai food\tapi_call thai R_location R_price
3 blue_door R_cuisine thai
4 blue_door R_location north
5 <SILENCE>\tblue_door is a nice place in the north of town serving tasty thai food
6 thanks\tyou are welcome

1 <SILENCE>\t{GREETING}
2 bye\tyou are welcome

"""
# Right: turn 1 (greeting), turn 2 (api_call, spaces around it do not count), turn 6
# (closing): 3/6; dialog 1 has a wrong turn (the offer), so does dialog 2 (the greeting).
PREDICTIONS = [GREETING, " api_call thai R_location R_price ", "blue_door is great", "you are welcome",
               "What kind of food would you like?", "you are welcome"]
# Dialog 1 is of system S0, dialog 2 of S1: S0 3/4 right, S1 1/2.
MANIFEST = {"files": {"tiny.txt": {"split": "dev", "dialogs": ["Mar13_S0A1/voip-a", "Mar13_S1A0/voip-b"]}}}


@pytest.fixture
def tiny(tmp_path) -> Path:
    path = tmp_path / "tiny.txt"
    path.write_text(TINY)
    return path


@pytest.fixture
def tiny_with_manifest(tiny) -> Path:
    (tiny.parent / "manifest.json").write_text(json.dumps(MANIFEST))
    return tiny


def cli(argv, capsys) -> tuple[int, str, str]:
    code = run([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- read, write, turns

def test_read_then_write_gives_back_the_file(tiny, tmp_path):
    dialogs = dstc2conv.read(tiny)
    assert [len(d.lines) for d in dialogs] == [6, 2]
    assert dialogs[0].lines[2] == dstc2conv.Context("blue_door R_cuisine thai")
    assert dialogs[1].lines[1] == dstc2conv.Exchange("bye", "you are welcome")
    dstc2conv.write(dialogs, tmp_path / "again.txt")
    assert (tmp_path / "again.txt").read_bytes() == tiny.read_bytes()


def test_read_an_empty_file_gives_no_dialogs_and_write_of_none_an_empty_file(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    assert dstc2conv.read(tmp_path / "empty.txt") == []
    dstc2conv.write([], tmp_path / "none.txt")
    assert (tmp_path / "none.txt").read_bytes() == b""


NO_BREAK = "a task-6 line holds no line break but the LF that ends it, no byte-order mark and no lone surrogate"


@pytest.mark.parametrize("lines, message, line", [
    ((dstc2conv.Exchange("a\tb", "c"),), "dialog 2, the user utterance 'a\\tb': a tab: the one "
     "tab of an exchange separates the user utterance from the bot's", 3),
    ((dstc2conv.Exchange("a", "b"), dstc2conv.Exchange("a", "two\nlines")),
     f"dialog 2, the bot utterance 'two\\nlines': a line feed: {NO_BREAK}", 4),
    ((dstc2conv.Exchange("a", "b"), dstc2conv.Exchange("a\ufeffb", "c")),
     "dialog 2, the user utterance 'a\\ufeffb': a byte-order mark that is not at the start of the file", 4),
    ((dstc2conv.Exchange("a", "b"), dstc2conv.Context("a\ufeff R_rating 1")),
     "dialog 2, the context line 'a\\ufeff R_rating 1': a byte-order mark that is not at the start of the file", 4),
    ((dstc2conv.Exchange("a\ud800", "b"),), f"dialog 2, the user utterance 'a\\ud800': a lone surrogate (U+D800): "
     f"{NO_BREAK}", 3),
    ((dstc2conv.Exchange("a", "b"), dstc2conv.Context("not a fact")),
     "dialog 2: a context line is neither a result fact (name R_attr value) nor 'api_call no result': "
     "'not a fact'", 4),
    ((), "dialog 2 has no lines", 3),
])
def test_write_refuses_what_would_not_read_back_and_writes_nothing(tmp_path, lines, message, line):
    first = dstc2conv.Dialog((dstc2conv.Exchange("hi", "hello"),))
    out = tmp_path / "out.txt"
    with pytest.raises(dstc2conv.Dstc2ConvError) as caught:
        dstc2conv.write([first, dstc2conv.Dialog(lines)], out)
    assert str(caught.value) == f"{out}:{line}: {message}"
    assert not out.exists()


def test_turns_of_a_file_and_of_its_dialogs_are_the_same(tiny):
    from_file = dstc2conv.turns(tiny)
    assert from_file == dstc2conv.turns(dstc2conv.read(tiny))
    assert [(t.dialog, t.index, t.line) for t in from_file] == [(0, 0, 1), (0, 1, 2), (0, 2, 5), (0, 3, 6),
                                                                 (1, 0, 8), (1, 1, 9)]
    assert from_file[1].context == ("blue_door R_cuisine thai", "blue_door R_location north")
    assert from_file[2].gold.startswith("blue_door is a nice place")


# ---------------------------------------------------------------- build and compare

def test_build_writes_what_the_command_writes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)   # no data_raw/ here: the shipped sample is built
    result = dstc2conv.build(split="test", out="api")
    assert capsys.readouterr().out == ""          # the API does not print
    assert cli(["build", "--split", "test", "--out", "command", "--quiet"], capsys)[0] == 0
    assert [os.path.basename(p) for p in result.written] == [
        "dialog-babi-task6-dstc2-tst.txt", "dialog-babi-task6-dstc2-candidates.txt",
        "dialog-babi-task6-dstc2-kb.txt", "manifest.json"]
    for path in result.written:
        assert Path(path).read_bytes() == (tmp_path / "command" / os.path.basename(path)).read_bytes()
    assert Path(result.written[0]).read_bytes() == (GOLDEN / "sample-tst.txt").read_bytes()
    assert result.manifest.to_json() == (tmp_path / "api" / "manifest.json").read_text()
    assert result.manifest.files["dialog-babi-task6-dstc2-tst.txt"].split == "test"


def test_build_passes_its_options_and_notes_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    notes = []
    result = dstc2conv.build(split="all", raw=str(ROOT / "tests" / "data" / "sample"), out=tmp_path / "o",
                             seed=3, jobs=1, log=notes.append)
    assert result.manifest.settings.seed == 3
    assert {os.path.basename(p) for p in result.written} >= {"dialog-babi-task6-dstc2-trn.txt",
                                                             "dialog-babi-task6-dstc2-dev.txt"}
    assert any("dialogs" in note for note in notes)
    with pytest.raises(dstc2conv.Dstc2ConvError, match="unknown split 'tst': choose train, dev, test or all"):
        dstc2conv.build(split="tst", out=tmp_path / "p")
    assert not (tmp_path / "p").exists()


def test_compare_gives_the_report_the_command_prints_as_json(tiny, tmp_path, capsys):
    other = tmp_path / "other.txt"
    other.write_text(TINY.replace("you are welcome\n\n1", "goodbye\n\n1"))
    report = dstc2conv.compare(other, tiny)
    assert not report.identical
    assert report.kind("system turn differs").count == 1
    assert (report.measure("dialogs").count, report.measure("dialogs").total) == (1, 2)
    code, out, _ = cli(["compare", other, tiny, "--json"], capsys)
    assert code == 1
    assert json.loads(out) == json.loads(json.dumps(report.to_dict(), sort_keys=True))
    assert dstc2conv.compare(tiny, tiny).identical


# ---------------------------------------------------------------- rules and predictions

RULES = f"""\
ontology: ontology.yaml
patterns:
  hello: {GREETING}
  bye: you are welcome
rules:
  - id: greet
    priority: 100
    when: {{first_turn: true}}
    say: hello
  - id: bye
    priority: 50
    when: {{user_words: {{any: [thanks, bye]}}}}
    say: bye
"""


def test_predict_names_the_rule_of_each_prediction_as_rules_predict_writes_them(tmp_path, capsys):
    rules_path, data = write_rule_files(tmp_path, RULES, "food: [thai]\narea: [north]\nprice: [cheap]\n"
                                                         "served: [thai]\n", TINY)
    rules = dstc2conv.load_rules(rules_path)
    predictions = dstc2conv.predict(rules, data)
    assert [(p.rule, p.text) for p in predictions] == [
        ("greet", GREETING), (None, ""), (None, ""), ("bye", "you are welcome"), ("greet", GREETING),
        ("bye", "you are welcome")]
    assert dstc2conv.predict(rules_path, dstc2conv.turns(data)) == predictions
    assert dstc2conv.predict(rules, dstc2conv.read(data)) == predictions
    assert cli(["rules", "predict", "--rules", rules_path, "--data", data, "--out", tmp_path / "p.txt"], capsys)[0] == 0
    assert (tmp_path / "p.txt").read_text().split("\n")[:-1] == [p.text for p in predictions]


def test_load_rules_without_a_path_loads_the_shipped_rules():
    rules = dstc2conv.load_rules()
    assert Path(rules.path).name == "dstc2.yaml" and Path(rules.path).parent.name == "rules"
    assert Path(rules.path).read_bytes() == (ROOT / "rules" / "dstc2.yaml").read_bytes()


def test_load_rules_raises_every_problem_of_a_bad_file(tmp_path):
    bad = RULES.replace("say: bye", "say: farewell").replace("first_turn: true", "first_turn: maybe")
    rules_path, _ = write_rule_files(tmp_path, bad, "food: [thai]\narea: [north]\nprice: [cheap]\nserved: [thai]\n",
                                     TINY)
    with pytest.raises(dstc2conv.Dstc2ConvError) as caught:
        dstc2conv.load_rules(rules_path)
    lines = str(caught.value).split("\n")
    assert [line.split(": ", 1)[0] for line in lines] == [f"{rules_path}:8", f"{rules_path}:13"]
    assert "first_turn" in lines[0] and "no pattern named 'farewell'" in lines[1]


# ---------------------------------------------------------------- scoring

def test_score_by_hand(tiny_with_manifest):
    result = dstc2conv.score(PREDICTIONS, tiny_with_manifest)
    assert result.figures["accuracy"] == {"per_response": 4 / 6, "per_dialog": 0.0, "responses": 6, "correct": 4,
                                          "dialogs": 2, "dialogs_correct": 0}
    assert result.per_response == pytest.approx(4 / 6) and result.per_dialog == 0.0
    # the one api_call turn is right, spaces aside, and so is each of its slots
    assert result.figures["api_call"] == {"accuracy": 1.0, "turns": 1, "correct": 1, "cuisine": 1.0,
                                          "location": 1.0, "price": 1.0}
    by_kind = result.by_kind()
    assert by_kind.index.name == "kind"
    assert by_kind.to_dict("index") == {
        "api_call": {"responses": 1, "correct": 1, "per_response": 1.0},
        "greeting": {"responses": 2, "correct": 1, "per_response": 0.5},
        "offer": {"responses": 1, "correct": 0, "per_response": 0.0},
        "closing": {"responses": 2, "correct": 2, "per_response": 1.0}}
    by_system = result.by_system()
    assert by_system.loc["S0", ["responses", "correct", "dialogs", "dialogs_correct"]].tolist() == [4, 3, 1, 0]
    assert by_system.loc["S1", ["responses", "correct", "dialogs", "dialogs_correct"]].tolist() == [2, 1, 1, 0]
    assert by_system.loc["S1", "per_response"] == 0.5


def test_score_gives_the_figures_of_the_command(tiny_with_manifest, tmp_path, capsys):
    preds = tmp_path / "preds.txt"
    preds.write_text("\n".join(PREDICTIONS) + "\n")
    for options in ([], ["--metrics", "accuracy,api_call"], ["--match", "lower"]):
        code, out, _ = cli(["score", preds, tiny_with_manifest, "--json", *options], capsys)
        assert code == 0
        expected = json.loads(out)
        keywords = {"metrics": ["accuracy", "api_call"]} if "--metrics" in options else {}
        if "--match" in options:
            keywords["match"] = "lower"
        for given in (preds, str(preds), PREDICTIONS):
            result = dstc2conv.score(given, tiny_with_manifest, **keywords)
            assert result.to_dict() == expected
            assert result.by_kind().to_dict("index") == expected["by_kind"]
            assert result.by_system().to_dict("index") == expected["by_system"]


def test_the_turns_table_holds_what_score_turns_writes(tiny_with_manifest, tmp_path, capsys):
    preds = tmp_path / "preds.txt"
    preds.write_text("\n".join(PREDICTIONS) + "\n")
    code, _, _ = cli(["score", preds, tiny_with_manifest, "--turns", tmp_path / "turns.jsonl"], capsys)
    assert code == 0
    written = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    table = dstc2conv.score(preds, tiny_with_manifest).turns_table()
    assert len(written) == len(table)
    # the same columns but two: the command names the dialog's system dialog_system, and
    # writes the gold stripped; the table has the rule too
    assert set(written[0]) - set(table.columns) == {"dialog_system"}
    assert set(table.columns) - set(written[0]) == {"system", "rule"}
    for row, (_, mine) in zip(written, table.iterrows()):
        assert row.pop("dialog_system") == mine["system"]
        assert row.pop("gold") == mine["gold"].strip()
        assert row == {key: mine[key] for key in row}


def test_score_with_some_metrics_only(tiny):
    result = dstc2conv.score(PREDICTIONS, tiny, metrics=["api_call"])
    assert list(result.figures) == ["api_call"]
    assert result.signature.split("|")[1:-1] == ["match:strip", "api_call"]
    for figure in (lambda: result.per_response, result.by_kind):
        with pytest.raises(dstc2conv.Dstc2ConvError, match="accuracy is not among the metrics scored"):
            figure()
    assert result.turns_table()["api_call_correct"].tolist() == [None, True, None, None, None, None]
    with pytest.raises(dstc2conv.Dstc2ConvError, match="no metric 'blue' \\(did you mean bleu"):
        dstc2conv.score(PREDICTIONS, tiny, metrics=["blue"])
    with pytest.raises(TypeError, match="a list of metric names"):
        dstc2conv.score(PREDICTIONS, tiny, metrics="bleu")


def test_turns_table(tiny_with_manifest):
    table = dstc2conv.turns_table(tiny_with_manifest)
    assert table.columns.tolist() == ["dialog", "turn", "line", "system", "kind", "user", "gold"]
    assert table[["dialog", "turn", "line", "system", "kind"]].values.tolist() == [
        [1, 1, 1, "S0", "greeting"], [1, 2, 2, "S0", "api_call"], [1, 3, 5, "S0", "offer"],
        [1, 4, 6, "S0", "closing"], [2, 1, 8, "S1", "greeting"], [2, 2, 9, "S1", "closing"]]
    assert table["user"].tolist()[:2] == ["<SILENCE>", "thai food"]
    result = dstc2conv.score(PREDICTIONS, tiny_with_manifest, metrics=["accuracy", "bleu", "api_call"])
    scored = result.turns_table()
    assert scored.columns.tolist()[7:] == ["prediction", "rule", "correct", "bleu_matched", "bleu_total",
                                           "api_call_correct", "api_call_cuisine", "api_call_location",
                                           "api_call_price"]
    assert scored["correct"].tolist() == [True, True, False, True, False, True]
    assert scored["prediction"].tolist() == PREDICTIONS
    assert scored["rule"].isna().all()
    assert scored.iloc[:, :7].equals(table)
    # "you are welcome": 3 words, so 3, 2, 1 and 0 n-grams, every one of them matched
    assert scored.loc[3, "bleu_matched"] == scored.loc[3, "bleu_total"] == [3, 2, 1, 0]
    assert scored["api_call_price"].tolist() == [None, True, None, None, None, None]


def test_turns_table_without_a_manifest_has_no_systems(tiny):
    assert dstc2conv.turns_table(tiny)["system"].isna().all()
    with pytest.raises(dstc2conv.Dstc2ConvError, match="no manifest names the dialog systems"):
        dstc2conv.score(PREDICTIONS, tiny).by_system()


def test_the_rules_of_predictions_show_in_the_turns_table(tmp_path):
    rules_path, data = write_rule_files(tmp_path, RULES, "food: [thai]\narea: [north]\nprice: [cheap]\n"
                                                         "served: [thai]\n", TINY)
    predictions = dstc2conv.predict(rules_path, data)
    table = dstc2conv.score(predictions, data).turns_table()
    assert table["rule"].tolist() == ["greet", None, None, "bye", "greet", "bye"]
    assert table["correct"].tolist() == [True, False, False, True, True, True]


def test_score_errors(tiny, tmp_path, capsys):
    with pytest.raises(dstc2conv.Dstc2ConvError) as caught:
        dstc2conv.score(PREDICTIONS[:5], tiny)
    assert str(caught.value) == f"{tiny}: 5 predictions for 6 bot turns: give one prediction per bot turn, in order"
    preds = tmp_path / "preds.txt"
    preds.write_text("just one\n")
    with pytest.raises(dstc2conv.Dstc2ConvError) as caught:
        dstc2conv.score(preds, tiny)
    code, _, err = cli(["score", preds, tiny], capsys)
    assert code == 2 and err == f"dstc2conv: error: {caught.value}\n"
    with pytest.raises(TypeError):
        dstc2conv.score([1, 2, 3, 4, 5, 6], tiny)


def test_a_bad_file_raises_the_line_the_command_prints(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 hello\tHi\n2 no tab here\n")
    code, _, err = cli(["score", bad, bad], capsys)
    assert code == 2
    for call in (lambda: dstc2conv.turns(bad), lambda: dstc2conv.score([], bad), lambda: dstc2conv.turns_table(bad),
                 lambda: dstc2conv.predict(dstc2conv.load_rules(), bad)):
        with pytest.raises(dstc2conv.Dstc2ConvError) as caught:
            call()
        assert err == f"dstc2conv: error: {caught.value}\n"
        assert (caught.value.path, caught.value.line) == (str(bad), 2)


# ---------------------------------------------------------------- the rules report

def test_rules_report_holds_the_tables_of_the_command(tiny_with_manifest, tmp_path, capsys):
    rules = dstc2conv.load_rules()
    report = dstc2conv.rules_report(rules, tiny_with_manifest, by_system=True)
    assert list(report) == ["rules", "kinds", "confusions"]
    code, _, _ = cli(["rules", "report", "--data", tiny_with_manifest, "--format", "csv", "--out", tmp_path / "csv",
                      "--by-system", "--quiet", "--rules", rules.path], capsys)
    assert code == 0
    for name, frame in report.items():
        with open(tmp_path / "csv" / f"{name}.csv", newline="") as fh:
            rows = list(csv.reader(fh))
        assert frame.columns.tolist() == rows[0]
        shown = [[cell(None if v != v else v, "") for v in row] for row in frame.values.tolist()]   # NaN: no turns
        assert shown == rows[1:]
    assert "S0 fired" in report["rules"].columns
    top = dstc2conv.rules_report(rules, tiny_with_manifest, top=1)
    assert all(len(frame) == 1 for frame in top.values())
    assert top["rules"].iloc[0].tolist() == report["rules"].iloc[0, :4].tolist()


def test_rules_report_by_system_needs_a_manifest_and_only_it_reads_one(tiny):
    rules = dstc2conv.load_rules()
    with pytest.raises(dstc2conv.Dstc2ConvError, match="by_system needs the build's manifest.json"):
        dstc2conv.rules_report(rules, tiny, by_system=True)
    with pytest.raises(dstc2conv.Dstc2ConvError, match=re.escape("manifest= is for by_system=True")):
        dstc2conv.rules_report(rules, tiny, manifest=tiny.parent / "manifest.json")
    (tiny.parent / "manifest.json").write_text("not JSON")     # not read without by_system
    assert len(dstc2conv.rules_report(rules, tiny)["rules"])
    with pytest.raises(dstc2conv.Dstc2ConvError, match="the manifest is not valid JSON"):
        dstc2conv.rules_report(rules, tiny, by_system=True)


# ---------------------------------------------------------------- the package's names

def _python(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_importing_the_package_or_the_command_line_loads_no_stage_and_no_pandas():
    loaded = _python("import sys, dstc2conv.cli; print(sorted(m for m in sys.modules "
                     "if m.startswith('dstc2conv') or m.split('.')[0] in ('pandas', 'numpy')))")
    # the package, the command line and foundation modules only: no stage of the pipeline
    foundation = {"arguments", "errors", "files", "limits", "reporter", "version"}
    names = [name.strip("[',]") for name in loaded.split()]
    assert {"dstc2conv", "dstc2conv.cli"} <= set(names)
    assert {name.split(".", 1)[1] for name in names if name.count(".")} <= foundation | {"cli"}, names
    # pandas (a dependency) and numpy are imported when a table is asked for, not before
    assert not [name for name in names if name.split(".")[0] in ("pandas", "numpy")], names


def test_every_name_of_the_package_is_there_and_build_stays_the_function():
    assert set(dstc2conv.__all__) <= set(dir(dstc2conv))
    for name in dstc2conv.__all__:
        assert getattr(dstc2conv, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        dstc2conv.nothing  # noqa: B018
    # the build stage is the package dstc2conv.builder: importing it leaves the function alone
    out = _python("import dstc2conv.builder.pipeline as pipeline, dstc2conv\n"
                  "print(callable(dstc2conv.build), dstc2conv.build.__module__, pipeline.__name__)")
    assert out.split() == ["True", "dstc2conv.api.functions", "dstc2conv.builder.pipeline"]


# ---------------------------------------------------------------- the published dev file

def test_a_notebook_scores_the_published_dev_file_as_the_command_does(tmp_path, capsys):
    dev = str(need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    rules = dstc2conv.load_rules()
    predictions = dstc2conv.predict(rules, dev)
    result = dstc2conv.score(predictions, dev)
    by_kind = result.by_kind()

    preds = tmp_path / "preds.txt"
    assert cli(["rules", "predict", "--rules", rules.path, "--data", dev, "--out", preds, "--quiet"], capsys)[0] == 0
    code, out, _ = cli(["score", preds, dev, "--json"], capsys)
    assert code == 0
    expected = json.loads(out)
    assert preds.read_text().split("\n")[:-1] == [p.text for p in predictions]
    assert list(by_kind.index) == list(expected["by_kind"])
    assert by_kind.to_dict("index") == expected["by_kind"]
    assert int(by_kind["responses"].sum()) == expected["responses"] == len(predictions)
    assert int(by_kind["correct"].sum()) == expected["correct"]
    assert result.to_dict() == expected
    code, text, _ = cli(["score", preds, dev], capsys)
    assert f"per-response accuracy  {result.per_response:.2%}" in text
    table = result.turns_table()
    assert len(table) == expected["responses"] and int(table["correct"].sum()) == expected["correct"]
    assert table.groupby("kind", sort=False)["correct"].sum().to_dict() == {
        kind: part["correct"] for kind, part in expected["by_kind"].items()}


def test_build_never_writes_over_a_kb_it_reads(tmp_path):
    out = tmp_path / "out"
    dstc2conv.build(split="test", raw=SAMPLE, out=out, kb="logs")
    kb = out / "dialog-babi-task6-dstc2-kb.txt"
    kb.write_text(kb.read_text() + "1 made_up R_cuisine thai\n")
    before = kb.read_bytes()
    # a KB file is written byte for byte as it was read: the input is replaced only by itself
    result = dstc2conv.build(split="test", raw=SAMPLE, out=out, kb=kb, replace=True)
    assert kb.read_bytes() == before and str(kb) in result.written
    assert result.manifest.kb.sha256 == result.manifest.checksums[kb.name]


# ---------------------------------------------------------------- any system, by name, saved and loaded

def test_predict_takes_any_fitted_system_and_the_rules_keep_their_ids(tiny, tmp_path):
    rules = dstc2conv.predict(dstc2conv.load_rules(), tiny)
    assert dstc2conv.predict(dstc2conv.system("rules"), tiny) == rules       # a rules system: the rule ids too
    nn = dstc2conv.system("nn").fit(tiny)
    found = dstc2conv.predict(nn, dstc2conv.read(tiny))
    assert [p.rule for p in found] == [None] * 6
    assert [p.text for p in found] == [r[0] for r in dstc2conv.rank(nn, dstc2conv.read(tiny))]
    assert dstc2conv.score(found, tiny).per_response == 5 / 6     # the offer is asked with the greeting's words
    nn.save(tmp_path / "model")
    assert dstc2conv.predict(dstc2conv.load(tmp_path / "model"), dstc2conv.turns(tiny)) == found
    with pytest.raises(dstc2conv.Dstc2ConvError, match="nn: not fitted"):
        dstc2conv.predict(dstc2conv.system("nn"), tiny)


def test_the_contracts_names_are_the_packages():
    from dstc2conv.systems import check, interface, registry

    assert (dstc2conv.System, dstc2conv.clone, dstc2conv.load, dstc2conv.check_system) == (
        interface.System, interface.clone, registry.load, check.check_system)
    copy = dstc2conv.clone(dstc2conv.system("tfidf", input="last"))
    assert copy.get_params() == {"candidates": None, "input": "last"} and not copy.fitted()


def test_a_module_in_the_current_folder_is_found_by_the_command(tiny, tmp_path):
    (tmp_path / "oursystem.py").write_text(
        "import dstc2conv\n\n\nclass Hello(dstc2conv.System):\n    def rank(self, user, k):\n"
        "        return ('you are welcome',)\n")
    done = subprocess.run([str(Path(sys.executable).parent / "dstc2conv"), "table2", "--train", tiny.name, "--dev",
                           tiny.name, "--test", tiny.name, "--systems", "rules,oursystem:Hello"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr
    assert re.search(r"^oursystem:Hello +33\.33% ", done.stdout, re.M)
