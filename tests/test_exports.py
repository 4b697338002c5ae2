"""The exports: the JSON-lines records and DeepPavlov's DSTC2 format, on the sample (golden
files, hand-checked values, round trips to the task-6 files, errors) and on train/dev
(loaded with Hugging Face datasets, turn for turn against the task-6 files)."""
from __future__ import annotations

import json
import random

import pytest
from conftest import GOLDEN, SAMPLE, TRAINDEV, need
from official import deeppavlov_reader

from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.cli import run
from dstc2conv.convert.dialogs import convert_call
from dstc2conv.convert.kb import read_kb
from dstc2conv.convert.lexicon import make_lexicon
from dstc2conv.dstc2.archive import read_source
from dstc2conv.dstc2.ontology import Dstc2Ontology
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.exports.deeppavlov import DB_FIELDS
from dstc2conv.exports.deeppavlov import action as action_of
from dstc2conv.exports.formats import EXPORTS, export_format
from dstc2conv.exports.records import FEATURES, dialog_record
from dstc2conv.task6.format import NO_RESULT, Context, Dialog, Exchange, Fact, read

BOTH = ["--export", "jsonl", "--export", "deeppavlov"]
SECOND = "Mar13_S9A0/voip-sample00002-20260101_110000"


def _export(out, *extra, raw=SAMPLE, split="all"):
    code = run(["build", "--split", split, "--raw", str(raw), "--out", str(out), "--quiet", *BOTH, *extra])
    assert code == 0
    return out


def _records(path) -> list[dict]:
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def _deeppavlov(path) -> list[list[dict]]:
    """DeepPavlov's reading: a turn per line, an empty line ends a dialog."""
    dialogs, current = [], []
    for line in open(path, encoding="utf-8"):
        if line.strip():
            current.append(json.loads(line))
        else:
            dialogs.append(current)
            current = []
    assert not current, "the last dialog is not ended by an empty line"
    return dialogs


def test_the_sample_exports_are_the_golden_bytes(tmp_path):
    out = _export(tmp_path / "o", "--kb", "logs")
    golden = GOLDEN / "sample-export-kb-logs"
    names = sorted(name for f in EXPORTS.values() for name in f.files.values())
    assert sorted(p.name for p in golden.iterdir()) == names
    for name in names:
        assert (out / name).read_bytes() == (golden / name).read_bytes(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["exports"]["dialog-babi-task6-dstc2-tst.jsonl"] == {"format": "jsonl", "split": "test", "dialogs": 3}
    assert manifest["exports"]["dstc2-val.jsonlist"] == {"format": "deeppavlov", "split": "dev", "dialogs": 2}
    assert set(manifest["exports"]) <= set(manifest["checksums"])


def test_a_build_without_export_is_unchanged_and_reads_no_hypotheses(tmp_path):
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(tmp_path / "o")))
    assert "exports" not in json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert read_source(SAMPLE).calls[SECOND].turns[1].hypotheses is None
    heard = read_source(SAMPLE, asr=True).calls[SECOND].turns
    assert heard[0].hypotheses[0] == (heard[0].heard, heard[0].hypotheses[0][1])
    assert all(isinstance(score, float) for turn in heard for _, score in turn.hypotheses)


def test_a_record_by_hand():
    """The second sample call: system turns 1 and 2 say the same (one line, standing for
    user turns 0 and 1, the first silent); at turn 4 the canthelp's api_call answers
    user turn 3, and the line after it shows a silence standing for no user turn."""
    source = read_source(SAMPLE, asr=True)
    kb = read_kb(GOLDEN / "sample-kb.txt")
    lexicon = make_lexicon(Dstc2Ontology.from_json(source.ontology), kb)
    call = source.calls[SECOND]
    record = dialog_record(call, convert_call(call, kb, lexicon, random.Random(0)), "test", 2, lexicon)
    assert (record["id"], record["split"], record["session"]) == ("test-2", "test", SECOND)
    assert (record["system"], record["recogniser"], record["dialog_manager"]) == ("S9", "A0", 0)
    turns = record["turns"]
    assert [(t["line"], t["kind"], t["user_turn"], t["user_turns"], t["system_turns"]) for t in turns] == [
        (1, "response", None, [], [0]),
        (2, "response", 0, [0, 1], [1, 2]),
        (3, "response", 2, [2], [3]),
        (4, "api_call", 3, [3], []),
        (6, "response", None, [], [4]),
        (7, "api_call", 4, [4], []),
        (15, "response", None, [], [5]),
        (16, "response", 5, [5], [6]),
        (17, "closing", 6, [6], []),
    ]
    call_turn = turns[3]
    assert call_turn["bot"] == "api_call modern_european centre expensive"
    assert call_turn["template"] == "api_call <food> <area> <pricerange>"
    assert call_turn["api_call"] == {"food": "modern_european", "area": "centre", "pricerange": "expensive"}
    assert call_turn["results"] == []
    assert call_turn["transcription"] == call.turns[3].user
    assert call_turn["goals"] == {"food": "modern european", "area": "centre", "pricerange": "expensive", "name": None}
    assert call_turn["system_acts"] == [] and call_turn["system_transcript"] is None
    assert [r["name"] for r in turns[5]["results"]] == ["golden_dragon"]
    assert turns[6]["template"] == "<name> is a great restaurant in the <area> serving <food> food and it is in " \
                                   "the <pricerange> price range"
    assert turns[2]["asr"] == [{"hyp": h, "score": s} for h, s in call.turns[2].hypotheses]
    assert turns[0]["goals"] == dict.fromkeys(("food", "area", "pricerange", "name"))
    assert turns[-1]["bot"] == " you are welcome" and turns[-1]["template"] == " you are welcome"


