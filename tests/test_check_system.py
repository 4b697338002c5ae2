"""check_system: every system of ours that is quick on small dialogs keeps the contract,
and a system that breaks one property fails with that property named; a system of one's
own run by table2 from a plugin package's entry point."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import time

import pytest
from conftest import ROOT

import dstc2conv
from dstc2conv.systems import registry
from dstc2conv.systems.check import SystemCheckFailed, check_system, tiny_dialogs
from dstc2conv.systems.interface import System
from dstc2conv.task6.format import serialize

# ---------------------------------------------------------------- our systems

@pytest.mark.parametrize("name", ["rules", "tfidf", "nn"])
def test_our_quick_systems_keep_the_contract(name):
    check_system(name)
    check_system(dstc2conv.system(name))


@pytest.mark.parametrize("name, settings", [("embeddings", {"epochs": 2, "dimension": 8}),
                                            ("memn2n", {"epochs": 2, "dimension": 8}),
                                            ("memn2n+match", {"epochs": 2, "dimension": 8})])
def test_the_learned_systems_keep_the_contract_on_few_epochs(name, settings):
    check_system(registry.build(name, None, **settings))


def test_rules_learned_keeps_the_contract():
    check_system("rules+learned")


@pytest.mark.parametrize("name", ["hcn", "hcn+turn-dropout"])
def test_hcn_keeps_the_contract(name):
    check_system(registry.build(name, None, epochs=2))


def test_the_check_takes_files_and_leaves_the_system_alone(tmp_path):
    for what, start, count in (("trn", 0, 5), ("dev", 5, 2)):
        (tmp_path / f"{what}.txt").write_text(serialize(tiny_dialogs(start, count)))
    system = dstc2conv.system("tfidf", input="last")
    check_system(system, tmp_path / "trn.txt", tmp_path / "dev.txt")
    assert not system.fitted() and system.get_params() == {"candidates": None, "input": "last"}
    check_system("nn", dstc2conv.read(tmp_path / "trn.txt"), test=dstc2conv.turns(tmp_path / "dev.txt"))


# ---------------------------------------------------------------- one broken property each

class First(System):
    """Answers the first gold of its training turns: a small system that keeps the contract."""

    def __init__(self, words: tuple = ("a",), size: int = 1):
        self.words, self.size = words, size

    def fitted(self):
        return hasattr(self, "first_")

    def fit(self, train, dev=None):
        self.first_ = train[0].gold
        return self

    def rank(self, user, k):
        return (self.first_,)

    def state(self):
        return {"first": self.first_}, {}

    def restore(self, facts, arrays):
        self.first_ = facts["first"]


class Kwargs(First):
    def __init__(self, **settings):
        self.settings = settings


class NotKept(First):
    def __init__(self, size: int = 1):
        self.n = size


class Changed(First):
    def __init__(self, words: tuple = ("a",), size: int = 1):
        self.words, self.size = (*words, "b"), size


class FitChanges(First):
    def fit(self, train, dev=None):
        self.size = len(train)
        return super().fit(train, dev)


class FitReturnsNothing(First):
    def fit(self, train, dev=None):
        super().fit(train, dev)


class Lies(First):
    def fitted(self):
        return True


class NeverFitted(First):
    def fitted(self):
        return False if not hasattr(self, "checked_") else False


class Nothing(First):
    def rank(self, user, k):
        return ()


class TooMany(First):
    def rank(self, user, k):
        return (self.first_,) * (k + 1)


class Empty(First):
    def rank(self, user, k):
        return (" ",)


class Text(First):
    def rank(self, user, k):
        return self.first_


class Peeks(First):
    """Reads the gold from the loop that asks it."""

    def rank(self, user, k):
        frame = sys._getframe(1)
        while frame is not None and not hasattr(frame.f_locals.get("turn"), "gold"):
            frame = frame.f_back
        return (frame.f_locals["turn"].gold,)


class Ahead(First):
    """Answers the gold it was shown after the previous turn: allowed."""

    def reset(self):
        self.last_ = None

    def rank(self, user, k):
        return (getattr(self, "last_", None) or self.first_,)

    def observe(self, user, gold, context):
        self.last_ = gold


class Unsaved(First):
    state, restore = System.state, System.restore


class Random(First):
    def fit(self, train, dev=None):
        self.first_ = random.choice([t.gold for t in train]) + f" {random.random()}"
        return self


class Stamped(First):
    def state(self):
        return {"first": self.first_, "saved": time.perf_counter_ns()}, {}


def _raw_fit(self, train, dev=None):
    self.first_ = train[0].gold      # a path: its first character
    return self


_raw_fit._contract = True             # left unwrapped: it is given the path itself


class Raw(First):
    fit = _raw_fit


class ExplainsBadly(First):
    def explain(self, user, top):
        return "because"


@pytest.mark.parametrize("system, property, detail", [
    (Kwargs(), "settings", "the constructor takes **settings"),
    (NotKept(), "settings", "the setting 'size' is not kept as an attribute"),
    (Changed(), "settings", "a copy (clone) has other settings: words=('a', 'b') became ('a', 'b', 'b')"),
    (FitChanges(), "settings", "fit changed size=1 became 48"),
    (FitReturnsNothing(), "fit returns the system", "fit returned NoneType"),
    (Lies(), "fitted", "before fit, it says it is fitted, but run raised AttributeError"),
    (NeverFitted(), "fitted", "fitted() is not True after fit"),
    (Nothing(), "rank", "rank(user, 1) gave 0 responses: give at least one, at most k"),
    (TooMany(), "rank", "at turn 1 of dialog 1, rank(user, 1) gave 2 responses"),
    (Empty(), "rank", "gave ' ': each response is a non-empty string"),
    (Text(), "rank", "gave a str, not a tuple of responses"),
    (Peeks(), "the gold", "at turn 1 of dialog 1, changing its own gold (and the later turns') changed its "
                          "answer: it answered with the changed gold itself"),
    (Unsaved(), "save and load", "the loaded system says it is not fitted"),
    (Random(), "determinism", "two fits with the same settings (and seed) answer differently"),
    (Stamped(), "determinism", "saved different model.json"),
    (Raw(), "fit accepts a path, dialogs or turns", "fit given the path raised AttributeError"),
    (ExplainsBadly(), "explain", "explain gave str, not a list of lines"),
])
def test_a_broken_property_is_named(system, property, detail):
    with pytest.raises(SystemCheckFailed) as failed:
        check_system(system)
    assert failed.value.property == property
    assert str(failed.value).startswith(f"{type(system).__name__} does not keep the contract: {property}: ")
    assert detail in failed.value.detail
    assert isinstance(failed.value, dstc2conv.Dstc2ConvError)


def test_answering_with_the_gold_shown_before_is_no_peek():
    check_system(Ahead())
    check_system(First())


def test_a_class_inside_a_function_cannot_be_saved():
    class Local(First):
        pass

    with pytest.raises(SystemCheckFailed, match="save and load: .*Local is defined inside a function"):
        check_system(Local())


def test_not_a_system_is_a_type_error():
    with pytest.raises(TypeError, match="not a int"):
        check_system(3)


# ---------------------------------------------------------------- a plugin package

PLUGIN = '''\
from collections import Counter

import dstc2conv


class Mine(dstc2conv.System):
    """The most frequent bot utterance of the training turns."""

    def fitted(self):
        return hasattr(self, "best_")

    def fit(self, train, dev=None):
        self.best_ = Counter(t.gold for t in train).most_common(1)[0][0]
        return self

    def rank(self, user, k):
        return (self.best_,)

    def state(self):
        return {"best": self.best_}, {}

    def restore(self, facts, arrays):
        self.best_ = facts["best"]
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A folder holding an installed package ``mineplugin`` that registers ``mine``."""
    site = tmp_path / "site"
    (site / "mineplugin-0.1.dist-info").mkdir(parents=True)
    (site / "mineplugin.py").write_text(PLUGIN)
    (site / "mineplugin-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: mineplugin\n"
                                                                "Version: 0.1\n")
    (site / "mineplugin-0.1.dist-info" / "entry_points.txt").write_text('[dstc2conv.systems]\n'
                                                                         'mine = mineplugin:Mine\n')
    for what, start, count in (("trn", 0, 8), ("dev", 8, 3), ("tst", 11, 3)):
        (tmp_path / f"{what}.txt").write_text(serialize(tiny_dialogs(start, count)))
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("mineplugin", None)


def test_a_plugins_system_is_a_name_like_ours(plugin, tmp_path):
    assert "mine" in registry.plugins()
    check_system("mine")
    system = dstc2conv.system("mine").fit(tmp_path / "trn.txt")
    system.save(tmp_path / "model")
    loaded = dstc2conv.load(tmp_path / "model")           # an entry point's: no need to name it
    assert loaded.built_as == "mine" and loaded.best_ == system.best_
    from mineplugin import Mine

    Mine().fit(tmp_path / "trn.txt").save(tmp_path / "by-class")    # built by its class, not by its name
    assert dstc2conv.load(tmp_path / "by-class").built_as == "mineplugin:Mine"


def test_table2_runs_a_plugins_system(plugin, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(plugin))
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "dstc2conv") if (ROOT / ".venv").exists() else "dstc2conv",
                           "table2", "--train", "trn.txt", "--dev", "dev.txt", "--test", "tst.txt",
                           "--systems", "rules,mine"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines() if line.split()[:1] in (["rules"], ["mine"])]
    assert rows == ["rules", "mine"]
