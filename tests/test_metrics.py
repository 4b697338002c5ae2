"""The metrics registry (dstc2conv/evaluate/metrics.py) on tiny hand-made files: every
figure below is worked out by hand in the comments; BLEU also against nltk where nltk
and multi-bleu.perl agree, and on a real file."""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest
from conftest import REFERENCE, ROOT, need, run_fresh

from dstc2conv.cli import run
from dstc2conv.evaluate import bleu, entities, metrics
from dstc2conv.evaluate.rankings import gold_rank
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import read_turns, turns_of

KB = """\
1 blue_door R_post_code blue_door_post_code
1 blue_door R_cuisine thai
1 blue_door R_location north
1 blue_door R_phone blue_door_phone
1 blue_door R_address blue_door_address
1 blue_door R_price cheap
1 red_lion R_cuisine british
1 red_lion R_location south
1 red_lion R_price expensive
1 red_lion R_phone red_lion_phone
"""
# 3 dialogs, 12 bot turns. green_hut is no KB restaurant: an entity only once its result
# lines are shown (dialog 1, from turn 3 on); its rating is no entity.
REF = """\
1 hi\tHello
2 thai food\tapi_call thai north cheap
3 green_hut R_cuisine thai
4 green_hut R_location north
5 green_hut R_phone green_hut_phone
6 green_hut R_rating 7
7 <SILENCE>\tgreen_hut is a nice place in the north of town serving tasty thai food
8 phone\tThe phone number of green_hut is green_hut_phone
9 bye\tyou are welcome

1 hi\tHello
2 british\tapi_call british south expensive
3 <SILENCE>\tred_lion is a great restaurant
4 address\tSure , red_lion is on red_lion_address

1 thai\tapi_call thai north cheap
2 blue_door R_cuisine thai
3 <SILENCE>\tblue_door is a nice place in the north of town
4 post code\tThe post code of blue_door is blue_door_post_code
"""
PREDS = [
    "Hello green_hut",                       # TP 0 FP 0 (green_hut no entity yet) FN 0
    "api_call thai south cheap",             # gold {thai, north, cheap}: TP 2, FP 1 (south), FN 1; F1 2/3
    "green_hut is a nice place in the south of town serving tasty thai food",  # TP 2 FP 1 FN 1; F1 2/3
    "The phone number of green_hut is green_hut_phone",                        # right: TP 2; F1 1
    "green_hut you are welcome",             # gold none: FP 1 (green_hut, from the result lines)
    "Hello",                                 # right
    "api_call british south expensive",      # right: TP 3; F1 1
    "blue_door is a great restaurant",       # gold {red_lion}: TP 0 FP 1 FN 1; F1 0
    "red_lion is on red_lion_address",       # gold {red_lion} (red_lion_address no entity): TP 1; F1 1
    "api_call thai north cheap",             # right: TP 3; F1 1
    "blue_door serves thai food",            # gold {blue_door, north}: TP 1 FP 1 (thai) FN 1; F1 1/2
    "blue_door_post_code is the post code",  # gold {blue_door, blue_door_post_code}: TP 1 FN 1; F1 2/3
]
# TP 15, FP 5, FN 5 (entity_micro, entity_recall).
# Mem2Seq's entities are the KB file's only (not green_hut, nor red_lion_address), and its
# false positives also its local words (dialog 1: thai, north, green_hut_phone, and green_hut
# from the rating line; dialog 3: thai). Responses with KB entities: turn 2 [thai north
# cheap] TP 2 FP 1 (south) FN 1, F1 2/3; turn 3 [north thai] TP 1 (thai) FP 2 (green_hut,
# south) FN 1, F1 2/5; turns 7, 10 F1 1; turn 8 [red_lion] F1 0; turn 9 [red_lion] F1 1;
# turn 11 [blue_door north] TP 1 FP 1 (thai) FN 1, F1 1/2; turn 12 [blue_door
# blue_door_post_code] TP 1 FN 1, F1 2/3. Mean over 8: 157/240; recall 12/17.
# Accuracy (strip): right 4 of 12 (turns 4, 6, 7, 10), no dialog all right.
# api_call: 3 turns, 2 exact; cuisine 3/3, location 2/3, price 3/3.
# Task success: dialog 1 fails (its api_call), dialog 2 fails (offers blue_door, not
# red_lion), dialog 3 succeeds (its api_call, and blue_door offered and its post code
# given, other wording): 1 of 3.