def test_every_record_has_the_features_and_nothing_else(tmp_path):
    out = _export(tmp_path / "o", "--kb", "logs")

    def check(value, spec, where):
        if value is None:
            return
        if isinstance(spec, list):
            assert isinstance(value, list), where
            for item in value:
                check(item, spec[0], where)
        elif isinstance(spec, dict):
            assert isinstance(value, dict) and list(value) == list(spec), where
            for key in spec:
                check(value[key], spec[key], f"{where}.{key}")
        else:
            assert isinstance(value, {"string": str, "int64": int, "float64": float}[spec]), where

    for split in ("dev", "tst"):
        for record in _records(out / f"dialog-babi-task6-dstc2-{split}.jsonl"):
            check(record, FEATURES, record["id"])


def _same_as_task6(records: list[dict], dialogs: list[Dialog]) -> None:
    """Turn for turn: each record's exchanges are the task-6 dialog's, and its api_call
    turns' results are the result lines after them."""
    assert len(records) == len(dialogs)
    for record, dialog in zip(records, dialogs):
        assert [(t["user"], t["bot"]) for t in record["turns"]] == [(x.user, x.bot) for x in dialog.exchanges]
        lines = dialog.lines
        for turn in record["turns"]:
            assert lines[turn["line"] - 1] == Exchange(turn["user"], turn["bot"])
            if turn["kind"] == "api_call":
                block = []
                for line in lines[turn["line"]:]:
                    if not isinstance(line, Context):
                        break
                    block.append(line.text)
                facts = [Fact.match(text) for text in block if text != NO_RESULT]
                assert sorted((f.name, f.attribute[2:], f.value) for f in facts) == sorted(
                    (row["name"], field, str(value)) for row in turn["results"]
                    for field, value in row.items() if field != "name" and value is not None)
            else:
                assert turn["results"] is None and turn["api_call"] is None


def _same_in_deeppavlov(dialogs: list[list[dict]], records: list[dict]) -> None:
    """Each record's turns as DeepPavlov lines: a user line then a system line, but for
    the answer to an api_call (no user line: the reader gives it the api_call's user line
    with its db_result); one action per system line."""
    assert len(dialogs) == len(records)
    for lines, record in zip(dialogs, records):
        kinds = [t["kind"] for t in record["turns"]]
        after_call = [False] + [k == "api_call" for k in kinds[:-1]]
        assert [line["speaker"] for line in lines] == [s for a in after_call for s in ([2] if a else [1, 2])]
        users = iter(line for line in lines if line["speaker"] == 1)
        systems = iter(line for line in lines if line["speaker"] == 2)
        for turn, follows_call in zip(record["turns"], after_call):
            if follows_call:
                assert turn["user"] == "<SILENCE>" and turn["user_turn"] is None
            else:
                user = next(users)
                assert set(user) == {"speaker", "text", "dialog_acts", "goals"} and user["text"] == turn["user"]
                assert user["goals"] == {k: v for k, v in turn["goals"].items() if v is not None}
                for act in user["dialog_acts"]:
                    assert set(act) == {"act", "slots"} and all(len(slot) == 2 for slot in act["slots"])
            system = next(systems)
            assert system["text"] == turn["bot"]
            [action] = system["dialog_acts"]
            assert set(action) == {"act", "slots"} and all(len(slot) == 2 for slot in action["slots"])
            if turn["kind"] == "api_call":
                assert action["act"] == "api_call"
                best = max((r["rating"] for r in turn["results"]), default=None)
                assert system["db_result"] == ({} if best is None else {
                    DB_FIELDS[k]: v for k, v in next(r for r in turn["results"] if r["rating"] == best).items()
                    if v is not None})
            else:
                assert "db_result" not in system
                if turn["kind"] == "closing":
                    assert action == {"act": "bye", "slots": []}
                else:
                    assert action == action_of(turn["system_acts"])


