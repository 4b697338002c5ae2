"""The edit-and-rescore loop of ``rules score``: the history as a series, --against and
--save, flips grouped by the change of rule, ``rules init`` and ``--watch``."""
from __future__ import annotations

import json
import os
import sys
from importlib import resources

import pytest
from conftest import ONTOLOGY, TWO_ASKS_RULES, write_rule_files

from dstc2conv.cli import run
from dstc2conv.systems.rules import history as history_module
from dstc2conv.systems.rules import watch as watch_module
from dstc2conv.systems.rules.history import INDEX, history_path

RULES = TWO_ASKS_RULES

# before the edit (ask-food above ask-area): 4/4 in dialog 1, 1/4 in dialog 2
DATA = """\
1 <SILENCE>\tWelcome .
2 hello\tWhich food?
3 thai please\tWhich area?
4 bye\tyou are welcome

1 <SILENCE>\tWelcome .
2 hi\tWhich area?
3 um\tWhich area?
4 thanks\tyou are welcome
"""

# ask-area above ask-food: dialog 1 line 2 now wrong, dialog 2 lines 2 and 3 now right
EDIT = RULES.replace("priority: 20", "priority: 5")
# and bye on thanks too: dialog 2 line 4 now right
EDIT2 = EDIT.replace("{user_words: bye}", "{user_words: {any: [bye, thanks]}}")


@pytest.fixture
def loop(tmp_path, capsys):
    """rules.yaml and data.txt in tmp_path; ``score(*flags, rules=TEXT)`` writes the rules
    (when given) and scores, returning (exit code, stdout, stderr)."""
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DATA)

    def score(*flags, rules_text=None):
        if rules_text is not None:
            with open(rules, "w") as fh:
                fh.write(rules_text)
        code = run(["rules", "score", "--rules", rules, "--data", data, *flags])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    score.rules, score.data, score.folder = rules, data, tmp_path
    return score


def _against(out: str) -> list[str]:
    """The lines from ``against`` on."""
    lines = out.splitlines()
    return next((lines[i:] for i, line in enumerate(lines) if line.startswith("against ")), [])


def _index(data: str) -> dict:
    with open(os.path.join(history_path(data), INDEX)) as fh:
        return json.load(fh)


# ---------------------------------------------------------------- grouped flips

def test_flips_are_grouped_by_the_change_of_rule(loop):
    assert loop()[0] == 0
    code, out, err = loop(rules_text=EDIT)
    assert code == 0
    assert out.splitlines()[0] == "per-response accuracy  75.00%  (6/8)"
    assert _against(out) == [
        "against                last: rules:" + _index(loop.data)["entries"][0]["sha256"][:12],
        "change                 +12.50% per response (2 turns now right, 1 now wrong), -50.00% per dialog",
        "  kind other           +16.67%  (2 now right, 1 now wrong, of 6)",
        "flips by rule, before -> now:",
        "  ask-food -> ask-area: 2 now right, 1 now wrong",
        "    now wrong: dialog 1 line 2  user: 'hello'  gold: 'Which food?'  was: 'Which food?'  now: 'Which area?'",
        "    now right: dialog 2 line 7  user: 'hi'  gold: 'Which area?'  was: 'Which food?'  now: 'Which area?'",
        "    now right: dialog 2 line 8  user: 'um'  gold: 'Which area?'  was: 'Which food?'  now: 'Which area?'"]
    assert err == f"dstc2conv: comparing with the scoring of {_index(loop.data)['entries'][0]['time']}\n" \
                  f"dstc2conv: rules {loop.rules}\n"


def test_a_rerun_with_other_flags_shows_the_same_delta_and_adds_nothing(loop):
    loop()
    first = _against(loop(rules_text=EDIT)[1])
    code, out, _ = loop("--flips", "1", "--context", "2")
    lines = _against(out)
    assert lines[:5] == first[:5]
    assert lines[5:] == ["      | 1 <SILENCE> | Welcome .",
                         "    now wrong: dialog 1 line 2  user: 'hello'  gold: 'Which food?'  was: 'Which food?'  "
                         "now: 'Which area?'",
                         "    ... and 2 more (--flips N shows N a group)"]
    assert len(_index(loop.data)["entries"]) == 2
    assert loop("--json")[0] == 0
    assert len(_index(loop.data)["entries"]) == 2


