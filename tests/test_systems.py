"""Scores by dialog system (from a build's manifest), tune's objectives, and how tune
writes its file: priorities changed only where the new order needs it, the ontology
line kept, test dialogs refused by what the manifest says."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import ROOT, write_rule_files
from test_baseline_rules import DIALOG, ONTOLOGY, RULES

from dstc2conv.cli import run
from dstc2conv.evaluate.sessions import system_of
from dstc2conv.systems.rules.engine import Compiled, predict
from dstc2conv.systems.rules.ruleset import load_rules, rule_order
from dstc2conv.systems.rules.tune import OBJECTIVES, _priorities, tune
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import turns_of

S0, S1 = "Mar13_S0A0/voip-x{:02}", "Mar13_S1A0/voip-y{:02}"


def manifest(folder, sessions, name="data.txt", split="train"):
    path = folder / "manifest.json"
    path.write_text(json.dumps({"files": {name: {"split": split, "dialogs": list(sessions)}}}))
    return str(path)


def _run(capsys, *argv):
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- score by system

def test_score_by_system_adds_up(tmp_path, capsys):
    # dialogs 1 and 2 of DIALOG from system S0, dialog 1 again from S1
    first = DIALOG.split("\n\n")[0] + "\n"
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG + "\n" + first, "d")
    manifest(tmp_path / "d", [S0.format(1), S0.format(2), S1.format(1)])   # beside the data
    code, out, _ = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history", "--json")
    whole = json.loads(out)
    parts = whole["by_system"]
    assert code == 0 and list(parts) == ["S0", "S1"]
    assert parts["S0"] == {"per_response": 10 / 11, "per_dialog": 0.5, "responses": 11, "correct": 10,
                           "dialogs": 2, "dialogs_correct": 1}
    assert parts["S1"] == {"per_response": 1.0, "per_dialog": 1.0, "responses": 7, "correct": 7,
                           "dialogs": 1, "dialogs_correct": 1}
    for key in ("responses", "correct", "dialogs", "dialogs_correct"):
        assert sum(part[key] for part in parts.values()) == whole[key]
    code, out, _ = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history")
    lines = out.splitlines()
    assert lines[0] == "per-response accuracy  94.44%  (17/18)"
    assert lines[3:] == ["system S0              90.91%  (10/11) per response, 50.00%  (1/2) per dialog",
                         "system S1              100.00%  (7/7) per response, 100.00%  (1/1) per dialog"]


def test_score_without_a_manifest_has_no_systems(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG)
    code, out, err = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history", "--json")
    assert code == 0 and "by_system" not in json.loads(out) and err == f"dstc2conv: rules {rules}\n"
    code, out, err = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history")
    assert code == 0 and "system" not in out and err == f"dstc2conv: rules {rules}\n"


def test_a_manifest_that_does_not_fit_is_one_line(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG, "d")
    wrong = manifest(tmp_path, [S0.format(1)])
    code, out, err = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history",
                          "--manifest", wrong)
    assert (code, out) == (2, "")
    assert err == (f"dstc2conv: error: {wrong}: the manifest lists 1 dialog for data.txt, "
                   "the data file has 2: not the same dialogs\n")
    (tmp_path / "d" / "manifest.json").write_text("{not json")          # beside the data: read, and wrong
    code, out, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out",
                          str(tmp_path / "t.yaml"))
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert err.startswith(f"dstc2conv: error: {tmp_path / 'd' / 'manifest.json'}: the manifest is not valid JSON")


@pytest.mark.parametrize("command", [["score", "--no-history"], ["tune", "--out", "t.yaml"]])
def test_manifest_none_does_without_a_broken_manifest_beside_the_data(tmp_path, capsys, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG, "d")
    beside = tmp_path / "d" / "manifest.json"
    beside.write_text("{not json")
    argv = ["rules", *command, "--rules", rules, "--data", data]
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (2, "") and err.startswith(f"dstc2conv: error: {beside}: the manifest is not valid JSON")
    assert err.endswith(" (--manifest none ignores it)\n")
    code, out, err = _run(capsys, *argv, "--manifest", "none")
    assert code == 0 and "system" not in out and "S0" not in out


@pytest.mark.parametrize("dialogs", [[1, 2], "Mar13_S0A0/voip-x", None])
def test_a_malformed_entry_for_the_file_is_named(tmp_path, capsys, dialogs):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG, "d")
    broken = tmp_path / "m.json"
    broken.write_text(json.dumps({"files": {"data.txt": {"split": "dev", "dialogs": dialogs}}}))
    code, out, err = _run(capsys, "rules", "score", "--rules", rules, "--data", data, "--no-history",
                          "--manifest", str(broken))
    assert (code, out) == (2, "")
    assert err == (f"dstc2conv: error: {broken}: the manifest's entry for data.txt is malformed: its 'dialogs' "
                   "must be a list of session names (strings)\n")


# ---------------------------------------------------------------- tune's objectives

# Every rule answers every turn, so the first enabled one answers all. S0 (12 dialogs of
# one turn): 6 want "a", 3 "c", 3 "z"; S1 (4): 3 want "b", 1 "c". First rule a: overall
# 6/16, mean (6/12 + 0/4) / 2 = .25, worst 0; b: 3/16, .375, 0; c: 4/16, .25, .25.
CHOICE_ONTOLOGY = "food: [thai]\narea: [north]\nprice: [cheap]\n"
CHOICE_RULES = """\
ontology: ontology.yaml
patterns: {z: z, a: a, b: b, c: c}
rules:
  - id: z
    priority: 40
    say: z
  - id: a
    priority: 30   # the most turns
    say: a
  - id: b
    priority: 20
    say: b
  - id: c
    priority: 10
    say: c
