"""The IR baselines (``dstc2conv ir tfidf | nn``) on tiny hand-written files; every
expected answer below is worked out by hand in the comments."""
from __future__ import annotations

import json
import math

import pytest

from dstc2conv.cli import run
from dstc2conv.systems.interface import predict
from dstc2conv.systems.interface import run as run_system
from dstc2conv.systems.ir import tfidf as ir
from dstc2conv.systems.ir.nearest import NearestNeighbor
from dstc2conv.systems.ir.words import words
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import turns_of

# Four candidates. df: hello 1, cheap 1, expensive 1, bye 1, now 1, food 2, here 2;
# idf = ln(4/df): ln 4 = 2 ln 2 for the first five, ln 2 for food and here.
CANDIDATES = "1 hello\n1 cheap food here\n1 expensive food here\n1 bye now\n"
HELLO, CHEAP, EXPENSIVE, BYE = "hello", "cheap food here", "expensive food here", "bye now"

# Turn 2: "last" sees only "expensive please": EXPENSIVE, right. "conversation" sees
# "<silence> hello expensive please": in units of ln 2, hello 2, expensive 2, |q| = sqrt 8;
# cos(hello) = 2 / sqrt 8 = 0.707 > cos(EXPENSIVE) = 2*2 / (sqrt 8 sqrt 6) = 0.577: HELLO, wrong.
DEV_LAST = """\
1 <SILENCE>\thello
2 expensive please\texpensive food here

"""

# Turn 2 "expensive food here": both variants EXPENSIVE (conversation: hello 2, expensive 2,
# food 1, here 1, |q| = sqrt 10; cos(hello) = 2/sqrt 10 = 0.632, cos(EXPENSIVE) = 6/sqrt 60 = 0.775).
# Turn 3 "food": "last" ties CHEAP and EXPENSIVE (the same weight of food, the same norm):
# CHEAP, the first, wrong. "conversation": hello 2, expensive 4, food 3, here 2, |q| = sqrt 33;
# cos(hello) = 0.348, cos(CHEAP) = 5/sqrt 198 = 0.355, cos(EXPENSIVE) = 13/sqrt 198 = 0.924: right.
DEV_CONVERSATION = """\
1 <SILENCE>\thello
2 expensive food here\texpensive food here
3 food\texpensive food here

"""


def _turns(text: str):
    return turns_of(task6.parse(text))


def _write(tmp_path, **files) -> dict:
    paths = {}
    for name, text in files.items():
        (tmp_path / f"{name}.txt").write_text(text)
        paths[name] = str(tmp_path / f"{name}.txt")
    return paths


def test_tfidf_cosines_by_hand():
    index = ir.TfIdf((HELLO, CHEAP, EXPENSIVE, BYE))
    assert index.idf["hello"] == pytest.approx(math.log(4))
    assert index.idf["food"] == pytest.approx(math.log(2))
    # "<silence> hello expensive please expensive food here food", in units of ln 2:
    # hello 2, expensive 4, food 2, here 1; |q| = 5. CHEAP and EXPENSIVE have norm sqrt 6.
    text = words("<SILENCE> hello expensive please expensive food here food")
    assert index.scores(text) == pytest.approx([2 / 5, 3 / (5 * math.sqrt(6)), 11 / (5 * math.sqrt(6)), 0])
    assert index.best(text) == EXPENSIVE


def test_tfidf_tie_breaks_to_the_first_candidate():
    index = ir.TfIdf((HELLO, CHEAP, EXPENSIVE, BYE))
    assert index.scores(["food"])[1] == index.scores(["food"])[2] > 0
    assert index.best(["food"]) == CHEAP
    assert index.best(["<silence>"]) == HELLO            # no word in any candidate: all 0
    assert index.best(words("Bye NOW")) == BYE        # lowercased


def _tfidf(input=None, dev=None, candidates=(HELLO, CHEAP, EXPENSIVE, BYE)):
    return ir.TfIdfMatch(candidates, input).fit([], dev)


class _Inputs(ir.TfIdfMatch):
    """Records the input it ranks at each turn."""

    def rank(self, user, k):
        self.seen.append(self.input_words(user))
        return super().rank(user, k)


