"""Every system behind the one interface: the rules and the IR baselines through the one
dialog loop give what their engines give, the ranking helper's tie rule, the registry,
and the fast TF-IDF equal to the one it replaced on the published files."""
from __future__ import annotations

import functools
import sys

import numpy as np
import pytest
from conftest import REFERENCE, ROOT, need, write_rule_files
from test_baseline_rules import DIALOG, ONTOLOGY, RULES

import dstc2conv
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.evaluate.published import REPORTED
from dstc2conv.systems import ranking, registry
from dstc2conv.systems.interface import System, predict, run
from dstc2conv.systems.ir.tfidf import TfIdfMatch
from dstc2conv.systems.rules.engine import Compiled
from dstc2conv.systems.rules.engine import predict as engine_predict
from dstc2conv.systems.rules.ruleset import load_rules
from dstc2conv.systems.rules.system import Rules
from dstc2conv.task6 import format as task6
from dstc2conv.task6.candidates import distinct
from dstc2conv.task6.turns import read_turns, turns_of

sys.path.insert(0, str(ROOT / "tests"))
import ir_oracle  # noqa: E402

# ---------------------------------------------------------------- the ranking helper


def test_best_first_within_tie_then_by_score_ties_in_order():
    scores = np.array([0.5, 0.9, 0.9 + 5e-10, 0.2, 0.9, 0.5])
    assert ranking.first_best(scores) == 1                   # within 1e-9 of the best: the first wins
    assert ranking.best(scores, 1) == [1]
    # then by score: 2 (0.9+5e-10), 4 (0.9), 0 and 5 (0.5, in order), 3
    assert ranking.best(scores, 6) == [1, 2, 4, 0, 5, 3]
    assert ranking.best(scores, 4) == [1, 2, 4, 0]
    assert ranking.best(scores, 10) == [1, 2, 4, 0, 5, 3]    # fewer than k: all of them
    assert ranking.best(np.array([0.3, 0.3 + 2e-9]), 1) == [1]   # further than TIE: the higher


def test_best_refuses_nan_and_nothing():
    with pytest.raises(ValueError, match="NaN"):
        ranking.best(np.array([0.1, float("nan")]), 1)
    with pytest.raises(ValueError, match="non-empty"):
        ranking.best(np.array([]), 1)


# ---------------------------------------------------------------- the rules through the loop


def test_the_rules_through_the_loop_predict_what_the_engine_predicts(tmp_path):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG)
    turns = turns_of(task6.read(data))
    expected = [p.text for p in engine_predict(Compiled(load_rules(rules)), turns)]
    assert predict(Rules(rules).fit(), turns) == expected
    ranked = run(Rules(rules).fit(), turns, 3)
    assert [r[0] for r in ranked] == expected
    assert all(len(r) == len({x.strip() for x in r}) for r in ranked)      # each response once


