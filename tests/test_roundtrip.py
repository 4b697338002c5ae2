"""Whatever a writer accepts, the reader reads back equal; whatever build writes, the
readers accept: property tests over the characters that can appear in a text (control,
format and separator characters, surrogates, the byte-order mark, line and paragraph
separators, NEL, tabs, CR), for the one rule they share (``dstc2conv.task6.text``)."""
from __future__ import annotations

import json
import random
import shutil
import unicodedata

import pytest
from conftest import SAMPLE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dstc2conv
from dstc2conv.cli import run
from dstc2conv.convert.dialogs import convert_call
from dstc2conv.convert.kb import KB, Restaurant, kb_from_acts
from dstc2conv.convert.lexicon import make_lexicon
from dstc2conv.dstc2.calls import Act, Call, CallTurn
from dstc2conv.dstc2.ontology import Dstc2Ontology
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.task6 import format as task6
from dstc2conv.task6.candidates import format_candidates, read_candidates
from dstc2conv.task6.text import clean, problem

# The characters that make trouble, and some that do not, to draw from besides any.
HOSTILE = ("\t\n\r\v\f\x00\x07\x1b\x1c\x1d\x1e\x1f\x7f\x85\x9f\xa0\xad\u1680\u180e\u2000\u200b\u200c\u200d"
           "\u200e\u202e\u2028\u2029\u2060\u3000\ufeff\ufffe\ud800\udfff\U000e0001 e\u0301\u00e9a1_R")
TEXT = st.text(st.one_of(st.sampled_from(HOSTILE), st.characters()), max_size=12)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _fact(name: str, value: str) -> str:
    return f"{name} R_cuisine {value}"


LINE = st.one_of(
    st.builds(task6.Exchange, TEXT, TEXT),
    st.builds(task6.Context, st.just(task6.NO_RESULT)),
    st.builds(task6.Context, st.builds(_fact, TEXT, TEXT)),
)
DIALOGS = st.lists(st.builds(task6.Dialog, st.lists(LINE, min_size=1, max_size=4).map(tuple)), max_size=3)


@SETTINGS
@given(DIALOGS)
def test_what_write_accepts_read_gives_back_and_what_it_refuses_read_refuses(tmp_path, dialogs):
    path = tmp_path / "out.txt"
    try:
        dstc2conv.write(dialogs, path)
    except Dstc2ConvError as refused:
        assert not path.exists()
        # what write refuses would not read back equal: read refuses it (for a character
        # the shared rule forbids, with the same words) or reads other lines
        text = task6.serialize(dialogs)
        try:
            read = task6.parse(text)
        except Dstc2ConvError as read_error:
            if not any(other in str(refused) for other in ("a tab", "neither a result fact", "a line feed",
                                                          "a carriage return")):   # these change the lines
                assert str(refused).endswith(read_error.message)
        else:
            assert [d.lines for d in read] != [d.lines for d in dialogs], refused
        return
    back = dstc2conv.read(path)
    assert [d.lines for d in back] == [d.lines for d in dialogs]
    path.unlink()


@SETTINGS
@given(TEXT)
def test_problem_is_none_exactly_for_text_an_exchange_reads_back(text):
    dialog = task6.Dialog((task6.Exchange(text, "ok"), task6.Exchange("ok", text)))
    serialized = task6.serialize([dialog])
    if problem(text) is None:
        assert task6.parse(serialized) == [task6.Dialog(dialog.lines, 1)]
    else:
        with pytest.raises(Dstc2ConvError):
            task6.parse(serialized)


@SETTINGS
@given(TEXT)
def test_clean_gives_text_every_reader_takes_and_is_stable(text):
    cleaned = clean(text)
    assert problem(cleaned) is None
    assert clean(cleaned) == cleaned
    assert unicodedata.is_normalized("NFC", cleaned)
    assert cleaned == " ".join(cleaned.split())          # one space between words
    assert not any(unicodedata.category(c) in ("Cc", "Cf", "Cs") for c in cleaned)


@SETTINGS
@given(st.lists(TEXT, min_size=1, max_size=6))
def test_what_the_candidates_writer_writes_the_reader_reads_back(tmp_path, utterances):
    path = tmp_path / "candidates.txt"
    try:
        text = format_candidates(utterances)
    except Dstc2ConvError as refused:
        assert any(problem(u) is not None for u in utterances), refused
        return
    path.write_bytes(text.encode("utf-8"))
    seen: dict[str, str] = {}
    for utterance in sorted(set(utterances)):
        seen.setdefault(utterance.strip(), utterance)
    assert read_candidates(str(path)) == tuple(seen.values())