def test_inputs_last_and_conversation_with_result_lines():
    turns = _turns("1 <SILENCE>\tHello .\n2 cheap\tapi_call cheap\n3 x R_price cheap\n4 ok\tx is cheap\n\n"
                   "1 bye\tbye\n\n")
    every = ("<silence>", "hello", ".", "cheap", "api_call", "x", "r_price", "ok", "is", "bye", "unused")
    seen = {}
    for variant in ir.INPUTS:
        system = _Inputs(every, variant).fit([])
        system.seen = []
        predict(system, turns)
        seen[variant] = system.seen
    assert seen["last"] == [{"<silence>": 1}, {"cheap": 1}, {"ok": 1}, {"bye": 1}]
    assert seen["conversation"] == [
        {"<silence>": 1},
        {".": 1, "<silence>": 1, "cheap": 1, "hello": 1},
        {".": 1, "<silence>": 1, "api_call": 1, "cheap": 3, "hello": 1, "ok": 1, "r_price": 1, "x": 1},
        {"bye": 1},                                       # a new dialog starts afresh
    ]


def test_variants_and_the_choice_on_dev():
    dev_last, dev_conversation = _turns(DEV_LAST), _turns(DEV_CONVERSATION)
    assert predict(_tfidf("last"), dev_last) == [HELLO, EXPENSIVE]
    assert predict(_tfidf("conversation"), dev_last) == [HELLO, HELLO]
    assert predict(_tfidf("last"), dev_conversation) == [HELLO, EXPENSIVE, CHEAP]
    assert predict(_tfidf("conversation"), dev_conversation) == [HELLO, EXPENSIVE, EXPENSIVE]
    chosen = _tfidf(dev=dev_last)
    assert chosen.input_ == "last"
    assert (chosen.dev_["last"]["correct"], chosen.dev_["conversation"]["correct"]) == (2, 1)
    assert _tfidf(dev=dev_conversation).input_ == "conversation"
    # Both variants 2 of 3 right: a tie goes to the conversation.
    tied = _turns("1 <SILENCE>\thello\n2 expensive please\texpensive food here\n3 food\texpensive food here\n\n")
    assert _tfidf(dev=tied).input_ == "conversation"
    assert _tfidf().input_ == "conversation"              # no dev file: the conversation


def test_train_candidates_distinct_in_order():
    turns = _turns("1 <SILENCE>\tHello .\n2 a\tbye\n\n1 <SILENCE>\t Hello . \n2 b\tok\n3 c\tbye\n\n")
    assert ir.train_candidates(turns) == ("Hello .", "bye", "ok")


# Nearest neighbor. Training pairs, in order:
#   1 "<SILENCE>" -> hello         2 "cheap food in the north" -> north cheap ok
#   3 "expensive food" -> expensive ok    4 "cheap" -> cheap ok    5 "the north please" -> north ok
NN_TRAIN = """\
1 <SILENCE>\thello
2 cheap food in the north\tnorth cheap ok
3 expensive food\texpensive ok
4 cheap\tcheap ok

1 the north please\tnorth ok

"""
# "cheap food": pair 2 shares 2 types, pairs 3 and 4 one: pair 2.
# "cheap": pairs 2 and 4 share 1: the first, pair 2 (not the exact match).
# "in the north": pair 2 shares 3, pair 5 two: pair 2.
# "The North please": pair 5 shares 3 (lowercased), pair 2 two: pair 5.
# "hello there": no shared word: the first pair.
NN_DATA = """\
1 cheap food\tnorth cheap ok
2 cheap\tnorth cheap ok
3 in the north\tnorth cheap ok

1 The North please\tnorth ok
2 hello there\tgoodbye

"""


def test_nearest_neighbor_by_hand():
    index = NearestNeighbor().fit(_turns(NN_TRAIN))
    assert predict(index, _turns(NN_DATA)) == [
        "north cheap ok", "north cheap ok", "north cheap ok", "north ok", "hello"]


