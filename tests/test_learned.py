"""The neural systems (supervised embeddings, MemN2N): gradients against finite
differences, a toy task learned, the model folder's round trip, determinism, bad input,
settings refused when the system is made."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import dstc2conv
from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import folder, registry
from dstc2conv.systems.embeddings import SupervisedEmbeddings
from dstc2conv.systems.interface import predict
from dstc2conv.systems.interface import run as run_loop
from dstc2conv.systems.memn2n import MemN2N
from dstc2conv.systems.neural.text import examples
from dstc2conv.task6.turns import read_turns

FOODS = ("thai", "french", "italian", "korean")


def toy(n: int, seed: int) -> str:
    """Dialogs whose api_call repeats the food said two turns before and the area said
    just before: the query (<SILENCE>) alone cannot tell the answer, the memory can."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        food, area = FOODS[rng.integers(4)], ("north", "south")[rng.integers(2)]
        lines = ["<SILENCE>\thello what do you want", f"i want {food} food\twhich area",
                 f"the {area}\tok let me look", f"<SILENCE>\tapi_call {food} {area}",
                 f"{food}_place R_cuisine {food}", f"{food}_place R_phone {food}_place_phone",
                 f"what is the phone\tthe phone number of {food}_place is {food}_place_phone",
                 "thanks\tyou are welcome"]
        out.append("\n".join(f"{i} {line}" for i, line in enumerate(lines, 1)))
    return "\n\n".join(out) + "\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder_ = tmp_path_factory.mktemp("toy")
    paths = {}
    for name, n, seed in (("trn", 40, 1), ("dev", 10, 2), ("tst", 20, 3)):
        paths[name] = folder_ / f"{name}.txt"
        paths[name].write_text(toy(n, seed), encoding="utf-8")
    return {k: str(v) for k, v in paths.items()}


FAST = {"epochs": 25, "patience": 25, "batch": 8}


def _ready(system, turns):
    """The system's vocabulary, candidates and initial weights, in float64, and the batch of
    every turn: what the gradient check needs."""
    from dstc2conv.systems.neural.text import Vocabulary, distinct_golds, turn_texts

    system.vocab = Vocabulary.build(turn_texts(turns), system.extra_words())
    system.use_candidates(distinct_golds(turns))
    index = {c: i for i, c in enumerate(system.candidates)}
    rng = np.random.default_rng(0)
    system.params = {k: v.astype(np.float64) * 3 for k, v in system.init_params(rng).items()}
    system.after_step()
    exs = examples(turns)
    gold = np.array([index[e.gold] for e in exs])
    return system.minibatch(system.encode(exs), np.arange(len(exs)), gold)


def _check(system, batch, loss_of):
    """Every gradient entry of a random sample against the central difference."""
    loss, grads = loss_of(system.params)
    rng = np.random.default_rng(1)
    checked = 0
    for name, value in system.params.items():
        for flat in rng.choice(value.size, size=min(40, value.size), replace=False):
            at = np.unravel_index(flat, value.shape)
            keep = value[at]
            value[at] = keep + 1e-6
            up = loss_of(system.params)[0]
            value[at] = keep - 1e-6
            down = loss_of(system.params)[0]
            value[at] = keep
            numeric = (up - down) / 2e-6
            assert grads[name][at] == pytest.approx(numeric, rel=1e-4, abs=1e-7), (name, at)
            checked += abs(numeric) > 1e-6
    assert checked > 20      # most sampled entries matter


@pytest.mark.parametrize("match", [False, True])
def test_memn2n_gradients_match_finite_differences(files, match):
    system = MemN2N(match=match, hops=2, dimension=5, memory=4)
    batch = _ready(system, read_turns(files["trn"])[:24])
    if match:
        assert batch.seen.sum() > 0 and len(system.entries) > 0
    _check(system, batch, lambda p: system.loss_grads(batch, params=p))


@pytest.mark.parametrize("tied", [False, True])
def test_embeddings_gradients_match_finite_differences(files, tied):
    system = SupervisedEmbeddings(tied=tied, dimension=5, negatives=6, margin=50.0)
    batch = _ready(system, read_turns(files["trn"])[:24])
    negatives = system.sample(len(batch.gold), np.random.default_rng(2))
    _check(system, batch, lambda p: system.loss_grads(batch, None, params=p, negatives=negatives))