def test_groups_go_by_size_and_systems_have_their_delta(loop):
    (loop.folder / "manifest.json").write_text(json.dumps(
        {"files": {"data.txt": {"split": "train", "dialogs": ["Mar13_S0A0/voip-x01", "Mar13_S1A0/voip-y01"]}}}))
    loop()
    code, out, _ = loop("--flips", "0", rules_text=EDIT2)
    assert _against(out)[1:] == [
        "change                 +25.00% per response (3 turns now right, 1 now wrong), +0.00% per dialog",
        "  system S0              -25.00%  (0 now right, 1 now wrong, of 4)",
        "  system S1              +75.00%  (3 now right, 0 now wrong, of 4)",
        "  kind closing         +50.00%  (1 now right, 0 now wrong, of 2)",
        "  kind other           +16.67%  (2 now right, 1 now wrong, of 6)",
        "flips by rule, before -> now:",
        "  ask-food -> ask-area: 2 now right, 1 now wrong",
        "    ... and 3 more (--flips N shows N a group)",
        "  ask-food -> bye: 1 now right, 0 now wrong",
        "    ... and 1 more (--flips N shows N a group)"]
    got = json.loads(loop("--json", "--flips", "1")[1])["against"]
    assert got["by_system"]["S1"] == {"responses": 4, "now_right": 3, "now_wrong": 0, "delta": 0.75}
    assert [(g["before_rule"], g["now_rule"], g["now_right"], g["now_wrong"], len(g["examples"]))
            for g in got["groups"]] == [("ask-food", "ask-area", 2, 1, 1), ("ask-food", "bye", 1, 0, 1)]
    assert got["groups"][1]["examples"][0]["turn"] == "dialog 2 line 9"


# ---------------------------------------------------------------- the series

def test_last_is_the_latest_other_rules_of_this_rule_file(loop):
    loop()                                  # A
    loop(rules_text=EDIT)                   # B, against A
    code, out, _ = loop(rules_text=RULES)   # A again: against B
    entries = _index(loop.data)["entries"]
    assert [e["sha256"] for e in entries][0] == entries[2]["sha256"] != entries[1]["sha256"]
    assert _against(out)[0] == f"against                last: rules:{entries[1]['sha256'][:12]}"
    assert "-12.50% per response (1 turn now right, 2 now wrong)" in out
    assert len(os.listdir(history_path(loop.data))) == 3          # the index, A and B once each
    # another rule file on the same data has a series of its own: nothing to compare with
    other = loop.folder / "other.yaml"
    other.write_text(EDIT2)
    assert run(["rules", "score", "--rules", str(other), "--data", loop.data]) == 0


def test_the_history_is_bounded(loop, monkeypatch):
    monkeypatch.setattr(history_module, "PER_RULES", 2)
    texts = [RULES, EDIT, EDIT2, RULES.replace("priority: 10", "priority: 11")]
    for text in texts:
        assert loop(rules_text=text)[0] == 0
    entries = _index(loop.data)["entries"]
    assert len(entries) == 2 and entries[-1]["score"]["correct"] == 5
    assert sorted(os.listdir(history_path(loop.data))) == sorted([INDEX] + [
        f"{e['sha256'][:16]}-{e['data_sha256'][:16]}.json" for e in entries])


def test_save_and_against_a_name(loop):
    code, _, err = loop("--save", "start")
    assert code == 0 and "pinned as start: --against start compares with it" in err
    loop(rules_text=EDIT2)
    loop(rules_text=EDIT)
    code, out, _ = loop("--against", "start")
    assert _against(out)[0].startswith("against                start: pinned, rules:")
    assert "+12.50% per response (2 turns now right, 1 now wrong)" in out
    # best: the best kept scoring of other rules (EDIT2, 7/8)
    code, out, _ = loop("--against", "best")
    assert "-12.50% per response (0 turns now right, 1 now wrong)" in out
    assert sorted(_index(loop.data)["pinned"]) == ["start"]


