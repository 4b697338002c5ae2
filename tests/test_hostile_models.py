"""Hostile input to the learned systems: training data and settings whose arrays would not
fit in memory are refused in one line before they are made, a refused training leaves no
folder, and any change to a valid model folder's bytes is read whole or refused in one
line (a property test)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest
import toy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dstc2conv
from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import registry

SMALL = toy.TRN


def _wide(path, dialogs: int, words: int) -> None:
    """A training file of ``dialogs`` one-turn dialogs, each with ``words`` words of its own
    and a response of its own."""
    with open(path, "w") as fh:
        for d in range(dialogs):
            user = " ".join(f"w{d}x{i}" for i in range(words))
            fh.write(f"1 {user}\tresponse number {d}\n\n")


def test_training_data_too_wide_for_memory_is_one_line_before_it_is_made(tmp_path, capsys):
    _wide(tmp_path / "trn.txt", 2_400, 26)
    # words: 62,400 of the users', "response", "number", 2,400 numbers, the padding word, $user, $bot and
    # 20 time words; candidates: 2,400 responses and the dev file's 6
    (tmp_path / "dev.txt").write_text(SMALL)
    code = run(["memn2n", "train", "--train", str(tmp_path / "trn.txt"), "--dev", str(tmp_path / "dev.txt"),
                "--model", str(tmp_path / "m"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    # the files whose words and responses these are: the training file and the dev file
    assert err.startswith(f"dstc2conv: error: {tmp_path / 'trn.txt'}, {tmp_path / 'dev.txt'}: memn2n: 64825 words, "
                          "2406 candidates and these settings would take about 757 MB")
    assert "more than the 512 MB a neural system may take" in err
    assert not os.path.exists(tmp_path / "m")


def test_every_refusal_of_data_too_wide_names_its_files(tmp_path, capsys):
    _wide(tmp_path / "trn.txt", 2_400, 26)
    (tmp_path / "dev.txt").write_text(SMALL)
    (tmp_path / "tst.txt").write_text(toy.TST)
    trn, dev, tst = (str(tmp_path / f"{name}.txt") for name in ("trn", "dev", "tst"))
    code = run(["table2", "--train", trn, "--dev", dev, "--test", tst, "--systems", "memn2n", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"dstc2conv: error: {trn}, {dev}, {tst}: memn2n: 64825 words, ") \
        and len(err.splitlines()) == 1
    with pytest.raises(Dstc2ConvError) as raised:            # from Python, fitted on the files' paths
        dstc2conv.system("memn2n").fit(trn, dev)
    assert raised.value.path == f"{trn}, {dev}" and raised.value.message.startswith("memn2n: 64825 words, ")
    with pytest.raises(Dstc2ConvError) as raised:            # on their turns: the files are not known
        dstc2conv.system("memn2n").fit(dstc2conv.turns(trn), dstc2conv.turns(dev))
    assert raised.value.path is None
    with pytest.raises(Dstc2ConvError) as raised:
        dstc2conv.table2(trn, dev, tst, systems=["memn2n"])
    assert raised.value.path == f"{trn}, {dev}, {tst}"


def test_candidates_too_many_for_a_model_name_the_candidates_file(tmp_path, capsys):
    """A model of 26,000 words, given 5,000 candidates: 520 MB of their bags of words."""
    (tmp_path / "t.txt").write_text(SMALL)
    _wide(tmp_path / "trn.txt", 1_000, 26)
    assert run(["train", "--system", "memn2n", "--train", str(tmp_path / "trn.txt"), "--dev", str(tmp_path / "t.txt"),
                "--model", str(tmp_path / "m"), "--set", "epochs=1", "--set", "dimension=4", "--quiet"]) == 0
    capsys.readouterr()
    candidates = tmp_path / "candidates.txt"
    gold = sorted({line.partition("\t")[2] for line in SMALL.splitlines() if "\t" in line})
    candidates.write_text("".join(f"1 {c}\n" for c in (*gold, *(f"reply {i}" for i in range(5_000)))))
    code = run(["predict", "--model", str(tmp_path / "m"), "--data", str(tmp_path / "t.txt"), "--candidates",
                str(candidates), "--out", str(tmp_path / "p.txt")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"dstc2conv: error: {candidates}: memn2n: ") and "more than the 512 MB" in err


def test_settings_too_large_for_memory_are_refused_when_the_system_is_made():
    with pytest.raises(Dstc2ConvError, match="^embeddings: these settings would take about 1171 MB, more than the "
                                             "512 MB"):
        dstc2conv.system("embeddings", negatives=100_000)
    assert dstc2conv.system("embeddings", negatives=100_000, batch=1).negatives == 100_000


def test_a_refused_training_leaves_no_folder(tmp_path, capsys):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "dev.txt").write_text(SMALL)
    for argv in (["rules", "learn", "--train", str(tmp_path / "empty.txt"), "--out", str(tmp_path / "c3")],
                 ["train", "--system", "memn2n", "--train", str(tmp_path / "empty.txt"), "--dev",
                  str(tmp_path / "dev.txt"), "--model", str(tmp_path / "m3")]):
        assert run(argv) == 2
        assert len(capsys.readouterr().err.splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == ["dev.txt", "empty.txt"]


def test_refused_candidates_change_nothing(tmp_path):
    (tmp_path / "t.txt").write_text(SMALL)
    system = dstc2conv.system("memn2n", epochs=1, dimension=4).fit(str(tmp_path / "t.txt"))
    before = dstc2conv.rank(system, str(tmp_path / "t.txt"), 2)
    for bad in ([None, 3], [], "one text"):
        with pytest.raises(Dstc2ConvError):
            system.use_candidates(bad)
    assert dstc2conv.rank(system, str(tmp_path / "t.txt"), 2) == before


# ---------------------------------------------------------------- any change to a folder

@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    """A small MemN2N's model folder, and its answers on the training file."""
    root = tmp_path_factory.mktemp("valid")
    (root / "t.txt").write_text(SMALL)
    system = dstc2conv.system("memn2n", epochs=1, dimension=4).fit(str(root / "t.txt"))
    system.save(root / "model")
    return root


