"""`dstc2conv score` and dstc2conv/evaluate/: the scoring arithmetic, the response kinds,
the paired bootstrap, the errors, and `rules score` unchanged (golden outputs made before
its arithmetic moved to dstc2conv/evaluate/responses.py). Every expected count below is
worked out by hand in the comments."""
from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import pytest
from conftest import GOLDEN, REFERENCE, ROOT, need, write_rule_files

from dstc2conv import __version__
from dstc2conv.cli import run
from dstc2conv.evaluate import responses
from dstc2conv.evaluate.response_kinds import KINDS, NAMES, kind_of
from dstc2conv.task6 import format as task6
from dstc2conv.task6.turns import BotTurn, read_turns, turns_of

GREETING = ("Hello , welcome to the Cambridge restaurant system . You can ask for restaurants by area , "
            "price range or food type . How may I help you ?")

# 3 dialogs, 11 bot turns. Kinds: greeting 3, ask_food 1, api_call 1, offer 1, phone 1,
# ask_area 1, closing 3.
REF = f"""\
1 <SILENCE>\t{GREETING}
2 i want food\tWhat kind of food would you like?
3 thai\tapi_call thai R_location R_price
4 blue_door R_cuisine thai
5 blue_door R_location north
6 <SILENCE>\tblue_door is a nice place in the north of town serving tasty thai food
7 phone\tThe phone number of blue_door is blue_door_phone
8 thanks\tyou are welcome

1 <SILENCE>\t{GREETING}
2 cheap\tWhat part of town do you have in mind?
3 thanks\tyou are welcome

1 <SILENCE>\t{GREETING}
2 thanks bye\tyou are welcome

"""
GOLD = [t.gold for t in turns_of(task6.parse(REF))]

# The rules below answer the greeting, "thanks" and a missing food only: right on the 3
# greetings, the ask_food and the 3 closings (7/11); dialog 3 is the only one all right.
RULES = f"""\
ontology: ontology.yaml
patterns:
  hello: {GREETING}
  ask_food: What kind of food would you like?
  bye: you are welcome
rules:
  - id: greet
    priority: 100
    when: {{first_turn: true}}
    say: hello
  - id: bye
    priority: 90
    when: {{user_words: thanks}}
    say: bye
  - id: ask-food
    priority: 10
    when: {{missing: food}}
    say: ask_food
"""
ONTOLOGY = """\
food: [thai, italian]
area: [north, south]
price: [cheap, expensive]
served: [thai]
"""
# what the rules predict ("" where no rule answers); dialog 2 asks for the food, not the area
RULE_PREDS = [GREETING, "What kind of food would you like?", "", "", "", "you are welcome",
              GREETING, "What kind of food would you like?", "you are welcome",
              GREETING, "you are welcome"]
# dialogs 1 and 3 from system S0, dialog 2 from S1
SESSIONS = ["Mar13_S0A0/voip-a", "Mar13_S1A0/voip-b", "Mar13_S0A0/voip-c"]


def _write(path, lines, end="\n") -> str:
    path.write_text(end.join(lines) + end)
    return str(path)


def _ref(tmp_path, manifest: bool = False) -> str:
    (tmp_path / "ref.txt").write_text(REF)
    if manifest:
        (tmp_path / "manifest.json").write_text(json.dumps(
            {"files": {"ref.txt": {"split": "train", "dialogs": SESSIONS}}}))
    return str(tmp_path / "ref.txt")