def _call(system: str, user: str, heard: str, name: str) -> Call:
    offer = (Act("offer", (("name", name),)), Act("inform", (("food", "thai"),)))
    goals = (("food", "thai"),)
    turns = (CallTurn("Hello , welcome . How may I help you?", (Act("welcomemsg", ()),), user, (), goals,
                      "byconstraints", (), heard),
             CallTurn(system, offer, user, (), goals, "byconstraints", (), heard),
             CallTurn(f"{name} serves thai food", offer, "thank you bye", (), goals, "finished", (), heard))
    return Call("Mar13_S9A0/voip-x", "test", turns)


@SETTINGS
@given(TEXT, TEXT, TEXT, TEXT, st.booleans())
def test_what_the_converter_writes_the_readers_take(system, user, heard, name, asr):
    names = ("blue door", name)
    ontology = Dstc2Ontology(("thai",), ("north",), ("cheap",), names)
    kb = kb_from_acts(names, [(n, "food", "thai") for n in names])
    dialog = convert_call(_call(system, user, heard, name), kb, make_lexicon(ontology, kb), random.Random(0),
                          asr=asr)
    text = task6.serialize([dialog])
    assert [d.lines for d in task6.parse(text)] == [dialog.lines]
    bots = [line.bot for line in dialog.lines if isinstance(line, task6.Exchange)]
    assert problem(format_candidates(bots).replace("\n", "")) is None


def test_a_kb_file_name_the_reader_would_refuse_is_named(tmp_path):
    from dstc2conv.convert.kb import read_kb

    path = tmp_path / "kb.txt"
    path.write_text("1 blue_door R_cuisine thai\n1 red\ufeffdoor R_cuisine thai\n")
    with pytest.raises(Dstc2ConvError) as caught:
        read_kb(path)
    assert (caught.value.line, caught.value.message) == (2, "a byte-order mark that is not at the start of the file")
    assert KB((Restaurant("x", ()),), "t")   # (the KB type itself takes any name: the file reader checks)


# ---------------------------------------------------------------- build, end to end

HOSTILE_TEXTS = {
    "transcription": "i want \ufeffcheap\u200b food\x07 in the\u2028north\x85please",
    "transcript": "What kind of\ufefffood\u00a0would you like\u2029?\x0b",
    "asr-hyp": "\ufeffthai\u202e food\r\nnow\x1c",
}


