"""dstc2conv simulate: the bAbI dialog tasks 1-5 in the published format. Determinism,
a golden file, each task's flow, the splits' requests, OOV, the KB and candidates
files, bad inputs, and --compare against the published train files (read at run time
from ../shared/reference/babi, skipped when absent)."""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest
from conftest import GOLDEN, SHARED, need

from dstc2conv.cli import run
from dstc2conv.simulate.compare import read_dialogs
from dstc2conv.simulate.kb import DIALOG_ORDER, PAPER_VALUES, candidates, paper_kb, read_kb
from dstc2conv.simulate.tasks import file_name
from dstc2conv.simulate.wording import ACCEPTS, FIXED, PREFIXES, REJECTS

BABI = SHARED / "reference" / "babi"
ALL_TASKS = ["--task", "1", "--task", "2", "--task", "3", "--task", "4", "--task", "5"]


def simulate(out: Path, *args: str) -> int:
    return run(["simulate", "--quiet", "--out", str(out), *args])


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_same_seed_same_bytes_whatever_jobs(tmp_path):
    args = [*ALL_TASKS, "--split", "trn", "--split", "tst-OOV", "--dialogs", "600", "--seed", "7"]
    assert simulate(tmp_path / "a", *args) == 0
    assert simulate(tmp_path / "b", *args, "--jobs", "2") == 0
    assert simulate(tmp_path / "c", *args[:-1], "8") == 0
    a, b, c = files(tmp_path / "a"), files(tmp_path / "b"), files(tmp_path / "c")
    assert a == b
    assert len(a) == 5 * 2 + 2
    assert a[file_name(5, "trn")] != c[file_name(5, "trn")]       # another seed, other dialogs
    assert a["dialog-babi-kb-all.txt"] == c["dialog-babi-kb-all.txt"]   # the KB does not depend on --seed


def test_golden_two_dialogs_a_task(tmp_path):
    """tests/golden/simulate-2-dialogs.txt: the trn file of each task, 2 dialogs, seed 0,
    the paper's KB (kb seed 0); read against the notes on the published files."""
    assert simulate(tmp_path, *ALL_TASKS, "--split", "trn", "--dialogs", "2") == 0
    made = "".join(f"== {file_name(t, 'trn')}\n" + (tmp_path / file_name(t, "trn")).read_text() for t in range(1, 6))
    assert made == (GOLDEN / "simulate-2-dialogs.txt").read_text()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """400 dialogs of every task and split, seed 3."""
    out = tmp_path_factory.mktemp("sim")
    assert simulate(out, *ALL_TASKS, "--split", "trn", "--split", "dev", "--split", "tst", "--split", "tst-OOV",
                    "--dialogs", "400", "--seed", "3") == 0
    return out


def turns(dialog):
    return [line.split("\t") for line in dialog if "\t" in line]


def test_the_published_format(made):
    for task in range(1, 6):
        data = (made / file_name(task, "trn")).read_bytes()
        assert data.endswith(b"\n\n") and b"\r" not in data and b"\n\n\n" not in data
        lines = data.decode().split("\n")
        for line in lines:
            if line:
                ident, rest = line.split(" ", 1)
                assert ident.isdigit()
                assert rest.count("\t") in (0, 1) and rest == rest.strip()
        assert len(read_dialogs(str(made / file_name(task, "trn")))) == 400


def opening_slots(user: str) -> int:
    words = {w for half in ("plain", "oov") for k in ("cuisines", "locations", "sizes", "prices")
             for w in PAPER_VALUES[half][k]}
    return sum(1 for w in user.split() if w in words)


def test_task1_flow(made):
    ks = Counter()
    for dialog in read_dialogs(str(made / file_name(1, "trn"))):
        t = turns(dialog)
        assert len(t) == len(dialog)                                  # no facts
        assert t[0][1] == FIXED[0] and t[1][1] == "i'm on it"
        assert t[-1][0] == "<SILENCE>" and t[-1][1].startswith("api_call ")
        assert t[-2][1] == "ok let me look into some options for you"
        k = opening_slots(t[1][0])
        ks[k] += 1
        assert len(t) == 2 + 1 + (4 - k) + 1                          # a question per missing field
    assert set(ks) == {0, 1, 2, 3, 4}


