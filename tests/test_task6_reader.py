"""The task-6 reader: what it accepts, what it refuses (naming the line), round trips,
and a quiet stop when the output's reader goes away."""
from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REFERENCE, ROOT, need

from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.task6 import format as task6
from dstc2conv.task6.format import Context, Exchange, Fact

GOOD = (
    "1 <SILENCE>\tHello , welcome to the Cambridge restaurant system . How may I help you ?\n"
    "2 i want cheap food\tapi_call R_cuisine R_location cheap\n"
    "3 the_gandhi R_cuisine indian\n"
    "4 the_gandhi R_rating 3\n"
    "5 <SILENCE>\tthe_gandhi is a nice place\n"
    "\n"
    "1 <SILENCE>\tHello , welcome to the Cambridge restaurant system . How may I help you ?\n"
    "2 tapas\tapi_call tapas R_location R_price\n"
    "3 api_call no result\n"
    "4 <SILENCE>\tSorry there is no tapas restaurant\n"
    "\n"
)

NOT_A_LINE = "neither an exchange (user<TAB>bot), a result fact (name R_attr value) nor 'api_call no result'"


def _error(text: str) -> Dstc2ConvError:
    with pytest.raises(Dstc2ConvError) as info:
        task6.parse(text, "t.txt")
    return info.value


def test_good_text_reads_and_round_trips():
    dialogs = task6.parse(GOOD)
    assert [len(d.lines) for d in dialogs] == [5, 4]
    assert [d.start_line for d in dialogs] == [1, 7]
    first = dialogs[0].lines
    assert first[1] == Exchange("i want cheap food", "api_call R_cuisine R_location cheap")
    assert first[2] == Context("the_gandhi R_cuisine indian")
    assert dialogs[1].lines[2] == Context("api_call no result")
    assert task6.serialize(dialogs) == GOOD


def test_lost_tab_is_an_error_naming_the_line():
    text = GOOD.replace("2 i want cheap food\t", "2 i want cheap food  ")
    err = _error(text)
    assert (err.path, err.line) == ("t.txt", 2)
    assert err.message.startswith(NOT_A_LINE)
    assert str(err).startswith(f"t.txt:2: {NOT_A_LINE}: 'i want cheap food  api_call")


NOT_FACTS = [
    "the_gandhi R_cuisine",                 # two tokens
    "the_gandhi R_cuisine indian food",     # four
    "the_gandhi cuisine indian",            # no R_
    "the_gandhi R_ indian",                 # R_ and nothing
    "the_gandhi R_post2 cb21",              # a digit in the attribute
    "the_gandhi  R_cuisine indian",         # two spaces
    "api_call no results",
    "api_call no result ",
    "hello",
    "",                                     # a number and a space, then nothing
]


@pytest.mark.parametrize("context", NOT_FACTS)
def test_context_must_be_a_result_fact_or_no_result(context):
    text = GOOD.replace("3 the_gandhi R_cuisine indian\n", f"3 {context}\n")
    err = _error(text)
    assert (err.line, err.message) == (3, f"{NOT_A_LINE}: {context!r}")


def test_fact_parses_a_result_line():
    assert Fact.parse("the_gandhi R_cuisine indian") == Fact("the_gandhi", "R_cuisine", "indian")
    assert Fact.parse("the_gandhi R_post_code the_gandhi_post_code").attribute == "R_post_code"
    assert Fact.match("the_gandhi R_rating 3") == Fact("the_gandhi", "R_rating", "3")
    facts = [Fact.match(line.text) for d in task6.parse(GOOD) for line in d.lines if isinstance(line, Context)]
    assert facts == [Fact("the_gandhi", "R_cuisine", "indian"), Fact("the_gandhi", "R_rating", "3"), None]


@pytest.mark.parametrize("text", NOT_FACTS + ["api_call no result"])
def test_fact_refuses_anything_else(text):
    assert Fact.match(text) is None
    with pytest.raises(Dstc2ConvError) as info:
        Fact.parse(text, "t.txt", 3)
    assert (info.value.path, info.value.line) == ("t.txt", 3)
    assert str(info.value) == f"t.txt:3: not a result fact (name R_attr value): {text!r}"


def test_the_check_holds_for_a_context_line_seen_before():
    # the second dialog repeats a good result line, then has a bad one
    text = GOOD.replace("3 api_call no result\n", "3 the_gandhi R_cuisine indian\n4 the_gandhi indian\n")
    text = text.replace("4 <SILENCE>\tSorry", "5 <SILENCE>\tSorry")
    assert _error(text).line == 10