"""
GOLDS = ["a"] * 6 + ["c"] * 3 + ["z"] * 3 + ["b"] * 3 + ["c"]
CHOICE_DATA = "\n".join(f"1 hello\t{gold}\n" for gold in GOLDS)
CHOICE_SESSIONS = [S0.format(i) for i in range(12)] + [S1.format(i) for i in range(4)]


@pytest.fixture
def choice(tmp_path):
    rules, data = write_rule_files(tmp_path, CHOICE_RULES, CHOICE_ONTOLOGY, CHOICE_DATA)
    manifest(tmp_path, CHOICE_SESSIONS)
    return rules, data


def _answering(rules_path, data_path) -> set:
    turns = turns_of(task6.read(data_path))
    return {p.rule for p in predict(Compiled(load_rules(rules_path)), turns)}


@pytest.mark.parametrize("objective, first, before, after, systems", [
    ("overall", "a", "18.75% per response", "37.50% per response",
     ["  S0    25.00% -> 50.00% per response (3 -> 6 of 12)", "  S1    0.00% -> 0.00% per response (0 -> 0 of 4)"]),
    ("mean-system", "b", "12.50% per response, mean of the systems", "37.50% per response, mean of the systems",
     ["  S0    25.00% -> 0.00% per response (3 -> 0 of 12)", "  S1    0.00% -> 75.00% per response (0 -> 3 of 4)"]),
    ("worst-system", "c", "0.00% per response, worst system", "25.00% per response, worst system",
     ["  S0    25.00% -> 25.00% per response (3 -> 3 of 12)", "  S1    0.00% -> 25.00% per response (0 -> 1 of 4)"]),
])
def test_each_objective_chooses_its_own_order(choice, capsys, tmp_path, objective, first, before, after, systems):
    rules, data = choice
    out = str(tmp_path / f"{objective}.yaml")
    code, printed, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", out,
                            "--objective", objective)
    assert code == 0
    lines = printed.splitlines()
    assert lines[:4] == [f"before  {before}", f"after   {after}", *systems]
    assert _answering(out, data) == {first}


def test_progress_names_the_objective(choice, capsys, monkeypatch, tmp_path):
    rules, data = choice
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(tmp_path / "t.yaml"),
                        "--objective", "worst-system")
    assert code == 0 and err.startswith("tune: round 0: 0.00% per response, worst system, ")


def test_the_tuned_file_has_the_tuned_order(choice):
    rules, data = choice
    ruleset, turns = load_rules(rules), turns_of(task6.read(data))
    systems = tuple(system_of(s) for s in CHOICE_SESSIONS)
    for objective in OBJECTIVES:
        tuned = tune(ruleset, turns, systems=systems, objective=objective)
        assert tuple(r.id for r in sorted(tuned.rules, key=rule_order)) == tuned.order
        assert tuned.converged and tuned.rounds == 2


def test_mean_or_worst_needs_a_manifest(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, CHOICE_RULES, CHOICE_ONTOLOGY, CHOICE_DATA)
    code, out, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out",
                          str(tmp_path / "t.yaml"), "--objective", "worst-system")
    assert (code, out) == (2, "") and not (tmp_path / "t.yaml").exists()
    assert err == (f"dstc2conv: error: {data}: --objective worst-system needs each dialog's system: no "
                   "manifest.json beside the data lists it; give the build's with --manifest\n")


@pytest.mark.parametrize("budget", ["0", "-5", "soon"])
def test_budget_must_be_more_than_nothing(choice, capsys, budget):
    rules, data = choice
    with pytest.raises(SystemExit) as exc:
        run(["rules", "tune", "--rules", rules, "--data", data, "--out", "t.yaml", "--budget", budget])
    assert exc.value.code == 2 and "--budget" in capsys.readouterr().err


@pytest.mark.parametrize("budget", ["0", "-5", "soon"])
def test_the_transfer_benchmark_checks_its_budget_alike(budget):
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "transfer.py"), "--budget", budget],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "argument --budget: " in done.stderr


def test_a_search_cut_short_says_so(choice, capsys, tmp_path):
    rules, data = choice
    code, out, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out",
                        str(tmp_path / "t.yaml"), "--budget", "1e-9")
    assert code == 0 and "stopped by the time budget after 0 rounds; not converged" in out
    code, out, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(tmp_path / "t.yaml"))
    assert code == 0 and "not converged" not in out


def test_a_deadline_inside_a_round_is_not_convergence(tmp_path, monkeypatch):
    """The clock moves a second at each look: the 2.5 s budget ends after the first rule
    of round 1 (greet, which cannot do better), before the rule that can is tried."""
    import dstc2conv.systems.rules.tune as tune_module

    rules, data = write_rule_files(tmp_path, MOVE_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    ruleset, turns = load_rules(rules), turns_of(task6.read(data))
    clock = iter(range(1000))
    monkeypatch.setattr(tune_module.time, "monotonic", lambda: next(clock))
    cut = tune(ruleset, turns, budget_seconds=2.5)
    assert (cut.rounds, cut.converged, cut.after) == (1, False, cut.before)
    whole = tune(ruleset, turns, budget_seconds=100)
    assert whole.converged and whole.after == 1.0 > cut.after


# ---------------------------------------------------------------- what tune writes

def test_a_tune_that_changes_nothing_writes_the_same_bytes(tmp_path, capsys):
    best_first = CHOICE_RULES.replace("priority: 30   #", "priority: 50   #")   # a first: overall's best
    rules, data = write_rule_files(tmp_path, best_first, CHOICE_ONTOLOGY, CHOICE_DATA)
    out = tmp_path / "same.yaml"
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 0 and "changed 0 rules" in printed and err == ""
    assert out.read_bytes() == (tmp_path / "rules.yaml").read_bytes()


MOVE_RULES = """\
ontology: ontology.yaml
patterns: {hello: Welcome ., ask: "Which food?", bye: you are welcome, other: sorry}
rules:
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: ask
    priority: 50
    when: {turn_at_least: 1}
    say: ask
  - id: bye
    priority: 40     # below ask: never answers
    when: {user_words: bye}
    say: bye
  - id: other
    priority: 30
    say: other
