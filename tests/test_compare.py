"""``dstc2conv compare``: each kind of difference is found and counted, on small
hand-written task-6 files; the published dev file compared with itself is identical."""
from __future__ import annotations

import json

import pytest
from conftest import REFERENCE, need

from dstc2conv.cli import run
from dstc2conv.evaluate.align import compare_files
from dstc2conv.evaluate.fidelity import (
    CALL_MISSING,
    DIALOG_MISSING,
    EXTRA_CALL,
    LENGTH_DIFFERS,
    MISALIGNED,
    RESULTS_DIFFER,
    SLOT_DIFFERS,
    SLOT_DROPPED,
    SYSTEM_DIFFERS,
    SYSTEM_MISSING,
    USER_DIFFERS,
)
from dstc2conv.evaluate.output import format_report

HELLO = "<SILENCE>\tHello , welcome . How may I help you ?"


def place(name, cuisine="noodles", area="north", price="cheap", rating=5):
    return [f"{name} R_post_code {name}_post_code", f"{name} R_cuisine {cuisine}",
            f"{name} R_location {area}", f"{name} R_phone {name}_phone",
            f"{name} R_address {name}_address", f"{name} R_price {price}", f"{name} R_rating {rating}"]


def dialog(*parts):
    lines = []
    for part in parts:
        lines.extend([part] if isinstance(part, str) else part)
    return "".join(f"{n} {text}\n" for n, text in enumerate(lines, 1)) + "\n"


def noodles(call="api_call noodles north cheap", block=None,
            second="red_lamp is a nice place in the north serving noodles"):
    if block is None:
        block = place("blue_door", rating=7) + place("red_lamp", rating=3)
    return dialog(
        HELLO,
        "cheap food in the north\tWhat kind of food would you like?",
        f"noodles\t{call}",
        block,
        "<SILENCE>\tblue_door is a nice place in the north serving noodles",
        f"anything else\t{second}",
        "thanks bye\t you are welcome",
    )


def tapas(with_call=True):
    if with_call:
        return dialog(HELLO, "i want tapas in the east\tapi_call tapas east R_price", "api_call no result",
                      "<SILENCE>\tSorry there is no tapas place in the east", "bye\t you are welcome")
    return dialog(HELLO, "i want tapas in the east\tSorry there is no tapas place in the east",
                  "bye\t you are welcome")


REF = noodles() + tapas()


@pytest.fixture
def files(tmp_path):
    def write(ours, ref=REF):
        a, b = tmp_path / "ours.txt", tmp_path / "ref.txt"
        a.write_text(ours)
        b.write_text(ref)
        return str(a), str(b)
    return write


def rates(report):
    return {m.key: (m.count, m.total) for m in report.measures}


def counts(report):
    return {k.name: k.count for k in report.kinds if k.count}


def test_identical_files_score_100_percent(files):
    report = compare_files(*files(REF))
    assert rates(report) == {"dialogs": (2, 2), "system_turns": (8, 8), "api_calls": (2, 2),
                             "result_blocks": (2, 2), "split": (2, 2), "order": (2, 2),
                             "rating_ours": (2, 2), "rating_ref": (2, 2)}
    assert counts(report) == {}
    assert report.identical
    assert "no differences" in format_report(report)


def test_reordered_block_with_other_ratings_is_identical(files, capsys):
    block = place("red_lamp", rating=0) + place("blue_door", rating=9)
    pair = files(noodles(block=block) + tapas())
    report = compare_files(*pair)
    assert report.identical
    assert run(["compare", *pair]) == 0 and "no differences" in capsys.readouterr().out
    assert rates(report)["dialogs"] == (2, 2)
    assert rates(report)["result_blocks"] == (2, 2)


def test_ratings_against_the_offers_lower_rating_consistency(files):
    block = place("blue_door", rating=2) + place("red_lamp", rating=8)
    report = compare_files(*files(noodles(block=block) + tapas()))
    assert report.identical  # ratings are not compared ...
    assert rates(report)["rating_ours"] == (1, 2)  # ... but blue_door was offered first
    assert rates(report)["rating_ref"] == (2, 2)