def test_task2_flow(made):
    for dialog in read_dialogs(str(made / file_name(2, "trn"))):
        t = turns(dialog)
        assert opening_slots(t[1][0]) == 4
        calls = [bot.split()[1:] for _, bot in t if bot.startswith("api_call")]
        assert len(calls) == 2
        updates = [user for user, bot in t if bot == "sure is there anything else to update"]
        changed = [i for i in range(4) if calls[0][i] != calls[1][i]]
        assert 1 <= len(updates) == len(changed) <= 4                  # distinct fields, each to another value
        assert t[-1][1] == "you're welcome" and t[-2] == ["<SILENCE>", "api_call " + " ".join(calls[1])]


def facts_of(dialog) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for line in dialog:
        if "\t" not in line:
            name, rel, value = line.split(" ")
            found.setdefault(name, {})[rel] = value
    return found


def check_options(dialog, t):
    facts = facts_of(dialog)
    assert len(facts) >= 3
    for name in facts:
        assert list(facts[name]) == list(DIALOG_ORDER)
    proposed = [bot.split(": ")[1] for _, bot in t if bot.startswith("what do you think of this option: ")]
    ratings = [int(facts[name]["R_rating"]) for name in proposed]
    assert ratings == sorted(ratings, reverse=True) and ratings[0] == max(int(f["R_rating"]) for f in facts.values())
    answers = [t[i + 1][0] for i, (_, bot) in enumerate(t) if bot.startswith("what do you think")]
    assert all(a in REJECTS for a in answers[:-1]) and answers[-1] in ACCEPTS
    return proposed[-1], len(proposed), len(facts)


def test_task3_flow(made):
    accepted_at = Counter()
    for dialog in read_dialogs(str(made / file_name(3, "trn"))):
        t = turns(dialog)
        assert "\t" not in dialog[0] and not any(bot.startswith("api_call") for _, bot in t)
        _, proposals, options = check_options(dialog, t)
        assert t[-1][1] == "great let me do the reservation"
        accepted_at[proposals == options] += 1
    assert accepted_at[True] and accepted_at[False]                  # the last always, earlier ones sometimes


def test_task4_flow(made):
    asks = Counter()
    for dialog in read_dialogs(str(made / file_name(4, "trn"))):
        (name, facts), = facts_of(dialog).items()
        assert dialog[:7] == [f"{name} {rel} {facts[rel]}" for rel in DIALOG_ORDER]
        t = turns(dialog)
        assert t[1][0].endswith(f" at {name}") and t[1][0][:-len(f" at {name}")] in PREFIXES
        infos = [bot for _, bot in t[2:]]
        assert infos and all(bot in (f"here it is {name}_phone", f"here it is {name}_address") for bot in infos)
        asks[len(infos)] += 1
    assert set(asks) == {1, 2}


def test_task5_flow(made):
    for dialog in read_dialogs(str(made / file_name(5, "trn"))):
        t = turns(dialog)
        assert 1 <= opening_slots(t[1][0]) <= 3
        calls = [i for i, (_, bot) in enumerate(t) if bot.startswith("api_call")]
        assert len(calls) == 2 and t[calls[0] + 1][0] != "<SILENCE>"   # the updates follow the first call at once
        updates = calls[1] - calls[0] - 2
        assert 1 <= updates <= 3
        final = t[calls[1]][1].split()[1:]
        facts = facts_of(dialog)
        assert all([f["R_cuisine"], f["R_location"], f["R_number"], f["R_price"]] == final for f in facts.values())
        name, _, _ = check_options(dialog, t)
        assert t[-1] [1] == "you're welcome" and t[-2][1] == "is there anything i can help you with"
        assert all(bot.startswith(f"here it is {name}_") for _, bot in t[-4:-2] if bot.startswith("here it is"))


def first_requests(path: Path, task: int) -> set:
    out = set()
    for dialog in read_dialogs(str(path)):
        if task == 4:
            out.update((f["R_cuisine"], f["R_location"], f["R_number"], f["R_price"]) for f in facts_of(dialog).values())
        elif task == 3:
            facts = list(facts_of(dialog).values())
            out.add((facts[0]["R_cuisine"], facts[0]["R_location"], facts[0]["R_number"], facts[0]["R_price"]))
        else:
            out.add(tuple(next(bot for _, bot in turns(dialog) if bot.startswith("api_call")).split()[1:]))
    return out


@pytest.mark.parametrize("task", [1, 2, 3, 4, 5])
def test_train_and_test_never_share_a_request(made, task):
    trn, dev, tst = (first_requests(made / file_name(task, s), task) for s in ("trn", "dev", "tst"))
    assert trn and tst and not trn & tst and not trn & dev