def test_against_a_rule_file_and_the_shipped_rules(loop, tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text(EDIT2)
    code, out, err = loop("--no-history", "--against", str(other))
    assert code == 0
    assert _against(out)[:2] == [f"against                {other}, rules:" + _against(out)[0].split("rules:")[1],
                                 "change                 -25.00% per response (1 turn now right, 3 now wrong), "
                                 "+0.00% per dialog"]
    assert not os.path.exists(history_path(loop.data))              # --no-history: nothing kept
    shipped = str(resources.files("dstc2conv.rulefiles") / "dstc2.yaml")
    code, out, err = loop("--against", "shipped", "--rules", shipped)   # the last --rules wins
    assert code == 0 and "+0.00% per response (0 turns now right, 0 now wrong)" in out
    assert _against(out)[0].startswith("against                shipped: the rules shipped with dstc2conv, rules:")
    assert err.endswith(f"dstc2conv: rules {shipped} (the shipped rules)\n")


@pytest.mark.parametrize("flags, message", [
    (["--against", "nothing"], "--against nothing: no such rule file, nor a score pinned under that name "
                               "(pinned on this data: start; or shipped, last, best)"),
    (["--against", "last"], "--against last: no earlier scoring of other rules in this rule file on this data"),
    (["--against", "best"], "--against best: no scoring of other rules on this data is kept"),
])
def test_against_what_is_not_there(loop, flags, message):
    loop("--save", "start")
    code, out, err = loop(*flags)
    assert (code, out, err) == (2, "", f"dstc2conv: error: {loop.data}: {message}\n")


@pytest.mark.parametrize("flags, message", [
    (["--save", "last"], "--save 'last': a name is up to 64 letters, digits, '_', '.' or '-', not shipped, last, "
                         "best nor ending in .yaml"),
    (["--save", "a/b"], "--save 'a/b': a name is up to 64 letters"),
    (["--save", "x", "--no-history"], "--save needs the score history (not --no-history)"),
    (["--against", "best", "--no-history"], "--against best needs the score history (not --no-history)"),
    (["--watch", "--json"], "--watch prints text after each save: --json is for one scoring"),
])
def test_bad_flags_are_one_line(loop, flags, message):
    code, out, err = loop(*flags)
    assert (code, out) == (2, "") and err.startswith(f"dstc2conv: error: {message}") and err.count("\n") == 1


def test_pins_are_bounded_and_a_pin_of_other_data_is_refused(loop, monkeypatch):
    monkeypatch.setattr(history_module, "PINS", 1)
    loop("--save", "one")
    code, _, err = loop("--save", "two")
    assert code == 2 and err.endswith("1 scores are pinned already (one): --save one of these names to replace it\n")
    assert loop("--save", "one")[0] == 0                     # a name pinned again is replaced
    with open(loop.data, "a") as fh:
        fh.write("\n1 <SILENCE>\tWelcome .\n")
    code, _, err = loop("--against", "one")
    assert code == 2 and err.endswith("--against one: that score was pinned on another version of the data file\n")


def test_a_missing_scoring_is_one_line(loop):
    loop()
    loop(rules_text=EDIT)
    first = _index(loop.data)["entries"][0]
    path = os.path.join(history_path(loop.data), f"{first['sha256'][:16]}-{first['data_sha256'][:16]}.json")
    os.unlink(path)
    code, out, err = loop()
    assert (code, out) == (2, "")
    assert err == (f"dstc2conv: error: {path}: a scoring the score history lists is missing: remove the folder "
                   "to start a new history, or score with --no-history\n")


# ---------------------------------------------------------------- init

def test_init_writes_an_editable_copy_and_refuses_to_overwrite(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(["rules", "init"]) == 0
    captured = capsys.readouterr()
    names = ("dstc2.yaml", "ontology.yaml", "babi.yaml", "babi-ontology.yaml")
    assert captured.out == "".join(os.path.join("my-rules", name) + "\n" for name in names)
    shipped = resources.files("dstc2conv.rulefiles")
    for name in names:
        assert (tmp_path / "my-rules" / name).read_text() == (shipped / name).read_text()
    (tmp_path / "my-rules" / "dstc2.yaml").write_text("edited")
    assert run(["rules", "init"]) == 2
    assert capsys.readouterr().err == ("dstc2conv: error: my-rules/dstc2.yaml and my-rules/ontology.yaml and "
                                       "my-rules/babi.yaml and my-rules/babi-ontology.yaml already "
                                       "there: not overwritten (--force overwrites)\n")
    assert (tmp_path / "my-rules" / "dstc2.yaml").read_text() == "edited"
    assert run(["rules", "init", "--force"]) == 0
    assert (tmp_path / "my-rules" / "dstc2.yaml").read_text() == (shipped / "dstc2.yaml").read_text()
    assert run(["rules", "init", "elsewhere/deeper"]) == 0 and (tmp_path / "elsewhere" / "deeper" / "ontology.yaml").exists()
    (tmp_path / "a-file").write_text("")
    assert run(["rules", "init", "a-file"]) == 2
    assert capsys.readouterr().err.endswith("dstc2conv: error: a-file: cannot write the rules: it is a file, not a folder\n")


# ---------------------------------------------------------------- watch

def _saves(actions):
    """A fake sleep for the watch: runs the next action (or nothing, when it is None) at each
    poll, then Ctrl-C."""
    queue = list(actions)

    def sleep(seconds):
        assert seconds == watch_module.INTERVAL
        if not queue:
            raise KeyboardInterrupt
        action = queue.pop(0)
        if action is not None:
            action()
    return sleep


def _write(path, text):
    def action():
        with open(path, "w") as fh:
            fh.write(text)
        stat = os.stat(path)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))   # a save one ms later
    return action