def test_dropped_slot(files):
    report = compare_files(*files(noodles(call="api_call noodles R_location cheap") + tapas()))
    assert counts(report) == {SLOT_DROPPED: 1}
    assert rates(report)["api_calls"] == (1, 2)
    assert rates(report)["dialogs"] == (1, 2)
    assert rates(report)["system_turns"] == (8, 8)
    example = report.kind(SLOT_DROPPED).examples[0]
    assert "location dropped in ours (ref north)" in example.text
    assert (example.position, example.ours_line, example.ref_line) == (1, 3, 3)
    # and the other way round: ref has the placeholder
    report = compare_files(*files(REF, noodles(call="api_call noodles R_location cheap") + tapas()))
    assert "location dropped in ref (ours north)" in report.kind(SLOT_DROPPED).examples[0].text


def test_slot_value_differs(files):
    report = compare_files(*files(noodles(call="api_call noodles south cheap") + tapas()))
    assert counts(report) == {SLOT_DIFFERS: 1}
    assert "location ours south, ref north" in report.kind(SLOT_DIFFERS).examples[0].text


def test_missing_call(files):
    report = compare_files(*files(noodles() + tapas(with_call=False)))
    assert counts(report) == {CALL_MISSING: 1, LENGTH_DIFFERS: 1}
    assert rates(report)["system_turns"] == (8, 8)
    assert rates(report)["api_calls"] == (1, 2)
    example = report.kind(CALL_MISSING).examples[0]
    assert "api_call tapas east R_price" in example.text
    assert example.ref_line == 21 + 2  # second dialog starts at line 21 of ref.txt
    # ours with a call that ref has not
    report = compare_files(*files(noodles() + tapas(), noodles() + tapas(with_call=False)))
    assert counts(report) == {EXTRA_CALL: 1, LENGTH_DIFFERS: 1}


def test_call_one_turn_late_leaves_the_system_turns_aligned(files):
    late = dialog(
        HELLO,
        "cheap food in the north\tWhat kind of food would you like?",
        "noodles\tblue_door is a nice place in the north serving noodles",
        "anything else\tapi_call noodles north cheap",
        place("blue_door", rating=7) + place("red_lamp", rating=3),
        "<SILENCE>\tred_lamp is a nice place in the north serving noodles",
        "thanks bye\t you are welcome",
    )
    report = compare_files(*files(late + tapas()))
    # the same call before another system turn is not the same line
    assert counts(report) == {CALL_MISSING: 1, EXTRA_CALL: 1}
    assert rates(report)["system_turns"] == (8, 8)
    assert rates(report)["api_calls"] == (1, 2)
    assert "before \"blue_door is a nice place" in report.kind(CALL_MISSING).examples[0].text


def test_changed_system_turn(files):
    report = compare_files(*files(noodles(second="red_lamp is a fine place") + tapas()))
    assert counts(report) == {SYSTEM_DIFFERS: 1}
    assert rates(report)["system_turns"] == (7, 8)
    accounting = {a.measure: a for a in report.accounting}
    assert accounting["system_turns"].gap == 1 and accounting["system_turns"].explained


def test_different_restaurant_in_block(files, tmp_path):
    block = place("blue_door", rating=7) + place("green_gate", rating=3)
    kb = tmp_path / "kb.txt"
    kb.write_text("".join(f"1 {line}\n" for line in place("blue_door") + place("red_lamp", area="south")
                          + place("green_gate")))
    a, b = files(noodles(block=block) + tapas())
    report = compare_files(a, b, kb=str(kb))
    assert counts(report) == {RESULTS_DIFFER: 1}
    assert rates(report)["api_calls"] == (2, 2)
    assert rates(report)["result_blocks"] == (1, 2)
    text = report.kind(RESULTS_DIFFER).examples[0].text
    assert "only in ours: green_gate" in text and "only in ref: red_lamp" in text
    assert "red_lamp: R_location ref=north kb=south; not in the results of ours" in text


