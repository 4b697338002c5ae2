"""`rules report` on a tiny rule file and two dialogs: its text, markdown and CSV
tables, --top, --by-system, and its usage errors."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ONTOLOGY, ROOT, write_rule_files

from dstc2conv.cli import run

RULES = """\
ontology: ontology.yaml
patterns:
  hello: Welcome .
  ask_food: Which food?
  bye: you are welcome
rules:
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: bye
    priority: 90
    when: {user_words: bye}
    say: bye
  - id: ask-food
    priority: 10
    when: {missing: food}
    say: ask_food
"""

# dialog 1 from system S0, dialog 2 from S1
DIALOGS = """\
1 <SILENCE>\tWelcome .
2 hello\tWhich food?
3 thai please\tapi_call thai R_location R_price
4 bye\t you are welcome

1 <SILENCE>\tWelcome .
2 a | b\tWhich area?
3 noodles\tno noodles here
4 bye\t you are welcome
"""

MANIFEST = {"files": {"data.txt": {"split": "dev", "dialogs": ["Mar13_S0A0/voip-x", "Mar13_S1A0/voip-y"]}}}

MARKDOWN = """\
## rules

| rule | fired | correct | accuracy |
|---|---:|---:|---:|
| (none) | 2 | 0 | 0.00% |
| ask-food | 2 | 1 | 50.00% |
| bye | 2 | 2 | 100.00% |
| greet | 2 | 2 | 100.00% |

## kinds

| kind | turns | correct | accuracy |
|---|---:|---:|---:|
| Welcome . | 2 | 2 | 100.00% |
| you are welcome | 2 | 2 | 100.00% |
| Which area? | 1 | 0 | 0.00% |
| Which food? | 1 | 1 | 100.00% |
| api_call | 1 | 0 | 0.00% |
| no \\<food> here | 1 | 0 | 0.00% |

## confusions

| kind | predicted | count | rule | user | gold |
|---|---|---:|---|---|---|
| api_call | (nothing) | 1 | (none) | thai please | api_call thai R_location R_price |
| Which area? | Which food? | 1 | ask-food | a \\| b | Which area? |
| no \\<food> here | (nothing) | 1 | (none) | noodles | no noodles here |
"""

BY_SYSTEM = """\
## rules

rule      fired  correct  accuracy  S0 fired  S0 accuracy  S1 fired  S1 accuracy
(none)        2        0     0.00%         1        0.00%         1        0.00%
ask-food      2        1    50.00%         1      100.00%         1        0.00%
bye           2        2   100.00%         1      100.00%         1      100.00%
greet         2        2   100.00%         1      100.00%         1      100.00%

## kinds

kind             turns  correct  accuracy  S0 turns  S0 accuracy  S1 turns  S1 accuracy
Welcome .            2        2   100.00%         1      100.00%         1      100.00%
you are welcome      2        2   100.00%         1      100.00%         1      100.00%
Which area?          1        0     0.00%         0            -         1        0.00%
Which food?          1        1   100.00%         1      100.00%         0            -
api_call             1        0     0.00%         1        0.00%         0            -
no <food> here       1        0     0.00%         0            -         1        0.00%

## confusions