"""
MOVE_DATA = "1 <SILENCE>\tWelcome .\n2 hello\tWhich food?\n3 thai\tWhich food?\n4 bye\tyou are welcome\n"


def test_tune_changes_one_priority_for_one_move(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, MOVE_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "moved.yaml"
    code, printed, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 0 and "after   100.00% per response" in printed
    assert "changed 1 rule:\n  ask: priority 50 -> 35 (rank 2 -> 3)\n" in printed   # between bye's and other's
    before, after = MOVE_RULES.splitlines(), out.read_text().splitlines()
    assert [(a, b) for a, b in zip(before, after) if a != b] == [("    priority: 50", "    priority: 35")]
    assert len(before) == len(after)
    assert [r.id for r in sorted(load_rules(out).rules, key=rule_order)] == ["greet", "bye", "ask", "other"]
    assert _answering(str(out), data) == {"greet", "ask", "bye"}


NOTED_RULES = MOVE_RULES.replace("""  - id: ask
    priority: 50
""", """  - id: ask
    note: |
      enabled: not a key, a line of the note
      priority: 10 would be too low
    priority: 50
""")


def test_a_note_that_reads_like_a_key_is_left_alone(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, NOTED_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "moved.yaml"
    code, printed, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 0 and "ask: priority 50 -> 35" in printed
    before, after = NOTED_RULES.splitlines(), out.read_text().splitlines()
    assert [(a, b) for a, b in zip(before, after) if a != b] == [("    priority: 50", "    priority: 35")]
    assert len(before) == len(after)


# ask (the rule the tune moves) written in flow style
FLOW_RULES = MOVE_RULES.replace("""  - id: ask
    priority: 50
    when: {turn_at_least: 1}
    say: ask
