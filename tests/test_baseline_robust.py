"""The rule baseline on bad input: empty data files, rule files that are wrong in several
places at once, of the wrong types, slow regular expressions, alias bombs; the score
history in the user's cache; tune's progress."""
from __future__ import annotations

import json
import os
import pickle
import sys

import pytest
from conftest import ONTOLOGY, write_rule_files

from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems.rules.history import history_path
from dstc2conv.systems.rules.problems import Problem, RuleFileError
from dstc2conv.systems.rules.ruleset import ALIAS_LIMIT, KNOWN_RULE_KEYS, RULE_ID, RULE_KEYS, load_rules

RULES = """\
ontology: ontology.yaml
patterns:
  hello: Welcome .
  ask_food: Which food?
  offer: "{name} serves {food}"
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

DIALOG = """\
1 <SILENCE>\tWelcome .
2 hello\tWhich food?
3 thai please\tWhich food?
4 bye\t you are welcome
"""


@pytest.fixture
def write(tmp_path):
    def _write(rules=RULES, ontology=ONTOLOGY, data=DIALOG, folder="."):
        return write_rule_files(tmp_path, rules, ontology, data, folder)
    return _write


def _errors(capsys, *argv) -> list[str]:
    assert run(list(argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == "" or "valid" not in captured.out
    return captured.err.splitlines()


# ---------------------------------------------------------------- empty data

NO_DIALOGS = "no dialogs (the file is empty or only empty lines)"


@pytest.mark.parametrize("data, message", [("", NO_DIALOGS), ("\n\n", NO_DIALOGS),
                                           ("1 api_call no result\n2 pasta_palace R_cuisine italian\n", "no bot turns")])
@pytest.mark.parametrize("command", [["score"], ["score", "--no-history"], ["predict", "--out", "P"],
                                     ["report"], ["tune", "--out", "T"], ["check"]])
def test_a_data_file_without_bot_turns_is_an_error(write, capsys, tmp_path, data, message, command):
    rules, data_path = write(data=data)
    argv = [str(tmp_path / a) if a in ("P", "T") else a for a in command]
    assert _errors(capsys, "rules", *argv[:1], "--rules", rules, "--data", data_path, *argv[1:]) == [
        f"dstc2conv: error: {data_path}: {message}"]
    assert not (tmp_path / "P").exists() and not (tmp_path / "T").exists()


# ---------------------------------------------------------------- every problem at once

BROKEN = """\
ontology: ontology.yaml
colour: red
patterns:
  hello: Welcome .
  ask_food: Which food?
  offer: "{name} serves {food}"
  two: "{name}{food} here"
  bye: you are welcome
rules:
  - id: greet
    priority: high
    when: {first_turn: true}
    say: hello
  - id: bye
    priority: 90
    enabled: "false"
    when: {user_words: {any: [[phone, number], 3, null]}}
    say: bye
  - id: mark-food
    when: {user_silent: true}
    set: {food: thai}
    offer: true
  - id: bye
    when: {turn_at_least: true, marked: never}
    say: byebye