def test_watch_rescores_three_saves_in_a_row(loop, monkeypatch):
    loop("--save", "start")
    ontology = str(loop.folder / "ontology.yaml")
    monkeypatch.setattr(watch_module, "pause", _saves([
        _write(loop.rules, EDIT), None, _write(loop.rules, EDIT2),
        _write(ontology, ONTOLOGY.replace("north, south", "north, south, east")),
        _write(loop.rules, "rules: [oops"), None, _write(loop.rules, RULES)]))
    code, out, err = loop("--watch", "--against", "start", "--flips", "0")
    assert code == 0                                   # Ctrl-C ends it quietly
    changes = [line for line in out.splitlines() if line.startswith("change ")]
    assert changes == [
        "change                 +0.00% per response (0 turns now right, 0 now wrong), +0.00% per dialog",   # at start
        "change                 +12.50% per response (2 turns now right, 1 now wrong), -50.00% per dialog",  # EDIT
        "change                 +25.00% per response (3 turns now right, 1 now wrong), +0.00% per dialog",   # EDIT2
        "change                 +25.00% per response (3 turns now right, 1 now wrong), +0.00% per dialog",   # ontology
        "change                 +0.00% per response (0 turns now right, 0 now wrong), +0.00% per dialog"]    # RULES
    assert out.count("per-response accuracy") == 5
    # the save that does not load: its problem, and the watch goes on
    problems = [line for line in err.splitlines() if line.startswith("dstc2conv: error:")]
    assert len(problems) == 1 and problems[0].startswith(f"dstc2conv: error: {loop.rules}:1:")
    assert "dstc2conv: not rescored; watching for the next save" in err
    assert "Traceback" not in err and "interrupted" not in err


def test_a_rule_file_deleted_while_watched_ends_the_watch(loop, monkeypatch):
    monkeypatch.setattr(watch_module, "pause", _saves([lambda: os.unlink(loop.rules)] + [None] * 10))
    code, out, err = loop("--watch", "--quiet")
    assert code == 2 and out.count("per-response accuracy") == 1
    assert err == f"dstc2conv: error: {loop.rules}: the rule file was deleted while watched: watch stopped\n"


def test_a_rule_file_replaced_by_a_rename_is_a_save(loop, monkeypatch):
    def replace():
        new = loop.folder / "new.yaml"
        new.write_text(EDIT)
        os.remove(loop.rules)     # missing for a poll, as while an editor renames
    monkeypatch.setattr(watch_module, "pause", _saves([
        replace, lambda: os.rename(loop.folder / "new.yaml", loop.rules)]))
    code, out, err = loop("--watch", "--quiet", "--flips", "0")
    assert code == 0 and out.count("per-response accuracy") == 2 and "75.00%  (6/8)" in out