kind            predicted    count  rule      user         gold
api_call        (nothing)        1  (none)    thai please  api_call thai R_location R_price
Which area?     Which food?      1  ask-food  a | b        Which area?
no <food> here  (nothing)        1  (none)    noodles      no noodles here
"""


@pytest.fixture
def files(tmp_path):
    def _write(rules=RULES, data=DIALOGS, manifest=None):
        paths = write_rule_files(tmp_path, rules, ONTOLOGY, data)
        if manifest is not None:
            (tmp_path / "manifest.json").write_text(json.dumps(manifest))
        return paths
    return _write


def report(capsys, rules, data, *options) -> tuple[str, str]:
    assert run(["rules", "report", "--rules", rules, "--data", data, *options]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def error(capsys, rules, data, *options) -> str:
    """The one line a usage error prints (exit code 2)."""
    assert run(["rules", "report", "--rules", rules, "--data", data, *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_markdown_tables(files, capsys):
    assert report(capsys, *files(), "--format", "markdown") == (MARKDOWN, "")


def test_by_system_with_the_manifest_beside_the_data(files, capsys, tmp_path):
    out, err = report(capsys, *files(manifest=MANIFEST), "--by-system")
    assert out == BY_SYSTEM
    assert err == f"dstc2conv: dialog systems from {tmp_path / 'manifest.json'}\n"


def test_by_system_with_manifest_given(files, capsys, tmp_path):
    rules, data = files()
    elsewhere = tmp_path / "build"
    elsewhere.mkdir()
    # listed under another name: the only file of two dialogs is taken (a published file)
    (elsewhere / "manifest.json").write_text(json.dumps({"files": {"dev.txt": MANIFEST["files"]["data.txt"]}}))
    out, _ = report(capsys, rules, data, "--by-system", "--manifest", str(elsewhere / "manifest.json"), "--quiet")
    assert out == BY_SYSTEM


def test_systems_are_in_the_order_score_gives_them(files, capsys):
    # a session that names no system is "?": report's columns and score's parts agree on its place
    unknown = {"files": {"data.txt": {"split": "dev", "dialogs": ["Mar13_S1A0/voip-y", "odd/voip-z"]}}}
    rules, data = files(manifest=unknown)
    out, _ = report(capsys, rules, data, "--by-system", "--quiet")
    header = out.splitlines()[2]
    assert run(["rules", "score", "--rules", rules, "--data", data, "--no-history", "--json"]) == 0
    order = list(json.loads(capsys.readouterr().out)["by_system"])
    assert sorted(order) == ["?", "S1"]
    assert header.split()[4::4] == order


def test_by_system_needs_a_manifest(files, capsys):
    rules, data = files()
    assert error(capsys, rules, data, "--by-system") == (
        f"dstc2conv: error: {data}: --by-system needs the build's manifest.json beside the data file "
        "(listing it), or --manifest FILE")
    assert error(capsys, rules, data, "--manifest", "m.json") == "dstc2conv: error: --manifest is for --by-system"


def test_by_system_with_a_manifest_of_other_dialogs(files, capsys, tmp_path):
    one = {"files": {"data.txt": {"split": "dev", "dialogs": ["Mar13_S0A0/voip-x"]}}}
    rules, data = files(manifest=one)
    assert error(capsys, rules, data, "--by-system") == (
        f"dstc2conv: error: {tmp_path / 'manifest.json'}: the manifest lists 1 dialog for data.txt, "
        "the data file has 2: not the same dialogs")


def test_top_cuts_every_table_and_says_so(files, capsys):
    rules, data = files()
    out, _ = report(capsys, rules, data, "--top", "1")
    assert out == """\
## rules

rule    fired  correct  accuracy
(none)      2        0     0.00%
... 3 more rules (--top N shows more)

## kinds

kind       turns  correct  accuracy
Welcome .      2        2   100.00%
... 5 more kinds (--top N shows more)

## confusions

kind      predicted  count  rule    user         gold
api_call  (nothing)      1  (none)  thai please  api_call thai R_location R_price
... 2 more confusions (--top N shows more)
"""
    out, _ = report(capsys, rules, data, "--top", "5", "--format", "markdown")
    assert "... 1 more kind (--top N shows more)" in out
    assert "more rules" not in out and "more confusions" not in out
    # in markdown, a blank line ends the table before the note
    assert "| api_call | 1 | 0 | 0.00% |\n\n... 1 more kind" in out


def test_the_default_top_is_15(files, capsys):
    many = RULES + "".join(f"  - id: never-{i:02}\n    priority: 1\n    when: {{turn_at_least: 99}}\n"
                           f"    say: bye\n" for i in range(20))
    data = "".join(f"1 hello {i}\tWelcome .\n\n" for i in range(20))   # 20 kinds of user turn, one kind of answer
    data += "".join(f"1 hi\tanswer {i}\n\n" for i in range(20))          # 20 kinds of wrong answer
    rules, data = files(rules=many, data=data)
    out, _ = report(capsys, rules, data)
    assert "... 6 more kinds (--top N shows more)" in out
    assert "... 5 more confusions (--top N shows more)" in out
    assert "more rules" not in out   # rules that never fire are not in the table


def test_text_shows_every_column_whatever_the_width(files, capsys, monkeypatch):
    long_id = "ask-for-the-food-while-the-user-has-not-named-one-in-this-dialog"
    user = "i would like a restaurant in any part of town that serves something nice and is not too far"
    rules, data = files(rules=RULES.replace("ask-food", long_id),
                        data=DIALOGS.replace("a | b", user))
    monkeypatch.setenv("COLUMNS", "40")
    out, _ = report(capsys, rules, data)
    for header in ("rule", "fired", "correct", "accuracy", "kind", "turns", "predicted", "count", "user", "gold"):
        assert header in out
    assert f"\n{long_id}  " in out                 # rule ids in full ...
    assert f"  {long_id}  " in out                 # ... in the confusions too
    assert user[:57] + "...  Which area?" in out    # a long user turn shortened, the next column still there
    assert user not in out
    for line in out.splitlines():
        assert not line.endswith(" ")
    # piped, from another process, with a narrow terminal: the same text
    env = dict(os.environ, COLUMNS="40")
    piped = subprocess.run([sys.executable, "-m", "dstc2conv", "rules", "report", "--rules", rules,
                            "--data", data], capture_output=True, text=True, env=env, cwd=ROOT)
    assert piped.returncode == 0 and piped.stdout == out


def test_csv_needs_out(files, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rules, data = files()
    assert error(capsys, rules, data, "--format", "csv") == (
        "dstc2conv: error: --format csv needs --out DIR, the folder for rules.csv, kinds.csv and confusions.csv")
    assert not list(tmp_path.glob("*.csv"))
    assert error(capsys, rules, data, "--out", "tables") == (
        "dstc2conv: error: --out is for --format csv (text and markdown go to stdout)")
    assert not (tmp_path / "tables").exists()


def test_csv_writes_three_files_every_row(files, capsys, tmp_path):
    rules, data = files(manifest=MANIFEST)
    folder = tmp_path / "new" / "tables"
    out, _ = report(capsys, rules, data, "--format", "csv", "--out", str(folder), "--by-system", "--quiet")
    names = ("rules", "kinds", "confusions")
    assert out.splitlines() == [str(folder / f"{name}.csv") for name in names]
    assert (folder / "rules.csv").read_text() == """\
