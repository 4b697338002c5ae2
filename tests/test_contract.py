"""The contract every system keeps (systems/interface.py) and the one model folder
(systems/folder.py, registry.load): settings listed and copied, fit given paths, dialogs
or turns, what a system learned saved and read back, and a folder that is damaged,
linked or foreign refused in one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import folder, registry
from dstc2conv.systems.interface import System, clone, explain_turn, run
from dstc2conv.task6.format import read
from dstc2conv.task6.turns import read_turns

TEXT = """1 hello\thello , what food ?
2 thai\tapi_call thai R_location R_price
3 siam R_cuisine thai
4 <SILENCE>\tsiam is a nice place

1 hi\thello , what food ?
2 indian\tapi_call indian R_location R_price
"""


class Echo(System):
    """Answers with the last gold it saw after the same user utterance (a test system)."""

    name = "echo"

    def __init__(self, fallback: str = "hello", seed: int = 0):
        self.fallback = fallback
        self.seed = seed

    def fitted(self) -> bool:
        return hasattr(self, "table_")

    def fit(self, train, dev=None):
        self.table_ = {t.user: t.gold for t in train}
        return self

    def rank(self, user, k):
        return (self.table_.get(user, self.fallback),)

    def state(self):
        return {"table": self.table_}, {"weights": np.arange(4, dtype=np.float32)}

    def restore(self, facts, arrays):
        self.table_ = dict(facts["table"])
        assert arrays["weights"].tolist() == [0, 1, 2, 3]

    def expected_arrays(self, facts):
        return {"weights": ((4,), "float32")}

    def explain(self, user, top):
        return [f"{user} -> {self.rank(user, 1)[0]}"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "t6.txt"
    path.write_text(TEXT)
    return str(path)


def test_settings_are_listed_and_copied():
    system = Echo(fallback="sorry", seed=3)
    assert system.get_params() == {"fallback": "sorry", "seed": 3}
    copy = clone(system.fit([]))
    assert copy.get_params() == system.get_params() and not copy.fitted()


def test_a_setting_not_kept_is_said():
    class Forgets(System):
        def __init__(self, size: int = 1):
            pass

    with pytest.raises(TypeError, match="'size' is not kept as an attribute"):
        Forgets().get_params()


def test_fit_takes_a_path_dialogs_or_turns_alike(data):
    answers = run(Echo().fit(data), data)
    assert answers == run(Echo().fit(read(data)), data) == run(Echo().fit(read_turns(data)), data)
    assert answers[1] == ("api_call thai R_location R_price",)
    with pytest.raises(TypeError, match="train: give a task-6 file, its dialogs or its bot turns, not ints"):
        Echo().fit([1, 2])


def test_fit_must_return_the_system():
    class Forgetful(Echo):
        def fit(self, train, dev=None):
            self.table_ = {}

    with pytest.raises(TypeError, match="Forgetful.fit returned NoneType, not the system itself"):
        Forgetful().fit([])


def test_a_system_saves_and_loads_whole(data, tmp_path):
    system = Echo(fallback="sorry").fit(data)
    system.save(tmp_path / "m", about={"train": "t6.txt"})
    loaded = registry.load(tmp_path / "m", system="test_contract:Echo")
    assert type(loaded) is Echo and loaded.get_params() == {"fallback": "sorry", "seed": 0}
    assert run(loaded, data) == run(system, data)
    assert loaded.about == {"train": "t6.txt"}
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    assert (meta["format"], meta["version"], meta["system"], meta["class"]) == (
        "dstc2conv-model", 2, "test_contract:Echo", "test_contract:Echo")


def test_the_same_model_gives_the_same_bytes(data, tmp_path):
    for name in ("a", "b"):
        Echo().fit(data).save(tmp_path / name)
    for member in ("model.json", "weights.npz"):
        assert (tmp_path / "a" / member).read_bytes() == (tmp_path / "b" / member).read_bytes()


def test_a_folder_never_imports_a_module_it_names(data, tmp_path):
    Echo().fit(data).save(tmp_path / "m")
    with pytest.raises(Dstc2ConvError, match=r"not a system of this dstc2conv nor of a plugin; one of your own is "
                                             r"loaded when you name it: load\(folder, system='test_contract:Echo'\)"):
        registry.load(tmp_path / "m")


def test_explain_runs_the_dialog_up_to_the_turn(data):
    turns = read_turns(data)
    assert explain_turn(Echo().fit(data), turns, 2) == ["<SILENCE> -> siam is a nice place"]


def test_a_system_that_cannot_explain_says_so(data):
    class Mute(Echo):
        def explain(self, user, top):
            raise NotImplementedError

    with pytest.raises(Dstc2ConvError, match="^echo does not explain its answers$"):
        explain_turn(Mute().fit(data), read_turns(data), 0)


# ---------------------------------------------------------------- writing, safely

def test_only_a_model_folder_is_replaced(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep")
    with pytest.raises(Dstc2ConvError, match="it exists and is not a model folder"):
        Echo().fit([]).save(tmp_path / "notes")
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep"


def test_a_member_that_links_elsewhere_is_replaced_not_written_through(tmp_path):
    outside = tmp_path / "outside.npz"
    outside.write_bytes(b"mine")
    Echo().fit([]).save(tmp_path / "m")
    (tmp_path / "m" / "weights.npz").unlink()
    (tmp_path / "m" / "weights.npz").symlink_to(outside)
    Echo().fit([]).save(tmp_path / "m")
    assert outside.read_bytes() == b"mine" and not (tmp_path / "m" / "weights.npz").is_symlink()


def test_a_killed_save_leaves_nothing_the_next_does_not_clean(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    stale = tmp_path / f".m.tmp-{pid}"
    stale.mkdir()
    (stale / "model.json").write_text("{}")
    Echo().fit([]).save(tmp_path / "m")
    assert sorted(os.listdir(tmp_path)) == ["m"]


def test_a_save_killed_between_its_renames_is_made_good_by_the_next(tmp_path):
    Echo(fallback="old").fit([]).save(tmp_path / "m")
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    os.rename(tmp_path / "m", tmp_path / f".m.old-{dead}")
    Echo(fallback="new").fit([]).save(tmp_path / "m")
    assert registry.load(tmp_path / "m", system="test_contract:Echo").fallback == "new"
    assert sorted(os.listdir(tmp_path)) == ["m"]


# ---------------------------------------------------------------- reading, safely

@pytest.fixture
def saved(tmp_path):
    Echo().fit([]).save(tmp_path / "m")
    return tmp_path / "m"


def _load(path):
    return registry.load(path, system="test_contract:Echo")


def test_a_fifo_member_is_refused_without_blocking(saved):
    (saved / "weights.npz").unlink()
    os.mkfifo(saved / "weights.npz")
    with pytest.raises(Dstc2ConvError, match="a model folder holds regular files, and weights.npz is not one"):
        _load(saved)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update(version=1), "a model of format version 1; this dstc2conv reads version 2: train it again"),
    (lambda m: m.update(format="dstc2conv-chooser"), "a chooser of an earlier dstc2conv, which this version does not "
                                                     "read: train it again"),
    (lambda m: m.update(settings=[]), "a damaged model: 'settings' is not a dict"),
    (lambda m: m.update(settings={"size": 3}), "a damaged model: TypeError: .*unexpected keyword argument 'size'"),
    (lambda m: m.update(settings={"\n": 3}), r"a damaged model: TypeError: .*unexpected keyword argument '\\n'$"),
    (lambda m: m.update(facts={}), "a damaged model: KeyError: 'table'"),
    (lambda m: m.update({"class": "os:system"}), "a model of os:system, but test_contract:Echo is test_contract:Echo"),
])
def test_a_damaged_settings_file_is_one_line(saved, edit, message):
    meta = json.loads((saved / "model.json").read_text())
    edit(meta)
    (saved / "model.json").write_text(json.dumps(meta))
    with pytest.raises(Dstc2ConvError, match=message) as caught:
        _load(saved)
    assert len(str(caught.value).splitlines()) == 1       # whatever the file holds, the message is one line


def _weights(saved, arrays_or_bytes):
    """Other weights, and model.json's checksum of them: what the checks of the arrays see."""
    import hashlib

    data = arrays_or_bytes if isinstance(arrays_or_bytes, bytes) else folder.npz_bytes(arrays_or_bytes)
    (saved / "weights.npz").write_bytes(data)
    meta = json.loads((saved / "model.json").read_text())
    meta["weights_sha256"] = hashlib.sha256(data).hexdigest()
    (saved / "model.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("arrays, message", [
    ({"weights": np.arange(5, dtype=np.float32)}, r"weights weights are float32 of shape \(5,\), not float32 of "
                                                   r"shape \(4,\)"),
    ({"weights": np.zeros(4, dtype=[("a", "f4")])}, "not an array of plain numbers"),
    ({"weights": np.array([0, 1, np.nan, 3], dtype=np.float32)}, "not a finite number"),
    ({"other": np.zeros(4, dtype=np.float32)}, "the weights hold other, not weights"),
])
def test_damaged_weights_are_one_line(saved, arrays, message):
    _weights(saved, arrays)
    with pytest.raises(Dstc2ConvError, match=message):
        _load(saved)


def test_weights_claiming_more_than_the_bound_are_refused_before_they_are_read(saved):
    import io
    import zipfile

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (1 << 20, 1 << 10)})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("weights.npy", b"\x93NUMPY" + header.getvalue()[6:] + b"\0" * 1000)
    _weights(saved, out.getvalue())
    with pytest.raises(Dstc2ConvError, match="the weights claim 4096 MB unpacked, more than the 512 MB a model may hold"):
        _load(saved)