def test_the_acts_joined_by_hand():
    acts = [{"act": "offer", "slots": [{"slot": "name", "value": "x"}]},
            {"act": "inform", "slots": [{"slot": "food", "value": "thai"}]},
            {"act": "inform", "slots": [{"slot": "area", "value": "west"}]}]
    assert action_of(acts) == {"act": "inform_area+inform_food+offer_name",
                               "slots": [["name", "x"], ["food", "thai"], ["area", "west"]]}
    assert action_of([{"act": "request", "slots": [{"slot": "slot", "value": "food"}]}])["act"] == "request_food"
    assert action_of([{"act": "select", "slots": [{"slot": "food", "value": "a"}]},
                      {"act": "select", "slots": [{"slot": "food", "value": "b"}]}])["act"] == "select_food"
    assert action_of([{"act": "welcomemsg", "slots": []}]) == {"act": "welcomemsg", "slots": []}


@pytest.mark.parametrize("kb", [[], ["--kb", "logs"]])
def test_the_sample_exports_are_the_task6_files(tmp_path, kb):
    out = _export(tmp_path / "o", *kb)
    for split, short, dp in (("dev", "dev", "val"), ("test", "tst", "tst")):
        records = _records(out / f"dialog-babi-task6-dstc2-{short}.jsonl")
        _same_as_task6(records, read(out / f"dialog-babi-task6-dstc2-{short}.txt"))
        _same_in_deeppavlov(_deeppavlov(out / f"dstc2-{dp}.jsonlist"), records)
        assert [r["id"] for r in records] == [f"{split}-{i}" for i in range(1, len(records) + 1)]


def _what_the_model_gets(path, records: list[dict]) -> None:
    """DeepPavlov's own reader (``official.deeppavlov_reader``) loads the file, and gives
    the model, turn for turn, the task-6 exchanges: the user text (the api_call's again
    after it, with the api_call's db_result: every result reaches the input), the bot
    text and the system's acts joined into one action."""
    dialogs = deeppavlov_reader()._read_from_file(str(path), dialogs=True)
    assert len(dialogs) == len(records)
    calls = given = 0
    for pairs, record in zip(dialogs, records):
        turns = record["turns"]
        assert len(pairs) == len(turns)
        for i, ((x, y), turn) in enumerate(zip(pairs, turns)):
            before = turns[i - 1] if i else None
            follows_call = before is not None and before["kind"] == "api_call"
            assert x["text"] == (before["user"] if follows_call else turn["user"])
            assert x.get("episode_done", False) == (i == 0)
            if follows_call:
                assert x["db_result"] == _db_result_of(before["results"])
                given += 1
            else:
                assert "db_result" not in x
            want = {"api_call": "api_call", "closing": "bye"}.get(turn["kind"])
            assert y == {"text": turn["bot"], "act": want or action_of(turn["system_acts"])["act"]}
            calls += turn["kind"] == "api_call"
    assert given == calls   # no result lost


def _db_result_of(results: list[dict]) -> dict:
    if not results:
        return {}
    best = max(r["rating"] for r in results)
    return {DB_FIELDS[k]: v for k, v in next(r for r in results if r["rating"] == best).items() if v is not None}


@pytest.mark.parametrize("kb", [[], ["--kb", "logs"]])
def test_the_sample_export_loads_with_deeppavlovs_reader(tmp_path, kb):
    out = _export(tmp_path / "o", *kb)
    for short, dp in (("dev", "val"), ("tst", "tst")):
        _what_the_model_gets(out / f"dstc2-{dp}.jsonlist", _records(out / f"dialog-babi-task6-dstc2-{short}.jsonl"))


def test_old_exports_are_removed_with_the_files_they_are_of(tmp_path, capsys):
    out = _export(tmp_path / "o")
    assert run(["build", "--split", "all", "--raw", str(SAMPLE), "--out", str(out), "--seed", "3",
                "--export", "jsonl"]) == 0
    assert f"removing dstc2-trn.jsonlist, dstc2-tst.jsonlist, dstc2-val.jsonlist from {out}" in capsys.readouterr().err
    assert not list(out.glob("*.jsonlist")) and len(list(out.glob("*.jsonl"))) == 3


def test_an_unknown_format_names_the_known_ones(tmp_path, capsys):
    code = run(["build", "--split", "all", "--raw", str(SAMPLE), "--out", str(tmp_path / "o"), "--export", "rasa"])
    assert code == 2
    assert capsys.readouterr().err == "dstc2conv: error: unknown export format 'rasa': choose jsonl, deeppavlov\n"
    assert not (tmp_path / "o").exists()


