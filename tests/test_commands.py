"""`dstc2conv train | predict | explain` for every system, on tiny task-6 files written
here; the `memn2n` and `embeddings` aliases; one system trained the same way gives the
same figure as table2's; settings refused when a system is made; the data mistakes said."""
from __future__ import annotations

import json
import logging
import os
import sys

import pytest
import toy

import dstc2conv
from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.systems import folder, registry
from dstc2conv.systems.interface import predict as predict_loop
from dstc2conv.task6.candidates import distinct
from dstc2conv.task6.turns import read_turns

FAST = ("--set", "epochs=2")
SYSTEMS = ["rules", "tfidf", "nn", "embeddings", "memn2n", "memn2n+match", "rules+learned", "hcn"]


@pytest.fixture
def files(tmp_path):
    return toy.write(tmp_path)


def _run(capsys, *argv):
    code = run(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _error(capsys, *argv) -> str:
    code, _, err = _run(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize("name", SYSTEMS)
def test_train_predict_explain_for_every_system(files, tmp_path, capsys, name):
    model = str(tmp_path / "model")
    learned = name in ("embeddings", "memn2n", "memn2n+match", "hcn")
    code, out, err = _run(capsys, "train", "--system", name, "--train", files["trn"], "--dev", files["dev"],
                          "--model", model, "--quiet", *(FAST if learned else ()))
    assert (code, out) == (0, "") and err == ""
    meta = json.loads((tmp_path / "model" / "model.json").read_text())
    assert meta["system"] == name and meta["about"]["train_sha256"]
    code, out, _ = _run(capsys, "predict", "--model", model, "--data", files["tst"], "--json", "--quiet",
                        "--out", str(tmp_path / "preds.txt"))
    figures = json.loads(out)
    assert code == 0 and figures["system"] == name and figures["responses"] == 7
    preds = (tmp_path / "preds.txt").read_text().splitlines()
    expected = predict_loop(dstc2conv.system(name, **({"epochs": 2} if learned else {})).fit(
        files["trn"], files["dev"]), files["tst"])
    assert preds == expected                      # the model folder answers as the system it saved
    if name.startswith("memn2n"):
        code, out, _ = _run(capsys, "explain", "--model", model, "--data", files["tst"], "--dialog", "2",
                            "--turn", "2", "--top", "3")
        lines = out.splitlines()
        assert code == 0 and lines[0].startswith("dialog 2, turn 2 (line 6 of ") and lines[1].startswith("hop 1")
        assert lines[-1] == "gold:  What part of town do you have in mind?" and len(lines[-4:-1]) == 3
    elif name in ("rules", "tfidf", "nn"):
        assert _error(capsys, "explain", "--model", model, "--data", files["tst"], "--dialog", "1",
                      "--turn", "1").endswith(f"{name} does not explain its answers")


def test_the_aliases_are_the_generic_commands(files, tmp_path, capsys):
    # the alias has no --set: the same model is the generic one with the same settings
    assert run(["memn2n", "train", "--match", "--train", files["trn"], "--dev", files["dev"], "--model",
                str(tmp_path / "alias"), "--quiet", "--seed", "4"]) == 0
    assert run(["train", "--system", "memn2n+match", "--train", files["trn"], "--dev", files["dev"], "--model",
                str(tmp_path / "generic"), "--quiet", "--seed", "4"]) == 0
    for member in ("model.json", "weights.npz"):
        assert (tmp_path / "alias" / member).read_bytes() == (tmp_path / "generic" / member).read_bytes()
    outs = []
    for argv in (["memn2n", "predict", "--model", str(tmp_path / "alias")],
                 ["predict", "--model", str(tmp_path / "generic")]):
        code, out, _ = _run(capsys, *argv, "--data", files["tst"], "--rank", "2", "--out",
                            str(tmp_path / f"{argv[0]}.txt"))
        assert code == 0
        shown = [line for line in out.replace("alias", "generic").splitlines() if not line.startswith("time ")]
        outs.append(((tmp_path / f"{argv[0]}.txt").read_text(), "\n".join(shown)))   # all but the time it took
    assert outs[0] == outs[1]
    assert outs[0][1].splitlines()[0].startswith("system                 memn2n+match (")
    code, out, _ = _run(capsys, "embeddings", "train", "--train", files["trn"], "--dev", files["dev"], "--model",
                        str(tmp_path / "emb"), "--quiet")
    assert code == 0
    assert "a model of embeddings, not of memn2n or memn2n+match" in _error(
        capsys, "memn2n", "predict", "--model", str(tmp_path / "emb"), "--data", files["tst"])


def test_the_signature_names_the_model_not_its_training_file(files, tmp_path, capsys):
    signatures = {}
    for name, seed in (("a", "1"), ("b", "2"), ("c", "1")):
        assert run(["train", "--system", "embeddings", "--train", files["trn"], "--dev", files["dev"], "--model",
                    str(tmp_path / name), "--quiet", "--set", "epochs=2", "--set", f"seed={seed}"]) == 0
        code, out, _ = _run(capsys, "predict", "--model", str(tmp_path / name), "--data", files["tst"], "--json",
                            "--quiet", "--out", str(tmp_path / f"{name}.txt"))
        signatures[name] = json.loads(out)["signature"]
    digest = folder.fingerprint(tmp_path / "a")
    assert signatures["a"].startswith(f"embeddings|model:{digest[:12]}|")
    assert signatures["a"] == signatures["c"] != signatures["b"]      # same training file, other weights
    assert digest != folder.fingerprint(tmp_path / "b")


def test_trained_with_the_test_files_utterances_is_table2s_system(files, tmp_path, capsys):
    model = str(tmp_path / "model")
    assert run(["memn2n", "train", "--train", files["trn"], "--dev", files["dev"], "--test", files["tst"],
                "--model", model, "--quiet"]) == 0
    code, out, _ = _run(capsys, "predict", "--model", model, "--data", files["tst"], "--json", "--quiet",
                        "--out", str(tmp_path / "preds.txt"))
    ours = json.loads(out)
    code, out, _ = _run(capsys, "table2", "--train", files["trn"], "--dev", files["dev"], "--test", files["tst"],
                        "--systems", "memn2n", "--json", "--quiet")
    theirs = json.loads(out)["systems"]["memn2n"]
    keys = ("per_response", "per_dialog", "correct", "dialogs_correct")
    assert {k: ours[k] for k in keys} == {k: theirs[k] for k in keys}
    trn, dev, tst = (read_turns(files[k]) for k in ("trn", "dev", "tst"))
    pool = distinct(t.gold for t in (*trn, *dev, *tst))
    as_table2 = registry.build("memn2n", pool).fit(trn, dev)       # what table2 fits
    assert (tmp_path / "preds.txt").read_text().splitlines() == predict_loop(as_table2, tst)
    assert ours["trained_among"] == {"count": len(pool), "from": "the bot utterances of trn.txt, dev.txt and tst.txt"}


def test_without_test_or_candidates_it_trains_among_trn_and_dev_and_says_so(files, tmp_path, capsys):
    model = str(tmp_path / "model")
    assert run(["train", "--system", "memn2n", "--train", files["trn"], "--dev", files["dev"], "--model", model,
                "--quiet", *FAST]) == 0
    code, out, _ = _run(capsys, "predict", "--model", model, "--data", files["tst"], "--out", str(tmp_path / "p"))
    golds = distinct(t.gold for k in ("trn", "dev") for t in read_turns(files[k]))
    assert f"trained among          {len(golds)} candidates (the bot utterances of trn.txt and dev.txt)" \
        in out.splitlines()
    candidates = tmp_path / "c.txt"
    candidates.write_text("".join(f"1 {g}\n" for g in reversed(golds)) + "1 api_call french north cheap\n")
    assert run(["train", "--system", "memn2n", "--train", files["trn"], "--dev", files["dev"], "--model", model,
                "--quiet", "--candidates", str(candidates), *FAST]) == 0
    meta = json.loads((tmp_path / "model" / "model.json").read_text())
    assert meta["facts"]["candidates"][0] == golds[-1] and len(meta["facts"]["candidates"]) == len(golds) + 1
    assert meta["about"]["candidates_from"] == "the candidates file c.txt"


def test_settings_are_refused_when_the_system_is_made(files, tmp_path, capsys):
    for make in (lambda: dstc2conv.system("memn2n", optimizer="bogus"), lambda: dstc2conv.system("embeddings", seed=-1),
                 lambda: dstc2conv.system("memn2n", hops=2.5), lambda: dstc2conv.system("memn2n", wings=2)):
        with pytest.raises(Dstc2ConvError):
            make()
    err = _error(capsys, "train", "--system", "memn2n", "--train", files["trn"], "--dev", files["dev"],
                 "--model", str(tmp_path / "m"), "--set", "optimizer=bogus")
    assert err.endswith("setting optimizer: 'bogus' is not one of adam, sgd")
    assert not os.path.exists(tmp_path / "m")
    assert "give key=value" in _error(capsys, "train", "--system", "nn", "--train", files["trn"], "--dev",
                                      files["dev"], "--model", str(tmp_path / "m"), "--set", "hops")
    system = dstc2conv.system("memn2n", epochs=1).fit(files["trn"], files["dev"])
    for bad, message in (([], "no candidates"), ([1, "x"], "a candidate is a int"), ("hello", "give a list of responses, not a str")):
        with pytest.raises(Dstc2ConvError, match=message):
            system.use_candidates(bad)
    with pytest.raises(Dstc2ConvError, match="no candidates"):
        dstc2conv.system("memn2n", candidates=())


def test_the_grid_search_is_a_library_function(files):
    from dstc2conv.systems.search import search

    best, tried = search(dstc2conv.system("memn2n", epochs=2), {"hops": (1, 2)}, files["trn"], files["dev"])
    assert [t.settings for t in tried] == [{"hops": 1}, {"hops": 2}]
    assert best.hops == max(tried, key=lambda t: t.dev).settings["hops"] and best.fitted() and best.epochs == 2
    with pytest.raises(Dstc2ConvError, match="does not have: wings"):
        search(dstc2conv.system("nn"), {"wings": (1,)}, files["trn"], files["dev"])


def test_the_data_mistakes_are_said(files, tmp_path, capsys, caplog):
    model = str(tmp_path / "m")
    code, _, err = _run(capsys, "train", "--system", "nn", "--train", files["trn"], "--dev", files["trn"],
                        "--model", model)
    assert code == 0 and f"warning: the training file {files['trn']} and the dev file {files['trn']} are the same " \
                         "file" in err
    both = tmp_path / "both.txt"
    both.write_text(toy.DEV + toy.TRN)
    code, _, err = _run(capsys, "train", "--system", "nn", "--train", files["trn"], "--dev", str(both),
                        "--model", model)
    assert code == 0 and "share 2 identical dialogs" in err
    err = _error(capsys, "train", "--system", "nn", "--train", files["tst"], "--dev", files["dev"], "--model", model)
    assert "the test file given as the training file" in err and files["tst"] in err
    assert "the test file given" in _error(capsys, "table2", "--train", files["tst"], "--dev", files["dev"],
                                           "--test", files["tst"], "--systems", "nn")
    with caplog.at_level(logging.WARNING, logger="dstc2conv"):
        dstc2conv.system("nn").fit(files["trn"], files["trn"])
    assert any("are the same file" in r.getMessage() for r in caplog.records)
    with pytest.raises(Dstc2ConvError, match="the test file given"):
        dstc2conv.system("nn").fit(files["tst"], files["dev"])


def test_predictions_on_a_terminal_say_where_the_score_went(files, tmp_path, capsys, monkeypatch):
    model = str(tmp_path / "m")
    assert run(["train", "--system", "nn", "--train", files["trn"], "--dev", files["dev"], "--model", model,
                "--quiet"]) == 0
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = _run(capsys, "predict", "--model", model, "--data", files["tst"])
    assert code == 0 and len(out.splitlines()) == 7
    lines = err.splitlines()
    assert lines[0] == "dstc2conv: the score follows on stderr; --out FILE writes the predictions to a file"
    assert lines[1].startswith("system                 nn (")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    code, out, err = _run(capsys, "predict", "--model", model, "--data", files["tst"])
    assert "--out FILE" not in err


@pytest.mark.parametrize("name", ["nn", "memn2n"])
def test_the_same_training_from_another_folder_gives_the_same_bytes(files, tmp_path, monkeypatch, name):
    import shutil

    models = []
    for where in ("a", "b/c"):
        folder = tmp_path / where
        folder.mkdir(parents=True)
        for key in ("trn", "dev", "tst"):
            shutil.copy(files[key], folder / f"{key}.txt")
        monkeypatch.chdir(folder)
        assert run(["train", "--system", name, "--train", "trn.txt", "--dev", str(folder / "dev.txt"), "--test",
                    "tst.txt", "--model", "m", "--quiet", *(FAST if name == "memn2n" else ())]) == 0
        models.append(folder / "m")
    for member in ("model.json", "weights.npz"):
        assert (models[0] / member).read_bytes() == (models[1] / member).read_bytes()