def test_a_save_whose_regex_is_too_slow_on_the_data_is_reported_and_watched_past(loop, monkeypatch):
    with open(loop.data, "a") as fh:
        fh.write("\n1 <SILENCE>\tWelcome .\n2 " + "ab" * 30 + "!\tWhich food?\n")   # backtracks 2**30 ways
    slow = RULES.replace("{user_words: bye}", "{user_regex: '^(ab|ab)+$'}")
    monkeypatch.setattr(watch_module, "pause", _saves([_write(loop.rules, slow), _write(loop.rules, EDIT)]))
    code, out, err = loop("--watch", "--flips", "0")
    assert code == 0 and out.count("per-response accuracy") == 2
    assert f"dstc2conv: error: {loop.rules}:14: regular expression too slow (bye)\n" in err
    assert "dstc2conv: not rescored; watching for the next save\n" in err


def test_a_rule_file_changed_while_scored_is_not_kept(loop, monkeypatch):
    import dstc2conv.files

    monkeypatch.setattr(dstc2conv.files, "sha256_file", lambda path: "0" * 64)
    code, out, err = loop()
    assert code == 0 and "per-response accuracy" in out
    assert err.endswith(f"dstc2conv: warning: the score is not kept for the next comparison: {loop.rules}: the "
                        "rule file changed while it was scored\n")


class _ClosedPipe:
    """stdout whose reader went away (``| head``): every write fails."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_the_history_is_written_before_the_score_is_printed(loop, monkeypatch):
    with monkeypatch.context() as patch, pytest.raises(BrokenPipeError):
        patch.setattr(sys, "stdout", _ClosedPipe())
        run(["rules", "score", "--rules", loop.rules, "--data", loop.data])
    assert len(_index(loop.data)["entries"]) == 1
    code, out, _ = loop(rules_text=EDIT)       # the next rescore has its baseline
    assert code == 0 and _against(out)[0].startswith("against                last:")


def test_init_stopped_while_writing_leaves_neither_file(tmp_path, capsys, monkeypatch):
    """Stopped after the first temporary file and before the second, `rules init` leaves
    no rule file without its ontology, and no temporary file."""
    monkeypatch.chdir(tmp_path)
    real_open = open
    opened = []

    def stopping_open(path, *args, **kwargs):
        if ".tmp-" in str(path):
            opened.append(path)
            if len(opened) == 2:
                raise KeyboardInterrupt
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", stopping_open)
    assert run(["rules", "init"]) == 130
    assert len(opened) == 2
    assert sorted(os.listdir(tmp_path / "my-rules")) == []


def test_write_files_atomic_checks_every_path_before_renaming_any(tmp_path):
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.files import write_files_atomic

    (tmp_path / "first").write_bytes(b"old")
    (tmp_path / "folder").mkdir()
    with pytest.raises(Dstc2ConvError, match="it is not a regular file"):
        write_files_atomic([(str(tmp_path / "first"), b"new"), (str(tmp_path / "folder"), b"x")])
    assert (tmp_path / "first").read_bytes() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["first", "folder"]
    write_files_atomic([(str(tmp_path / "first"), b"new"), (str(tmp_path / "second"), b"2")])
    assert (tmp_path / "first").read_bytes() == b"new" and (tmp_path / "second").read_bytes() == b"2"


def test_write_files_atomic_names_what_it_wrote_when_a_rename_fails(tmp_path, monkeypatch):
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.files import write_files_atomic

    real_replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    with pytest.raises(Dstc2ConvError) as caught:
        write_files_atomic([(a, b"1"), (b, b"2")])
    assert str(caught.value) == f"{b}: cannot write: Permission denied (written: {a})"
    assert sorted(os.listdir(tmp_path)) == ["a"]


def test_a_rule_file_refusal_is_one_line_whatever_its_name(tmp_path, capsys):
    """A problem of a rule file names the file: a line break in its name is written as an
    escape, so the refusal stays one line a problem."""
    path = tmp_path / "r\nx.yaml"
    path.write_text("rules: []\n")
    assert run(["rules", "check", "--rules", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == err.count("dstc2conv: error: ") >= 1 and "r\\nx.yaml" in err, err
