"""``dstc2conv stats``: the paper's Table 1 for task-6 files; rating consistency."""
from __future__ import annotations

import json

from conftest import REFERENCE, need

from dstc2conv.cli import run
from dstc2conv.task6.format import parse
from dstc2conv.task6.stats import file_stats, format_stats, rating_consistency

TEXT = (
    "1 <SILENCE>\tHello , how may I help you ?\n"
    "2 cheap noodles\tapi_call noodles R_location cheap\n"
    "3 blue_door R_cuisine noodles\n"
    "4 blue_door R_rating 4\n"
    "5 <SILENCE>\tblue_door is a nice place\n"
    "6 bye\t you are welcome\n"
    "\n"
    "1 <SILENCE>\tHello , how may I help you ?\n"
    "2 tapas\tapi_call tapas R_location R_price\n"
    "3 api_call no result\n"
    "4 <SILENCE>\tSorry there is no tapas place\n"
    "\n"
)


def test_counts(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text(TEXT)
    s = file_stats(path)
    assert (s.dialogs, s.user_utterances, s.silent_user_turns) == (2, 3, 4)
    assert (s.bot_utterances, s.api_outputs) == (7, 3)
    assert s.candidate_set_size == 6
    words = set(" ".join(line.split(" ", 1)[1] for line in TEXT.splitlines() if line).split())
    assert s.vocabulary_size == len(words)
    assert s.to_dict()["user_utterances_per_dialog"] == 1.5
    assert s.to_dict()["api_outputs_per_dialog"] == 1.5


def test_cli(tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT)
    b.write_text(TEXT.split("\n\n")[0] + "\n\n")
    assert run(["stats", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["a.txt", "b.txt"]
    assert out[1].split() == ["dialogs", "2", "1"]
    assert any(line.split()[-2:] == ["3.50", "4.00"] for line in out if line.startswith("bot utterances"))
    assert len({len(line) for line in out[1:]}) == 1  # aligned columns
    assert run(["stats", str(a), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["dialogs"] == 2 and data[0]["candidate_set_size"] == 6


def test_malformed_file(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("1 hello\thi\nhello\n")
    assert run(["stats", str(bad)]) == 2
    assert f"{bad}:2:" in capsys.readouterr().err


def test_published_files():
    trn = need(REFERENCE / "dialog-babi-task6-dstc2-trn.txt")
    dev = need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt")
    rows = [file_stats(trn), file_stats(dev)]
    assert [r.dialogs for r in rows] == [1618, 500]
    assert round(rows[0].user_per_dialog, 1) == 6.5  # as in the paper's Table 1
    assert "candidate set size" in format_stats(rows)


RATED = (
    "1 z_bar R_rating 9\n"                       # before any api_call: not a result
    "2 <SILENCE>\tHello , how may I help you ?\n"
    "3 cheap\tapi_call R_cuisine R_location cheap\n"
    "4 a_cafe R_cuisine thai\n"
    "5 a_cafe R_rating 3\n"
    "6 b_inn R_cuisine thai\n"
    "7 b_inn R_rating 7\n"
    "8 c_pub R_rating 5\n"
    "9 <SILENCE>\tb_inn is a nice place\n"         # 7 of 3, 7, 5: highest
    "10 no\ta_cafe is a nice place\n"             # 3 of 3, 5: not
    "11 no\tc_pub is a nice place , or b_inn\n"   # 5 of 5: highest (b_inn offered already)
    "12 thanks\tyou are welcome\n"
    "13 z_bar R_rating 1\n"                      # after a turn that is no api_call: not a result
    "\n"
    "1 thai\tapi_call thai north cheap\n"
    "2 d_bar R_rating 1\n"
    "3 e_inn R_cuisine thai\n"                   # no rating
    "4 <SILENCE>\te_inn is great\n"               # unrated: not counted
    "5 ok\td_bar then , not e_inn\n"              # 1 of 1: highest
    "6 and thai\tapi_call thai R_location cheap\n"
    "7 api_call no result\n"
    "8 <SILENCE>\td_bar again\n"                  # not in the latest results: no offer
    "\n"
)


def test_rating_consistency():
    assert rating_consistency(parse(RATED)) == (3, 4)
    assert rating_consistency(parse(TEXT)) == (1, 1)
    assert rating_consistency([]) == (0, 0)


def test_a_kb_file_is_refused_naming_its_first_fact(tmp_path, capsys):
    babi_kb = tmp_path / "kb-tab.txt"       # bAbI tasks 1-5's KB: the value after a tab
    babi_kb.write_text("1 resto_a R_cuisine\tthai\n1 resto_a R_location\tparis\n")
    assert run(["stats", str(babi_kb)]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {babi_kb}:1: a KB fact ('resto_a R_cuisine\\tthai') where a "
                                       "dialog line is expected: give a dialog file, not a KB file\n")
    task6_kb = tmp_path / "kb-space.txt"    # task 6's: no tab
    task6_kb.write_text("1 resto_a R_cuisine thai\n1 resto_a R_area north\n")
    assert run(["stats", str(task6_kb)]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {task6_kb}: no user<TAB>bot line in any dialog: give a "
                                       "dialog file, not a KB file\n")