def _read_whole_or_refused(folder) -> None:
    try:
        system = registry.load(folder)
    except Dstc2ConvError as exc:
        assert "\n" not in str(exc)
        return
    dstc2conv.rank(system, str(folder.parent / "t.txt"), 3)    # read whole: it answers


def _fresh(valid, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mutated") / "model"
    shutil.copytree(valid / "model", folder)
    shutil.copy(valid / "t.txt", folder.parent / "t.txt")
    return folder


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(member=st.sampled_from(["model.json", "weights.npz"]), at=st.floats(0, 1), cut=st.booleans(),
       value=st.integers(0, 255))
def test_any_changed_byte_is_read_whole_or_refused(valid, tmp_path_factory, member, at, cut, value):
    folder = _fresh(valid, tmp_path_factory)
    data = bytearray((folder / member).read_bytes())
    i = int(at * (len(data) - 1))
    if cut:
        del data[i:]
    else:
        data[i] = value
    (folder / member).write_bytes(bytes(data))
    _read_whole_or_refused(folder)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) |
                    st.text(max_size=8), lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:3]):
            yield from _paths(inner, (*path, i))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pick=st.integers(0, 10**6), replacement=JSON)
def test_any_changed_value_of_the_settings_file_is_read_whole_or_refused(valid, tmp_path_factory, pick, replacement):
    folder = _fresh(valid, tmp_path_factory)
    meta = json.loads((folder / "model.json").read_text())
    paths = [p for p in _paths(meta) if p]
    path = paths[pick % len(paths)]
    target = meta
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = replacement
    (folder / "model.json").write_text(json.dumps(meta))
    _read_whole_or_refused(folder)


# ---------------------------------------------------------------- what a probe found

@pytest.fixture
def nn_folder(tmp_path):
    (tmp_path / "t.txt").write_text(SMALL)
    dstc2conv.system("nn").fit(str(tmp_path / "t.txt")).save(tmp_path / "m")
    return tmp_path / "m"


