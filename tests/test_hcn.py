"""hcn: its backpropagation through time against finite differences, a toy task that
needs memory (the answer at turn 3 depends on turn 1's word: the linear chooser cannot
learn it, hcn does), determinism and the model folder's round trip, explain, the KB's
tracker, and bad settings refused in one line."""
from __future__ import annotations

import os

import pytest

np = pytest.importorskip("numpy")

from dstc2conv.errors import Dstc2ConvError  # noqa: E402
from dstc2conv.systems import registry  # noqa: E402
from dstc2conv.systems.chooser.system import RulesLearned  # noqa: E402
from dstc2conv.systems.hcn import gru  # noqa: E402
from dstc2conv.systems.hcn.system import HCN  # noqa: E402
from dstc2conv.systems.hcn.tracker import KbTracker  # noqa: E402
from dstc2conv.systems.hcn.training import Turns, loss_and_grads, predictions  # noqa: E402
from dstc2conv.systems.interface import explain_turn, predict  # noqa: E402
from dstc2conv.task6.turns import read_turns  # noqa: E402

# ---------------------------------------------------------------- the gradients


def _random_turns(rng, features=6, actions=3, width=5, lengths=(3, 1, 2)):
    from scipy import sparse

    n = sum(lengths)
    X = sparse.csr_matrix((rng.random((n, features)) < 0.4).astype(float))
    base = rng.normal(size=(n, width))
    base[rng.random((n, width)) < 0.2] = -np.inf
    gold = np.array([int(rng.choice(np.flatnonzero(np.isfinite(row)))) if np.isfinite(row).any() else -1
                     for row in base])
    gold[1] = -1                        # a turn whose gold is not among its columns: no loss
    return Turns(X, base, gold, np.r_[0, np.cumsum(lengths)].astype(np.int64), actions)


def test_backpropagation_through_time_gives_the_gradients_of_the_loss():
    rng = np.random.default_rng(5)
    turns = _random_turns(rng)
    p = gru.init(rng, 6, 4, 3, 4)
    p["V"] = rng.normal(size=p["V"].shape)
    p["b"] = rng.normal(size=p["b"].shape)
    dialogs = np.array([2, 0, 1])
    keep = (rng.random((3, 3, 4)) > 0.3) / 0.7          # dropout on the input, held fixed
    _, grads = loss_and_grads(p, turns, dialogs, keep)
    eps = 1e-6
    for name in gru.NAMES:
        numeric = np.zeros_like(p[name])
        for i in np.ndindex(p[name].shape):
            was = p[name][i]
            p[name][i] = was + eps
            up = loss_and_grads(p, turns, dialogs, keep)[0]
            p[name][i] = was - eps
            down = loss_and_grads(p, turns, dialogs, keep)[0]
            p[name][i] = was
            numeric[i] = (up - down) / (2 * eps)
        assert np.allclose(grads[name], numeric, atol=1e-7, rtol=1e-5), name


def test_a_turn_answered_alone_is_the_batchs_best_column():
    rng = np.random.default_rng(2)
    turns = _random_turns(rng, lengths=(4, 2))
    p = gru.init(rng, 6, 4, 3, 4)
    p["V"] = rng.normal(size=p["V"].shape)
    best = predictions(p, turns)
    for d in range(2):
        h = np.zeros((1, 3))
        for row in range(turns.starts[d], turns.starts[d + 1]):
            h, _ = gru.step(p, turns.X[row] @ p["E"], h)
            out = (h @ p["V"])[0]
            z = turns.base[row].copy()
            z[:3] += out[:3]
            z[3:] += out[3]
            assert int(np.argmax(z)) == best[row]


# ---------------------------------------------------------------- a task that needs memory

WELCOME = "Hello , welcome to the Cambridge restaurant system . How may I help you ?"


def _memory_dialog(colour: str) -> str:
    answer = "the red one it is" if colour == "red" else "the blue one it is"
    return (f"1 hello {colour}\t{WELCOME}\n2 ok\tnoted\n3 which one\t{answer}\n4 bye\tyou are welcome\n\n")


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    folder = tmp_path_factory.mktemp("memory")
    files = {}
    for name, colours in (("trn", ["red", "blue"] * 6), ("dev", ["blue", "red"] * 2), ("tst", ["red", "blue", "blue"])):
        path = folder / f"{name}.txt"
        path.write_text("".join(_memory_dialog(c) for c in colours))
        files[name] = str(path)
    return files


def _third_turns_right(system, path) -> float:
    turns = read_turns(path)
    answers = predict(system, turns)
    third = [(a, t.gold) for a, t in zip(answers, turns) if t.index == 2]
    return sum(a == g for a, g in third) / len(third)


SMALL = dict(hidden=8, dimension=8, epochs=60, patience=60, batch=4, lr=0.02, dropout=0.0)


