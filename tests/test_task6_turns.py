"""The turn view (task6.turns): the one walk over a dialog's lines, shared by the rule
engine, the scorer, the IR baselines and compare."""
from __future__ import annotations

import pytest

from dstc2conv.errors import Dstc2ConvError
from dstc2conv.evaluate.align import compare_files
from dstc2conv.evaluate.fidelity import OTHER_DIFFERENCE
from dstc2conv.task6 import format as task6
from dstc2conv.task6.format import Dialog, Exchange
from dstc2conv.task6.turns import BotTurn, dialog_turns, read_turns, turns_of

TEXT = (
    "1 hi\tapi_call thai R_location R_price\n"
    "2 bangkok_city R_cuisine thai\n"
    "3 bangkok_city R_rating 4\n"
    "4 <SILENCE>\tbangkok_city is a nice place\n"
    "5 bye\tyou are welcome\n"
    "\n"
    "1 a_place R_cuisine thai\n"
    "2 hello\tHello , welcome\n"
    "3 api_call no result\n"
)


def test_each_exchange_is_a_bot_turn_with_the_context_after_it():
    assert turns_of(task6.parse(TEXT)) == [
        BotTurn(0, 0, 1, "hi", "api_call thai R_location R_price",
                ("bangkok_city R_cuisine thai", "bangkok_city R_rating 4")),
        BotTurn(0, 1, 4, "<SILENCE>", "bangkok_city is a nice place", ()),
        BotTurn(0, 2, 5, "bye", "you are welcome", ()),
        BotTurn(1, 0, 8, "hello", "Hello , welcome", ("api_call no result",), lead=("a_place R_cuisine thai",)),
    ]


def test_the_lines_before_the_first_exchange_are_the_lead():
    second = dialog_turns(task6.parse(TEXT)[1], 1)
    assert second.lead == ("a_place R_cuisine thai",)
    assert [t.line for t in second.turns] == [8]
    assert dialog_turns(task6.parse(TEXT)[0]).lead == ()


def test_every_line_is_in_the_lead_or_a_turn():
    for dialog in task6.parse(TEXT):
        walked = dialog_turns(dialog)
        lines = len(walked.lead) + sum(1 + len(t.context) for t in walked.turns)
        assert lines == len(dialog.lines)


def test_a_dialog_of_only_context_has_a_lead_and_no_turns():
    walked = dialog_turns(task6.parse("1 api_call no result\n")[0])
    assert (walked.lead, walked.turns) == (("api_call no result",), ())


def test_a_dialog_not_from_a_file_has_line_zero():
    walked = dialog_turns(Dialog((Exchange("hi", "hello"),)))
    assert walked.turns[0].line == 0


def test_is_call():
    first, second = turns_of(task6.parse(TEXT))[:2]
    assert first.is_call and not second.is_call


def test_a_file_without_bot_turns_is_an_error(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1 api_call no result\n")
    with pytest.raises(Dstc2ConvError, match="no bot turns"):
        read_turns(path)


def test_compare_sees_a_difference_in_the_lead(tmp_path):
    ours, ref = tmp_path / "ours.txt", tmp_path / "ref.txt"
    ours.write_text(TEXT)
    ref.write_text(TEXT.replace("a_place R_cuisine thai", "a_place R_cuisine indian"))
    report = compare_files(ours, ref)
    assert report.kind(OTHER_DIFFERENCE).count == 1
    assert report.kind(OTHER_DIFFERENCE).examples[0].text == "result lines before the first exchange differ"
    assert report.kind(OTHER_DIFFERENCE).examples[0].ours_line == 7
    assert report.measure("dialogs").count == 1
