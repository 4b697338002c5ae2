"""Systems without a figure in the paper (one of your own by ``module:Class``, one a
package registers through an entry point) in every form a result takes: table2's text
and JSON, the pandas tables of the Python API, and the HTML report of their model
folders and predictions."""
from __future__ import annotations

import json
import math
import sys

import pytest
import toy

import dstc2conv
from dstc2conv.cli import run

OWN = '''\
from collections import Counter

import dstc2conv


class Frequent(dstc2conv.System):
    """The bot utterances of the training turns, most frequent first."""

    def fitted(self):
        return hasattr(self, "ranked_")

    def fit(self, train, dev=None):
        self.ranked_ = [gold for gold, _ in Counter(t.gold for t in train).most_common()]
        return self

    def rank(self, user, k):
        return tuple(self.ranked_[:k])

    def state(self):
        return {"ranked": self.ranked_}, {}

    def restore(self, facts, arrays):
        self.ranked_ = facts["ranked"]
'''


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The toy files, ``ownsystem.py`` (``ownsystem:Frequent``) in the current folder, and
    an installed package ``ownplugin`` registering the same class as ``frequent``."""
    toy.write(tmp_path)
    (tmp_path / "ownsystem.py").write_text(OWN)
    site = tmp_path / "site"
    (site / "ownplugin-0.1.dist-info").mkdir(parents=True)
    (site / "ownplugin.py").write_text(OWN)
    (site / "ownplugin-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: ownplugin\nVersion: 0.1\n")
    (site / "ownplugin-0.1.dist-info" / "entry_points.txt").write_text("[dstc2conv.systems]\n"
                                                                       "frequent = ownplugin:Frequent\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(sys, "path", list(sys.path))       # the current folder, added when the module is found there
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    for module in ("ownsystem", "ownplugin"):
        sys.modules.pop(module, None)


SYSTEMS = "rules,frequent,ownsystem:Frequent"
TABLE2 = ["table2", "--train", "trn.txt", "--dev", "dev.txt", "--test", "tst.txt", "--systems", SYSTEMS, "--quiet"]


def _run(capsys, *argv):
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_table2_json_gives_no_paper_figure_as_null(folder, capsys):
    code, out, err = _run(capsys, *TABLE2, "--json")
    assert (code, err) == (0, "")
    rows = json.loads(out)["systems"]
    assert list(rows) == ["rules", "frequent", "ownsystem:Frequent"]
    assert rows["rules"]["paper"] == {"per_response": 0.333, "per_dialog": 0.0}
    for name in ("frequent", "ownsystem:Frequent"):
        assert rows[name]["paper"] == {"per_response": None, "per_dialog": None}
        assert rows[name]["vs_rules"]["difference"] == pytest.approx(rows[name]["per_response"]
                                                                     - rows["rules"]["per_response"])
    # the same class under two names: the same answers
    assert rows["frequent"]["per_response"] == rows["ownsystem:Frequent"]["per_response"]


def test_table2_text_gives_no_paper_figure_as_dashes(folder, capsys):
    code, out, _ = _run(capsys, *TABLE2)
    assert code == 0
    rows = {line.split()[0]: line.split() for line in out.splitlines()
            if line.split()[:1] in (["rules"], ["frequent"], ["ownsystem:Frequent"])}
    assert rows["rules"][3:6] == ["33.3%", "/", "0.0%"]
    assert rows["frequent"][3:6] == rows["ownsystem:Frequent"][3:6] == ["-", "/", "-"]


def test_the_python_tables_give_no_paper_figure_as_missing(folder):
    result = dstc2conv.table2("trn.txt", "dev.txt", "tst.txt", systems=SYSTEMS.split(","), resamples=50)
    frame = result.frame()
    assert list(frame.index) == SYSTEMS.split(",")
    assert frame.loc["rules", "paper_per_response"] == 0.333
    for name in ("frequent", "ownsystem:Frequent"):
        for column in ("paper_per_response", "paper_per_dialog"):
            value = frame.loc[name, column]
            assert value is None or math.isnan(value)
    assert list(result.runs_frame()["system"]) == SYSTEMS.split(",")
    assert result.to_dict()["systems"]["ownsystem:Frequent"]["paper"] == {"per_response": None, "per_dialog": None}


def test_the_report_shows_the_model_folders_of_systems_of_ones_own(folder, capsys):
    for name, model in (("frequent", "m-plugin"), ("ownsystem:Frequent", "m-own")):
        code, _, err = _run(capsys, "train", "--system", name, "--train", "trn.txt", "--dev", "dev.txt",
                            "--model", model, "--quiet")
        assert code == 0, err
    code, _, err = _run(capsys, "predict", "--model", "m-plugin", "--data", "tst.txt", "--out", "p-plugin.txt")
    assert code == 0, err
    # a folder of one's own module is loaded only when it is named
    code, _, err = _run(capsys, "predict", "--model", "m-own", "--data", "tst.txt", "--out", "p-own.txt")
    assert code == 2 and err.endswith("or --system ownsystem:Frequent\n") and not (folder / "p-own.txt").exists()
    code, _, err = _run(capsys, "predict", "--model", "m-own", "--data", "tst.txt", "--out", "p-own.txt",
                        "--system", "ownsystem:Frequent")
    assert code == 0, err
    assert (folder / "p-own.txt").read_text() == (folder / "p-plugin.txt").read_text()
    code, out, err = _run(capsys, "report", "--data", "tst.txt", "--system", "frequent=p-plugin.txt",
                          "--system", "own=p-own.txt", "--model", "frequent=m-plugin", "--model", "own=m-own",
                          "--out", "page.html")
    assert (code, out) == (0, "page.html\n"), err
    assert "m-own: a model of ownsystem:Frequent, a system of your own: no attention shown" in err
    assert err.endswith(", 7 turns, 2 systems\n")
    page = (folder / "page.html").read_text()
    assert "m-plugin" in page and "m-own" in page