def test_an_export_of_task6_files_is_refused_in_one_line(tmp_path, capsys):
    assert export_format("jsonl") is EXPORTS["jsonl"]
    built = _export(tmp_path / "o")
    for name in ("jsonl", "deeppavlov"):
        assert run(["export", name, str(built / "dialog-babi-task6-dstc2-tst.txt")]) == 2
        assert capsys.readouterr().err == (
            f"dstc2conv: error: the {name} export needs the raw DSTC2 calls (log.json and label.json) the task-6 "
            f"files are built from, not task-6 files: dstc2conv build --split SPLIT --export {name}\n")


def test_a_dialog_that_does_not_line_up_with_its_call_is_an_error():
    source = read_source(SAMPLE, asr=True)
    kb = read_kb(GOLDEN / "sample-kb.txt")
    lexicon = make_lexicon(Dstc2Ontology.from_json(source.ontology), kb)
    call = source.calls[SECOND]
    dialog = convert_call(call, kb, lexicon, random.Random(0))
    lines = list(dialog.lines)
    del lines[2]   # a line of the dialog lost
    # line 3 is now line 2's successor, the api_call: it answers user turn 3, not 2
    with pytest.raises(Dstc2ConvError, match=rf"^{SECOND}: line 3 of the task-6 dialog does not line up with "
                                             "the call's turns: the api_call's user text is not that of turn 2"):
        dialog_record(call, Dialog(tuple(lines)), "test", 1, lexicon)
    with pytest.raises(Dstc2ConvError, match="lines are left after the closing exchange"):
        dialog_record(call, Dialog(dialog.lines + (Exchange("more", "text"),)), "test", 1, lexicon)


# ---------------------------------------------------------------- train and dev

@pytest.fixture(scope="module")
def traindev_export(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "o"
    build(BuildOptions(split="all", raw=(str(need(TRAINDEV)),), out=str(out), exports=("jsonl", "deeppavlov")))
    return out


def _hf_datasets():
    # an optional library, not data: skipped without it, whatever DSTC2CONV_REQUIRE_DATA says
    # (CI installs the hf extra, so there it runs)
    return pytest.importorskip("datasets", reason="pip install -e '.[hf]' for the Hugging Face datasets test")


def test_the_traindev_export_loads_with_datasets_turn_for_turn(traindev_export, tmp_path):
    datasets = _hf_datasets()
    from dstc2conv.exports.records import hf_features

    out = traindev_export
    loaded = datasets.load_dataset("json", cache_dir=str(tmp_path / "cache"), data_files={
        "train": str(out / "dialog-babi-task6-dstc2-trn.jsonl"), "dev": str(out / "dialog-babi-task6-dstc2-dev.jsonl")})
    assert (loaded["train"].num_rows, loaded["dev"].num_rows) == (1618, 500)
    assert loaded["train"].features == loaded["dev"].features == hf_features()
    for split, short in (("train", "trn"), ("dev", "dev")):
        dialogs = read(out / f"dialog-babi-task6-dstc2-{short}.txt")
        records = loaded[split].to_list()
        _same_as_task6(records, dialogs)
        manifest = json.loads((out / "manifest.json").read_text())
        assert [r["session"] for r in records] == manifest["files"][f"dialog-babi-task6-dstc2-{short}.txt"]["dialogs"]
    first = loaded["dev"][0]
    assert first["id"] == "dev-1" and first["system"] in ("S0", "S1") and first["recogniser"] in ("A0", "A1")
    assert first["turns"][1]["asr"] and first["turns"][1]["transcription"] is not None


def test_the_traindev_deeppavlov_export_reads_back(traindev_export):
    out = traindev_export
    for short, dp in (("trn", "trn"), ("dev", "val")):
        records = _records(out / f"dialog-babi-task6-dstc2-{short}.jsonl")
        _same_in_deeppavlov(_deeppavlov(out / f"dstc2-{dp}.jsonlist"), records)


def test_the_traindev_deeppavlov_export_loads_with_deeppavlovs_reader(traindev_export):
    out = traindev_export
    for short, dp in (("trn", "trn"), ("dev", "val")):
        _what_the_model_gets(out / f"dstc2-{dp}.jsonlist", _records(out / f"dialog-babi-task6-dstc2-{short}.jsonl"))


def test_the_docs_name_every_field_of_the_records():
    from conftest import ROOT

    page = (ROOT / "docs" / "exports.md").read_text()
    turn = FEATURES["turns"][0]
    for name in [*FEATURES, *turn]:
        assert f"`{name}`" in page, name
