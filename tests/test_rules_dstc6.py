"""The shipped rules on the DSTC6 track 1 variant (``simulate --variant dstc6``):
``rules score`` on its JSON files, the answers from the train file's ``answer`` or a
test file's truth file; every task and set, generated here, scored 100%."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from dstc2conv.cli import run
from dstc2conv.simulate.dstc6 import SPLITS6, file_name6, truth_name
from dstc2conv.systems.rules.dstc6 import read_dstc6, score6
from dstc2conv.systems.rules.ruleset import load_rules
from dstc2conv.systems.rules.shipped import shipped_dstc6

ENTRIES = 50


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """50 entries of every task and set (train and tst1..tst4), seed 11."""
    out = tmp_path_factory.mktemp("dstc6")
    tasks = [a for t in range(1, 6) for a in ("--task", str(t))]
    splits = [a for s in SPLITS6 for a in ("--split", s)]
    assert run(["simulate", "--variant", "dstc6", "--quiet", "--out", str(out), *tasks, *splits,
                "--dialogs", str(ENTRIES), "--seed", "11"]) == 0
    return out


@pytest.mark.parametrize("split", SPLITS6)
@pytest.mark.parametrize("task", range(1, 6))
def test_the_rules_score_100_percent(made, task, split):
    path = made / file_name6(task, split, ENTRIES)
    truth = None if split == "trn" else str(made / truth_name(path.name))
    scored = score6(load_rules(shipped_dstc6()), str(path), truth)
    assert scored.entries == ENTRIES
    assert scored.wrong == ()


def test_an_entry_as_turns(tmp_path):
    entry = {"dialog_id": "d", "candidates": [{"candidate_id": "a", "utterance": "here it is x_phone"}],
             "utterances": ["x r_phone x_phone", "hi", "hello what can i help you with today",
                            "<silence>", "api_call a b", "y r_rating 3", "may i have the phone"],
             "answer": {"candidate_id": "a"}}
    path = tmp_path / "d.json"
    path.write_text(json.dumps([entry]))
    (e,) = read_dstc6(str(path))
    assert [(t.user, t.gold, t.context, t.lead) for t in e.turns] == [
        ("hi", "hello what can i help you with today", (), ("x R_phone x_phone",)),
        ("<SILENCE>", "api_call a b", ("y R_rating 3",), ()),
        ("may i have the phone", "here it is x_phone", (), ())]


def test_the_command(made, capsys):
    path = made / file_name6(4, "tst2", ENTRIES)
    assert run(["rules", "score", "--quiet", "--data", str(path), "--truth", str(made / truth_name(path.name))]) == 0
    assert capsys.readouterr().out == f"P@1 100.00% ({ENTRIES}/{ENTRIES} entries)\n"


@pytest.mark.parametrize("text, said", [
    ("[{\"x\": 1}]", "entry 1: not {dialog_id, utterances, candidates}"),
    ("[", "not a JSON file"),
    ("[{\"dialog_id\": \"d\", \"utterances\": [\"hi\"], \"candidates\": []}]", "entry 1: no answer"),
])
def test_bad_input_one_line_exit_2(tmp_path, capsys, text, said):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert run(["rules", "score", "--quiet", "--data", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "bad.json" in err


def test_a_test_file_needs_its_truth(made, capsys):
    path = made / file_name6(1, "tst1", ENTRIES)
    assert run(["rules", "score", "--quiet", "--data", str(path)]) == 2
    assert "--truth" in capsys.readouterr().err


def test_restrictions_only_where_the_name_says(made, tmp_path):
    """A tst3 file renamed as a tst1 one: the rules no longer ask for restrictions."""
    rules = load_rules(shipped_dstc6())
    src = made / file_name6(1, "tst3", ENTRIES)
    renamed = tmp_path / src.name.replace("_restrictions", "")
    renamed.write_bytes(src.read_bytes())
    truth = str(made / truth_name(src.name))
    assert score6(rules, str(src), truth).wrong == ()
    wrong = score6(rules, str(renamed), truth).wrong
    assert wrong and any(answer == "do you have any dietary restrictions" for _, _, answer in wrong)


def test_a_condition_on_the_left_out_slot(made, tmp_path):
    """A rule testing the restrictions slot on a file without it: unset, no error."""
    shipped = Path(shipped_dstc6())
    rules = tmp_path / "dstc6.yaml"
    rules.write_text(shipped.read_text().replace("first_missing: restrictions", "missing: restrictions"))
    (tmp_path / "dstc6-ontology.yaml").write_bytes((shipped.parent / "dstc6-ontology.yaml").read_bytes())
    path = made / file_name6(1, "tst1", ENTRIES)
    scored = score6(load_rules(str(rules)), str(path), str(made / truth_name(path.name)))
    assert scored.wrong and {answer for _, _, answer in scored.wrong} <= {
        "ok let me look into some options for you", "any preference on a type of cuisine", "where should it be",
        "how many people would be in your party", "which price range are you looking for"}


def test_a_json_file_past_the_input_bound_is_one_line(tmp_path, capsys):
    """The DSTC6 JSON reader is bounded as every reader is: past the bound, one line, exit 2."""
    from dstc2conv.limits import MAX_FILE

    big = tmp_path / "big.json"
    with open(big, "wb") as fh:        # sparse: the bound is checked before the bytes are read
        fh.write(b"[")
        fh.truncate(MAX_FILE + 1)
    code = run(["rules", "score", "--data", str(big)])
    err = capsys.readouterr().err
    assert code == 2 and "big.json: larger than" in err
    assert [line for line in err.splitlines() if "error" in line] == [err.splitlines()[-1]]
