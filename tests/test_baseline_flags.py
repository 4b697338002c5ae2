"""Flags (``mark`` / ``marked``) and the user history condition (``user_said_before``)
on tiny inline rule files and hand-written dialogs."""
from __future__ import annotations

import pytest
from conftest import ONTOLOGY, write_rule_files

from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems.rules.engine import Compiled, predict
from dstc2conv.systems.rules.ruleset import load_rules
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import turns_of

RULES = """\
ontology: ontology.yaml
patterns:
  hello: Welcome .
  short: Which food?
  long: Which food would you like to eat?
  heard: You said a place before .
  bye: you are welcome
rules:
  - id: wordy-system
    priority: 100
    when: {prev_bot: long}
    mark: wordy
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: bye
    priority: 90
    when: {user_regex: '\\bbye\\b'}
    say: bye
  - id: place-earlier
    priority: 80
    when: {user_said_before: '\\b(north|south)\\b', user_silent: true}
    say: heard
  - id: ask-long
    priority: 50
    when: {marked: wordy}
    say: long
  - id: ask-short
    priority: 40
    when: {not: {marked: wordy}}
    say: short
"""

DIALOG = """\
1 <SILENCE>\tWelcome .
2 hi\tWhich food?
3 hmm\tWhich food would you like to eat?
4 what\tWhich food would you like to eat?
5 still thinking\tWhich food would you like to eat?
6 bye\t you are welcome

1 <SILENCE>\tWelcome .
2 <SILENCE>\tWhich food?
3 somewhere north\tWhich food?
4 <SILENCE>\tYou said a place before .
"""


@pytest.fixture
def write(tmp_path):
    def _write(rules=RULES, data=DIALOG):
        return write_rule_files(tmp_path, rules, ONTOLOGY, data)
    return _write


def test_a_flag_stays_raised_for_the_rest_of_the_dialog_only(write):
    rules, data = write()
    turns = turns_of(task6.read(data))
    preds = predict(Compiled(load_rules(rules)), turns)
    # turn 3: the gold "long" question before it raises the flag; it stays raised at turn 4
    # although the user says nothing new; the next dialog starts without it
    assert [p.rule for p in preds[:6]] == ["greet", "ask-short", "ask-short", "ask-long", "ask-long", "bye"]
    assert preds[7].rule == "ask-short"


def test_user_said_before_looks_at_the_user_turns_so_far(write):
    rules, data = write()
    turns = turns_of(task6.read(data))
    preds = predict(Compiled(load_rules(rules)), turns)
    # dialog 2: silent at turn 2 (nothing said yet), silent again at turn 4 after "north"
    assert [p.rule for p in preds[6:]] == ["greet", "ask-short", "ask-short", "place-earlier"]
    assert preds[-1].text == "You said a place before ."


def test_flag_rules_are_state_rules_and_score(write, capsys):
    rules, data = write()
    ruleset = load_rules(rules)
    marker = next(r for r in ruleset.rules if r.id == "wordy-system")
    assert marker.updates_state and marker.mark == ("wordy",)
    assert run(["rules", "score", "--rules", rules, "--data", data, "--no-history"]) == 0
    out = capsys.readouterr().out
    # the one miss: turn 3 of dialog 1, where the flag is not raised yet
    assert "per-response accuracy  90.00%  (9/10)" in out and "per-dialog accuracy    50.00%  (1/2)" in out


@pytest.mark.parametrize("edit, line, message, rule_id", [
    (("{marked: wordy}", "{marked: chatty}"), 27, "no rule marks the flag 'chatty'", "ask-long"),
    (("{not: {marked: wordy}}", "{not: {marked: 'two words'}}"), 31, "'two words' is not a flag name", "ask-short"),
    (("    mark: wordy\n", "    mark: {wordy: 1}\n"), 12, "'mark' takes a flag name", "wordy-system"),
    (("    mark: wordy\n", "    mark: wordy\n    say: short\n"), 9,
     "either responds (say / api_call) or updates the state (set / mark)", "wordy-system"),
    (("'\\b(north|south)\\b'", "'(north'"), 23, "bad regular expression", "place-earlier"),
])
def test_flag_and_history_validation(write, capsys, edit, line, message, rule_id):
    assert edit[0] in RULES
    rules, _ = write(rules=RULES.replace(*edit))
    with pytest.raises(Dstc2ConvError) as err:
        load_rules(rules)
    assert (err.value.line, err.value.rule_id) == (line, rule_id)
    assert message in err.value.message
    assert run(["rules", "check", "--rules", rules]) == 2
    assert f"{rules}:{line}: " in capsys.readouterr().err