def _meta(folder, **changes):
    meta = json.loads((folder / "model.json").read_text())
    meta.update(changes)
    (folder / "model.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("name", ["dstc2conv.__main__:X", "dstc2conv.systems.interface:System", "os:system"])
def test_a_folder_cannot_name_a_module_to_run_or_the_base_class(nn_folder, name):
    _meta(nn_folder, system=name, **{"class": name})
    with pytest.raises(Dstc2ConvError, match="model.json: (a model of|dstc2conv.__main__:X: the module dstc2conv.__main__ has no X)"):
        registry.load(nn_folder)


def test_a_crafted_array_header_is_one_line(tmp_path, valid):
    import io
    import zipfile

    folder = tmp_path / "model"
    shutil.copytree(valid / "model", folder)
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w") as archive:
        archive.writestr("A.npy", b"\x93NUMPY\x01\x00\x20\x00{'descr': __import__('os').system(\n      ")
    (folder / "weights.npz").write_bytes(body.getvalue())
    with pytest.raises(Dstc2ConvError, match="model: weights.npz is not the one this model was saved with"):
        registry.load(folder)
    _meta(folder, weights_sha256=hashlib.sha256(body.getvalue()).hexdigest())     # its checksum made to match
    with pytest.raises(Dstc2ConvError, match="weights.npz: cannot read the weights"):
        registry.load(folder)


def _changed_weight(folder) -> None:
    """One byte of an array's data changed in weights.npz, the member's CRC-32 computed
    anew: a zip that reads without complaint."""
    import io
    import zipfile

    path = folder / "weights.npz"
    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w") as archive:
        for i, (info, data) in enumerate(members):
            if i == 0:
                data = data[:-1] + bytes([data[-1] ^ 0x01])       # the last byte: array data, not the header
            archive.writestr(info, data)
    path.write_bytes(body.getvalue())
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None


def test_a_changed_weight_is_refused_naming_the_folder(valid, tmp_path, capsys):
    folder = tmp_path / "model"
    shutil.copytree(valid / "model", folder)
    meta = json.loads((folder / "model.json").read_text())
    assert meta["weights_sha256"] == hashlib.sha256((folder / "weights.npz").read_bytes()).hexdigest()
    _changed_weight(folder)
    with pytest.raises(Dstc2ConvError) as raised:
        registry.load(folder)
    assert str(raised.value) == (f"{folder}: weights.npz is not the one this model was saved with (its SHA-256 is "
                                 "not the one model.json records): train it again or restore the file")
    code = run(["predict", "--model", str(folder), "--data", str(valid / "t.txt"), "--out", str(tmp_path / "p.txt")])
    assert (code, capsys.readouterr().err) == (2, f"dstc2conv: error: {raised.value}\n")
    assert not (tmp_path / "p.txt").exists()


def test_a_folder_saved_before_the_checksum_was_recorded_is_read(valid, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(valid / "model", folder)
    meta = json.loads((folder / "model.json").read_text())
    del meta["weights_sha256"]
    (folder / "model.json").write_text(json.dumps(meta))
    dstc2conv.rank(registry.load(folder), str(valid / "t.txt"), 3)
    _meta(folder, weights_sha256="not a checksum")
    with pytest.raises(Dstc2ConvError, match="model.json: a damaged model: 'weights_sha256' is not a SHA-256 in hex"):
        registry.load(folder)


def test_a_rule_file_that_is_a_pipe_is_refused_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "t.txt").write_text(SMALL)
    for name in ("rules", "rules+learned"):
        with pytest.raises(Dstc2ConvError, match="fifo: a rule file is a regular file, and this is not one"):
            dstc2conv.system(name, rules=str(tmp_path / "fifo")).fit(str(tmp_path / "t.txt"))


def test_a_number_past_a_float_is_a_setting_refused(tmp_path, capsys):
    with pytest.raises(Dstc2ConvError, match="setting learning_rate: 1000.* is not from 0 to 1000000"):
        dstc2conv.system("embeddings", learning_rate=10**400)
    with pytest.raises(Dstc2ConvError, match="setting l2: 1000.* is not a number from 0 to 1000000"):
        dstc2conv.system("rules+learned", l2=10**400)
    (tmp_path / "t.txt").write_text(SMALL)
    for setting in (f"learning_rate={'9' * 400}", "candidates=[]"):
        code = run(["train", "--system", "embeddings", "--train", str(tmp_path / "t.txt"), "--dev",
                    str(tmp_path / "t.txt"), "--model", str(tmp_path / "m"), "--set", setting, "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("name", ["rules+learned", "hcn", "tfidf", "nn", "memn2n"])
def test_saving_before_fit_is_refused(tmp_path, name):
    with pytest.raises(Dstc2ConvError, match=": not fitted: nothing to save"):
        dstc2conv.system(name).save(tmp_path / "m")
    assert not os.path.exists(tmp_path / "m")


@pytest.mark.parametrize("bad", [5, None])
def test_candidates_that_are_no_list_are_refused(tmp_path, bad):
    (tmp_path / "t.txt").write_text(SMALL)
    system = dstc2conv.system("memn2n", epochs=1, dimension=4).fit(str(tmp_path / "t.txt"))
    with pytest.raises(Dstc2ConvError, match="candidates: give a list of responses"):
        system.use_candidates(bad)


def test_check_system_reports_what_the_system_raises():
    class FittedRaises(dstc2conv.System):
        def fitted(self):
            raise ValueError("no idea")

        def rank(self, user, k):
            return ("hello",)

    with pytest.raises(Dstc2ConvError, match="fitted: fitted\\(\\) raised ValueError: no idea"):
        dstc2conv.check_system(FittedRaises())


def test_a_model_folder_that_holds_an_input_is_not_replaced(tmp_path, capsys):
    (tmp_path / "t.txt").write_text(SMALL)
    assert run(["train", "--system", "nn", "--train", str(tmp_path / "t.txt"), "--dev", str(tmp_path / "t.txt"),
                "--model", str(tmp_path / "m"), "--quiet"]) == 0
    (tmp_path / "m" / "mine.txt").write_text(SMALL)          # data kept in the model folder
    for argv in (["train", "--system", "nn", "--train", str(tmp_path / "m" / "mine.txt"), "--dev",
                  str(tmp_path / "t.txt"), "--model", str(tmp_path / "m")],
                 ["rules", "learn", "--train", str(tmp_path / "t.txt"), "--dev", str(tmp_path / "m" / "mine.txt"),
                  "--out", str(tmp_path / "m")]):
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.endswith(f"cannot write the model: it holds the input {tmp_path / 'm' / 'mine.txt'}, which the "
                            "new model would replace\n") and len(err.splitlines()) == 1
    assert (tmp_path / "m" / "mine.txt").read_text() == SMALL