""", """  - {id: ask, priority: 50, when: {turn_at_least: 1}, say: ask}
""")


def test_a_rule_in_flow_style_is_refused_when_it_changes(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, FLOW_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "moved.yaml"
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert (code, printed) == (2, "") and not out.exists()
    assert err == (f"dstc2conv: error: {rules}:8: cannot rewrite rule 'ask' in place: it is written in flow "
                   "style ({id: ..., ...}); write it one key a line to tune it\n")
    # a rule in flow style that keeps its priority is no trouble
    greet_in_flow = MOVE_RULES.replace("""  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
""", """  - {id: greet, priority: 100, when: {first_turn: true}, say: hello}
""")
    (tmp_path / "rules.yaml").write_text(greet_in_flow)
    code, printed, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 0 and "ask: priority 50 -> 35" in printed
    assert out.read_text() == greet_in_flow.replace("priority: 50", "priority: 35")


def test_what_would_not_read_back_as_tuned_is_not_written(tmp_path, capsys):
    # bye's priority (which the tune changes) is an anchor other's repeats: rewriting it would break other's
    anchored = MOVE_RULES.replace("priority: 40", "priority: &p 40").replace("priority: 30", "priority: *p")
    rules, data = write_rule_files(tmp_path, anchored, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "moved.yaml"
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert (code, printed) == (2, "") and not out.exists() and len(err.splitlines()) == 1
    assert err.startswith(f"dstc2conv: error: {rules}: the tuned rule file would not load (")
    assert err.endswith("): nothing written\n")


# wrong answers every later turn, wrongly: tune disables it; bye never answers below ask:
# tune puts it first; neither has the key it needs
MISSING_RULES = """\
ontology: ontology.yaml
patterns: {hello: Welcome ., ask: "Which food?", bye: you are welcome, other: sorry}
rules:
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: wrong   # a comment
    priority: 90
    when: {turn_at_least: 1}
    say: other
  - id: ask
    priority: 50
    when: {turn_at_least: 1}
    say: ask
  - id: other
    priority: 30
    say: other
  -   id: bye
      when: {user_words: bye}
      say: bye