def test_a_leading_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    dialogs = task6.read(path)
    assert dialogs == task6.parse(GOOD)
    assert dialogs[0].lines[0] == Exchange("<SILENCE>", task6.parse(GOOD)[0].lines[0].bot)
    assert task6.parse("\ufeff" + GOOD) == dialogs
    assert task6.serialize(dialogs) == GOOD  # written back without the mark
    assert run(["stats", str(path)]) == 0


def test_a_byte_order_mark_inside_the_file_is_named():
    err = _error(GOOD + "\ufeff" + GOOD)
    assert (err.line, err.message) == (12, "a byte-order mark that is not at the start of the file")


@pytest.mark.parametrize("blank", ["  ", "\t", " \r"])
def test_a_whitespace_line_inside_a_dialog_is_named(blank):
    text = GOOD.replace("3 the_gandhi R_cuisine indian\n", f"3 the_gandhi R_cuisine indian\n{blank}\n")
    err = _error(text)
    assert err.line == 4
    assert err.message.startswith("a line of only whitespace")


def test_a_whitespace_line_between_dialogs_is_named_too():
    err = _error(GOOD.replace("\n\n1 <SILENCE>", "\n  \n1 <SILENCE>"))
    assert err.line == 6 and err.message.startswith("a line of only whitespace")


def test_an_empty_line_still_separates_dialogs():
    text = GOOD.replace("\n\n1 <SILENCE>", "\n\n\n1 <SILENCE>")
    dialogs = task6.parse(text)
    assert [d.lines for d in dialogs] == [d.lines for d in task6.parse(GOOD)]
    assert [d.start_line for d in dialogs] == [1, 8]


def test_windows_line_endings_read_the_same(tmp_path):
    assert task6.parse(GOOD.replace("\n", "\r\n")) == task6.parse(GOOD)
    path = tmp_path / "crlf.txt"
    path.write_bytes(GOOD.replace("\n", "\r\n").encode())
    assert task6.read(path) == task6.parse(GOOD)


