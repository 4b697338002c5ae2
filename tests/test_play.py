"""dstc2conv play: the simulated user against a system, the system's own answers driving
the dialog. The rules reach every task's end; broken systems fail with the right kind;
the environment's facts are the KB's matching restaurants; the same seed gives the same
bytes; --show prints the published format; bad input is one line, exit 2. And the rules
answer simulated test and OOV test files of every task at 100%."""
from __future__ import annotations

import json
import random

import pytest

from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.simulate.kb import paper_kb
from dstc2conv.simulate.play import TURN_LIMITS, PlayOptions, babi_rules, build_system, play
from dstc2conv.simulate.requests import matching, world
from dstc2conv.simulate.user import (
    NO_BOOKING,
    SLOT_QUESTION,
    TURN_LIMIT,
    UNEXPECTED,
    WRONG_CALL,
    WRONG_INFO,
    WRONG_PROPOSAL,
    call_results,
)
from dstc2conv.simulate.wording import BOOK, HELLO, LOOKING, PROPOSE, WELCOME
from dstc2conv.systems.interface import System, predict
from dstc2conv.systems.rules.system import Rules
from dstc2conv.task6.turns import read_turns


def rules() -> Rules:
    return Rules(rules=babi_rules()).fit()


@pytest.mark.parametrize("task", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("split", ["tst", "tst-OOV"])
def test_the_rules_reach_every_tasks_end(task, split):
    result = play(PlayOptions("rules", task, dialogs=40, seed=5, split=split))
    assert result.successes == 40, [(p.failure, p.why) for p in result.played if p.failure][:3]
    assert all(p.turns <= TURN_LIMITS[task] for p in result.played)


class Over(System):
    """The rules, with their answers changed by ``change(answer)``."""

    def __init__(self, change=None):
        self.change = change
        self.inner = rules()

    def reset(self):
        self.inner.reset()

    def preface(self, context):
        self.inner.preface(context)

    def rank(self, user, k):
        return (self.change(self.inner.rank(user, 1)[0]),)

    def observe(self, user, gold, context):
        self.inner.observe(user, gold, context)


class AlwaysHello(System):
    def rank(self, user, k):
        return (HELLO,)


def wrong_cuisine(answer: str) -> str:
    words = answer.split()
    if words[:1] == ["api_call"]:
        words[1] = "french" if words[1] != "french" else "indian"
    return " ".join(words)


def failures(system, task: int, dialogs: int = 30) -> dict:
    result = play(PlayOptions(None, task, dialogs=dialogs, seed=1), system)
    return result.to_dict()["failures"]


def test_a_system_that_always_greets_fails_at_its_second_turn():
    result = play(PlayOptions(None, 1, dialogs=10), AlwaysHello())
    assert {(p.failure, p.turns) for p in result.played} == {(UNEXPECTED, 2)}
    assert result.played[0].why.startswith(f"{HELLO!r} after the user's opening")


@pytest.mark.parametrize("task", [1, 2, 5])
def test_the_wrong_cuisine_in_the_call_is_a_wrong_call(task):
    assert set(failures(Over(wrong_cuisine), task)) == {WRONG_CALL}


@pytest.mark.parametrize("change, task, kind", [
    # the address asked, the phone given (and the other way round)
    (lambda a: a.replace("_address", "_phone") if a.endswith("_address") else a.replace("_phone", "_address"), 4,
     WRONG_INFO),
    # a restaurant that is none of the options
    (lambda a: a.replace("resto_", "resto_x") if a.startswith(PROPOSE) else a, 3, WRONG_PROPOSAL),
    (lambda a: WELCOME if a == BOOK else a, 3, NO_BOOKING),
    (lambda a: WELCOME if a == BOOK else a, 4, NO_BOOKING),
    # the call without asking
    (lambda a: LOOKING if a.startswith("any preference") or a.startswith("where") else a, 1, SLOT_QUESTION),
])
def test_broken_answers_fail_with_their_kind(change, task, kind):
    found = failures(Over(change), task)
    assert kind in found and sum(f["dialogs"] for f in found.values()) >= 10, found


def test_a_question_for_a_given_field_and_a_loop():
    asked_twice = Over(lambda a: "any preference on a type of cuisine" if a == LOOKING else a)
    assert set(failures(asked_twice, 1)) <= {SLOT_QUESTION}
    looping = Over(lambda a: LOOKING if a.startswith("api_call") else a)      # waits forever
    result = play(PlayOptions(None, 1, dialogs=5), looping)
    assert {(p.failure, p.turns) for p in result.played} == {(TURN_LIMIT, TURN_LIMITS[1])}


def test_the_environments_facts_are_the_kbs_matching_restaurants():
    kb = paper_kb()
    request = next(r for r, found in matching(kb.halves[0]).items() if len(found) >= 3)
    expected = {line for r in kb.restaurants if r.request == request for line in r.facts()}
    assert expected and len(expected) % 7 == 0
    facts = call_results(kb, "api_call " + " ".join(request), random.Random(0))
    assert len(facts) == len(expected) and set(facts) == expected
    for i in range(0, len(facts), 7):        # 7 facts a restaurant, in the dialog order
        assert [f.split()[1] for f in facts[i:i + 7]] == ["R_phone", "R_cuisine", "R_address", "R_location",
                                                        "R_number", "R_price", "R_rating"]
    assert call_results(kb, "api_call italian paris four pricey", random.Random(0)) == ()
    assert call_results(kb, "i'm on it", random.Random(0)) == ()


def test_in_a_played_task5_dialog_the_facts_follow_the_last_call():
    kb = paper_kb()
    result = play(PlayOptions("rules", 5, dialogs=20, seed=2))
    for p in result.played:
        calls = [i for i, line in enumerate(p.lines) if "\tapi_call " in line]
        assert len(calls) == 2
        first, last = calls
        assert "\t" in p.lines[first + 1]                 # no facts after the first call
        values = tuple(p.lines[last].split("\t")[1].split()[1:])
        facts = [line for line in p.lines if "\t" not in line]
        assert facts == list(p.lines[last + 1:last + 1 + len(facts)])
        assert set(facts) == {line for r in kb.restaurants if r.request == values for line in r.facts()}


def test_same_seed_same_output(capsys):
    args = ["play", "--system", "rules", "--task", "5", "--dialogs", "15", "--show", "2", "--quiet"]
    outs = []
    for seed in ("4", "4", "5"):
        assert run([*args, "--seed", seed, "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] != outs[2]
    first = json.loads(outs[0])
    assert first["task_success"] == 1.0
    parts = first["signature"].split("|")
    assert parts[:3] == ["play", "rules", parts[2]] and parts[2].startswith("rules:")
    assert parts[4:-1] == ["task:5", "split:tst", "seed:4", "dialogs:15"]
    assert run([*args, "--seed", "4", "--json", "--kb-seed", "1"]) == 0       # another KB, another signature
    other = json.loads(capsys.readouterr().out)["signature"].split("|")
    assert other[3] != parts[3] and other[3].startswith("kb:") and other[:3] == parts[:3]


def test_show_prints_the_published_format(tmp_path, capsys):
    assert run(["play", "--system", "rules", "--task", "3", "--dialogs", "3", "--show", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    shown, _, report = out.partition("\nsystem ")
    dialogs = shown.split("\n\n")
    assert len([d for d in dialogs if d.strip()]) == 2
    for d in dialogs[:2]:
        lines = d.strip("\n").split("\n")
        assert [int(line.split(" ", 1)[0]) for line in lines] == list(range(1, len(lines) + 1))
        facts = [line for line in lines if "\t" not in line]
        assert facts and all(line.split()[2].startswith("R_") for line in facts)
        assert lines[len(facts)].endswith(f"\t{HELLO}")          # task 3: the facts come first
        assert lines[-1].endswith(f"\t{BOOK}")
    (tmp_path / "dialog-babi-task3-options-tst.txt").write_text(shown)
    turns = read_turns(tmp_path / "dialog-babi-task3-options-tst.txt")      # a file the readers take
    assert predict(rules(), turns) == [t.gold for t in turns]
    assert "task success      100.00%  (3 of 3;" in report
    assert "dialog 1: success" in report


@pytest.mark.parametrize("args, says", [
    (["--system", "rules", "--task", "6"], "argument --task: 6: give 5 or fewer"),
    (["--system", "memn2n", "--task", "5"], "memn2n learns from data: give --train FILE --dev FILE, or --model DIR"),
    (["--system", "rules", "--task", "5", "--train", "x.txt"], "--train needs --dev FILE"),
    (["--system", "nosuch", "--task", "5"], "no system 'nosuch'"),
    (["--task", "5"], "give --system NAME (or --model DIR)"),
    (["--model", "m", "--dev", "d.txt", "--task", "5"], "give --model DIR or --train FILE --dev FILE, not both"),
    (["--model", "no-such-folder", "--task", "5"], "no-such-folder"),
    (["--system", "rules", "--task", "5", "--kb", "missing-kb.txt"], "missing-kb.txt"),
])
def test_bad_input_is_one_line_and_exit_2(args, says, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    try:
        code = run(["play", "--quiet", *args])
    except SystemExit as exc:         # a usage error: argparse's exit
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert says in captured.err and captured.err.count("\n") == 1, captured.err


def test_a_bad_kb_line_is_named(tmp_path, capsys):
    kb = tmp_path / "kb.txt"
    kb.write_text("1 resto_x R_cuisine\tthai\n1 resto_x R_price cheap\n")
    assert run(["play", "--quiet", "--system", "rules", "--task", "1", "--kb", str(kb)]) == 2
    assert f"{kb}:2: not a KB line" in capsys.readouterr().err


def test_a_model_is_given_the_kbs_candidates(tmp_path):
    """A ranking system trained on a few simulated dialogs plays with the KB's calls and
    restaurants among its answers."""
    assert run(["simulate", "--quiet", "--task", "1", "--split", "trn", "--split", "dev", "--dialogs", "30",
                "--out", str(tmp_path)]) == 0
    options = PlayOptions("tfidf", 1, dialogs=5, train=str(tmp_path / "dialog-babi-task1-API-calls-trn.txt"),
                          dev=str(tmp_path / "dialog-babi-task1-API-calls-dev.txt"))
    system = build_system(options, paper_kb())
    assert "api_call thai tokyo two cheap" in system.candidates
    result = play(options, system)
    assert len(result.played) == 5 and all(p.turns >= 1 for p in result.played)
    model = tmp_path / "model"
    assert run(["train", "--quiet", "--system", "memn2n", "--train", options.train, "--dev", options.dev,
                "--model", str(model), "--set", "epochs=1", "--set", "dimension=8"]) == 0
    loaded = build_system(PlayOptions("memn2n", 1, model=str(model)), paper_kb())
    assert "api_call thai tokyo two cheap" in loaded.candidates     # not in the training files: the KB's
    again = play(PlayOptions(None, 1, dialogs=5, model=str(model)))
    assert again.system == "memn2n" and len(again.played) == 5
    with pytest.raises(Dstc2ConvError, match="a model of memn2n, not of tfidf"):
        play(PlayOptions("tfidf", 1, dialogs=5, model=str(model)))


@pytest.mark.parametrize("task", [1, 2, 3, 4, 5])
def test_the_rules_answer_simulated_test_and_oov_test_files_at_100(task, tmp_path):
    assert run(["simulate", "--quiet", "--task", str(task), "--split", "tst", "--split", "tst-OOV",
                "--dialogs", "60", "--seed", "9", "--out", str(tmp_path)]) == 0
    for path in sorted(tmp_path.glob("dialog-babi-task*")):
        turns = read_turns(path)
        assert predict(rules(), turns) == [t.gold for t in turns], path.name


def test_the_worlds_the_user_draws_from():
    kb = paper_kb()
    assert world(kb, "tst").half is kb.halves[0] and world(kb, "tst-OOV").half is kb.halves[1]


def test_wilson_interval_by_hand():
    from dstc2conv.evaluate.intervals import wilson

    # p = 5/10, z = 1.96: (0.5 + 0.19208) / 1.38415 ± 1.96 * sqrt(0.025 + 0.0096040) / 1.38415
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-5)
    assert wilson(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-5)
    assert wilson(200, 200) == pytest.approx((0.98115, 1.0), abs=1e-5)
    with pytest.raises(Dstc2ConvError):
        wilson(3, 0)