@pytest.mark.parametrize("make", [lambda: MemN2N(hops=2, learning_rate=0.005, **FAST),
                                  lambda: MemN2N(match=True, hops=2, learning_rate=0.005, **FAST),
                                  lambda: SupervisedEmbeddings(learning_rate=0.01, negatives=10, **FAST)],
                         ids=["memn2n", "match", "embeddings"])
def test_a_toy_task_that_needs_the_memory_is_learned(files, make):
    train, dev, test = (read_turns(files[k]) for k in ("trn", "dev", "tst"))
    system = make().fit(train, dev)
    calls = [(p, t.gold) for p, t in zip(predict(system, test), test) if t.is_call]
    right = sum(p == g for p, g in calls)
    assert right / len(calls) >= 0.9, calls[:5]
    assert system.curve[-1].loss < system.curve[0].loss / 2      # chance: 1 api_call in 8


@pytest.mark.parametrize("make", [lambda: MemN2N(epochs=3), lambda: MemN2N(match=True, epochs=3),
                                  lambda: SupervisedEmbeddings(epochs=3)], ids=["memn2n", "match", "embeddings"])
def test_save_and_load_give_the_same_answers(files, tmp_path, make):
    train, dev, test = (read_turns(files[k]) for k in ("trn", "dev", "tst"))
    system = make().fit(train, dev)
    system.save(str(tmp_path / "model"))
    loaded = registry.load(str(tmp_path / "model"))
    assert type(loaded) is type(system) and loaded.get_params() == system.get_params()
    assert run_loop(loaded, test, 3) == run_loop(system, test, 3)
    assert sorted(os.listdir(tmp_path)) == ["model"]          # no temporary folder left
    meta = json.loads((tmp_path / "model" / "model.json").read_text())
    assert meta["format"] == folder.FORMAT and meta["version"] == folder.VERSION
    assert meta["system"] == "dstc2conv.systems.memn2n.model:MemN2N" if "memn2n" in system.name else \
        meta["system"] == "dstc2conv.systems.embeddings.model:SupervisedEmbeddings"
    assert meta["settings"]["epochs"] == 3
    assert [e["epoch"] for e in meta["facts"]["dev_curve"]] == [1, 2, 3]
    assert meta["facts"]["trained_with"] == {"candidates": len(system.candidates), "given": 0}
    with np.load(tmp_path / "model" / "weights.npz", allow_pickle=False) as weights:
        assert sorted(weights.files) == sorted(system.params)


def test_a_system_not_fitted_is_not_saved(tmp_path):
    with pytest.raises(Dstc2ConvError, match="memn2n: not fitted"):
        MemN2N().save(tmp_path / "model")
    assert not os.path.exists(tmp_path / "model")


def test_the_same_seed_gives_the_same_model_and_predictions(files, tmp_path):
    train, dev = read_turns(files["trn"]), read_turns(files["dev"])
    paths = []
    for i, seed in enumerate((5, 5, 6)):
        paths.append(tmp_path / str(i))
        MemN2N(match=True, seed=seed, epochs=3).fit(train, dev).save(str(paths[-1]))
        assert run(["memn2n", "predict", "--model", str(paths[-1]), "--data", files["tst"], "--quiet",
                    "--out", str(tmp_path / f"preds{i}.txt"), "--rank", "3"]) == 0
    same = [(p / "weights.npz").read_bytes() for p in paths]
    assert same[0] == same[1] != same[2]
    assert (paths[0] / "model.json").read_bytes() == (paths[1] / "model.json").read_bytes()
    assert (tmp_path / "preds0.txt").read_bytes() == (tmp_path / "preds1.txt").read_bytes()


def test_a_kill_while_saving_leaves_the_old_model(files, tmp_path, monkeypatch):
    train, dev = read_turns(files["trn"]), read_turns(files["dev"])
    system = SupervisedEmbeddings(epochs=1).fit(train, dev)
    system.save(str(tmp_path / "model"))
    before = (tmp_path / "model" / "weights.npz").read_bytes()

    def killed(arrays):
        raise KeyboardInterrupt
    monkeypatch.setattr(folder, "npz_bytes", killed)
    with pytest.raises(KeyboardInterrupt):
        system.save(str(tmp_path / "model"))
    assert sorted(os.listdir(tmp_path)) == ["model"]
    assert (tmp_path / "model" / "weights.npz").read_bytes() == before


