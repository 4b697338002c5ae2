"""bAbI tasks 1-5 files and the published files' quirks: a last line without its line
end, the KB's tab before the value, the candidates and KB files as published."""
from __future__ import annotations

import json
import shutil

import pytest
from conftest import ONTOLOGY, SHARED, TWO_ASKS_RULES, need, write_rule_files

from dstc2conv.cli import run
from dstc2conv.convert.kb import read_kb
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.evaluate.entities import read_entity_kb
from dstc2conv.evaluate.published import REPORTED, ROWS, SOURCE, published, reported, row_of, source
from dstc2conv.files import sha256_file
from dstc2conv.systems.cli import lines
from dstc2conv.systems.memn2n.match import kb_entities
from dstc2conv.systems.table2 import DataFile, comparable, table2
from dstc2conv.task6.candidates import read_candidates
from dstc2conv.task6.turns import read_turns

BABI = SHARED / "reference" / "babi"

# a tiny task-1 style dialog and a task-4 style one (facts first), written here
TASK1 = """\
1 hi\thello what can i help you with today
2 can you book a table in paris\ti'm on it
3 <SILENCE>\tany preference on a type of cuisine
4 i love thai food\thow many people would be in your party
5 we will be two\twhich price range are looking for
6 in a cheap price range please\tok let me look into some options for you
7 <SILENCE>\tapi_call thai paris two cheap

1 hello\thello what can i help you with today
2 may i have a table with thai food in paris for two in a cheap price range\ti'm on it
3 <SILENCE>\tok let me look into some options for you
4 <SILENCE>\tapi_call thai paris two cheap
"""
TASK4 = """\
1 resto_paris_cheap_thai_2stars R_phone resto_paris_cheap_thai_2stars_phone
2 resto_paris_cheap_thai_2stars R_cuisine thai
3 resto_paris_cheap_thai_2stars R_number two
4 hi\thello what can i help you with today
5 can you book a table at resto_paris_cheap_thai_2stars\tgreat let me do the reservation
6 do you have its phone number\there it is resto_paris_cheap_thai_2stars_phone
"""
WARNING = "the last line has no line end; read as a whole line (a file cut short there could not be told from it)"


def _unended(folder, name: str, text: str):
    """``text`` written as ``"\\n".join(lines)`` writes it: no line end after the last line."""
    path = folder / name
    path.write_text(text.rstrip("\n"))
    return path


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "line end" in r.getMessage()]


@pytest.mark.parametrize("text", [TASK1, TASK4])
def test_stats_reads_a_file_without_its_last_line_end_with_one_warning(tmp_path, capsys, caplog, text):
    (tmp_path / "ended").mkdir()
    (tmp_path / "unended").mkdir()
    (tmp_path / "ended" / "d.txt").write_text(text)
    path = _unended(tmp_path / "unended", "d.txt", text)
    assert run(["stats", "--json", str(tmp_path / "ended" / "d.txt")]) == 0
    ended = capsys.readouterr().out
    assert run(["stats", "--json", str(path)]) == 0
    assert capsys.readouterr().out == ended.replace("/ended/", "/unended/")
    assert _warnings(caplog) == [f"warning: {path}:{text.rstrip().count(chr(10)) + 1}: {WARNING}"]


def test_rules_score_and_training_read_a_file_without_its_last_line_end(tmp_path, capsys, caplog):
    rules, _ = write_rule_files(tmp_path, TWO_ASKS_RULES, ONTOLOGY, TASK1)
    data = _unended(tmp_path, "unended.txt", TASK1)
    assert run(["rules", "score", "--rules", rules, "--data", str(data), "--no-history"]) == 0
    assert "per-response accuracy" in capsys.readouterr().out
    assert _warnings(caplog) == [f"warning: {data}:12: {WARNING}"]
    assert run(["train", "--system", "tfidf", "--train", str(data), "--dev", str(data), "--model",
                str(tmp_path / "model")]) == 0
    assert (tmp_path / "model").is_dir()