def test_hcn_learns_what_the_turn_before_last_said_and_the_chooser_cannot(memory):
    chooser = RulesLearned().fit(memory["trn"], memory["dev"])
    hcn = HCN(**SMALL).fit(memory["trn"], memory["dev"])
    assert _third_turns_right(chooser, memory["tst"]) < 1.0      # one wording for both: at best a guess
    assert _third_turns_right(hcn, memory["tst"]) == 1.0
    assert hcn.curve_[0][2][0] < max(acc[0] for _, _, acc in hcn.curve_[1:])   # better than the chooser alone


def test_turn_dropout_trains_and_is_off_when_answering(memory):
    hcn = HCN(**dict(SMALL, turn_dropout=0.3)).fit(memory["trn"], memory["dev"])
    assert predict(hcn, read_turns(memory["tst"])) == predict(hcn, read_turns(memory["tst"]))


# ---------------------------------------------------------------- determinism, the folder, explain


def _files(folder):
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder))}


def test_the_same_seed_gives_the_same_folder_and_answers_and_a_load_answers_the_same(memory, tmp_path):
    tst = read_turns(memory["tst"])
    one = registry.build("hcn", **SMALL, seed=3).fit(memory["trn"], memory["dev"])
    two = registry.build("hcn", **SMALL, seed=3).fit(memory["trn"], memory["dev"])
    one.save(tmp_path / "one")
    two.save(tmp_path / "two")
    assert _files(tmp_path / "one") == _files(tmp_path / "two")
    loaded = registry.load(tmp_path / "one")
    assert isinstance(loaded, HCN) and loaded.built_as == "hcn"
    assert predict(loaded, tst) == predict(one, tst) == predict(two, tst)
    other = registry.build("hcn", **SMALL, seed=4).fit(memory["trn"], memory["dev"])
    other.save(tmp_path / "other")
    assert _files(tmp_path / "other") != _files(tmp_path / "one")


def test_explain_gives_the_mask_the_probabilities_and_the_answer(memory):
    hcn = HCN(**SMALL).fit(memory["trn"], memory["dev"])
    turns = read_turns(memory["tst"])
    lines = explain_turn(hcn, turns, 2, top=2)
    assert lines[0].startswith("mask ") and "columns allowed" in lines[0]
    assert lines[1] == "best responses (probability, from):"
    best = [line for line in lines[2:] if line.startswith("  ")]
    assert len(best) == 2 and best[0].split("%")[0].strip()
    assert sum(float(line.split("%")[0]) for line in best) <= 100.0 + 1e-6
    assert lines[-1] == "answer   the red one it is" == "answer   " + predict(hcn, turns)[2]


def test_the_kb_tracker_names_the_slots_said_so_far():
    kb = KbTracker()
    first = kb.features(("bias", "slot:food:set", "said:food", "w:cheap"), "cheap food in the north")
    assert first == ("bias", "w:cheap", "kb:food:0", "kb:area:1", "kb:price:1", "kbsaid:area", "kbsaid:price")
    kb.observe("cheap food in the north")
    assert kb.features(("bias",), "modern european") == ("bias", "kb:food:1", "kb:area:1", "kb:price:1",
                                                         "kbsaid:food")
    kb.reset()
    assert kb.features(("bias",), "northern") == ("bias", "kb:food:0", "kb:area:0", "kb:price:0")


def test_hcn_with_the_kb_tracker_learns_the_toy_task(memory):
    hcn = HCN(**SMALL, tracker="kb").fit(memory["trn"], memory["dev"])
    assert _third_turns_right(hcn, memory["tst"]) == 1.0


# ---------------------------------------------------------------- bad settings


@pytest.mark.parametrize("settings, says", [
    ({"tracker": "words"}, "setting tracker: 'words' is not one of rules, kb"),
    ({"hidden": 0}, "setting hidden: 0 is not an integer from 1 to 1024"),
    ({"dropout": 1.0}, "setting dropout: 1.0 is not a number from 0 to 0.95"),
    ({"turn_dropout": -0.1}, "setting turn_dropout: -0.1 is not a number from 0 to 0.95"),
    ({"lr": float("nan")}, "setting lr: nan is not a number from 0 to 10"),
    ({"epochs": 2.5}, "setting epochs: 2.5 is not an integer from 0 to 10000"),
])
def test_bad_settings_are_refused_in_one_line(settings, says):
    with pytest.raises(Dstc2ConvError) as caught:
        registry.build("hcn", **settings)
    assert str(caught.value) == says


def test_a_model_too_large_is_refused_before_its_weights_are_read():
    facts = {"features": ["bias"] * 200_000, "actions": ["|x"] * 800, "columns": []}
    with pytest.raises(Dstc2ConvError, match=r"^hcn: 200000 features, 800 actions, hidden 32 and dimension 32 would "
                       r"take about \d+ MB, more than the 512 MB allowed"):
        HCN().expected_arrays(facts)