"""


def test_every_problem_of_a_file_is_reported_at_once(write, capsys):
    rules, _ = write(rules=BROKEN, ontology=ONTOLOGY + "colours: [red]\nsynonyms: {food: {tai: 3}}\n")
    ontology = os.path.join(os.path.dirname(rules), "ontology.yaml")
    expected = [
        f"{rules}:2: unknown key 'colour' (known: ontology, patterns, rules)",
        f"{rules}:7: pattern 'two': two fields in one word",
        f"{rules}:11: 'priority' must be an integer, not 'high' (greet)",
        f"{rules}:16: 'enabled' must be true or false, not 'false' (bye)",
        f"{rules}:17: condition 'user_words': item 1 must be a non-empty string, not a list (bye)",
        f"{rules}:22: 'offer' goes with 'say' (a response that names the restaurant offered) (mark-food)",
        f"{rules}:23: duplicate rule id (first at line 14) (bye)",
        f"{rules}:24: condition 'turn_at_least' takes an integer, not true (bye)",
        f"{rules}:25: no pattern named 'byebye' (bye)",
        f"{ontology}:5: unknown key 'colours' (known: area, food, price, served, slots, spaced_names, synonyms)",
        f"{ontology}:6: synonym 'tai' maps to 3, which is not a food value",
    ]
    with pytest.raises(RuleFileError) as err:
        load_rules(rules)
    assert [str(p) for p in err.value.problems] == expected
    assert (err.value.path, err.value.line, err.value.rule_id) == (rules, 2, None)   # the first
    assert _errors(capsys, "rules", "check", "--rules", rules) == [f"dstc2conv: error: {e}" for e in expected]
    # `marked: [never]` is not reported: its rule has other problems, so it is not built


def test_problems_are_frozen_values_and_the_error_pickles(write):
    problem = Problem("r.yaml", 3, "bad", "rule-1")
    assert str(problem) == "r.yaml:3: bad (rule-1)" and str(Problem("o.yaml", None, "bad")) == "o.yaml: bad"
    with pytest.raises(AttributeError):
        problem.line = 4
    error = pickle.loads(pickle.dumps(RuleFileError([problem, Problem("r.yaml", 9, "worse")])))
    assert isinstance(error, Dstc2ConvError)
    assert str(error) == "r.yaml:3: bad (rule-1)\nr.yaml:9: worse"


# ---------------------------------------------------------------- strict types

@pytest.mark.parametrize("edit, line, message, rule_id", [
    (("{user_words: bye}", "{user_words: {any: [[phone, number], 3, null]}}"), 14,
     "condition 'user_words': item 1 must be a non-empty string, not a list", "bye"),
    (("{user_words: bye}", "{user_words: {any: [bye, 3]}}"), 14,
     "condition 'user_words': item 2 must be a non-empty string, not 3", "bye"),
    (("{user_words: bye}", "{user_words: {all: [bye, null]}}"), 14,
     "condition 'user_words': item 2 must be a non-empty string, not null", "bye"),
    (("{user_words: bye}", "{user_words: {any: []}}"), 14,
     "condition 'user_words': 'any' takes a non-empty list of words, not an empty list", "bye"),
    (("    say: bye\n", "    say: bye\n    enabled: \"false\"\n"), 16,
     "'enabled' must be true or false, not 'false'", "bye"),
    (("    say: bye\n", "    say: bye\n    enabled: 0\n"), 16, "'enabled' must be true or false, not 0", "bye"),
    # YAML 1.1's other spellings of true and false are not taken for them
    (("    say: bye\n", "    say: bye\n    enabled: no\n"), 16, "'enabled' must be true or false, not 'no'", "bye"),
    (("{first_turn: true}", "{first_turn: yes}"), 10, "condition 'first_turn' takes true or false, not 'yes'",
     "greet"),
    (("{first_turn: true}", "{first_turn: On}"), 10, "condition 'first_turn' takes true or false, not 'On'",
     "greet"),
    (("    say: bye\n", "    say: bye\n    api_call: 1\n"), 16, "'api_call' must be true or false, not 1", "bye"),
    (("    say: bye\n", "    say: bye\n    note: [a]\n"), 16, "'note' must be text, not a list", "bye"),
    (("    priority: 90\n", "    priority: true\n"), 13, "'priority' must be an integer, not true", "bye"),
    (("    priority: 90\n", "    priority: 9.5\n"), 13, "'priority' must be an integer, not 9.5", "bye"),
    (("{first_turn: true}", "{first_turn: 1}"), 10, "condition 'first_turn' takes true or false, not 1", "greet"),
    (("{first_turn: true}", "{turn_at_most: false}"), 10,
     "condition 'turn_at_most' takes an integer, not false", "greet"),
    (("{first_turn: true}", "{user_regex: 3}"), 10,
     "condition 'user_regex' takes a regular expression (a string), not 3", "greet"),
    (("{missing: food}", "{missing: {all: [food, 2]}}"), 18,
     "condition 'missing': item 2 must be a non-empty string, not 2", "ask-food"),
    (("    when: {missing: food}\n    say: ask_food\n",
      "    when: {missing: food}\n    set: {food: thai}\n    offer: true\n"), 20,
     "'offer' goes with 'say' (a response that names the restaurant offered)", "ask-food"),
    (("    when: {missing: food}\n    say: ask_food\n", "    when: {missing: food}\n    set: {food: 7}\n"), 19,
     "'set': food takes a value, dontcare or null, not 7", "ask-food"),
    (("    when: {missing: food}\n    say: ask_food\n", "    when: {missing: food}\n    mark: [a, [b]]\n"),
     19, "'mark' takes a flag name or a list of them", "ask-food"),
    (("  bye: you are welcome\n", "  bye: 42\n"), 6, "pattern 'bye' must be a string, not 42", None),
    (("  - id: ask-food\n", "  - id: 12\n"), 16, "a rule needs an 'id' (a string of printable characters)", None),
])
def test_types_are_checked_strictly(write, capsys, edit, line, message, rule_id):
    assert edit[0] in RULES
    rules, _ = write(rules=RULES.replace(*edit))
    with pytest.raises(RuleFileError) as err:
        load_rules(rules)
    problems = err.value.problems
    assert (problems[0].path, problems[0].line, problems[0].rule_id) == (rules, line, rule_id)
    assert problems[0].message.startswith(message)
    suffix = f" ({rule_id})" if rule_id else ""
    assert _errors(capsys, "rules", "check", "--rules", rules)[0].startswith(f"dstc2conv: error: {rules}:{line}: ")
    assert str(problems[0]).endswith(suffix)


@pytest.mark.parametrize("ontology, line, message", [
    (ONTOLOGY + "colour: [red]\n", 5, "unknown key 'colour' (known: area, food, price, served, slots, spaced_names, synonyms)"),
    (ONTOLOGY.replace("[thai, noodles]", "[thai, 3]"), 1, "'food': item 2 must be a non-empty string, not 3"),
    (ONTOLOGY.replace("[cheap, expensive]", "cheap"), 3, "'price' takes a list of values"),
    (ONTOLOGY.replace("served: [thai]", "served: [thai, pizza]"), 4, "served: 'pizza' is not a food value"),
    (ONTOLOGY + "synonyms:\n  food:\n    tai: [thai]\n", 7, "synonym 'tai' maps to a list, which is not a food value"),
    (ONTOLOGY + "synonyms:\n  colour:\n    red: thai\n", 6, "synonyms: unknown slot 'colour'"),
])
def test_ontology_problems(write, capsys, ontology, line, message):
    rules, _ = write(ontology=ontology)
    path = os.path.join(os.path.dirname(rules), "ontology.yaml")
    assert _errors(capsys, "rules", "check", "--rules", rules)[0].startswith(
        f"dstc2conv: error: {path}:{line}: {message}")


def test_a_valid_file_still_loads(write, capsys):
    rules, data = write()
    assert run(["rules", "check", "--rules", rules, "--data", data]) == 0
    assert capsys.readouterr().out == (f"{rules}: 3 rules, 4 patterns: valid\n"
                                       f"every response rule answers some of the 4 bot turns of {data}\n")


# ---------------------------------------------------------------- bounds

def _alias_bomb(levels: int) -> str:
    lines = ["  a0: &a0 [w, w, w, w, w, w, w, w, w]"]
    for i in range(1, levels):
        lines.append(f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "anchors:\n" + "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_with_its_line(write, capsys):
    # nine levels of nine aliases: 9**9 words if expanded; it stops where the aliases so far
    # pass ALIAS_LIMIT nodes: a4 (each of its aliases brings 9**3 + 9**2 + 9 + 1 = 820 nodes)
    bomb = _alias_bomb(9)
    rules = RULES.replace("rules:\n", bomb + "rules:\n").replace("{user_words: bye}", "{user_words: {any: *a8}}")
    rules_path, data = write(rules=rules)
    line = rules.splitlines().index([x for x in rules.splitlines() if x.startswith("  a4:")][0]) + 1
    assert _errors(capsys, "rules", "score", "--rules", rules_path, "--data", data) == [
        f"dstc2conv: error: {rules_path}:{line}: YAML: aliases expand to more than {ALIAS_LIMIT} nodes"]


def test_a_few_aliases_are_fine(write, capsys):
    rules = RULES.replace("rules:\n", "rules:\n  - id: thanks\n    when: {user_words: &bye {any: [thanks, bye]}}\n"
                                      "    say: bye\n").replace("{user_words: bye}", "{user_words: *bye}")
    rules_path, data = write(rules=rules)
    ruleset = load_rules(rules_path)
    assert [r.id for r in ruleset.rules] == ["thanks", "greet", "bye", "ask-food"]


def test_a_slow_regex_is_found_when_the_rules_load(write, capsys):
    # catastrophic backtracking on a run of "a" that does not end the text
    rules, data = write(rules=RULES.replace("{user_words: bye}", "{user_regex: '^(a|a)+$'}"))
    expected = [f"dstc2conv: error: {rules}:14: regular expression too slow (bye)"]
    assert _errors(capsys, "rules", "check", "--rules", rules) == expected
    assert _errors(capsys, "rules", "score", "--rules", rules, "--data", data) == expected


@pytest.mark.parametrize("command", [["score", "--no-history"], ["check"], ["tune", "--out", "T"]])
def test_a_slow_regex_is_stopped_on_the_data(write, capsys, tmp_path, command):
    # "abab...ab!" backtracks 2**30 ways; the probe when loading does not try it
    rules, data = write(rules=RULES.replace("{user_words: bye}", "{user_regex: '^(ab|ab)+$'}"),
                        data=DIALOG.replace("3 thai please", "3 " + "ab" * 30 + "!"))
    assert run(["rules", "check", "--rules", rules]) == 0
    capsys.readouterr()
    argv = [str(tmp_path / a) if a == "T" else a for a in command]
    assert _errors(capsys, "rules", argv[0], "--rules", rules, "--data", data, *argv[1:]) == [
        f"dstc2conv: error: {rules}:14: regular expression too slow (bye)"]


# ---------------------------------------------------------------- history

def _score(capsys, rules, data, *extra):
    assert run(["rules", "score", "--rules", rules, "--data", data, *extra]) == 0
    return capsys.readouterr()


def test_history_lives_in_the_user_cache_not_beside_the_data(write, capsys, tmp_path):
    rules, data = write(folder="shared")
    folder = tmp_path / "shared"
    os.chmod(folder, 0o555)
    try:
        first = _score(capsys, rules, data)
        assert "against" not in first.out
        assert first.err == ("dstc2conv: no earlier scoring of other rules in this rule file on this data: nothing "
                             "to compare with (--against shipped compares with the shipped rules)\n"
                             f"dstc2conv: rules {rules}\n")
        # the user has ask-food ask whatever the user said
        fixed = RULES.replace("{missing: food}", "{turn_at_least: 1}")
        with open(rules, "w") as fh:
            fh.write(fixed)
        second = _score(capsys, rules, data)
    finally:
        os.chmod(folder, 0o755)
    assert sorted(os.listdir(folder)) == ["data.txt"]
    kept = history_path(data)
    assert kept.startswith(str(tmp_path / "cache" / "dstc2conv" / "history") + os.sep)
    assert os.path.basename(kept).startswith("data.txt-") and os.path.isdir(kept)
    assert len(os.listdir(kept)) == 3                   # the index and two scorings
    assert "per-response accuracy  100.00%  (4/4)" in second.out
    assert "change                 +25.00% per response (1 turn now right, 0 now wrong), +100.00% per dialog" \
        in second.out
    # the old prediction and the new one, under the change of rule
    assert ("  no rule -> ask-food: 1 now right, 0 now wrong\n"
            "    now right: dialog 1 line 3  user: 'thai please'  gold: 'Which food?'  "
            "was: ''  now: 'Which food?'\n") in second.out


def test_history_is_keyed_by_the_absolute_path(write, tmp_path):
    rules, data = write()
    assert history_path(data) != history_path(str(tmp_path / "elsewhere" / "data.txt"))
    assert history_path(data, "h") == os.path.join("h", os.path.basename(history_path(data)))


def test_a_changed_data_file_is_said_on_stderr(write, capsys):
    rules, data = write()
    _score(capsys, rules, data)
    with open(data, "a") as fh:
        fh.write("\n1 <SILENCE>\tWelcome .\n")
    again = _score(capsys, rules, data)
    assert "against" not in again.out and "per-response accuracy  80.00%  (4/5)" in again.out
    assert again.err.startswith("dstc2conv: the data file changed since the last score: nothing to compare with")
    assert _score(capsys, rules, data, "--quiet").err == ""


def test_a_corrupt_history_is_one_line_and_kept(write, capsys):
    rules, data = write()
    _score(capsys, rules, data)
    index = os.path.join(history_path(data), "index.json")
    with open(index, "w") as fh:
        fh.write('{"version": 3, "entries": ')
    assert _errors(capsys, "rules", "score", "--rules", rules, "--data", data) == [
        f"dstc2conv: error: {index}: the score history is unreadable: remove the folder to start a new one, "
        "or score with --no-history"]
    assert open(index).read() == '{"version": 3, "entries": '       # left for the user to look at
    assert "75.00%" in _score(capsys, rules, data, "--no-history").out


def test_a_history_that_cannot_be_read_is_an_error(write, capsys, tmp_path):
    rules, data = write()
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    index = os.path.join(history_path(data, str(blocker / "history")), "index.json")
    assert _errors(capsys, "rules", "score", "--rules", rules, "--data", data, "--history-dir",
                   str(blocker / "history")) == [
        f"dstc2conv: error: {index}: cannot read the score history: Not a directory (--no-history scores without it)"]


def test_a_failed_save_keeps_the_printed_score(write, capsys, monkeypatch):
    rules, data = write()
    _score(capsys, rules, data)

    def cannot(path, text):
        raise Dstc2ConvError("cannot write: No space left on device", path)

    monkeypatch.setattr("dstc2conv.systems.rules.history.write_text_atomic", cannot)
    with open(rules, "w") as fh:
        fh.write(RULES.replace("{missing: food}", "{turn_at_least: 1}"))
    for extra in ([], ["--json"]):
        result = _score(capsys, rules, data, "--quiet", *extra)
        assert "100.00%" in result.out or json.loads(result.out)["correct"] == 4
        assert result.err.startswith("dstc2conv: warning: the score is not kept for the next comparison: ")
        assert result.err.endswith(": cannot write: No space left on device\n")
    # --save asked for the pin: not kept is an error
    assert run(["rules", "score", "--rules", rules, "--data", data, "--save", "v1"]) == 2
    assert capsys.readouterr().err.endswith(": cannot write: No space left on device\n")


def test_json_flips_carry_both_predictions(write, capsys):
    rules, data = write()
    _score(capsys, rules, data)
    with open(rules, "w") as fh:
        fh.write(RULES.replace("{missing: food}", "{turn_at_least: 1}"))
    out = json.loads(_score(capsys, rules, data, "--json", "--context", "2").out)["against"]
    assert (out["label"], out["now_right"], out["now_wrong"]) == ("last", 1, 0)
    assert out["by_kind"] == {"other": {"responses": 3, "now_right": 1, "now_wrong": 0, "delta": 1 / 3}}
    assert out["groups"] == [{"before_rule": None, "now_rule": "ask-food", "now_right": 1, "now_wrong": 0,
                              "examples": [{"turn": "dialog 1 line 3", "dialog": 1, "line": 3, "flip": "right",
                                            "user": "thai please", "gold": "Which food?", "before": "",
                                            "before_rule": None, "now": "Which food?", "now_rule": "ask-food",
                                            "context": ["1 <SILENCE> | Welcome .", "2 hello | Which food?"]}]}]


# ---------------------------------------------------------------- progress

def test_tune_shows_progress_on_a_terminal_only(write, capsys, monkeypatch, tmp_path):
    # ask-food answers every turn, above bye: tuning moves bye up (round 1), then finds
    # nothing more (round 2)
    rules, data = write(rules=RULES.replace("priority: 90", "priority: 5").replace("{missing: food}",
                                                                                 "{turn_at_least: 1}"))
    out = str(tmp_path / "tuned.yaml")
    assert run(["rules", "tune", "--rules", rules, "--data", data, "--out", out]) == 0
    assert capsys.readouterr().err == ""                         # not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert run(["rules", "tune", "--rules", rules, "--data", data, "--out", out]) == 0
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert [line.split(":")[1] for line in lines] == [" round 0", " round 1", " round 2"]
    assert lines[0].startswith("tune: round 0: 75.00% per response, ")
    assert lines[2].startswith("tune: round 2: 100.00% per response, ") and lines[2].endswith(" s")
    assert "after   100.00% per response" in captured.out and "tune:" not in captured.out
    assert run(["rules", "tune", "--rules", rules, "--data", data, "--out", out, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_quiet_predict(write, capsys, tmp_path):
    rules, data = write()
    preds = str(tmp_path / "preds.txt")
    assert run(["rules", "predict", "--rules", rules, "--data", data, "--out", preds]) == 0
    assert capsys.readouterr().err == f"dstc2conv: 4 predictions written to {preds}\n"
    assert run(["rules", "predict", "--rules", rules, "--data", data, "--out", preds, "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------- where the outputs go

def test_predict_follows_a_link_and_writes_to_stdout(write, capsys, tmp_path):
    rules, data = write()
    link, target = tmp_path / "link.txt", tmp_path / "target.txt"
    link.symlink_to(target)
    assert run(["rules", "predict", "--rules", rules, "--data", data, "--out", str(link), "--quiet"]) == 0
    assert link.is_symlink() and target.read_text().count("\n") == 4
    capsys.readouterr()
    assert run(["rules", "predict", "--rules", rules, "--data", data, "--out", "-"]) == 0
    assert capsys.readouterr().out == target.read_text()


def test_an_output_that_cannot_be_written_is_found_before_the_work(write, capsys, tmp_path, monkeypatch):
    import dstc2conv.systems.rules.cli as rules_cli

    rules, data = write()
    monkeypatch.setattr(rules_cli, "_load", lambda args: pytest.fail("the work began"))
    monkeypatch.setattr(rules_cli, "_load_systems", lambda args: pytest.fail("the work began"))
    for command in ("predict", "tune"):
        assert _errors(capsys, "rules", command, "--rules", rules, "--data", data,
                       "--out", str(tmp_path / "no" / "x")) == [
            f"dstc2conv: error: {tmp_path / 'no' / 'x'}: cannot write: no folder {tmp_path / 'no'}"]
    assert _errors(capsys, "rules", "predict", "--rules", rules, "--data", data, "--out", str(tmp_path)) == [
        f"dstc2conv: error: {tmp_path}: cannot write: it is a folder"]


def test_report_csv_into_a_file_is_one_line(write, capsys, tmp_path):
    rules, data = write()
    taken = tmp_path / "taken"
    taken.write_text("")
    assert _errors(capsys, "rules", "report", "--rules", rules, "--data", data, "--format", "csv",
                   "--out", str(taken)) == [
        f"dstc2conv: error: {taken}: cannot write the CSV files: it is a file, not a folder"]


# ---------------------------------------------------------------- the schema of a rule

@pytest.mark.parametrize("key", [key.name for key in RULE_KEYS])
def test_each_key_of_the_table_refuses_a_value_of_another_type(write, key):
    rules, _ = write(f"ontology: ontology.yaml\npatterns: {{hello: Welcome .}}\nrules:\n  - id: r\n    {key}: [1]\n")
    with pytest.raises(RuleFileError) as err:
        load_rules(rules)
    entry = next(k for k in RULE_KEYS if k.name == key)
    message = f"{entry.message}, not a list" if entry.shown else entry.message
    assert f"{rules}:5: {message} (r)" in [str(p) for p in err.value.problems]


def test_an_absent_key_takes_the_default_of_the_table(write):
    rules, _ = write("ontology: ontology.yaml\npatterns: {hello: Welcome .}\nrules:\n  - {id: r, say: hello}\n")
    rule = load_rules(rules).rules[0]
    assert (rule.priority, rule.enabled, rule.api_call, rule.offer, rule.when, rule.set, rule.mark, rule.like) \
        == (0, True, False, False, (), (), (), None)


def test_null_is_absent_only_where_the_table_says_so(write):
    rules, _ = write("ontology: ontology.yaml\npatterns: {hello: Welcome .}\nrules:\n"
                     "  - {id: r, say: hello, note: null, when: null, set: null}\n"
                     "  - {id: s, say: hello, priority: null}\n")
    with pytest.raises(RuleFileError) as err:
        load_rules(rules)
    assert [str(p) for p in err.value.problems] == [f"{rules}:5: 'priority' must be an integer, not null (s)"]


def test_the_table_and_the_rule_agree_on_the_keys():
    assert KNOWN_RULE_KEYS == {"id", "priority", "enabled", "api_call", "offer", "note", "when", "say", "set", "mark",
                               "take_named"}
    assert RULE_ID.required and not any(key.required for key in RULE_KEYS)