def test_the_shipped_rules_through_the_loop_on_the_published_dev_file():
    turns = read_turns(need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    rules = Rules().fit()
    assert predict(rules, turns) == [p.text for p in engine_predict(Compiled(rules.ruleset_), turns)]


# ---------------------------------------------------------------- TF-IDF: the same as before


@functools.lru_cache(maxsize=1)
def _published() -> tuple[tuple[str, ...], tuple]:
    train = read_turns(need(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    dev = read_turns(need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    return distinct(t.gold for t in (*train, *dev)), tuple(dev)


def _published_tfidf(dialogs: int | None = None):
    """The distinct bot utterances of the published train and dev files, and the dev
    file's turns (of its first ``dialogs`` dialogs)."""
    candidates, dev = _published()
    return candidates, list(dev) if dialogs is None else [t for t in dev if t.dialog < dialogs]


def test_tfidf_last_predicts_what_the_dict_vectors_predicted_on_the_published_dev_file():
    candidates, dev = _published_tfidf()
    assert predict(TfIdfMatch(candidates, "last").fit([]), dev) == ir_oracle.rank(candidates, dev, "last")


@pytest.mark.parametrize("k", [None, 10])
def test_tfidf_conversation_ranks_what_the_dict_vectors_ranked(k):
    candidates, dev = _published_tfidf(30 if k is None else 15)     # the old way takes a minute on the whole file
    system = TfIdfMatch(candidates, "conversation").fit([])
    found = predict(system, dev) if k is None else run(system, dev, k)
    assert found == ir_oracle.rank(candidates, dev, "conversation", k)


def test_tfidf_cosines_are_the_dict_vectors_to_the_last_bit():
    candidates, dev = _published_tfidf(5)
    old, new = ir_oracle.TfIdf(candidates), TfIdfMatch(candidates, "conversation").fit([]).index_
    for text in ir_oracle.inputs(dev, "conversation"):
        assert new.scores(text) == old.scores(text)


# ---------------------------------------------------------------- the registry


def test_the_registry_holds_the_papers_row_by_name():
    assert registry.NAMES == ("rules", "tfidf", "nn", "embeddings", "memn2n", "memn2n+match", "rules+learned", "hcn",
                              "hcn+turn-dropout")
    assert [registry.SYSTEMS[n].reported() for n in registry.NAMES[:6]] == [(r, d) for _, r, d in REPORTED]
    assert registry.SYSTEMS["rules+learned"].reported() == (55.6, None)    # beside HCN, which gave no per-dialog figure
    assert registry.SYSTEMS["hcn"].reported("T6") == (55.6, None)
    assert registry.SYSTEMS["hcn+turn-dropout"].reported() == (56.5, None)
    # another row of the paper's Table 2: its own figures; a later system's are on task 6 only
    assert [registry.SYSTEMS[n].reported("T1-OOV") for n in registry.NAMES[:6]] == [
        (100, 100), (5.8, 0), (44.1, 0), (60.0, 0), (72.3, 0), (96.5, 82.7)]
    assert registry.SYSTEMS["tfidf"].reported("T1") == (5.6, 0) and registry.SYSTEMS["hcn"].reported("T1") == (None, None)
    assert registry.SYSTEMS["hcn+turn-dropout"].settings == (("turn_dropout", 0.1),)
    assert registry.reported((55.6, None)) == "55.6% / -"
    assert registry.SYSTEMS["memn2n+match"].settings == (("match", True),)


def test_the_registry_builds_lazily_with_settings_and_candidates():
    system = registry.build("tfidf", ("a b", "c"), input="last")
    assert isinstance(system, TfIdfMatch) and isinstance(system, System)
    assert (system.candidates, system.input) == (("a b", "c"), "last")
    assert isinstance(dstc2conv.system("nn"), System)
    with pytest.raises(Dstc2ConvError, match=r"no system 'tfdf' \(did you mean tfidf\?\)"):
        registry.entry("tfdf")


def test_a_system_not_installed_is_not_available(tmp_path, monkeypatch):
    entry = registry.Entry("ghost", "dstc2conv.systems.ghost:Ghost", "MemN2N", "none")
    with pytest.raises(registry.NotAvailable, match="^ghost: not in this version of dstc2conv$"):
        entry.build()
    (tmp_path / "heavy_model.py").write_text("import no_such_library_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = registry.Entry("heavy", "heavy_model:Heavy", "MemN2N", "none")
    with pytest.raises(registry.NotAvailable, match="^heavy: needs the package 'no_such_library_here', which is not"):
        entry.build()


def test_the_api_ranks_through_the_loop(tmp_path):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG)
    system = dstc2conv.system("rules", rules=rules).fit(dstc2conv.turns(data))
    assert [r[0] for r in dstc2conv.rank(system, data)] == [p.text for p in dstc2conv.predict(rules, data)]
    with pytest.raises(Dstc2ConvError, match="k=0"):
        dstc2conv.rank(system, data, 0)


def test_the_docs_hold_the_registrys_table():
    assert registry.docs_table() in (ROOT / "docs" / "table2.md").read_text(encoding="utf-8")


def test_the_help_lists_the_registrys_systems(monkeypatch, capsys):
    """Made from the registry, not written by hand: a system added to it is listed."""
    import re

    from dstc2conv.cli import run

    monkeypatch.setattr(registry, "NAMES", (*registry.NAMES, "added-later"))
    monkeypatch.setenv("COLUMNS", "2000")         # argparse wraps no line: a name is not cut at its hyphen
    names = ", ".join(registry.NAMES)
    for argv in (["--help"], ["train", "--help"], ["table2", "--help"]):
        with pytest.raises(SystemExit):
            run(argv)
        out = " ".join(capsys.readouterr().out.split())
        assert names in out or ",".join(registry.NAMES) in out, argv
        assert "hcn, hcn+turn-dropout, added-later" in re.sub(r",(?=\S)", ", ", out), argv


def test_every_list_of_all_the_systems_in_the_docs_is_the_registrys():
    """A run of five or more system names in backticks from `rules` on (`rules`, `tfidf`,
    ...) in the docs or the README stands for all of them: it is the registry's, in its
    order, or the paper's six that are `table2 --release`'s columns. (A list of some, as
    "the paper's baselines (`tfidf`, `nn`, ...)", starts elsewhere.)"""
    import re

    from dstc2conv.systems.whole_table import COLUMNS

    name = "|".join(re.escape(n) for n in sorted(registry.NAMES, key=len, reverse=True))
    run = re.compile(rf"`rules`(?:,\s+`(?:{name})`){{4,}}")
    found = 0
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for match in run.finditer(text):
            found += 1
            listed = re.sub(r"\s+", " ", match.group())
            assert listed in (registry.listed(code=True), ", ".join(f"`{n}`" for n in COLUMNS)), (page.name, listed)
    assert found >= 3