def test_user_turn_and_missing_system_turn(files):
    ours = noodles().replace("anything else\t", "something else\t") + tapas()
    report = compare_files(*files(ours))
    assert counts(report) == {USER_DIFFERS: 1}
    shorter = dialog(HELLO, "bye\t you are welcome")
    report = compare_files(*files(noodles() + shorter))
    assert report.kind(SYSTEM_MISSING).count == 1
    assert report.kind(CALL_MISSING).count == 1
    assert all(a.explained for a in report.accounting)


def test_order_and_membership(files):
    report = compare_files(*files(tapas() + noodles()))
    assert counts(report) == {MISALIGNED: 2}
    assert rates(report)["order"] == (0, 2)
    assert rates(report)["split"] == (2, 2)
    assert "ours has it at position 2" in report.kind(MISALIGNED).examples[0].text
    report = compare_files(*files(noodles()))
    assert counts(report) == {DIALOG_MISSING: 1}
    assert rates(report)["split"] == (1, 2)
    assert all(a.explained for a in report.accounting)


def test_cli_text_and_json(files, capsys, tmp_path):
    a, b = files(noodles(call="api_call noodles R_location cheap") + tapas(with_call=False))
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"files": {"ours.txt": {"dialogs": ["Mar13_S9A0/voip-one", "Mar13_S9A0/voip-two"]}}}))
    assert run(["compare", a, b]) == 1  # differences found
    out = capsys.readouterr().out
    assert "api_call lines identical" in out and "0 /       2" in out
    assert "slot dropped" in out and "call missing" in out
    assert "Mar13_S9A0/voip-two" in out
    assert "+++ ours" in out and "-noodles\tapi_call noodles north cheap" in out
    assert run(["compare", a, b, "--json", "--examples", "1"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["measures"]["api_calls"] == {"label": "api_call lines identical", "count": 0,
                                             "total": 2, "rate": 0.0}
    assert data["kinds"][SLOT_DROPPED]["count"] == 1
    assert data["kinds"][CALL_MISSING]["examples"][0]["session"] == "Mar13_S9A0/voip-two"
    assert len(data["first_diffs"]) == 1 and data["first_diffs"][0]["ref_line"] == 1
    assert all(entry["explained"] for entry in data["accounting"].values())


def test_malformed_file_exits_2_naming_the_line(files, capsys):
    a, b = files("1 hello\thi there\n3 skipped a number\tbye\n")
    assert run(["compare", a, b]) == 2
    assert f"{a}:2:" in capsys.readouterr().err


def test_bad_manifest_exits_2(files, capsys, tmp_path):
    a, b = files(REF)
    bad = tmp_path / "m.json"
    bad.write_text("{not json")
    assert run(["compare", a, b, "--manifest", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err


def test_published_dev_against_itself():
    dev = need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt")
    report = compare_files(dev, dev)
    assert report.identical
    for m in report.measures:
        if m.key.startswith("rating"):
            continue
        assert m.count == m.total > 0, m
    # rating consistency is a property of each file: the same on both sides
    assert rates(report)["rating_ours"] == rates(report)["rating_ref"]


def test_a_percentage_never_rounds_a_difference_away(files):
    from dataclasses import replace

    from dstc2conv.evaluate.tables import percent

    assert percent(10144 / 10149) == "99.95%"          # not 100.0%
    assert percent(99999 / 100000) == "99.999%" and percent(1 / 100000) == "0.001%"
    assert percent(1 / 3) == "33.33%" and percent(1.0) == "100.00%" and percent(0.0) == "0.00%"
    assert percent(1 / 20000, 1) == "0.01%" and percent(1 / 30000, 1) == "0.003%"   # shares of resamples
    assert percent(-1 / 100000, signed=True) == "-0.001%" and percent(0.0, signed=True) == "+0.00%"
    assert percent(2 / 3 - 1 / 3, signed=True) == "+33.33%"
    # compare's table: 10,144 of 10,149 system turns identical is 99.95%, not 100.0%
    report = compare_files(*files(REF))
    turns = replace(report.measure("system_turns"), count=10144, total=10149)
    report = replace(report, measures=tuple(turns if m.key == "system_turns" else m for m in report.measures))
    line = next(x for x in format_report(report).splitlines() if x.startswith("system turns identical"))
    assert line.split()[-4:] == ["10144", "/", "10149", "99.95%"]