@pytest.fixture
def files(tmp_path):
    (tmp_path / "kb.txt").write_text(KB)
    (tmp_path / "ref.txt").write_text(REF)
    (tmp_path / "preds.txt").write_text("\n".join(PREDS) + "\n")
    return tmp_path


def _inputs(match="strip", preds=PREDS, tmp=None):
    turns = tuple(turns_of(task6.parse(REF)))
    kb = None
    if tmp is not None:
        kb = entities.read_entity_kb(str(tmp / "kb.txt"))
    return metrics.Inputs(turns, tuple(preds), match=match, kb=kb)


def _score(capsys, *argv):
    code = run(["score", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- text metrics by hand


def test_every_text_metric_by_hand(files):
    names = metrics.allowed("text", has_kb=True)
    assert names == ("accuracy", "bleu", "entity_f1_mem2seq", "entity_micro", "entity_recall", "api_call",
                     "task_success")
    f = metrics.compute(_inputs(tmp=files), names).figures
    assert (f["accuracy"]["correct"], f["accuracy"]["responses"], f["accuracy"]["dialogs_correct"]) == (4, 12, 0)
    assert f["entity_f1_mem2seq"]["f1"] == pytest.approx(157 / 240) and f["entity_f1_mem2seq"]["responses"] == 8
    assert (f["entity_f1_mem2seq"]["tp"], f["entity_f1_mem2seq"]["fn"]) == (12, 5)
    assert f["entity_f1_mem2seq"]["recall"] == pytest.approx(12 / 17)
    assert (f["entity_micro"]["tp"], f["entity_micro"]["fp"], f["entity_micro"]["fn"]) == (15, 5, 5)
    assert f["entity_micro"]["precision"] == f["entity_micro"]["recall"] == f["entity_micro"]["f1"] == 0.75
    assert f["entity_recall"]["recall"] == 0.75
    assert f["api_call"] == {"accuracy": 2 / 3, "turns": 3, "correct": 2, "cuisine": 1.0, "location": 2 / 3,
                             "price": 1.0}
    assert f["task_success"] == {"success": 1 / 3, "dialogs": 3, "dialogs_successful": 1}


# Where Mem2Seq's code (compute_prf, its task-6 loader) and our entities part, by hand.
MEM2SEQ_REF = """\
1 thai food\tapi_call thai north cheap
2 green_hut R_cuisine thai
3 green_hut R_location north
4 <SILENCE>\tgreen_hut is a nice place in the north of town
5 phone\tThe phone number of blue_door is blue_door_phone
6 more\tblue_door blue_door north
7 british\tapi_call british south cheap
8 pink_pig R_cuisine british
9 pink_pig R_rating 3
10 <SILENCE>\tpink_pig is a nice place

1 british\tapi_call british east cheap
2 api_call no result
3 <SILENCE>\tI'm sorry but there is no british restaurant in the east of town
"""
# Local words: dialog 1 thai, north (values), british, pink_pig (the name on its rating
# line, not 3); green_hut is none (never on a rating line); dialog 2: result.
MEM2SEQ_PREDS = [
    "api_call thai north cheap pink_pig",    # [thai north cheap]: TP 3, FP 1 (pink_pig, a later line); F1 6/7
    "red_lion is a nice place in the north of town",  # [north] (green_hut no KB entity): TP 1 FP 1; F1 2/3
    "The phone number of blue_door is blue_door_phone green_hut",  # TP 2, green_hut no FP; F1 1
    "blue_door",                             # [blue_door blue_door north]: TP 2 FN 1; F1 4/5
    "api_call british south cheap",          # TP 3; F1 1
    "pink_pig is a nice place",              # no KB entity in the gold: not counted
    "api_call british east cheap",           # [british cheap]: TP 2; F1 1
    "I'm sorry but there is no result for british food",  # [british]: TP 1, FP 1 (result); F1 2/3
]
# Mean over 7 responses: (6/7 + 2/3 + 1 + 4/5 + 1 + 1 + 2/3) / 7 = 629/735; recall 14/15.
# Our own entities (seen so far, distinct, result lines' names too) give other counts.


def test_mem2seq_entity_f1_as_its_code_computes_it(files):
    turns = tuple(turns_of(task6.parse(MEM2SEQ_REF)))
    kb = entities.read_entity_kb(str(files / "kb.txt"))
    inputs = metrics.Inputs(turns, tuple(MEM2SEQ_PREDS), kb=kb)
    scored = metrics.compute(inputs, ["entity_f1_mem2seq", "entity_micro"])
    assert scored.stats["entity_f1_mem2seq"] == [(3, 1, 0, True), (1, 1, 0, True), (2, 0, 0, True), (2, 0, 1, True),
                                                 (3, 0, 0, True), (0, 0, 0, False), (2, 0, 0, True), (1, 1, 0, True)]
    f = scored.figures["entity_f1_mem2seq"]
    assert f["f1"] == pytest.approx(629 / 735) and f["responses"] == 7
    assert (f["tp"], f["fn"], f["recall"]) == (14, 1, pytest.approx(14 / 15))
    # ours: pink_pig not seen yet, green_hut an entity, blue_door counted once, result no entity
    assert scored.stats["entity_micro"][:4] == [(3, 0, 0, True), (1, 1, 1, True), (2, 1, 0, True), (1, 0, 1, True)]
    assert scored.stats["entity_micro"][5] == (1, 0, 0, True) and scored.stats["entity_micro"][7] == (1, 0, 0, True)
    assert metrics.METRICS["entity_f1_mem2seq"].columns((1, 2, 3, True)) == {"mem2seq_tp": 1, "mem2seq_fp": 2,
                                                                               "mem2seq_fn": 3}


def test_mem2seq_entity_list_is_every_name_and_value_of_the_kb_file(tmp_path):
    (tmp_path / "kb.txt").write_text("1 blue_door R_cuisine thai\n1 blue_door R_rating 7\n")
    kb = entities.read_entity_kb(str(tmp_path / "kb.txt"))
    assert kb.listed == {"blue_door", "thai", "7"} and "7" not in kb.slots   # ratings: Mem2Seq's list only


def test_entity_fps_come_from_result_lines_seen_so_far(files):
    stats = metrics.compute(_inputs(tmp=files), ["entity_micro"]).stats["entity_micro"]
    assert stats[0] == (0, 0, 0, False)     # green_hut before its result lines: no entity
    assert stats[4] == (0, 1, 0, False)     # after them: a false positive
    assert stats[1] == (2, 1, 1, True)


def test_matches(files):
    lookup = _inputs(tmp=files).lookups[2]          # dialog 1 after its result lines
    assert metrics.correct(" Hello ", "Hello") and not metrics.correct("hello", "Hello")
    assert metrics.correct("HELLO ", "hello", "lower")
    assert entities.template("green_hut is in the south , call green_hut_phone or x_phone", lookup) == \
        "R_name is in the R_location , call R_phone or R_phone"
    # template: also right are turns 2, 3 and 8 (another restaurant, area or location in the same wording): 7
    f = metrics.compute(_inputs("template", tmp=files), ["accuracy"]).figures
    assert f["accuracy"]["correct"] == 7


def test_mention_reads_placeholders_names_and_spaced_names(files):
    lookup = _inputs(tmp=files).lookups[0]
    assert entities.mention("Sure , red_lion is on red_lion_address", lookup) == ("red_lion", "R_address")
    assert entities.mention("the blue door is a nice place", lookup) == ("blue_door", "offer")
    assert entities.mention("you are welcome", lookup) is None


# ---------------------------------------------------------------- BLEU


def _bleu(pairs):
    return bleu.corpus_bleu([bleu.turn_stats(h, r) for h, r in pairs])


def test_bleu_brevity_penalty_by_hand():
    # every n-gram matches; c = 5 < r = 6: BP = exp(1 - 6/5)
    got = _bleu([("a b c d e", "a b c d e f")])
    assert got.precisions == (100.0,) * 4
    assert got.score == pytest.approx(100 * math.exp(-0.2)) and round(got.score, 2) == 81.87


def test_bleu_zero_4gram_precision_is_zero():
    # 1-grams 4/5, 2-grams 2/4, 3-grams 1/3, 4-grams 0/2: BLEU 0, as multi-bleu.perl
    got = _bleu([("a b c x d", "a b c d")])
    assert got.precisions == pytest.approx((80.0, 50.0, 100 / 3, 0.0)) and got.score == 0.0
    from nltk.translate.bleu_score import corpus_bleu
    with pytest.warns(UserWarning):           # nltk: a tiny positive number, not 0
        assert 0 < corpus_bleu([[["a", "b", "c", "d"]]], [["a", "b", "c", "x", "d"]]) < 1e-10


def test_bleu_short_and_empty_hypotheses_follow_perl():
    # a 3-word hypothesis has no 4-gram: Perl counts none (p4 = 2/2, BLEU 100); nltk
    # counts one unmatched (p4 = 2/3)
    pairs = [("you are welcome", "you are welcome"), ("a b c d e", "a b c d e")]
    assert _bleu(pairs).score == 100.0
    from nltk.translate.bleu_score import corpus_bleu
    assert 100 * corpus_bleu([[r.split()] for _, r in pairs], [h.split() for h, _ in pairs]) == \
        pytest.approx(100 * (2 / 3) ** 0.25)
    # an empty hypothesis adds to r only: c = 4, r = 8, BP = exp(1 - 2)
    assert _bleu([("", "a b c d"), ("A B C D", "a b c d")]).score == pytest.approx(100 * math.exp(-1))
    assert _bleu([("", "a b")]).score == 0.0                    # nothing predicted at all
    assert _bleu([("Hello There", "hello there")]).score == 0.0  # no 3-gram at all: p3 = 0


@pytest.mark.parametrize("words", [[], ["a"], ["a", "b"], ["a", "b", "a", "b", "c"], list("abcdefgh")])
def test_bleu_ngrams_are_nltks(words):
    from nltk.util import ngrams as nltk_ngrams

    from dstc2conv.evaluate.bleu import ngrams
    for n in range(1, 5):
        assert list(ngrams(words, n)) == list(nltk_ngrams(words, n))


def test_score_imports_neither_nltk_nor_scipy(tmp_path):
    """nltk takes a second to import (with scipy installed, it imports scipy.stats), more
    than scoring a file: the scorer counts n-grams itself, and nltk is the tests' reference."""
    (tmp_path / "gold.txt").write_text("1 hi\tHello , welcome to the system\n2 thanks\tyou are welcome here\n\n")
    (tmp_path / "preds.txt").write_text("Hello , welcome to the system\nyou are welcome here\n")
    code, loaded, out = run_fresh(["score", "preds.txt", "gold.txt", "--json"], tmp_path, ("nltk", "scipy"))
    assert (code, loaded) == (0, {"nltk": False, "scipy": False})
    assert json.loads(out)["bleu"]["bleu"] == 100.0


def test_bleu_equals_nltk_where_nltk_follows_perl():
    from nltk.translate.bleu_score import corpus_bleu
    pairs = [("the cat sat on the mat", "the cat is on the mat"),
             ("there is a cat on the mat today", "there is a cat on the mat"),
             ("a b c d e f g", "a b c d x f g h")]
    expected = 100 * corpus_bleu([[r.split()] for _, r in pairs], [h.split() for h, _ in pairs])
    assert _bleu(pairs).score == pytest.approx(expected)


def test_bleu_on_the_published_dev_file_equals_nltk_on_long_hypotheses():
    """A real file: each bot turn answered with the previous turn's gold; on the turns
    whose hypothesis has 4 words or more nltk's corpus BLEU is multi-bleu.perl's."""
    from nltk.translate.bleu_score import corpus_bleu
    turns = read_turns(need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    pairs = [(a.gold, b.gold) for a, b in zip(turns, turns[1:]) if len(a.gold.split()) >= 4]
    ours = _bleu(pairs).score
    theirs = 100 * corpus_bleu([[r.lower().split()] for _, r in pairs], [h.lower().split() for h, _ in pairs])
    assert 0 < ours < 100 and round(ours, 2) == round(theirs, 2)


# ---------------------------------------------------------------- rankings


RANK_REF = "1 hi\tHello\n2 thai\tWhat part of town?\n3 north\tapi_call thai north R_price\n"


def test_hits_and_mrr_by_hand_with_the_gold_absent(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text(RANK_REF)
    ranked = [["Hello", "x"], ["x", "y", " What part of town? "], ["x", "y"]]   # ranks 1, 3, absent
    (tmp_path / "ranked.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ranked))
    assert [gold_rank(r, g) for r, g in zip(ranked, ["Hello", "What part of town?", "api_call"])] == [1, 3, None]
    code, out, err = _score(capsys, tmp_path / "ranked.jsonl", tmp_path / "ref.txt", "--json")
    got = json.loads(out)
    assert code == 0, err
    assert [got[f"hits@{k}"]["hits"] for k in (1, 2, 5, 10)] == [1 / 3, 1 / 3, 2 / 3, 2 / 3]
    assert got["mrr"]["mrr"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert got["correct"] == 1                   # the first candidate is the prediction


@pytest.mark.parametrize("lines, message", [
    (['["Hello"]', '["x"]'], "has 2 lines, "),
    (['["Hello"]', '{"a": 1}', '["x"]'], ":2: not a non-empty JSON list of strings"),
    (['["Hello"]', '[]', '["x"]'], ":2: not a non-empty JSON list of strings"),
    (['["Hello"]', '["x", "x "]', '["x"]'], ":2: the candidate 'x' is ranked twice"),
    (['["Hello"]', '["x"', '["x"]'], ":2: not JSON"),
])
def test_bad_ranked_files(tmp_path, capsys, lines, message):
    (tmp_path / "ref.txt").write_text(RANK_REF)
    (tmp_path / "ranked.jsonl").write_text("\n".join(lines) + "\n")
    code, out, err = _score(capsys, tmp_path / "ranked.jsonl", tmp_path / "ref.txt")
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1, err


def test_ranked_candidates_must_come_from_the_candidates_file(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text(RANK_REF)
    (tmp_path / "cands.txt").write_text("1 Hello\n1 x\n")
    (tmp_path / "ranked.jsonl").write_text('["Hello"]\n["x"]\n["y", "x"]\n')
    code, _, err = _score(capsys, tmp_path / "ranked.jsonl", tmp_path / "ref.txt", "--candidates",
                          tmp_path / "cands.txt")
    assert code == 2 and err == (f"dstc2conv: error: {tmp_path / 'ranked.jsonl'}:3: 'y' is not a candidate of "
                                 f"{tmp_path / 'cands.txt'}\n")


# ---------------------------------------------------------------- DSTC6


def test_dstc6_round_trip(files, capsys):
    cands = files / "cands.txt"
    cands.write_text("".join(f"1 {t}\n" for t in dict.fromkeys(p for p in PREDS)))
    samples = files / "samples.json"
    argv = ["export", "dstc6", str(files / "ref.txt"), "--candidates", str(cands), "--k", "3", "--out"]
    assert run(argv + [str(samples), "--quiet"]) == 0
    assert run(argv + [str(files / "again.json"), "--quiet"]) == 0
    assert samples.read_text() == (files / "again.json").read_text()        # seeded
    found = json.loads(samples.read_text())
    assert len(found) == 12 and found[0]["dialog_id"] == "1-1" and found[-1]["dialog_id"] == "3-3"
    # turn 3 of dialog 1: hi, Hello, thai food, the api_call and its 4 result lines, <SILENCE>
    assert found[2]["utterances"] == ["hi", "Hello", "thai food", "api_call thai north cheap",
                                      "green_hut R_cuisine thai", "green_hut R_location north",
                                      "green_hut R_phone green_hut_phone", "green_hut R_rating 7", "<SILENCE>"]
    assert found[2]["speakers"] == ["u", "s", "u"] + ["s"] * 5 + ["u"]
    for s in found:
        ids = [c["candidate_id"] for c in s["candidates"]]
        assert len(set(ids)) == 3 and s["answer"]["candidate_id"] in ids
    perfect, reverse = [], []
    for s in found:
        order = [s["answer"]["candidate_id"]] + [c["candidate_id"] for c in s["candidates"]
                                                 if c["candidate_id"] != s["answer"]["candidate_id"]]
        perfect.append({"dialog_id": s["dialog_id"],
                        "lst_candidate_id": [{"candidate_id": c, "rank": i} for i, c in enumerate(order, 1)]})
        reverse.append({"dialog_id": s["dialog_id"],
                        "lst_candidate_id": [{"candidate_id": c, "rank": 4 - i} for i, c in enumerate(order, 1)]})
    for name, results in (("perfect", perfect), ("reverse", reverse)):
        (files / f"{name}.json").write_text(json.dumps(results, indent=1))
    code, out, err = _score(capsys, files / "perfect.json", files / "ref.txt", "--dstc6", samples, "--json",
                            "--kb", files / "kb.txt")
    got = json.loads(out)
    assert code == 0, err
    assert [got[f"p@{k}"]["precision"] for k in (1, 2, 5)] == [1.0, 1.0, 1.0] and got["per_response"] == 1.0
    assert got["task_success"]["success"] == 1.0
    # reversed: the answer is ranked 3rd of 3 everywhere: P@1 = P@2 = 0, P@5 = 1
    code, out, _ = _score(capsys, files / "reverse.json", files / "ref.txt", "--dstc6", samples, "--json")
    got = json.loads(out)
    assert [got[f"p@{k}"]["precision"] for k in (1, 2, 5)] == [0.0, 0.0, 1.0] and got["per_response"] == 0.0
    # an unknown id: the file and the line of its entry
    reverse[3]["dialog_id"] = "9-9"
    (files / "bad.json").write_text(json.dumps(reverse, indent=1))
    code, out, err = _score(capsys, files / "bad.json", files / "ref.txt", "--dstc6", samples)
    text = (files / "bad.json").read_text()
    line = text[:text.index('"9-9"')].count("\n")        # the entry's "{" is the line before
    assert (code, out) == (2, "") and err == (f"dstc2conv: error: {files / 'bad.json'}:{line}: unknown dialog_id "
                                              "'9-9': no such sample\n")
    reverse[3]["dialog_id"] = found[3]["dialog_id"]
    reverse[3]["lst_candidate_id"][0]["candidate_id"] = "999"
    (files / "bad.json").write_text(json.dumps(reverse))
    code, _, err = _score(capsys, files / "bad.json", files / "ref.txt", "--dstc6", samples)
    assert code == 2 and f"{files / 'bad.json'}:1: unknown candidate_id '999' for dialog_id '1-4'" in err


# ---------------------------------------------------------------- the CLI


def test_default_metrics_and_the_signature(files, capsys, monkeypatch):
    code, out, _ = _score(capsys, files / "preds.txt", files / "ref.txt", "--kb", files / "kb.txt")
    lines = out.splitlines()
    assert code == 0
    assert lines[:9] == [
        "per-response accuracy  33.33%  (4/12)",
        "per-dialog accuracy    0.00%  (0/3)",
        lines[2],
        'entity_f1_mem2seq      65.42%  (mean over 8 responses with entities; recall 70.59%, 12/17: the paper-era "F1")',
        "entity_micro           75.00%  (precision 75.00%, recall 75.00%; TP 15, FP 5, FN 5)",
        "entity_recall          75.00%  (15/20)",
        "api_call               66.67%  (2/3); cuisine 100.00%, location 66.67%, price 100.00%",
        "task_success           33.33%  (1/3 dialogs)",
        lines[8]]
    assert lines[2].startswith("bleu ")
    kb_sha = entities.sha256_file(str(files / "kb.txt"))
    assert lines[8].endswith(f"|match:strip|bleu:lc,tok=space,order=4,nrefs=1|entity_f1_mem2seq|entity_micro|"
                             f"entity_recall|api_call|task_success|kb:{kb_sha[:12]}|version:0.1.0")
    # none given, no manifest: the published KB shipped with dstc2conv, named in the signature
    (files / "kb.txt").rename(files / "kb-elsewhere.txt")
    code, out, _ = _score(capsys, files / "preds.txt", files / "ref.txt", "--json")
    shipped = entities.sha256_file(entities.shipped_kb())
    assert "entity_micro" in json.loads(out) and f"|kb:{shipped[:12]}|" in json.loads(out)["signature"]
    # and were it missing (an install without its data): no entity metric, no task success
    monkeypatch.setattr(entities, "shipped_kb", lambda: None)
    code, out, _ = _score(capsys, files / "preds.txt", files / "ref.txt", "--json")
    assert "entity_micro" not in json.loads(out) and "api_call" in json.loads(out)
    # the published KB's name beside REF is found
    (files / "kb-elsewhere.txt").rename(files / entities.KB_FILE)
    code, out, _ = _score(capsys, files / "preds.txt", files / "ref.txt", "--json", "--metrics", "entity_recall")
    got = json.loads(out)
    assert got["entity_recall"]["recall"] == 0.75 and "per_response" not in got


def test_bad_metrics_and_template_without_a_kb(files, capsys, monkeypatch):
    monkeypatch.setattr(entities, "shipped_kb", lambda: None)   # an install without its data
    code, out, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--metrics", "accuracy,blue")
    assert (code, out) == (2, "") and err == "dstc2conv: error: --metrics: no metric 'blue' (did you mean bleu?)\n"
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--metrics", "hits@1")
    assert code == 2 and "hits@1 needs ranking input, these predictions are text" in err
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--metrics", "entity_micro")
    assert code == 2 and err == "dstc2conv: error: --metrics: entity_micro needs the KB: give --kb FILE\n"
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--match", "template")
    assert code == 2 and err == "dstc2conv: error: --match template needs the KB: give --kb FILE\n"


def test_list_metrics_and_the_docs_table():
    from dstc2conv.evaluate.metrics import docs_table
    assert docs_table() in (ROOT / "docs" / "evaluation.md").read_text(), \
        "docs/evaluation.md's table of metrics differs from `dstc2conv score --list-metrics --markdown`"
    assert run(["score", "--list-metrics", "--markdown"]) == 0


def test_list_metrics_prints_every_name(capsys):
    assert run(["score", "--list-metrics"]) == 0
    out = capsys.readouterr().out
    assert all(f"\n{name}  (" in "\n" + out for name in metrics.NAMES)


# ---------------------------------------------------------------- several systems


def test_several_systems_side_by_side(files, capsys):
    (files / "gold.txt").write_text("".join(t.gold.strip() + "\n" for t in turns_of(task6.parse(REF))))
    code, out, err = _score(capsys, files / "ref.txt", "--system", f"mine={files / 'preds.txt'}",
                            "--system", f"gold={files / 'gold.txt'}", "--metrics", "accuracy,task_success",
                            "--kb", files / "kb.txt", "--bootstrap", "20")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"REF                    {files / 'ref.txt'}"
    assert lines[2] == ("note                   REF is no published task-6 file and no file of a build manifest: "
                        "its figures compare only with figures on the same file")
    assert lines[4].split() == ["system", "per_response", "per_dialog", "task_success", "vs", "mine", "95%",
                                "interval"]
    assert lines[5].split() == ["mine", "33.33%", "0.00%", "33.33%", "-", "-"]
    # gold: 8 more turns right of 12; every resample of dialogs is +
    assert lines[6].split()[:5] == ["gold", "100.00%", "100.00%", "100.00%", "+66.67%"]
    assert "reported" not in out


def test_several_systems_on_the_published_dev_file_show_the_papers_figures(tmp_path, capsys):
    ref = need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt")
    gold = tmp_path / "gold.txt"
    gold.write_text("".join(t.gold.strip() + "\n" for t in read_turns(ref)))
    code, out, _ = _score(capsys, ref, "--system", f"gold={gold}", "--metrics", "accuracy")
    assert code == 0
    assert "note                   REF is the published task-6 dev file (dialog-babi-task6-dstc2-dev.txt)" in out
    assert "reported figures (Bordes & Weston 2017, Table 2, task 6, on the test file; not computed here):" in out
    assert "\nMemN2N                 41.1%         0.0%\n" in out
    assert "\nrule-based             33.3%         0.0%\n" in out


def test_one_system_on_the_published_dev_file_says_so_and_shows_the_papers_figures(tmp_path, capsys):
    ref = need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt")
    gold = tmp_path / "gold.txt"
    gold.write_text("".join(t.gold.strip() + "\n" for t in read_turns(ref)))
    for extra in ([], ["--compare", str(gold)]):
        code, out, _ = _score(capsys, gold, ref, "--metrics", "accuracy", *extra)
        assert code == 0 and out.startswith("per-response accuracy  100.00%  (4159/4159)\n")
        assert "\nnote                   REF is the published task-6 dev file (dialog-babi-task6-dstc2-dev.txt)\n" in out
        tail = out[out.index("reported figures (Bordes & Weston 2017, Table 2, task 6, on the test file; "
                             "not computed here):"):]
        assert "\nMemN2N                 41.1%         0.0%\n" in tail and tail.endswith("0.0%\n")
    code, out, _ = _score(capsys, gold, ref, "--metrics", "accuracy", "--json")
    got = json.loads(out)
    assert got["published"] == "dialog-babi-task6-dstc2-dev.txt"
    assert {"system": "MemN2N", "per_response": 41.1, "per_dialog": 0.0} in got["reported"]["systems"]
    # any other file: no note, no reported figures
    other = tmp_path / "ref.txt"
    other.write_text(REF)
    (tmp_path / "preds.txt").write_text("\n".join(PREDS) + "\n")
    code, out, _ = _score(capsys, tmp_path / "preds.txt", other, "--metrics", "accuracy")
    assert code == 0 and "note" not in out and "reported figures" not in out
    code, out, _ = _score(capsys, tmp_path / "preds.txt", other, "--metrics", "accuracy", "--json")
    assert "published" not in json.loads(out) and "reported" not in json.loads(out)


def test_system_arguments(files, capsys):
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--system", f"a={files / 'preds.txt'}")
    assert code == 2 and "with --system NAME=PREDS, give REF alone" in err
    code, _, err = _score(capsys, files / "ref.txt", "--system", "nothing")
    assert code == 2 and "--system 'nothing': give NAME=PREDS" in err


# ---------------------------------------------------------------- per-turn output


def test_per_turn_output(files, capsys):
    out_jsonl = files / "turns.jsonl"
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--kb", files / "kb.txt",
                          "--turns", out_jsonl)
    assert code == 0 and err == f"dstc2conv: 12 turns written to {out_jsonl}\n"
    rows = [json.loads(line) for line in out_jsonl.read_text().splitlines()]
    assert len(rows) == 12
    assert list(rows[1])[:9] == ["dialog", "turn", "line", "dialog_system", "kind", "user", "gold", "prediction",
                                 "correct"]
    assert rows[1]["kind"] == "api_call" and rows[1]["line"] == 2 and rows[1]["correct"] is False
    assert (rows[1]["entity_tp"], rows[1]["entity_fp"], rows[1]["entity_fn"]) == (2, 1, 1)
    assert (rows[1]["api_call_cuisine"], rows[1]["api_call_location"]) == (True, False)
    assert rows[0]["api_call_correct"] is None and rows[10]["task_turn_right"] is True
    assert sum(r["correct"] for r in rows) == 4
    out_csv = files / "turns.csv"
    code, _, _ = _score(capsys, files / "preds.txt", files / "ref.txt", "--turns", out_csv, "--metrics", "accuracy")
    table = list(csv.DictReader(out_csv.open()))
    assert len(table) == 12 and table[3]["correct"] == "true" and table[3]["dialog"] == "1"
    # refused when it is an input, and nothing written
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--turns", files / "ref.txt")
    assert code == 2 and "cannot write: it is the input" in err and (files / "ref.txt").read_text() == REF
    code, _, err = _score(capsys, files / "preds.txt", files / "ref.txt", "--turns", files / "turns.txt")
    assert code == 2 and "--turns: give a file ending .jsonl (JSON lines) or .csv" in err


def test_docs_page_exists():
    assert Path(ROOT / "docs" / "evaluation.md").is_file()


def test_dstc6_bad_inputs(files, capsys):
    cands = files / "cands.txt"
    cands.write_text("1 Hello\n1 you are welcome\n")
    code = run(["export", "dstc6", str(files / "ref.txt"), "--candidates", str(cands), "--k", "3",
                "--out", str(files / "s.json")])
    err = capsys.readouterr().err
    assert code == 2 and err == "dstc2conv: error: --k 3: the candidates file has only 2 distinct candidates\n"
    assert not (files / "s.json").exists()
    code = run(["export", "dstc6", str(files / "ref.txt"), "--candidates", str(cands), "--k", "2",
                "--out", str(files / "ref.txt")])
    assert code == 2 and "cannot write: it is the input" in capsys.readouterr().err
    # samples of another file
    (files / "other.txt").write_text("1 hi\tHello\n")
    assert run(["export", "dstc6", str(files / "other.txt"), "--candidates", str(cands), "--k", "2",
                "--out", str(files / "s.json"), "--quiet"]) == 0
    (files / "r.json").write_text('[{"dialog_id": "1-1", "lst_candidate_id": []}]')
    code, _, err = _score(capsys, files / "r.json", files / "ref.txt", "--dstc6", files / "s.json")
    assert code == 2 and err == (f"dstc2conv: error: {files / 's.json'}: 1 samples, the reference has 12 bot "
                                 "turns: not the samples of this file\n")
    # a sample left unranked
    code, _, err = _score(capsys, files / "r.json", files / "other.txt", "--dstc6", files / "s.json")
    assert code == 0
    (files / "r.json").write_text("[]")
    code, _, err = _score(capsys, files / "r.json", files / "other.txt", "--dstc6", files / "s.json")
    assert code == 2 and "1 samples are not ranked (the first: dialog_id '1-1')" in err