def test_cli_nn_writes_one_line_per_bot_turn_and_scores(tmp_path, capsys):
    paths = _write(tmp_path, train=NN_TRAIN, data=NN_DATA)
    out = tmp_path / "preds.txt"
    assert run(["ir", "nn", "--train", paths["train"], "--data", paths["data"], "--out", str(out)]) == 0
    assert out.read_text().splitlines() == ["north cheap ok"] * 3 + ["north ok", "hello"]
    printed = capsys.readouterr().out
    assert "per-response accuracy  80.00%  (4/5)" in printed     # the last turn wrong
    assert "per-dialog accuracy    50.00%  (1/2)" in printed     # so the second dialog


def test_cli_tfidf_candidates_file_and_dev_choice_json(tmp_path, capsys):
    paths = _write(tmp_path, candidates=CANDIDATES, dev=DEV_LAST, data=DEV_CONVERSATION, train=DEV_LAST)
    out = tmp_path / "preds.txt"
    code = run(["ir", "tfidf", "--train", paths["train"], "--data", paths["data"], "--candidates",
                paths["candidates"], "--dev", paths["dev"], "--out", str(out), "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["input"] == "last"                      # chosen on DEV_LAST
    assert result["dev"]["last"]["correct"] == 2 and result["dev"]["conversation"]["correct"] == 1
    assert result["candidates"] == 4
    assert (result["correct"], result["responses"], result["dialogs_correct"]) == (2, 3, 0)
    assert out.read_text() == f"{HELLO}\n{EXPENSIVE}\n{CHEAP}\n"


def test_cli_tfidf_defaults(tmp_path, capsys):
    # No --candidates: the train file's bot utterances, "hello" then "expensive food here".
    # No --dev: the conversation. Turn 2 of DEV_LAST: "<silence> hello expensive please";
    # every word's idf is ln 2, so cos(hello) = 1/sqrt 2 = 0.707 > cos(expensive food here) =
    # 1/(sqrt 2 sqrt 3) = 0.408: "hello", wrong.
    paths = _write(tmp_path, train=DEV_LAST, data=DEV_LAST)
    code = run(["ir", "tfidf", "--train", paths["train"], "--data", paths["data"], "--out", "-"])
    assert code == 0
    captured = capsys.readouterr()
    assert captured.out == "hello\nhello\n"
    assert "input: conversation" in captured.err
    assert "candidates             2 (the distinct bot utterances of" in captured.err
    assert "(1/2)" in captured.err


def test_cli_input_and_dev_exclude_each_other(tmp_path):
    paths = _write(tmp_path, train=DEV_LAST)
    with pytest.raises(SystemExit) as exc:
        run(["ir", "tfidf", "--train", paths["train"], "--data", paths["train"], "--dev", paths["train"],
             "--input", "last", "--out", "-"])
    assert exc.value.code == 2


@pytest.mark.parametrize("text, message", [
    ("", "candidates.txt: no candidates (the file is empty or only empty lines)"),
    ("\n\n", "candidates.txt: no candidates (the file is empty or only empty lines)"),
    ("1 hello\nhello there\n", "candidates.txt:2: expected '1 <utterance>', found 'hello there'"),
])
def test_cli_bad_candidates(tmp_path, capsys, text, message):
    paths = _write(tmp_path, train=DEV_LAST, candidates=text)
    out = tmp_path / "preds.txt"
    code = run(["ir", "tfidf", "--train", paths["train"], "--data", paths["train"], "--candidates",
                paths["candidates"], "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("dstc2conv: error: ") and err.rstrip().endswith(message)
    assert len(err.splitlines()) == 1
    assert not out.exists()


def test_cli_missing_candidates(tmp_path, capsys):
    paths = _write(tmp_path, train=DEV_LAST)
    code = run(["ir", "tfidf", "--train", paths["train"], "--data", paths["train"], "--candidates",
                str(tmp_path / "none.txt"), "--out", "-"])
    assert code == 2
    assert "none.txt: cannot read: No such file or directory" in capsys.readouterr().err


def test_cli_unwritable_out_is_refused_before_the_work(tmp_path, capsys):
    # The data file is bad too: the --out error comes first, so nothing was read.
    paths = _write(tmp_path, train=DEV_LAST, data="1 no tab here at all\n")
    code = run(["ir", "nn", "--train", paths["train"], "--data", paths["data"],
                "--out", str(tmp_path / "missing" / "preds.txt")])
    assert code == 2
    assert "cannot write: no folder" in capsys.readouterr().err
    code = run(["ir", "nn", "--train", paths["train"], "--data", paths["data"], "--out", str(tmp_path)])
    assert code == 2
    assert "cannot write: it is a folder" in capsys.readouterr().err


def test_cli_bad_data_names_the_file_and_line(tmp_path, capsys):
    paths = _write(tmp_path, train=DEV_LAST, data="1 <SILENCE>\thello\n2 no tab here\n")
    code = run(["ir", "nn", "--train", paths["train"], "--data", paths["data"], "--out", "-"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{paths['data']}:2: neither an exchange" in err and len(err.splitlines()) == 1


# ---------------------------------------------------------------- --rank


def test_nn_rank_by_hand():
    # shared word types per pair (see NN_TRAIN); ties go to the pair first in the file
    index = NearestNeighbor().fit(_turns(NN_TRAIN))
    ranked = run_system(index, _turns(NN_DATA), 3)
    assert ranked == [
        ("north cheap ok", "expensive ok", "cheap ok"),    # "cheap food": pair 2 (2), pairs 3, 4 (1)
        ("north cheap ok", "cheap ok", "hello"),           # "cheap": pairs 2, 4 (1), then pair 1 (0)
        ("north cheap ok", "north ok", "hello"),           # "in the north": pair 2 (3), pair 5 (2)
        ("north ok", "north cheap ok", "hello"),           # "The North please": pair 5 (3), pair 2 (2)
        ("hello", "north cheap ok", "expensive ok")]       # "hello there": nothing shared
    assert [r[0] for r in ranked] == predict(index, _turns(NN_DATA))


def test_cli_tfidf_rank_writes_json_lines_and_scores_hits_and_mrr(tmp_path, capsys):
    # input "last": turn 1 "<SILENCE>" shares nothing: the candidates in file order, HELLO
    # first (rank 1); turn 2 "expensive food here": EXPENSIVE, then CHEAP (food, here)
    # (rank 1); turn 3 "food": CHEAP and EXPENSIVE tie, CHEAP first (rank 2).
    # hits@1 2/3, hits@2 3/3, MRR (1 + 1 + 1/2) / 3 = 5/6.
    paths = _write(tmp_path, candidates=CANDIDATES, data=DEV_CONVERSATION)
    out = tmp_path / "ranked.jsonl"
    code = run(["ir", "tfidf", "--train", paths["data"], "--data", paths["data"], "--candidates",
                paths["candidates"], "--input", "last", "--rank", "3", "--out", str(out), "--json", "--quiet"])
    assert code == 0
    assert [json.loads(line) for line in out.read_text().splitlines()] == [
        [HELLO, CHEAP, EXPENSIVE], [EXPENSIVE, CHEAP, HELLO], [CHEAP, EXPENSIVE, HELLO]]
    result = json.loads(capsys.readouterr().out)
    assert result["correct"] == 2 and result["hits@1"]["hits"] == 2 / 3 and result["hits@2"]["hits"] == 1.0
    assert "hits@5" not in result and result["mrr"]["mrr"] == pytest.approx(5 / 6)
    assert result["signature"].endswith("|match:strip|hits@1|hits@2|mrr|version:0.1.0")
    # the ranked file scores the same with `score`
    code = run(["score", str(out), paths["data"], "--metrics", "hits@1,hits@2,mrr", "--json"])
    again = json.loads(capsys.readouterr().out)
    assert (again["hits@2"]["hits"], again["mrr"]["mrr"]) == (1.0, result["mrr"]["mrr"])


def test_nearest_neighbor_loads_neither_numpy_nor_scipy(tmp_path):
    """`ir nn` is pure Python: its start-up does not pay for numpy and scipy."""
    from conftest import run_fresh
    (tmp_path / "trn.txt").write_text("1 hello\tHello , welcome\n2 thanks\tyou are welcome\n\n")
    argv = ["ir", "nn", "--train", "trn.txt", "--data", "trn.txt", "--out", "p.txt", "--quiet"]
    assert run_fresh(argv, tmp_path, ("numpy", "scipy"))[:2] == (0, {"numpy": False, "scipy": False})
    assert (tmp_path / "p.txt").read_text() == "Hello , welcome\nyou are welcome\n"