rule,fired,correct,accuracy,S0 fired,S0 accuracy,S1 fired,S1 accuracy
(none),2,0,0.00%,1,0.00%,1,0.00%
ask-food,2,1,50.00%,1,100.00%,1,0.00%
bye,2,2,100.00%,1,100.00%,1,100.00%
greet,2,2,100.00%,1,100.00%,1,100.00%
"""
    kinds = (folder / "kinds.csv").read_text().splitlines()
    assert len(kinds) == 7 and kinds[3] == "Which area?,1,0,0.00%,0,,1,0.00%"
    assert (folder / "confusions.csv").read_text() == """\
kind,predicted,count,rule,user,gold
api_call,(nothing),1,(none),thai please,api_call thai R_location R_price
Which area?,Which food?,1,ask-food,a | b,Which area?
no <food> here,(nothing),1,(none),noodles,no noodles here
"""


def test_csv_with_top(files, capsys, tmp_path):
    rules, data = files()
    out, err = report(capsys, rules, data, "--format", "csv", "--out", str(tmp_path), "--top", "2")
    assert len((tmp_path / "rules.csv").read_text().splitlines()) == 3
    assert len((tmp_path / "kinds.csv").read_text().splitlines()) == 3
    assert len((tmp_path / "confusions.csv").read_text().splitlines()) == 3
    assert err.splitlines() == [
        f"dstc2conv: {tmp_path / 'rules.csv'}: ... 2 more rules (--top N shows more)",
        f"dstc2conv: {tmp_path / 'kinds.csv'}: ... 4 more kinds (--top N shows more)",
        f"dstc2conv: {tmp_path / 'confusions.csv'}: ... 1 more confusion (--top N shows more)"]


@pytest.mark.parametrize("top", ["0", "-3"])
def test_top_below_one(files, capsys, top):
    assert error(capsys, *files(), "--top", top) == f"dstc2conv: error: --top {top}: give 1 or more"


def test_csv_into_something_that_is_not_a_folder(files, capsys, tmp_path):
    rules, data = files()
    taken = tmp_path / "taken"
    taken.write_text("")
    assert error(capsys, rules, data, "--format", "csv", "--out", str(taken / "sub")) == (
        f"dstc2conv: error: {taken / 'sub'}: cannot write the CSV files: Not a directory")
    assert taken.read_text() == ""


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anywhere")
def test_csv_into_a_read_only_folder(files, capsys, tmp_path):
    rules, data = files()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert error(capsys, rules, data, "--format", "csv", "--out", str(locked)) == (
            f"dstc2conv: error: {locked}: cannot write the CSV files: permission denied")
    finally:
        locked.chmod(0o755)