def test_oov_only_from_the_other_half(made):
    plain = {w for k in ("cuisines", "locations") for w in PAPER_VALUES["plain"][k]}
    oov = {w for k in ("cuisines", "locations") for w in PAPER_VALUES["oov"][k]}
    for task in range(1, 6):
        words = set((made / file_name(task, "tst-OOV")).read_text().replace("_", " ").split())
        assert words & oov and not words & plain, task
        words = set((made / file_name(task, "tst")).read_text().replace("_", " ").split())
        assert words & plain and not words & oov, task


def test_the_paper_kb_and_its_candidates(made):
    kb = read_kb(str(made / "dialog-babi-kb-all.txt"))
    assert [len(h.restaurants) for h in kb.halves] == [600, 600]
    assert [h.restaurants for h in kb.halves] == [h.restaurants for h in paper_kb(0).halves]
    groups = Counter((r.location, r.price, r.cuisine) for r in kb.restaurants)
    assert set(groups.values()) == {8}
    lines = (made / "dialog-babi-candidates.txt").read_text().splitlines()
    assert len(lines) == 12 + 50 * 4 * 3 + 3 * 1200 == len(set(lines))


def test_candidates_of_the_published_kb_are_the_published_set(tmp_path):
    kb = need(BABI / "dialog-babi-kb-all.txt")
    published = set(need(BABI / "dialog-babi-candidates.txt").read_text().splitlines())
    assert {f"1 {c}" for c in candidates(read_kb(str(kb)))} == published
    assert simulate(tmp_path, "--task", "1", "--split", "trn", "--dialogs", "1", "--kb", str(kb)) == 0
    assert set((tmp_path / "dialog-babi-candidates.txt").read_text().splitlines()) == published
    assert set((tmp_path / "dialog-babi-kb-all.txt").read_text().splitlines()) == set(kb.read_text().splitlines())


SMALL_KB = "".join(f"1 resto_{loc}_cheap_{c}_{r}stars {rel}\t{value}\n"
                   for c, loc in (("thai", "hanoi"), ("sushi", "kyoto")) for r in (1, 2, 3)
                   for rel, value in (("R_cuisine", c), ("R_location", loc), ("R_price", "cheap"),
                                      ("R_rating", str(r)), ("R_phone", f"p{r}"), ("R_address", f"a{r}"),
                                      ("R_number", "two")))


@pytest.mark.parametrize("end", ["\n", ""])
def test_a_kb_file_with_or_without_its_final_line_end(tmp_path, end):
    path = tmp_path / "kb.txt"
    path.write_text(SMALL_KB.rstrip("\n") + end)
    assert simulate(tmp_path / "out", "--task", "3", "--split", "tst-OOV", "--dialogs", "3", "--kb", str(path)) == 0
    written = (tmp_path / "out" / "dialog-babi-kb-all.txt").read_text()
    assert written.endswith("\n") and sorted(written.splitlines()) == sorted(SMALL_KB.splitlines())
    text = (tmp_path / "out" / file_name(3, "tst-OOV")).read_text()
    assert "resto_hanoi_cheap_thai_3stars" in text and "sushi" not in text   # sushi < thai: thai is the OOV half