def test_an_invalid_last_line_without_its_line_end_is_refused(tmp_path, capsys):
    rules, _ = write_rule_files(tmp_path, TWO_ASKS_RULES, ONTOLOGY, TASK1)
    cut = TASK1.rstrip("\n")
    data = tmp_path / "cut.txt"
    data.write_text(cut[:cut.rindex("\t")])          # cut mid-line, before the tab: no whole line
    for argv in (["stats", str(data)], ["rules", "score", "--rules", rules, "--data", str(data), "--no-history"]):
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"dstc2conv: error: {data}:12: the last line has no line "
                                                       "end and is not a whole line ("), err
        assert err.rstrip().endswith("so the file may be cut short")


def test_the_published_candidates_and_kb_files_read_with_and_without_their_last_line_end(tmp_path):
    candidates, kb = need(BABI / "dialog-babi-candidates.txt"), need(BABI / "dialog-babi-kb-all.txt")
    assert not candidates.read_bytes().endswith(b"\n") and not kb.read_bytes().endswith(b"\n")
    ended_candidates, ended_kb = tmp_path / candidates.name, tmp_path / kb.name
    ended_candidates.write_bytes(candidates.read_bytes() + b"\n")
    ended_kb.write_bytes(kb.read_bytes() + b"\n")
    assert read_candidates(str(candidates)) == read_candidates(str(ended_candidates))
    assert len(read_candidates(str(candidates))) == 4212
    assert read_kb(kb).restaurants == read_kb(ended_kb).restaurants
    assert len(read_kb(kb).restaurants) == 1200
    assert read_entity_kb(str(kb)).slots == read_entity_kb(str(ended_kb)).slots
    assert kb_entities(str(kb)) == kb_entities(str(ended_kb))


def test_the_kb_readers_take_babi_lines_and_task6_lines(tmp_path):
    babi = tmp_path / "babi-kb.txt"
    babi.write_text("1 resto_paris_cheap_thai_2stars R_cuisine\tthai\n"
                    "1 resto_paris_cheap_thai_2stars R_location\tparis\n"
                    "1 resto_paris_cheap_thai_2stars R_price\tcheap\n"
                    "1 resto_paris_cheap_thai_2stars R_rating\t2\n"
                    "1 resto_paris_cheap_thai_2stars R_phone\tresto_paris_cheap_thai_2stars_phone\n"
                    "1 resto_paris_cheap_thai_2stars R_address\tresto_paris_cheap_thai_2stars_address\n"
                    "1 resto_paris_cheap_thai_2stars R_number\ttwo")
    task6 = tmp_path / "task6-kb.txt"
    task6.write_text(babi.read_text().replace("\t", " ").replace("R_number two", "R_post_code x_post_code") + "\n")
    restaurant = read_kb(babi).restaurants[0]
    assert restaurant.get("R_cuisine") == "thai" and restaurant.get("R_price") == "cheap"
    assert restaurant.get("R_number") is None               # the party size is read and left out, as the rating
    assert "two" not in read_entity_kb(str(babi)).slots
    found = kb_entities(str(babi))
    # MemN2N's match types: the paper's seven for the bAbI tasks, party size (R_number) among them
    assert found["thai"] == ("R_cuisine",) and found["2"] == ("R_rating",) and found["two"] == ("R_number",)
    assert kb_entities(str(task6))["x_post_code"] == ("R_post_code",)
    shutil.copy(babi, tmp_path / "bad.txt")
    (tmp_path / "bad.txt").write_text("1 resto R_cuisine\tthai\n1 resto R_unknown\tx\n")
    with pytest.raises(Exception, match=r"bad.txt:2: R_unknown is no type of the match features"):
        kb_entities(str(tmp_path / "bad.txt"))


# ---------------------------------------------------------------- the published files and the paper's rows


