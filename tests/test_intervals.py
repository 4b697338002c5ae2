"""The 95% intervals of `score` (dstc2conv/evaluate/intervals.py): the bootstrap over
dialogs checked against a direct numpy computation on three hand-written dialogs, the
zero-width interval of identical dialogs, BLEU recomputed from summed statistics, the
paired differences from a baseline, and the command's output."""
from __future__ import annotations

import json

import numpy as np
import pytest

from dstc2conv.cli import run
from dstc2conv.evaluate import bleu, intervals
from dstc2conv.evaluate import metrics as m
from dstc2conv.task6.format import parse
from dstc2conv.task6.turns import turns_of

# 3 dialogs: 3, 2 and 1 bot turns.
REF = """\
1 hello\tWhat kind of food would you like?
2 thai\tapi_call thai north cheap
3 thanks\tyou are welcome

1 hello\tWhat part of town do you have in mind?
2 bye\tyou are welcome

1 bye\tyou are welcome

"""
TURNS = tuple(turns_of(parse(REF)))
GOLD = [t.gold for t in TURNS]
# right: dialog 1 turns 1 and 3 (2 of 3), dialog 2 none (0 of 2), dialog 3 its one (1 of 1)
PREDS = ("What kind of food would you like?", "api_call thai south cheap", "you are welcome",
         "What kind of food would you like?", "hello", "you are welcome")


def _scored(preds, names=("accuracy", "bleu", "api_call")):
    return m.compute(m.Inputs(TURNS, tuple(preds), "text"), names)


def _order(values: np.ndarray) -> tuple[float, float]:
    ordered = np.sort(values)
    k = len(ordered) // 40
    return ordered[k], ordered[-1 - k]


def test_the_per_dialog_sums_are_counted_by_hand():
    s = _scored(PREDS)
    assert intervals.dialog_sums("accuracy", s.stats["accuracy"], TURNS).tolist() == [
        [2, 3, 0, 1], [0, 2, 0, 1], [1, 1, 1, 1]]
    # api_call: one gold api_call (dialog 1), wrong: location only wrong
    assert intervals.dialog_sums("api_call", s.stats["api_call"], TURNS).tolist() == [
        [0, 1, 1, 0, 1], [0] * 5, [0] * 5]


def test_a_seeded_run_equals_a_direct_numpy_computation():
    resamples, seed = 200, 7
    got = intervals.bootstrap([_scored(PREDS)], resamples, seed)[0]
    drawn = np.random.default_rng(seed).integers(0, 3, size=(resamples, 3))
    right, turns, whole = np.array([2, 0, 1]), np.array([3, 2, 1]), np.array([0, 0, 1])
    per_response = right[drawn].sum(axis=1) / turns[drawn].sum(axis=1)
    per_dialog = whole[drawn].mean(axis=1)
    assert got.figures["accuracy"]["per_response"] == pytest.approx(_order(per_response))
    assert got.figures["accuracy"]["per_dialog"] == pytest.approx(_order(per_dialog))
    # BLEU: each resample's corpus BLEU from the drawn dialogs' turns, as bleu.corpus_bleu computes it
    stats = [bleu.turn_stats(p, g) for p, g in zip(PREDS, GOLD)]
    of = [t.dialog for t in TURNS]
    direct = [bleu.corpus_bleu([s for d in row for s, o in zip(stats, of) if o == d]).score for row in drawn]
    assert got.figures["bleu"]["bleu"] == pytest.approx(_order(np.array(direct)))
    assert got.resamples == resamples and got.dialogs == 3
    assert intervals.bootstrap([_scored(PREDS)], resamples, seed)[0] == got          # deterministic