@pytest.mark.parametrize("text, line, says", [
    ("1 resto_x R_cuisine thai\n", 1, "not a KB line"),
    ("1 resto_x R_cuisine\tthai\n1 resto_x R_colour\tred\n", 2, "unknown relation 'R_colour'"),
    ("1 resto_x R_cuisine\tthai\n1 resto_x R_cuisine\tlao\n", 2, "resto_x has R_cuisine twice"),
    ("1 resto_x R_cuisine\tthai food\n", 1, "R_cuisine: the value must be one word, not 'thai food'"),
    ("1 resto_x R_cuisine\tthai\n", 1, "resto_x has no R_location"),
])
def test_a_bad_kb_line_is_named_and_nothing_is_written(tmp_path, capsys, text, line, says):
    path = tmp_path / "kb.txt"
    path.write_text(text)
    assert simulate(tmp_path / "out", "--task", "1", "--split", "trn", "--kb", str(path)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dstc2conv: error: {path}:{line}: {says}") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_bad_values_and_impossible_splits(tmp_path, capsys):
    values = tmp_path / "values.yaml"
    values.write_text("plain: {cuisines: [thai], locations: [hanoi], prices: [cheap], sizes: [two]}\n"
                      "oov: {cuisines: [thai], locations: [kyoto], prices: [cheap], sizes: [two]}\n")
    assert simulate(tmp_path / "out", "--task", "1", "--split", "trn", "--values", str(values)) == 2
    assert "oov.cuisines: 'thai' is also in plain.cuisines" in capsys.readouterr().err
    values.write_text("plain: {cuisines: [thai], locations: [hanoi], prices: [cheap], sizes: [two]}\n")
    assert simulate(tmp_path / "out", "--task", "1", "--split", "tst-OOV", "--values", str(values)) == 2
    assert "tst-OOV needs a KB with a second (OOV) half" in capsys.readouterr().err
    assert simulate(tmp_path / "out", "--task", "1", "--split", "tst", "--values", str(values)) == 2
    assert "task 1 tst: the KB leaves this split no request" in capsys.readouterr().err   # its one request is trn's
    values.write_text("ratings: 2\nplain: {cuisines: [thai], locations: [hanoi], prices: [cheap], sizes: [two]}\n")
    assert simulate(tmp_path / "out", "--task", "3", "--split", "trn", "--values", str(values)) == 2
    assert "no request of this split's part of the KB matches 3 restaurants or more" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_kb_of_values(tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text("ratings: 4\nplain: {cuisines: [thai, lao], locations: [hanoi, hue], prices: [cheap, dear], "
                      "sizes: [two, three]}\n")
    assert simulate(tmp_path / "out", "--task", "5", "--split", "trn", "--split", "tst", "--dialogs", "20",
                    "--values", str(values)) == 0
    kb = read_kb(str(tmp_path / "out" / "dialog-babi-kb-all.txt"))
    assert len(kb.halves) == 1 and len(kb.restaurants) == 2 * 2 * 2 * 4
    assert "resto_hue_dear_lao_4stars" in {r.name for r in kb.restaurants}


def test_compare_a_folder_with_itself(made, capsys):
    assert run(["simulate", "--compare", str(made), "--reference", str(made), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report["tasks"]) == ["1", "2", "3", "4", "5"] and report["within"]
    t1 = {a["average"]: a for a in report["tasks"]["1"]["averages"]}
    assert t1["<SILENCE> lines"]["generated"] == 2 and t1["api_calls"]["relative"] == 0
    assert all(f["equal"] for f in report["files"])


def test_compare_with_the_published_train_files(tmp_path, capsys):
    """The target: generated train files within 5% of the published ones on every per-dialog
    average, per task (seed 0, the published KB)."""
    kb = need(BABI / "dialog-babi-kb-all.txt")
    assert simulate(tmp_path, *ALL_TASKS, "--split", "trn", "--kb", str(kb)) == 0
    assert run(["simulate", "--compare", str(tmp_path), "--reference", str(BABI)]) == 0
    out = capsys.readouterr().out
    assert "every per-dialog average within 5%" in out
    assert "dialog-babi-candidates.txt: 4,212 lines generated, 4,212 published, 4,212 in both: the same set" in out


def test_a_stopped_run_leaves_nothing(tmp_path, monkeypatch):
    from dstc2conv.simulate import generate

    def broken(job):
        raise KeyboardInterrupt

    monkeypatch.setattr(generate, "make_chunk", broken)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    assert simulate(tmp_path / "out", "--task", "1", "--split", "trn") == 130
    assert os.listdir(tmp_path / "out") == ["keep.txt"]


def test_a_worker_error_is_said_and_nothing_is_written(tmp_path, monkeypatch, capsys):
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.simulate import generate

    def broken(job):
        raise Dstc2ConvError(f"chunk {job[3]} cannot be made")

    monkeypatch.setattr(generate, "make_chunk", broken)      # the workers are forked: they inherit it
    assert simulate(tmp_path / "out", "--task", "2", "--split", "dev", "--dialogs", "600", "--jobs", "2") == 2
    assert capsys.readouterr().err == "dstc2conv: error: chunk 0 cannot be made\n"
    assert not (tmp_path / "out").exists()


def test_sigterm_stops_a_run_with_workers_and_leaves_the_folder_as_it_was(tmp_path):
    import signal
    import subprocess
    import sys

    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "dstc2conv", "simulate", "--task", "5", "--split", "trn",
                             "--dialogs", "2000000", "--jobs", "2", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))  # whatever the tests run under
    line = proc.stderr.readline()
    while line and not line.startswith("task 5 trn"):      # its note: the dialogs are being made
        line = proc.stderr.readline()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.strip() == "dstc2conv: stopped by SIGTERM: what was being written is left as it was"
    assert os.listdir(out) == []