def test_read_names_the_file_for_every_command(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text(GOOD.replace("2 i want cheap food\t", "2 i want cheap food "))
    good = tmp_path / "good.txt"
    good.write_text(GOOD)
    rules = str(ROOT / "rules" / "dstc2.yaml")
    for argv in (["stats", str(bad)], ["compare", str(bad), str(good)], ["compare", str(good), str(bad)],
                 ["rules", "score", "--rules", rules, "--data", str(bad), "--no-history"]):
        assert run(argv) == 2, argv
        captured = capsys.readouterr()
        text = "'i want cheap food api_call R_cuisine R_location cheap'"
        assert captured.err == f"dstc2conv: error: {bad}:2: {NOT_A_LINE}: {text}\n"
        assert captured.out == ""


@pytest.mark.parametrize("name", ["trn", "dev"])
def test_published_files_read_and_round_trip(name):
    path = need(REFERENCE / f"dialog-babi-task6-dstc2-{name}.txt")
    dialogs = task6.read(path)
    assert len(dialogs) == {"trn": 1618, "dev": 500}[name]
    assert task6.serialize(dialogs) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("argv", [
    ["stats", "{data}"],
    ["compare", "{data}", "{data}"],
    ["rules", "score", "--rules", "{rules}", "--data", "{data}", "--no-history", "--quiet"],
])
def test_a_closed_pipe_stops_quietly(tmp_path, argv):
    data = tmp_path / "d.txt"
    data.write_text(GOOD)
    argv = [a.format(data=data, rules=ROOT / "rules" / "dstc2.yaml") for a in argv]
    proc = subprocess.Popen([sys.executable, "-m", "dstc2conv", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before a byte is written, as `| head -0` would
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert err == b""


@pytest.mark.parametrize("argv", [
    ["rules", "predict", "--rules", "{rules}", "--data", "{data}", "--out", "-"],
    ["ir", "nn", "--train", "{data}", "--data", "{data}", "--out", "-"],
])
def test_a_pipe_closed_after_a_line_of_a_long_output(tmp_path, argv):
    """Predictions far longer than a pipe holds: the reader takes one line and goes away
    (`| head -1`); the command stops with 141, not 0 with the rest silently lost."""
    data = tmp_path / "d.txt"
    data.write_text(GOOD * 2000)
    argv = [a.format(data=data, rules=ROOT / "rules" / "dstc2.yaml") for a in argv]
    proc = subprocess.Popen([sys.executable, "-m", "dstc2conv", *argv], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141
    assert b"Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["rules", "predict", "--data", "{data}", "--out", "{data}"],
    ["ir", "nn", "--train", "{data}", "--data", "{other}", "--out", "{data}"],
])
def test_predictions_never_overwrite_an_input(tmp_path, capsys, argv):
    data, other = tmp_path / "d.txt", tmp_path / "o.txt"
    data.write_text(GOOD)
    other.write_text(GOOD)
    assert run([a.format(data=data, other=other) for a in argv]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {data}: cannot write: it is the input {data}, "
                                       "which would be overwritten\n")
    assert data.read_text() == GOOD


def test_a_byte_order_mark_inside_a_line_is_named():
    err = _error(GOOD.replace("i want cheap", "i want \ufeffcheap"))
    assert (err.line, err.message) == (2, "a byte-order mark that is not at the start of the file")


def test_a_long_bad_line_is_quoted_cut_with_dots():
    err = _error("1 " + "word " * 30 + "\n")
    assert err.message == f"{NOT_A_LINE}: {('word ' * 12)!r}..."
    assert _error("1 a short bad line\n").message == f"{NOT_A_LINE}: 'a short bad line'"


def test_a_carriage_return_inside_a_line_is_named(tmp_path):
    text = GOOD.replace("i want cheap food", "i want\rcheap food")   # a lone carriage return
    path = tmp_path / "cr.txt"
    path.write_bytes(text.encode())
    err = _error(text)
    assert (err.line, err.message) == (2, "a carriage return: a task-6 line holds no line break "
                                          "but the LF that ends it, no byte-order mark and no lone surrogate")
    with pytest.raises(Dstc2ConvError) as raised:
        task6.read(path)
    assert (raised.value.line, raised.value.message) == (err.line, err.message)


@pytest.mark.parametrize("text", ["", "\n\n"])
def test_compare_refuses_a_file_without_dialogs(tmp_path, capsys, text):
    empty, good = tmp_path / "empty.txt", tmp_path / "good.txt"
    empty.write_text(text)
    good.write_text(GOOD)
    for argv in (["compare", str(good), str(empty)], ["compare", str(empty), str(empty)]):
        assert run(argv) == 2
        assert capsys.readouterr().err == \
            f"dstc2conv: error: {empty}: no dialogs (the file is empty or only empty lines)\n"


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_written_is_one_line(tmp_path):
    data = tmp_path / "d.txt"
    data.write_text(GOOD)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "dstc2conv", "stats", str(data)], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "dstc2conv: error: cannot write the output: No space left on device\n"


def test_a_line_number_in_other_digits_is_refused():
    with pytest.raises(Dstc2ConvError, match=r"^x.txt:1: expected '<number> <text>'"):
        task6.parse("\u0661 hi\tthere\n", "x.txt")


def test_a_file_of_more_lines_than_the_limit_is_refused_at_the_first_line_past_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(task6, "MAX_LINES", 4)
    assert len(task6.parse("1 a\tb\n2 c\td\n\n1 e\tf\n")) == 2     # 4 lines: the limit
    err = _error("1 a\tb\n2 c\td\n\n1 e\tf\n\n")
    assert (err.line, err.message) == (5, "more than 4 lines, more than a task-6 file may have")
    path = tmp_path / "long.txt"
    path.write_text("1 a\tb\n\n" * 3)
    assert run(["stats", str(path)]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {path}:5: more than 4 lines, more than a task-6 file "
                                       "may have\n")


@pytest.mark.parametrize("lines, found", [
    ([("hello", "Hello .")], None),
    ([("hello", "Hello ."), "api_call no result", ("thanks", "bye")], None),
    ([("hello", "Hello ."), ("a\tb", "x")], (1, "a tab: the one tab")),
    ([("hello", "Hello\n.")], (0, "a line feed")),
    (["api_call no\tresult"], (0, "a tab: the one tab")),
    ([("hi", "ok"), "r R_x \ufeffy"], (1, "a byte-order mark")),
    ([("hi", "ok"), ("x" * 10_000, "y")], (1, "a line of 10,0")),
    ([("hi", "ok"), ("x" * 9_996, "y")], None),                       # 10,000 characters: the most a line may have
    ([("hi", "ok"), ("x" * 9_997, "y")], (1, "a line of 10,001")),
    ([("hi", "ok \u2028 there")], (0, "a line separator (U+2028)")),
])
def test_dialog_problem_finds_the_first_line_that_would_not_read_back(lines, found):
    """The one scan of a whole dialog and the line-by-line search agree: the first line
    that the reader would refuse, and why."""
    dialog = task6.Dialog(tuple(task6.Exchange(*line) if isinstance(line, tuple) else task6.Context(line)
                                for line in lines), 1)
    for text in (None, task6.serialize_dialog(dialog)):
        got = task6.dialog_problem(dialog, text)
        if found is None:
            assert got is None
        else:
            assert got is not None and got[0] == found[0] and got[1].startswith(found[1]), got