def test_identical_dialogs_give_a_zero_width_interval():
    ref = "".join("1 hello\tWhat kind of food would you like?\n2 bye\tyou are welcome\n\n" for _ in range(3))
    turns = tuple(turns_of(parse(ref)))
    preds = ("What kind of food would you like?", "bye") * 3
    s = m.compute(m.Inputs(turns, preds, "text"), ("accuracy", "bleu"))
    got = intervals.bootstrap([s], 100, 0)[0].figures
    assert got["accuracy"]["per_response"] == (0.5, 0.5)
    assert got["accuracy"]["per_dialog"] == (0.0, 0.0)
    low, high = got["bleu"]["bleu"]
    assert low == pytest.approx(high) == pytest.approx(s.figures["bleu"]["bleu"])


def test_the_paired_differences_use_the_same_resamples():
    gold = _scored(GOLD)
    found = intervals.bootstrap([_scored(PREDS), gold], 300, 1, baseline=0)
    assert found[0].differences is None
    d, low, high, not_better = found[1].differences["accuracy"]["per_response"]
    assert d == pytest.approx(1 - 3 / 6)
    drawn = np.random.default_rng(1).integers(0, 3, size=(300, 3))
    right, turns = np.array([2, 0, 1]), np.array([3, 2, 1])
    delta = 1 - right[drawn].sum(axis=1) / turns[drawn].sum(axis=1)
    assert (low, high) == pytest.approx(_order(delta))
    assert not_better == pytest.approx(np.mean(delta <= 0))
    # the whole figure of every metric is the registry's
    for name, figures in found[1].figures.items():
        for key in figures:
            whole = intervals.figures_of(name, intervals.dialog_sums(name, gold.stats[name], TURNS).sum(axis=0))
            assert float(whole[key]) == pytest.approx(gold.figures[name][key])


def test_score_prints_and_writes_the_intervals(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text(REF)
    preds, gold = tmp_path / "preds.txt", tmp_path / "gold.txt"
    preds.write_text("\n".join(PREDS) + "\n")
    gold.write_text("\n".join(GOLD) + "\n")
    assert run(["score", str(preds), str(ref), "--json", "--bootstrap", "50", "--seed", "3"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["intervals"]["resamples"], got["intervals"]["seed"], got["intervals"]["dialogs"]) == (50, 3, 3)
    expected = intervals.bootstrap([_scored(PREDS, m.choose(None, "text", False))], 50, 3)[0]
    assert got["intervals"]["metrics"]["bleu"]["bleu"]["low"] == pytest.approx(expected.figures["bleu"]["bleu"][0])
    assert run(["score", str(preds), str(ref), "--json", "--bootstrap", "0"]) == 0
    assert "intervals" not in json.loads(capsys.readouterr().out)
    assert run(["score", str(ref), "--system", f"p={preds}", "--system", f"g={gold}", "--baseline", "g"]) == 0
    out = capsys.readouterr().out
    assert "vs g" in out and "differences from g" in out
    differences = out.split("differences from g")[1].split("\n")
    assert differences[2].split()[:2] == ["p", "-50.00%"]
    assert run(["score", str(ref), "--system", f"p={preds}", "--system", f"g={gold}", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["baseline"] == "p"
    assert got["systems"]["g"]["intervals"]["differences"]["accuracy"]["per_response"]["difference"] == 0.5


def test_draws_in_blocks_are_the_draws_at_once(monkeypatch):
    """Memory stays bounded on files of many dialogs: the resamples are drawn in blocks of
    rows, which together are the one draw of the docs."""
    monkeypatch.setattr(intervals, "CHUNK", 7)       # one resample of 5 dialogs a block
    blocks = list(intervals.weights(5, 9, 3))
    assert len(blocks) == 9
    drawn = np.random.default_rng(3).integers(0, 5, size=(9, 5))
    assert (np.concatenate(blocks) == np.stack([np.bincount(row, minlength=5) for row in drawn])).all()
    small = intervals.bootstrap([_scored(PREDS)], 30, 2)[0]
    monkeypatch.undo()
    assert intervals.bootstrap([_scored(PREDS)], 30, 2)[0] == small