def test_a_file_named_as_a_published_babi_file_gives_its_row_by_name(tmp_path, capsys):
    assert ROWS == ("T1", "T2", "T3", "T4", "T5", "T1-OOV", "T2-OOV", "T3-OOV", "T4-OOV", "T5-OOV", "T6")
    for name, row in (("dialog-babi-task1-API-calls-trn.txt", "T1"), ("dialog-babi-task1-API-calls-tst-OOV.txt",
                                                                       "T1-OOV"),
                      ("dialog-babi-task4-phone-address-tst.txt", "T4"), ("dialog-babi-task6-dstc2-dev.txt", "T6"),
                      ("dialog-babi-kb-all.txt", None), ("dialog-babi-candidates.txt", None), ("task1.txt", None)):
        path = tmp_path / name
        path.write_text(TASK1)
        assert row_of(str(path), sha256_file(str(path))) == row, name
        assert published(sha256_file(str(path))) is None
    assert reported("T1-OOV")[5] == ("MemN2N + match type", 96.5, 82.7)
    assert reported("T6") == REPORTED and source("T6") == SOURCE
    assert source("T3-OOV") == "Bordes & Weston 2017, Table 2, T3-OOV, on the OOV test file"
    with pytest.raises(Dstc2ConvError, match="no row 'T7'"):
        reported("T7")
    # the paper column of table2, for a tiny file named as T1's dev file: T1's, said to be known by name
    dev = tmp_path / "dialog-babi-task1-API-calls-dev.txt"
    trn = tmp_path / "trn.txt"
    trn.write_text(TASK1)
    dev.write_text(TASK1.replace("thai", "indian"))
    assert run(["table2", "--train", str(trn), "--dev", str(dev), "--test", str(dev), "--systems", "tfidf",
                "--quiet", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["paper"] == "Bordes & Weston 2017, Table 2, T1, on the test file"
    assert got["systems"]["tfidf"]["paper"] == {"per_response": 0.056, "per_dialog": 0.0}
    assert got["note"] == ("TST is no published file, recognised by its name only as one of row T1: its figures "
                           "compare only with figures on the same file; the paper column is row T1's (recognised "
                           "by the file name)")


def test_the_published_babi_files_are_known_by_their_sha256():
    sums = need(BABI / "SHA256SUMS").read_text().split("\n")
    listed = dict(reversed(line.split("  ")) for line in sums if line)
    assert len(listed) == 22
    for name, sha in listed.items():
        split = ("KB" if "kb" in name else "candidates" if "candidates" in name else "test-OOV" if "OOV" in name
                 else {"trn": "train", "dev": "dev", "tst": "test"}[name[-7:-4]])
        assert published(sha) == (name, split)
    for path in sorted(BABI.glob("dialog-babi-task*-trn.txt")):
        task = path.name[len("dialog-babi-task")]
        assert published(sha256_file(str(path))) == (path.name, "train")
        assert row_of("renamed.txt", sha256_file(str(path))) == f"T{task}"    # by its SHA-256, whatever its name
    assert published(sha256_file(str(BABI / "dialog-babi-kb-all.txt"))) == ("dialog-babi-kb-all.txt", "KB")


def test_score_json_gives_the_papers_figures_on_the_files_row(tmp_path, capsys):
    dev = need(BABI / "dialog-babi-task1-API-calls-dev.txt")
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(t.gold + "\n" for t in read_turns(dev)))
    assert run(["score", str(preds), str(dev), "--json", "--metrics", "accuracy"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["published"] == dev.name and got["reported"]["row"] == "T1"
    assert got["reported"]["source"] == "Bordes & Weston 2017, Table 2, T1, on the test file"
    assert {"system": "TF-IDF Match", "per_response": 5.6, "per_dialog": 0.0} in got["reported"]["systems"]
    assert run(["score", str(preds), str(dev), "--metrics", "accuracy"]) == 0
    out = capsys.readouterr().out
    assert "reported figures (Bordes & Weston 2017, Table 2, T1, on the test file; not computed here)" in out


def test_table2_on_task1_shows_task1s_figures():
    trn, dev = need(BABI / "dialog-babi-task1-API-calls-trn.txt"), need(BABI / "dialog-babi-task1-API-calls-dev.txt")
    result = table2(str(trn), str(dev), str(dev), systems=["tfidf"])
    assert result.row == "T1" and result.rows[0].paper == (5.6, 0)
    assert result.to_dict()["paper"] == "Bordes & Weston 2017, Table 2, T1, on the test file"
    assert result.note == ("TST is the published dev file (dialog-babi-task1-API-calls-dev.txt), not the test file: "
                           "the paper's figures are on the test file; compare with figures on this file only; the "
                           "paper column is row T1's")
    text = "\n".join(lines(result))
    assert "(paper: per response / per dialog, Bordes & Weston 2017, Table 2, T1, on the test file)" in text
    assert "5.6% / 0.0%" in text and "1.6%" not in text


def test_what_figures_on_a_babi_test_file_compare_with():
    def data(name, split, sha="0" * 64):
        return DataFile(name, sha, 1, name, split)
    trn = data("dialog-babi-task1-API-calls-trn.txt", "train")
    dev = data("dialog-babi-task1-API-calls-dev.txt", "dev")
    oov = data("dialog-babi-task1-API-calls-tst-OOV.txt", "test-OOV")
    candidates = "956f7db35b0e735a06709668e775a27e61cd5dff5c94cad28f50ecaa32e036d8"
    assert comparable(trn, dev, oov, candidates) == (
        "TST is the published OOV test file (dialog-babi-task1-API-calls-tst-OOV.txt), TRN and DEV the published "
        "ones, the candidates the paper's set: comparable with the paper's row T1-OOV")
    other = data("dialog-babi-task2-API-refine-trn.txt", "train")
    assert comparable(other, dev, oov, None) == (
        "TST is the published OOV test file (dialog-babi-task1-API-calls-tst-OOV.txt), but TRN is not the published "
        "train file of T1; the candidates are not the published candidates file of tasks 1-5 (the paper's set): the "
        "paper's figures are a guide, not a like-for-like comparison; the paper column is row T1-OOV's")


# ---------------------------------------------------------------- stats: Table 1's columns for tasks 1-5


def test_stats_gives_the_total_per_dialog_for_a_file_of_tasks_1_to_5(tmp_path, capsys):
    babi, other = tmp_path / "dialog-babi-task4-phone-address-dev.txt", tmp_path / "mine.txt"
    babi.write_text(TASK4 + "\n")
    other.write_text(TASK4 + "\n")
    assert run(["stats", str(other)]) == 0
    assert not any(line.startswith("utterances") for line in capsys.readouterr().out.splitlines())   # as ever
    assert run(["stats", str(babi), str(other)]) == 0
    out = capsys.readouterr().out.splitlines()
    # 3 user utterances + 3 bot + 3 facts (API outputs), in 1 dialog: both columns give it
    assert [line.split()[-2:] for line in out if line.startswith(("user utt", "bot utt", "API", "utterances"))] == [
        ["3.00", "3.00"], ["3.00", "3.00"], ["3.00", "3.00"], ["9.00", "9.00"]]
    assert run(["stats", "--json", str(babi)]) == 0
    got = json.loads(capsys.readouterr().out)[0]
    assert got["row"] == "T4" and got["utterances_per_dialog"] == 9.0 and got["api_outputs"] == 3


def test_stats_on_the_published_train_files_gives_the_measured_table_1():
    from dstc2conv.task6.stats import file_stats

    measured = {1: (4.02, 6.02, 0.0, 10.05), 2: (6.50, 9.50, 0.0, 16.00), 3: (6.42, 9.86, 23.36, 39.63),
                4: (3.51, 3.51, 7.00, 14.01), 5: (12.94, 18.34, 23.62, 54.90)}   # the notes' Table 1, measured
    for task, figures in measured.items():
        path = need(next(BABI.glob(f"dialog-babi-task{task}-*-trn.txt")))
        found = file_stats(path)
        assert (round(found.user_per_dialog, 2), round(found.bot_per_dialog, 2),
                round(found.api_outputs_per_dialog, 2), round(found.utterances_per_dialog, 2)) == figures


def test_a_published_oov_test_file_is_never_trained_on(tmp_path, monkeypatch, capsys):
    from dstc2conv.systems import mistakes

    path = tmp_path / "renamed.txt"
    path.write_text(TASK1)
    assert not mistakes.is_test_file(str(path))
    sha = sha256_file(str(path))
    monkeypatch.setattr(mistakes, "published", lambda found: ("dialog-babi-task1-API-calls-tst-OOV.txt", "test-OOV")
                        if found == sha else None)
    assert mistakes.is_test_file(str(path))
    assert run(["train", "--system", "tfidf", "--train", str(path), "--dev", str(path), "--model",
                str(tmp_path / "model")]) == 2
    assert "the test file given as the training file" in capsys.readouterr().err