def _score(capsys, *argv) -> tuple[int, str, str]:
    code = run(["score", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ---------------------------------------------------------------- arithmetic


def test_score_by_hand():
    turns = turns_of(task6.parse(REF))
    # right: the strip does not count, the case does
    preds = [f"  {GREETING} ", "what kind of food would you like?"] + GOLD[2:6] + ["", "x", "", "", GOLD[10]]
    results = responses.outcomes(preds, turns)
    assert results == [True, False, True, True, True, True, False, False, False, False, True]
    s = responses.score(results, turns, "sig")
    assert (s.responses, s.correct, s.dialogs, s.dialogs_correct) == (11, 6, 3, 0)
    assert s.per_response == pytest.approx(6 / 11) and s.per_dialog == 0.0
    assert responses.signature("ab" * 32) == f"data:{'ab' * 6}|match:strip|version:{__version__}"
    assert responses.signature("ab" * 32, "rules:x").startswith("rules:x|data:abababababab|")


def test_score_cli_by_hand(tmp_path, capsys):
    ref = _ref(tmp_path, manifest=True)
    preds = _write(tmp_path / "preds.txt", RULE_PREDS)
    code, out, err = _score(capsys, preds, ref, "--json")
    got = json.loads(out)
    assert code == 0 and err == ""
    assert {k: got[k] for k in ("responses", "correct", "dialogs", "dialogs_correct")} == {
        "responses": 11, "correct": 7, "dialogs": 3, "dialogs_correct": 1}
    assert got["per_response"] == pytest.approx(7 / 11) and got["per_dialog"] == pytest.approx(1 / 3)
    # by default every text metric, with the shipped KB (none given, none beside the manifest)
    assert got["signature"].startswith("data:") and got["signature"].endswith(
        "|match:strip|bleu:lc,tok=space,order=4,nrefs=1|entity_f1_mem2seq|entity_micro|entity_recall|api_call|"
        "task_success|kb:cae1e86f50c4|version:" + __version__)
    # S0: dialogs 1 (3/6 right) and 3 (2/2); S1: dialog 2 (2/3)
    assert got["by_system"] == {
        "S0": {"per_response": 5 / 8, "per_dialog": 0.5, "responses": 8, "correct": 5, "dialogs": 2,
               "dialogs_correct": 1},
        "S1": {"per_response": 2 / 3, "per_dialog": 0.0, "responses": 3, "correct": 2, "dialogs": 1,
               "dialogs_correct": 0}}
    expected = {"api_call": (1, 0), "greeting": (3, 3), "ask_food": (1, 1), "ask_area": (1, 0),
                "offer": (1, 0), "phone": (1, 0), "closing": (3, 3)}
    assert list(got["by_kind"]) == [k for k in NAMES if k in expected]      # the registry's order
    assert {k: (v["responses"], v["correct"]) for k, v in got["by_kind"].items()} == expected
    assert got["by_kind"]["closing"]["per_response"] == 1.0
    for parts in (got["by_kind"], got["by_system"]):
        assert sum(p["responses"] for p in parts.values()) == got["responses"]
        assert sum(p["correct"] for p in parts.values()) == got["correct"]
    code, out, _ = _score(capsys, preds, ref)
    assert out.splitlines()[:2] == ["per-response accuracy  63.64%  (7/11)",
                                    "per-dialog accuracy    33.33%  (1/3)"]
    assert "system S1              66.67%  (2/3) per response, 0.00%  (0/1) per dialog" in out
    assert out.split("\n\n")[1] == """\
kind      responses  correct  accuracy
api_call          1        0     0.00%
greeting          3        3   100.00%
ask_food          1        1   100.00%
ask_area          1        0     0.00%
offer             1        0     0.00%
phone             1        0     0.00%
closing           3        3   100.00%
total            11        7    63.64%
"""


def test_the_task6_file_is_given_by_position_or_by_data(tmp_path, capsys):
    """``--data REF`` as predict, report and rules score take it; the same output as REF by
    position; both is a usage error."""
    ref = _ref(tmp_path)
    preds = _write(tmp_path / "preds.txt", RULE_PREDS)
    by_position = _score(capsys, preds, ref, "--json", "--bootstrap", "0")
    assert by_position[0] == 0 and json.loads(by_position[1])["correct"] == 7
    assert _score(capsys, preds, "--data", ref, "--json", "--bootstrap", "0") == by_position
    assert _score(capsys, "--data", ref, preds, "--json", "--bootstrap", "0") == by_position
    several = _score(capsys, ref, "--system", f"a={preds}", "--system", f"b={preds}", "--bootstrap", "20")
    assert several[0] == 0
    assert _score(capsys, "--data", ref, "--system", f"a={preds}", "--system", f"b={preds}", "--bootstrap",
                  "20") == several
    both = ("", f"dstc2conv: error: --data {ref} and {ref} by position: give the task-6 file once (dstc2conv score "
                "PREDS --data REF, or dstc2conv score PREDS REF)\n")
    assert _score(capsys, preds, ref, "--data", ref) == (2, *both)
    assert _score(capsys, ref, "--data", ref, "--system", f"a={preds}") == (2, *both)
    code, out, err = _score(capsys, ref)
    assert (code, out) == (2, "") and err == ("dstc2conv: error: give PREDS and REF (or PREDS --data REF, or REF and "
                                              "--system NAME=PREDS ...)\n")


def test_the_files_swapped_say_their_order(tmp_path, capsys):
    ref = _ref(tmp_path)
    preds = _write(tmp_path / "preds.txt", RULE_PREDS)
    code, out, err = _score(capsys, ref, preds)
    assert (code, out) == (2, "")
    assert err.startswith(f"dstc2conv: error: {preds}:1: expected '<number> <text>'")
    assert err.endswith(" (not a task-6 file: the files in order are PREDS, then REF)\n")


def test_the_rules_predictions_score_the_same_in_score_and_rules_score(tmp_path, capsys):
    rules, ref = write_rule_files(tmp_path, RULES, ONTOLOGY, REF)
    preds = tmp_path / "preds.txt"
    assert run(["rules", "predict", "--rules", rules, "--data", ref, "--out", str(preds)]) == 0
    assert preds.read_text().split("\n")[:-1] == RULE_PREDS
    assert run(["rules", "score", "--rules", rules, "--data", ref, "--json", "--no-history"]) == 0
    by_rules = json.loads(capsys.readouterr().out)
    code, out, _ = _score(capsys, preds, ref, "--json", "--metrics", "accuracy")
    by_score = json.loads(out)
    assert by_rules["signature"] == by_rules["signature"].split("|")[0] + "|" + by_score["signature"]
    for key in ("per_response", "per_dialog", "responses", "correct", "dialogs", "dialogs_correct"):
        assert by_rules[key] == by_score[key]


def test_gold_predictions_score_one(tmp_path, capsys):
    ref = _ref(tmp_path)
    code, out, _ = _score(capsys, _write(tmp_path / "gold.txt", GOLD), ref, "--json")
    got = json.loads(out)
    assert code == 0 and (got["per_response"], got["per_dialog"]) == (1.0, 1.0)
    assert all(k["per_response"] == 1.0 for k in got["by_kind"].values())


def test_gold_predictions_score_one_on_the_published_dev_file(tmp_path, capsys):
    ref = str(need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    gold = _write(tmp_path / "gold.txt", [t.gold for t in read_turns(ref)])
    code, out, _ = _score(capsys, gold, ref, "--json")
    got = json.loads(out)
    assert code == 0 and (got["responses"], got["dialogs"]) == (4159, 500)
    assert (got["per_response"], got["per_dialog"]) == (1.0, 1.0)
    assert sum(k["responses"] for k in got["by_kind"].values()) == 4159
    assert got["by_kind"]["other"]["responses"] < 10      # nearly every turn has a kind of its own


# ---------------------------------------------------------------- kinds


@pytest.mark.parametrize("gold, kind", [
    ("api_call R_cuisine north cheap", "api_call"),
    (GREETING, "greeting"),
    ("What kind of food would you like?", "ask_food"),
    ("What part of town do you have in mind?", "ask_area"),
    ("Would you like something in the cheap , moderate , or expensive price range?", "ask_price"),
    ("You are looking for a thai restaurant right?", "confirm"),
    ("Did you say you are looking for a restaurant in the west of town?", "confirm"),
    ("Let me confirm , You are looking for a restaurant in the cheap price range right?", "confirm"),
    ("Ok , a restaurant in any part of town is that right?", "confirm"),
    ("You are looking for a restaurant is that right?", "confirm"),
    ("Sorry would you like something in the cheap price range or you dont care", "select"),
    ("I'm sorry but there is no restaurant serving greek food", "no_match"),
    ("Sorry there is no european restaurant in the cheap price range", "no_match"),
    ("I am sorry but there is no irish restaurant that matches your request", "no_match"),
    ("Sorry but there is no other restaurant in the cheap price range and the east of town", "no_match"),
    ("saigon_city is a nice place in the north of town and the prices are expensive", "offer"),
    ("the cow pizza kitchen and bar is a great restaurant", "offer"),
    ("nandos_city_centre serves portuguese food .", "offer"),
    ("x is a nice restaurant in the east of town in the cheap price range", "offer"),
    ("x is in the cheap price range", "offer"),
    ("The phone number of the good luck chinese food takeaway is the_good_luck_chinese_food_takeaway_phone",
     "phone"),
    ("Sure , x is on x_address", "address"),
    ("x is on x_address", "address"),
    ("The post code of x is x_post_code", "post_code"),
    ("The price range at x is cheap .", "area_price"),
    ("x is in the north part of town .", "area_price"),
    ("Can I help you with anything else?", "anything_else"),
    (" you are welcome ", "closing"),
    ("Sorry I am a bit confused ; please tell me again what you are looking for .", "not_understood"),
    ("Sorry, I can't hear you", "not_understood"),
    ("There are restaurants . That area would you like?", "other"),
    ("", "other"),
])
def test_kinds(gold, kind):
    assert kind_of(gold) == kind
    # never two kinds: the order of the registry decides nothing on these
    assert sum(k.test(gold) for k in KINDS) == (kind != "other")


def test_the_docs_name_every_kind():
    section = (ROOT / "docs" / "scoring.md").read_text().split("## Response kinds")[1].split("\n## ")[0]
    assert {name for name in NAMES if f"| `{name}`" in section or f", `{name}`" in section} == set(NAMES)


def test_the_kind_comes_from_the_gold_not_the_prediction():
    turns = turns_of(task6.parse(REF))
    wrong = responses.by_kind([False] * 11, turns)
    assert {k: c.responses for k, c in wrong.items()} == {
        "api_call": 1, "greeting": 3, "ask_food": 1, "ask_area": 1, "offer": 1, "phone": 1, "closing": 3}
    assert all(c.correct == 0 and c.per_response == 0.0 for c in wrong.values())


# ---------------------------------------------------------------- paired comparison


def _turns(sizes: list[int]) -> list[BotTurn]:
    return [BotTurn(d, i, 0, "u", "g", ()) for d, n in enumerate(sizes) for i in range(n)]


def test_identical_predictions_give_a_zero_interval():
    turns = _turns([2, 3, 1])
    a = [True, False, True, True, False, True]
    p = responses.paired(a, a, turns, resamples=200, seed=5)
    assert (p.difference, p.flipped_right, p.flipped_wrong) == (0.0, (), ())
    assert (p.bootstrap.low, p.bootstrap.high, p.bootstrap.share_not_better) == (0.0, 0.0, 1.0)


def test_better_everywhere_gives_a_positive_interval():
    # 40 dialogs of 3 turns; B right on each turn A gets wrong (one or two a dialog), never the reverse
    turns = _turns([3] * 40)
    a = [i % 3 == 0 or (i % 7 == 0 and i % 3 == 1) for i in range(120)]
    b = [True] * 120
    p = responses.paired(a, b, turns, resamples=500, seed=0)
    assert len(p.flipped_right) == 120 - sum(a) and p.flipped_wrong == ()
    assert p.difference == pytest.approx((120 - sum(a)) / 120)
    assert 0 < p.bootstrap.low <= p.difference <= p.bootstrap.high
    assert p.bootstrap.share_not_better == 0.0
    reverse = responses.paired(b, a, turns, resamples=500, seed=0).bootstrap
    assert reverse.high < 0 and reverse.share_not_better == 1.0


def test_the_bootstrap_is_the_documented_procedure():
    """Redone here as docs/design.md states it: Random(seed).choices(range(D), k=D) per
    resample, (B right - A right) / turns over the dialogs drawn, the (k+1)-th smallest and
    largest with k = floor(0.025 N), the share of differences <= 0."""
    sizes = [1, 2, 3, 2, 4]
    turns = _turns(sizes)
    rng0 = random.Random(11)
    a = [rng0.random() < 0.5 for _ in turns]
    b = [rng0.random() < 0.6 for _ in turns]
    nets = [0] * len(sizes)
    for x, y, t in zip(a, b, turns):
        nets[t.dialog] += y - x
    n, seed = 203, 7
    rng = random.Random(seed)
    diffs = []
    for _ in range(n):
        drawn = rng.choices(range(5), k=5)
        diffs.append(sum(nets[d] for d in drawn) / sum(sizes[d] for d in drawn))
    got = responses.paired_bootstrap(a, b, turns, n, seed)
    k = 5   # floor(0.025 * 203)
    assert (got.low, got.high) == (sorted(diffs)[k], sorted(diffs)[n - 1 - k])
    assert got.share_not_better == sum(d <= 0 for d in diffs) / n
    assert got == responses.paired_bootstrap(a, b, turns, n, seed)      # deterministic
    assert got != responses.paired_bootstrap(a, b, turns, n, seed + 1)


def test_the_bootstrap_against_every_resample():
    """Four dialogs: the 4^4 = 256 equally likely draws give the exact distribution of the
    difference. With 20000 resamples the interval's ends are its 2.5% and 97.5% points,
    and the share of differences <= 0 is within 0.01 of the exact probability."""
    sizes = [4, 4, 4, 4]
    nets = [3, 2, 2, -3]         # B's right turns minus A's, per dialog
    a, b, turns = [], [], []
    for d, (size, net) in enumerate(zip(sizes, nets)):
        for i in range(size):
            turns.append(BotTurn(d, i, 0, "u", "g", ()))
            a.append(net < 0 and i < -net)
            b.append(net > 0 and i < net)
    exact = sorted(Fraction(sum(nets[d] for d in draw), sum(sizes[d] for d in draw))
                   for draw in itertools.product(range(4), repeat=4))

    def point(q):   # the value where the exact distribution function passes q, with room either side
        value = next(v for v in exact if Fraction(sum(w <= v for w in exact), 256) > q)
        below = Fraction(sum(w < value for w in exact), 256)
        above = Fraction(sum(w <= value for w in exact), 256)
        assert below < q - Fraction(1, 200) and above > q + Fraction(1, 200)   # not near a jump
        return float(value)

    got = responses.paired_bootstrap(a, b, turns, 20000, 0)
    assert got.low == pytest.approx(point(Fraction(25, 1000)))
    assert got.high == pytest.approx(point(Fraction(975, 1000)))
    assert got.share_not_better == pytest.approx(float(Fraction(sum(v <= 0 for v in exact), 256)), abs=0.01)


def test_compare_cli(tmp_path, capsys):
    ref = _ref(tmp_path)
    rules = _write(tmp_path / "rules.txt", RULE_PREDS)
    gold = _write(tmp_path / "gold.txt", GOLD)
    code, out, _ = _score(capsys, rules, ref, "--compare", gold, "--flips", "1", "--bootstrap", "50")
    assert code == 0
    assert "difference             +36.36% per response (PREDS2 - PREDS), 95% interval [" in out
    assert "flipped                4 turns now right, 0 now wrong (PREDS -> PREDS2)" in out
    assert ("  now right: dialog 1 line 3  user: 'thai'  gold: 'api_call thai R_location R_price'  "
            "PREDS: ''  PREDS2: 'api_call thai R_location R_price'") in out
    assert "  ... and 3 more now right (--flips N shows more)" in out
    assert "50 resamples of the 3 dialogs, seed 0" in out
    code, out, _ = _score(capsys, rules, ref, "--compare", gold, "--json", "--flips", "10")
    got = json.loads(out)["compare"]
    assert got["file"] == gold and (got["correct"], got["dialogs_correct"]) == (11, 3)
    assert (got["flipped_right"], got["flipped_wrong"]) == (4, 0) and got["difference"] == pytest.approx(4 / 11)
    assert [(f["dialog"], f["line"]) for f in got["flips"]["right"]] == [(1, 3), (1, 6), (1, 7), (2, 11)]
    assert got["flips"]["wrong"] == []
    assert got["bootstrap"]["resamples"] == 1000 and got["bootstrap"]["seed"] == 0
    assert 0 <= got["bootstrap"]["low"] <= got["bootstrap"]["high"] <= 1


# ---------------------------------------------------------------- predictions files and errors


def test_short_and_empty_files_give_both_counts(tmp_path, capsys):
    ref = _ref(tmp_path)
    short = _write(tmp_path / "short.txt", GOLD[:10])
    code, out, err = _score(capsys, short, ref)
    assert (code, out) == (2, "")
    assert err == (f"dstc2conv: error: {short} has 10 lines, {ref} has 11 bot turns: "
                   "give one prediction per bot turn, in order\n")
    (tmp_path / "empty.txt").write_text("")
    code, _, err = _score(capsys, tmp_path / "empty.txt", ref)
    assert code == 2 and "empty.txt has 0 lines, " in err and "has 11 bot turns" in err
    good = _write(tmp_path / "good.txt", GOLD)
    code, _, err = _score(capsys, good, ref, "--compare", short)
    assert code == 2 and err.startswith(f"dstc2conv: error: {short} has 10 lines")


def test_line_endings(tmp_path, capsys):
    ref = _ref(tmp_path)
    for name, end, last in (("no-final-newline", "\n", ""), ("crlf", "\r\n", "\r\n"), ("bom", "\n", "\n")):
        path = tmp_path / f"{name}.txt"
        path.write_text(("\ufeff" if name == "bom" else "") + end.join(GOLD) + last, newline="")
        code, out, _ = _score(capsys, path, ref, "--json")
        assert (code, json.loads(out)["correct"]) == (0, 11), name
    # an empty line is an empty prediction, wrong
    code, out, _ = _score(capsys, _write(tmp_path / "blank.txt", GOLD[:10] + [""]), ref, "--json")
    assert (code, json.loads(out)["correct"]) == (0, 10)


def test_bad_inputs_are_one_line(tmp_path, capsys):
    ref = _ref(tmp_path)
    good = _write(tmp_path / "good.txt", GOLD)
    tabbed = _write(tmp_path / "tabbed.txt", GOLD[:2] + ["1\t" + GOLD[2]] + GOLD[3:])
    (tmp_path / "bad-ref.txt").write_text("1 hello there\n")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    cases = [
        ((tabbed, ref), f"{tabbed}:3: a tab in a prediction: give one bot utterance a line, without tabs "
                        "(not a task-6 file)"),
        ((ref, ref), f"{ref}:1: a tab in a prediction"),
        ((tmp_path / "missing.txt", ref), f"{tmp_path / 'missing.txt'}: cannot read: No such file or directory"),
        ((tmp_path, ref), f"{tmp_path}: is a directory, not a predictions file"),
        ((tmp_path / "latin1.txt", ref), f"{tmp_path / 'latin1.txt'}:1: not UTF-8 text"),
        ((good, tmp_path / "bad-ref.txt"), f"{tmp_path / 'bad-ref.txt'}:1: neither an exchange"),
        ((good, good), f"{good}:1: expected '<number> <text>'"),
        ((good, ref, "--flips", "1"), "--flips is for --compare PREDS2"),
        ((good, ref, "--baseline", "A"), "--baseline is for --system NAME=PREDS"),
        ((good, ref, "--compare", good, "--bootstrap", "0"), "--bootstrap 0 leaves the intervals out"),
        ((ref, "--system", f"A={good}", "--baseline", "B"), "--baseline B: no such system (given: A)"),
    ]
    for argv, message in cases:
        code, out, err = _score(capsys, *argv)
        assert (code, out) == (2, ""), argv
        assert err.startswith(f"dstc2conv: error: {message}") and err.count("\n") == 1, err


# ---------------------------------------------------------------- rules score unchanged


def test_rules_score_output_unchanged(tmp_path, capsys):
    """Golden outputs written by `rules score` before its arithmetic moved to
    dstc2conv/evaluate/responses.py: text, with a manifest, JSON, and a second score
    that differs from the first (the history)."""
    rules, ref = write_rule_files(tmp_path, RULES, ONTOLOGY, REF)
    (tmp_path / "manifest.json").write_text(json.dumps({"files": {"data.txt": {"dialogs": SESSIONS}}}))
    base = ["rules", "score", "--rules", rules, "--data", ref]
    outputs = []
    for extra in (["--no-history"], ["--no-history", "--json"]):
        assert run(base + extra) == 0
        outputs.append(capsys.readouterr().out)
    (tmp_path / "manifest.json").unlink()
    history = ["--history-dir", str(tmp_path / "history")]
    no_thanks = RULES.replace("user_words: thanks", "user_words: bye")
    (tmp_path / "rules.yaml").write_text(no_thanks)   # right on the last turn only of the closings
    assert run(base + history) == 0
    capsys.readouterr()
    (tmp_path / "rules.yaml").write_text(RULES)
    assert run(base + history + ["--flips", "1"]) == 0
    outputs.append(capsys.readouterr().out)
    text = "".join(f"==== {i}\n{o}" for i, o in enumerate(outputs))
    text = "\n".join(line for line in text.split("\n") if '"turns_per_second"' not in line)
    assert text == (GOLDEN / "rules-score-tiny.txt").read_text()


def test_the_bootstrap_is_bounded(tmp_path, capsys):
    ref = _ref(tmp_path)
    preds = _write(tmp_path / "preds.txt", RULE_PREDS)
    with pytest.raises(SystemExit) as stopped:
        run(["score", str(preds), str(ref), "--compare", str(preds), "--bootstrap", "99999999999"])
    assert stopped.value.code == 2 and "--bootstrap: 99999999999: give 100,000 or fewer" in capsys.readouterr().err