def _error(capsys, argv) -> str:
    assert run(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_bad_inputs_are_one_line_and_exit_2(files, tmp_path, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    model = str(tmp_path / "model")
    assert "empty.txt" in _error(capsys, ["embeddings", "train", "--train", str(empty), "--dev", files["dev"],
                                          "--model", model])
    assert not os.path.exists(model)
    registry.build("embeddings", epochs=1).fit(read_turns(files["trn"]), read_turns(files["dev"])).save(model)
    assert "a model of embeddings, not of memn2n" in _error(capsys, ["memn2n", "predict", "--model", model,
                                                                     "--data", files["tst"]])
    candidates = tmp_path / "candidates.txt"
    candidates.write_text("1 you are welcome\n1 which area\n")
    err = _error(capsys, ["embeddings", "predict", "--model", model, "--data", files["tst"],
                          "--candidates", str(candidates)])
    assert "candidates.txt" in err and "is not a candidate" in err
    meta = json.loads((tmp_path / "model" / "model.json").read_text())
    meta["version"] = folder.VERSION + 1
    (tmp_path / "model" / "model.json").write_text(json.dumps(meta))
    assert "format version" in _error(capsys, ["embeddings", "predict", "--model", model, "--data", files["tst"]])
    assert "not a model folder" in _error(capsys, ["embeddings", "predict", "--model", str(tmp_path),
                                                   "--data", files["tst"]])
    assert "is not a model folder" in _error(capsys, ["embeddings", "train", "--train", files["trn"], "--dev",
                                                      files["dev"], "--model", str(empty), "--quiet"])


def test_explain_shows_the_attention_of_every_hop(files, tmp_path, capsys):
    model = str(tmp_path / "model")
    MemN2N(hops=3, seed=3).fit(read_turns(files["trn"]), read_turns(files["dev"])).save(model)
    assert run(["memn2n", "explain", "--model", model, "--data", files["tst"], "--dialog", "2", "--turn", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("dialog 2, turn 4 (line ") and out[0].endswith(", memn2n")
    assert out[1].split()[:6] == ["hop", "1", "hop", "2", "hop", "3"]
    rows = out[2:8]
    for h in range(3):
        assert sum(float(r.split()[h]) for r in rows) == pytest.approx(1, abs=0.01)
    assert out[8] == "user:  <SILENCE>" and out[9].startswith("answer: ") and out[10].startswith("gold:  api_call")
    assert len(out) == 11
    assert "no dialog 99" in _error(capsys, ["memn2n", "explain", "--model", model, "--data", files["tst"],
                                             "--dialog", "99", "--turn", "1"])


def test_without_dev_data_every_epoch_runs_and_the_last_is_kept(files):
    train = read_turns(files["trn"])
    system = SupervisedEmbeddings(epochs=4, patience=1).fit(train)
    assert [e.epoch for e in system.curve] == [1, 2, 3, 4]
    again = SupervisedEmbeddings(epochs=5, patience=1)
    again.fit(train)
    assert not all(np.array_equal(system.params[k], again.params[k]) for k in system.params)


def test_library_errors(files):
    with pytest.raises(Dstc2ConvError):
        MemN2N().rank("hello", 1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'hopz'"):
        MemN2N(hopz=2)
    with pytest.raises(Dstc2ConvError, match="^memn2n: got an unexpected keyword argument 'hopz'; its settings: "
                                             "match, hops, dimension, .*, clip$"):
        dstc2conv.system("memn2n", hopz=2)


def test_match_features_have_their_own_defaults_and_a_setting_given_wins():
    assert MemN2N(match=True).settings == {**MemN2N.SETTINGS, **MemN2N.MATCH_SETTINGS, "match": True}
    assert MemN2N(match=True, memory=7).settings["memory"] == 7
    assert MemN2N().settings == MemN2N.SETTINGS


def test_the_command_line_loads_numpy_only_for_a_command_that_needs_it():
    # so that the learned commands can set BLAS to one thread before numpy starts it
    import subprocess
    import sys

    code = ("import sys; from dstc2conv.cli import build_parser; build_parser(); "
            "from dstc2conv.systems import embeddings, memn2n; print('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def _edit_model(folder, change_meta=None, weights=None):
    import json as _json

    meta_path = os.path.join(folder, "model.json")
    meta = _json.loads(open(meta_path, encoding="utf-8").read())
    if change_meta:
        change_meta(meta)
        open(meta_path, "w", encoding="utf-8").write(_json.dumps(meta))
    if weights is not None:
        from dstc2conv.systems.folder import npz_bytes

        open(os.path.join(folder, "weights.npz"), "wb").write(npz_bytes(weights))
        _record_weights(folder)


def _record_weights(folder) -> None:
    """model.json's checksum of weights.npz made to match it: what the checks of the arrays see."""
    import hashlib
    import json as _json

    meta_path = os.path.join(folder, "model.json")
    meta = _json.loads(open(meta_path, encoding="utf-8").read())
    meta["weights_sha256"] = hashlib.sha256(open(os.path.join(folder, "weights.npz"), "rb").read()).hexdigest()
    open(meta_path, "w", encoding="utf-8").write(_json.dumps(meta))


@pytest.mark.parametrize("damage, message", [
    (lambda m: m["facts"].update(vocabulary=m["facts"]["vocabulary"][:5]), "weights A are float32 of shape"),
    (lambda m: m["facts"].update(vocabulary=["a", "a"]), "its vocabulary is not a list of distinct words"),
    (lambda m: m["facts"].update(candidates=[]), "no candidates"),
    (lambda m: m["settings"].update(optimizer="bogus"), "setting optimizer: 'bogus' is not one of adam, sgd"),
    (lambda m: m["settings"].update(memory=-1), "setting memory: -1 is not from 1 to 1000"),
    (lambda m: m["settings"].update(hops=1e9), "setting hops: 1000000000.0 is not a int"),
    (lambda m: m["settings"].update(hops=10**9), "setting hops: 1000000000 is not from 1 to 16"),
    (lambda m: m["settings"].update(dimension=32), "weights A are float32 of shape"),
])
def test_a_damaged_model_folder_is_one_line(files, tmp_path, capsys, damage, message):
    import shutil

    model = str(tmp_path / "m")
    assert run(["memn2n", "train", "--train", files["trn"], "--dev", files["dev"], "--model", model, "--quiet"]) == 0
    damaged = str(tmp_path / "damaged")
    shutil.copytree(model, damaged)
    _edit_model(damaged, damage)
    assert message in _error(capsys, ["memn2n", "predict", "--model", damaged, "--data", files["tst"]])


def test_weights_that_are_not_the_models_are_refused_before_they_are_read(files, tmp_path, capsys):
    import numpy as np

    model = str(tmp_path / "m")
    assert run(["memn2n", "train", "--train", files["trn"], "--dev", files["dev"], "--model", model, "--quiet"]) == 0
    with np.load(os.path.join(model, "weights.npz")) as stored:
        weights = dict(stored)
    np.savez_compressed(os.path.join(model, "weights.npz"), **weights, X=np.zeros((3000, 3000)))   # 72 MB, zipped small
    _record_weights(model)
    assert "the weights hold A, R, W, X, not A, R, W" in _error(
        capsys, ["memn2n", "predict", "--model", model, "--data", files["tst"]])
    _edit_model(model, weights={**weights, "A": np.full(weights["A"].shape, np.nan, np.float32)})
    assert "weights A hold a value that is not a finite number" in _error(
        capsys, ["memn2n", "predict", "--model", model, "--data", files["tst"]])
    _edit_model(model, weights={**weights, "A": weights["A"].astype(np.float16)})
    assert "weights A are float16" in _error(capsys, ["memn2n", "predict", "--model", model, "--data", files["tst"]])


def test_train_checks_the_model_folder_and_the_seed_before_any_work(files, tmp_path, capsys):
    taken = tmp_path / "taken.txt"
    taken.write_text("x")
    err = _error(capsys, ["memn2n", "train", "--train", files["trn"], "--dev", files["dev"], "--model", str(taken)])
    assert err.endswith("cannot write the model: it exists and is not a model folder")   # no epoch was trained
    with pytest.raises(SystemExit) as stopped:
        run(["embeddings", "train", "--train", files["trn"], "--dev", files["dev"], "--model", str(tmp_path / "e"),
             "--seed", "-5"])
    assert stopped.value.code == 2 and "argument --seed: -5: give 0 or more" in capsys.readouterr().err


def _example(user: str):
    from dstc2conv.systems.neural.text import Example

    return Example((), user, "")


def test_a_kb_value_the_training_file_never_uses_gets_its_type_word(tmp_path):
    """The paper's match features type "even words never seen in training dialogs": a
    KB value absent from the training file (italian, in none of the tiny files) still
    makes its type word fire once the dialog has said it; the word itself counts for
    nothing in the bags (the model does not know it)."""
    import toy

    paths = toy.write(tmp_path)
    system = MemN2N(match=True, epochs=1, dimension=4).fit(read_turns(paths["trn"]), read_turns(paths["dev"]))
    assert system.vocab.index("italian") == 0
    system.use_candidates(["api_call italian north cheap", "you are welcome"])
    column = system.entity_column["italian"]
    typed = {(int(c), int(t)) for c, t, j in system.entries if j == column}
    assert typed == {(0, 0)}                                   # the first candidate, R_cuisine (the first type)
    said = system.minibatch(system.encode([_example("i want italian food")]), np.arange(1), None)
    silent = system.minibatch(system.encode([_example("i want thai food")]), np.arange(1), None)
    assert said.seen[0, column] == 1 and silent.seen[0, column] == 0
    for batch, fires in ((said, True), (silent, False)):
        logits, (_, qs, _, _, _, _) = system.forward(batch)
        q = qs[-1][0]
        alone = float(q @ system.candidate_table("W")[0])
        north_cheap = float(q @ system.params["W"][system.vocab.index("$location")]) * batch.seen[0, system.entity_column["north"]] \
            + float(q @ system.params["W"][system.vocab.index("$price")]) * batch.seen[0, system.entity_column["cheap"]]
        cuisine = float(q @ system.params["W"][system.vocab.index("$cuisine")]) if fires else 0.0
        assert logits[0, 0] == pytest.approx(alone + north_cheap + cuisine, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("name", ["embeddings", "memn2n"])
def test_the_same_fit_from_python_twice_gives_the_same_bytes_and_answers(tmp_path, name):
    import toy

    paths = toy.write(tmp_path)
    answers = []
    for i in (1, 2):
        system = dstc2conv.system(name, epochs=3).fit(paths["trn"], paths["dev"])
        system.save(tmp_path / f"model{i}")
        answers.append(dstc2conv.rank(system, paths["tst"], k=3))
    files = sorted(os.listdir(tmp_path / "model1"))
    assert files == sorted(os.listdir(tmp_path / "model2")) and "weights.npz" in files
    for member in files:
        assert (tmp_path / "model1" / member).read_bytes() == (tmp_path / "model2" / member).read_bytes(), member
    assert answers[0] == answers[1] and len(answers[0]) == 7        # the bot turns of TST
    loaded = dstc2conv.rank(registry.load(tmp_path / "model2"), paths["tst"], k=3)
    assert loaded == answers[0]


@pytest.mark.parametrize("name", ["embeddings", "memn2n", "memn2n+match"])
def test_the_learned_systems_break_ties_by_ranking_best(tmp_path, name, monkeypatch):
    """Scores within 1e-9 of the best are tied and the first candidate wins (argmax would
    take the second here); the rest by score, equal scores in candidate order."""
    import toy

    paths = toy.write(tmp_path)
    system = dstc2conv.system(name, epochs=1).fit(paths["trn"], paths["dev"])
    system.use_candidates(["a", "b", "c", "d"])
    monkeypatch.setattr(system, "scores", lambda batch: np.array([[1.0, 1.0 + 1e-12, 0.5, 0.5]]))
    assert system.rank("hello", 4) == ("a", "b", "c", "d")
    monkeypatch.setattr(system, "scores", lambda batch: np.array([[0.5, 1.0, 0.7, 1.0 + 1e-12]] * 2))
    assert system.rank("hello", 2) == ("b", "d")
    encoded = system.encode([_example("hello"), _example("hello")])
    assert system.accuracy(encoded, np.array([3, 1])) == 0.5   # only the second is right   # its dev accuracy: the same answer