"""


def test_a_missing_key_goes_after_the_id(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, MISSING_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "tuned.yaml"
    code, printed, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 0 and "after   100.00% per response" in printed
    assert "changed 2 rules:\n  bye: priority 0 -> 110 (rank 5 -> 1)\n  wrong: disabled\n" in printed
    assert out.read_text() == MISSING_RULES.replace(
        "  - id: wrong   # a comment\n", "  - id: wrong   # a comment\n    enabled: false\n").replace(
        "  -   id: bye\n", "  -   id: bye\n      priority: 110\n")


@pytest.mark.parametrize("which, edit, at, says", [
    ("move", ("    priority: 50\n", "    priority:\n      50\n"), "8: cannot rewrite rule 'ask'",
     "its 'priority' is not a plain value on the line of its key"),
    ("missing", ("  -   id: bye\n", "  -   id: >-\n        bye\n"), "19: cannot rewrite rule 'bye'",
     "its 'id' is not a plain value on the line of its key"),     # where priority would go after
])
def test_a_value_off_its_keys_line_is_refused(tmp_path, capsys, which, edit, at, says):
    written = {"move": MOVE_RULES, "missing": MISSING_RULES}[which].replace(*edit)
    rules, data = write_rule_files(tmp_path, written, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "moved.yaml"
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert (code, printed) == (2, "") and not out.exists()
    assert err.startswith(f"dstc2conv: error: {rules}:{at} in place: {says}")


def _rule(rule_id, priority, index):
    from dstc2conv.systems.rules.ruleset import Rule

    return Rule(rule_id, priority, index, index + 1, True, (), "x", False, False, ())


@pytest.mark.parametrize("old, order, changed", [
    # room between the new neighbours: the moved rule alone changes, to a number between
    ([("a", 100), ("b", 90), ("c", 80), ("d", 70), ("e", 60)], "aebcd", {"e": 95}),
    ([("a", 100), ("b", 90), ("c", 80)], "bac", {"a": 85}),
    ([("a", 100), ("b", 90), ("c", 80)], "cab", {"c": 110}),                  # to the top
    ([("a", 100), ("b", 90), ("c", 80)], "bca", {"a": 70}),                   # to the bottom
    # no number between: the moved rule takes a neighbour's, file order breaking the tie
    ([("a", 52), ("b", 51), ("c", 50), ("d", 50), ("e", 49)], "adbce", {"d": 52}),
    # nor that: a neighbour changes too
    ([("a", 50), ("b", 50), ("c", 50), ("d", 50)], "acbd", {"b": 40, "d": 30}),
    ([("a", 3), ("b", 2), ("c", 1)], "abc", {}),                              # nothing moved
])
def test_priorities_change_as_few_as_possible(old, order, changed):
    rules = [_rule(rule_id, priority, i) for i, (rule_id, priority) in enumerate(old)]
    new = _priorities(rules, list(order))
    assert {k: v for k, v in new.items() if v != dict(old)[k]} == changed
    reordered = sorted((replace(rule, priority=new[rule.id]) for rule in rules), key=rule_order)
    assert "".join(r.id for r in reordered) == order


def test_the_ontology_line_is_kept_and_the_ontology_copied(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, MOVE_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "elsewhere" / "tuned.yaml"
    out.parent.mkdir()
    code, _, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    copied = out.parent / "ontology.yaml"
    assert code == 0 and copied.read_text() == CHOICE_ONTOLOGY
    assert err == (f"dstc2conv: copied the ontology {tmp_path / 'ontology.yaml'} to {copied}, "
                   "where the tuned file looks for it\n")
    assert out.read_text().startswith("ontology: ontology.yaml\n")
    load_rules(out)
    # a different ontology already there: named, nothing written
    other = tmp_path / "other"
    other.mkdir()
    (other / "ontology.yaml").write_text("food: [noodles]\narea: [north]\nprice: [cheap]\n")
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data,
                              "--out", str(other / "tuned.yaml"))
    assert (code, printed) == (2, "") and not (other / "tuned.yaml").exists()
    assert err == (f"dstc2conv: error: {other / 'tuned.yaml'}: the tuned file would name the ontology "
                   f"{other / 'ontology.yaml'}, which is not the rule file's {tmp_path / 'ontology.yaml'}: "
                   "write it to another folder\n")


def test_an_ontology_outside_the_tuned_files_folder_is_not_copied(tmp_path, capsys):
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "ontology.yaml").write_text(CHOICE_ONTOLOGY)
    (tmp_path / "r").mkdir()
    rules, data = write_rule_files(tmp_path / "r", MOVE_RULES.replace("ontology.yaml", "../shared/ontology.yaml"),
                                   CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "a" / "b" / "tuned.yaml"
    out.parent.mkdir(parents=True)
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert (code, printed) == (2, "") and not out.exists() and not (tmp_path / "a" / "shared").exists()
    assert err == (f"dstc2conv: error: {out}: the tuned file would name the ontology '../shared/ontology.yaml' "
                   f"({out.parent / '../shared/ontology.yaml'}), which is not there; it is outside the tuned "
                   f"file's folder, so not copied: copy {tmp_path / 'r' / '../shared/ontology.yaml'} there yourself\n")
    # where it is there already, nothing needs copying
    beside = tmp_path / "a" / "tuned.yaml"
    assert _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(beside))[0] == 0
    load_rules(beside)


def test_a_tuned_file_not_written_leaves_no_ontology_behind(tmp_path, capsys):
    anchored = MOVE_RULES.replace("priority: 40", "priority: &p 40").replace("priority: 30", "priority: *p")
    rules, data = write_rule_files(tmp_path, anchored, CHOICE_ONTOLOGY, MOVE_DATA)
    out = tmp_path / "elsewhere" / "tuned.yaml"
    out.parent.mkdir()
    code, _, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", data, "--out", str(out))
    assert code == 2 and "would not load" in err and list(out.parent.iterdir()) == []


def test_a_tuned_file_moved_from_its_ontology_names_both(tmp_path, capsys):
    rules, data = write_rule_files(tmp_path, MOVE_RULES, CHOICE_ONTOLOGY, MOVE_DATA)
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "t.yaml").write_text(MOVE_RULES)
    code, out, err = _run(capsys, "rules", "check", "--rules", str(moved / "t.yaml"))
    assert (code, out) == (2, "")
    assert err == (f"dstc2conv: error: {moved / 't.yaml'}:1: ontology 'ontology.yaml' ({moved / 'ontology.yaml'}): "
                   "cannot read: No such file or directory\n")


@pytest.mark.parametrize("split, sessions, says", [
    ("test", CHOICE_SESSIONS, "refusing to tune on a test split"),
    ("train", CHOICE_SESSIONS[:-1] + ["Mar13_S2A1/voip-z"], "refusing to tune on dialogs of system S2"),
])
def test_test_dialogs_are_refused_whatever_the_file_is_called(tmp_path, capsys, split, sessions, says):
    rules, data = write_rule_files(tmp_path, CHOICE_RULES, CHOICE_ONTOLOGY, CHOICE_DATA)
    renamed = tmp_path / "dialogs-copy.txt"
    renamed.write_text(CHOICE_DATA)
    listed = manifest(tmp_path, sessions, name="dialog-babi-task6-dstc2-tst.txt", split=split)
    out = str(tmp_path / "t.yaml")
    code, printed, err = _run(capsys, "rules", "tune", "--rules", rules, "--data", str(renamed), "--out", out,
                              "--manifest", listed)
    assert (code, printed) == (2, "") and err.startswith(f"dstc2conv: error: {renamed}: {says}")
    code, _, _ = _run(capsys, "rules", "tune", "--rules", rules, "--data", str(renamed), "--out", out,
                      "--manifest", listed, "--force")
    assert code == 0