def _hostile_sample(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    for label in sorted(raw.glob("data/*/*/label.json")):
        data = json.loads(label.read_text())
        for turn in data["turns"]:
            turn["transcription"] += " " + HOSTILE_TEXTS["transcription"]
        label.write_text(json.dumps(data))
        log_path = label.with_name("log.json")
        log = json.loads(log_path.read_text())
        for turn in log["turns"]:
            turn["output"]["transcript"] += " " + HOSTILE_TEXTS["transcript"]
            for hyp in turn["input"]["live"]["asr-hyps"]:
                hyp["asr-hyp"] = HOSTILE_TEXTS["asr-hyp"] + " " + hyp["asr-hyp"]
        log_path.write_text(json.dumps(log))
    first = sorted(raw.glob("data/*/*"))[0]
    first.rename(first.with_name(first.name + "\n\u2028\ufeffx"))   # a session folder name with line breaks
    return raw


@pytest.mark.parametrize("user", ["transcription", "asr"])
def test_build_of_hostile_texts_writes_files_every_reader_takes(tmp_path, capsys, user):
    raw = _hostile_sample(tmp_path)
    out = tmp_path / "out"
    assert run(["build", "--split", "all", "--partition", "random", "--raw", str(raw), "--out", str(out),
                "--user", user, "--export", "jsonl", "--export", "deeppavlov", "--quiet"]) == 0
    files = sorted(out.glob("dialog-babi-task6-dstc2-???.txt"))
    assert len(files) == 3
    for path in files:
        dialogs = dstc2conv.read(path)
        text = path.read_text(encoding="utf-8")
        assert "\ufeff" not in text and "\u200b" not in text and "\x85" not in text
        assert task6.serialize(dialogs) == text
        turns = dstc2conv.turns(path)
        preds = tmp_path / "preds.txt"
        preds.write_text("".join(t.gold + "\n" for t in turns), encoding="utf-8")
        capsys.readouterr()
        assert run(["score", str(preds), str(path), "--metrics", "accuracy"]) == 0
        assert "100.00%" in capsys.readouterr().out
        assert run(["stats", str(path)]) == 0
    candidates = read_candidates(str(out / "dialog-babi-task6-dstc2-candidates.txt"))
    assert any("food would you like" in c for c in candidates)
    # the exports keep the raw texts, as JSON lines that every way of cutting lines cuts alike
    for path in [*out.glob("*.jsonl"), *out.glob("*.jsonlist")]:
        text = path.read_text(encoding="utf-8")
        assert text.splitlines() == text.split("\n")[:-1]
        records = [json.loads(line) for line in text.splitlines() if line]
        assert records
    raw_texts = {t["transcription"] for path in out.glob("*.jsonl") for line in path.read_text().splitlines()
                 for t in json.loads(line)["turns"] if t["transcription"]}
    assert any(HOSTILE_TEXTS["transcription"] in t for t in raw_texts)
    sessions = {json.loads(line)["session"] for path in out.glob("*.jsonl") for line in path.read_text().splitlines()}
    assert any("\n\u2028\ufeffx" in session for session in sessions)


# ---------------------------------------------------------------- Unicode normalisation in scoring

def test_score_counts_an_nfd_prediction_of_an_nfc_gold_wrong_and_says_so(tmp_path, capsys):
    ref, preds = tmp_path / "ref.txt", tmp_path / "preds.txt"
    ref.write_text("1 hi\tcaf\u00e9 ok\n2 bye\tyou are welcome\n\n", encoding="utf-8")
    preds.write_text(unicodedata.normalize("NFD", "caf\u00e9 ok") + "\nyou are welcome\n", encoding="utf-8")
    assert run(["score", str(preds), str(ref), "--metrics", "accuracy"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("per-response accuracy  50.00%  (1/2)\n")
    assert err == (f"dstc2conv: {preds}: predictions wrong only by their Unicode normalisation: 1 (each equals its "
                   "gold once both are in NFC; the match compares code points, as the reference scorers do: give "
                   "predictions in NFC, as task-6 files are)\n")
    preds.write_text("caf\u00e9 ok\nyou are welcome\n", encoding="utf-8")
    assert run(["score", str(preds), str(ref), "--metrics", "accuracy"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("per-response accuracy  100.00%  (2/2)\n") and err == ""


# ---------------------------------------------------------------- the limits that bound memory

def test_a_line_longer_than_the_limit_is_refused_by_read_write_and_score(tmp_path, monkeypatch, capsys):
    from dstc2conv.evaluate import responses

    monkeypatch.setattr(task6, "MAX_LINE", 12)
    monkeypatch.setattr(responses, "MAX_LINE", 12)
    message = "a line of 13 characters, more than the 12 a task-6 line may have"
    assert task6.parse("1 hello\tther\n")                  # 12 characters: the limit
    with pytest.raises(Dstc2ConvError) as caught:
        task6.parse("1 hi\tok\n2 hello\tthere\n")
    assert (caught.value.line, caught.value.message) == (2, message)
    out = tmp_path / "out.txt"
    with pytest.raises(Dstc2ConvError) as caught:
        dstc2conv.write([task6.Dialog((task6.Exchange("hi", "ok"), task6.Exchange("hello", "there")))], out)
    assert str(caught.value) == f"{out}:2: dialog 1: {message}"
    assert not out.exists()
    ref, preds = tmp_path / "ref.txt", tmp_path / "preds.txt"
    ref.write_text("1 hi\tok\n\n")
    preds.write_text("a" * 13 + "\n")
    assert run(["score", str(preds), str(ref)]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {preds}:1: a line of 13 characters, more than the 12 "
                                       "a prediction may have\n")


def test_stats_refuses_a_vocabulary_past_the_limit(tmp_path, monkeypatch, capsys):
    from dstc2conv.task6 import stats

    monkeypatch.setattr(stats, "MAX_VOCABULARY", 3)
    path = tmp_path / "t.txt"
    path.write_text("1 a\tb\n\n1 a\tc\n\n1 d\te\n\n1 a\tb\n")
    assert run(["stats", str(path)]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {path}:7: more than 3 distinct tokens, more than stats "
                                       "counts in a task-6 file\n")
    path.write_text("1 a\tb\n\n1 a\tc\n")
    assert run(["stats", str(path)]) == 0


def test_build_refuses_a_call_whose_line_would_be_too_long(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(task6, "MAX_LINE", 60)
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw)
    out = tmp_path / "out"
    assert run(["build", "--split", "all", "--partition", "random", "--raw", str(raw), "--out", str(out),
                "--jobs", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dstc2conv: error: ") and "cannot convert call 'Mar13_S9A" in err
    assert err.rstrip().endswith("characters, more than the 60 a task-6 line may have") and err.count("\n") == 1
    assert not out.exists() or not any(out.glob("*.txt"))


def test_a_call_folder_named_with_a_line_separator_is_read_by_its_whole_name(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    old, new = "Mar13_S9A1/voip-sample00004-20260101_130000", "Mar13_S9A1/voip-sample\u2028x\x85y"
    (raw / "data" / old).rename(raw / "data" / new)
    for flist in (raw / "scripts" / "config").glob("*.flist"):
        flist.write_text(flist.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    assert run(["build", "--split", "all", "--partition", "dstc2", "--raw", str(raw), "--out", str(tmp_path / "o"),
                "--quiet"]) == 0
    assert len(dstc2conv.read(tmp_path / "o" / "dialog-babi-task6-dstc2-tst.txt")) == 3
    assert new in json.dumps(json.loads((tmp_path / "o" / "manifest.json").read_text(encoding="utf-8")), ensure_ascii=False)
