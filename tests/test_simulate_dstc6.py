"""dstc2conv simulate --variant dstc6: the DSTC6 track 1 variant of tasks 1-5. The
extended KB, the files' format and names, each task's flow (slots, question and
api_call orders, wording, option sets, facts), the splits' KB halves and requests,
candidates and truth files; the track's own scripts (dataset_walker.py, score.py, and
check_validity.py, read at run time from ../shared/official) and the project's DSTC6
reader and P@k on the generated files; determinism; bad arguments."""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import GOLDEN, need
from official import DSTC6, OFFICIAL, dstc6

from dstc2conv.cli import run
from dstc2conv.evaluate.metrics import METRICS
from dstc2conv.exports.dstc6 import read_results, read_samples
from dstc2conv.simulate.dstc6 import (
    ASK,
    SPLIT_INFO,
    SPLITS6,
    file_name6,
    truth_name,
    world6,
)
from dstc2conv.simulate.dstc6_kb import ATMOSPHERES, FACT_ORDER, RESTRICTIONS, extended_kb
from dstc2conv.simulate.kb import PAPER_VALUES

TASKS = ["--task", "1", "--task", "2", "--task", "3", "--task", "4", "--task", "5"]
SPLITS = [a for s in SPLITS6 for a in ("--split", s)]
ENTRIES = 300
NAME = re.compile(r"(the_)?[a-z]+_[a-z]+_[a-z]+_[a-z]+")
ASK_LETTER = {ASK[f]: "CLNPAR"[f] for f in range(6)}


def simulate(out: Path, *args: str) -> int:
    return run(["simulate", "--variant", "dstc6", "--quiet", "--out", str(out), *args])


def load(folder: Path, task: int, split: str, entries: int = ENTRIES) -> list[dict]:
    return json.loads((folder / file_name6(task, split, entries)).read_text())


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """300 entries of every task and set, seed 5."""
    out = tmp_path_factory.mktemp("dstc6")
    assert simulate(out, *TASKS, *SPLITS, "--dialogs", str(ENTRIES), "--seed", "5") == 0
    return out


def _is_fact(u: str) -> bool:
    parts = u.split(" ")
    return len(parts) == 3 and parts[1].startswith("r_")


def _turns(utterances: list[str]) -> list[str]:
    return [u for u in utterances if not _is_fact(u)]


def test_the_file_names_and_the_files(made):
    names = sorted(p.name for p in made.iterdir())
    assert "dialog-task1API-kb1_atmosphere-distr0.5-trn300.json" in names
    assert "dialog-task5FULL-kb2_atmosphere_restrictions-distr0.5-tst300.json" in names
    assert "dialog-task3OPTIONS-kb1_atmosphere_restrictions-distr0.5-tst300-truth.json" in names
    assert len(names) == 5 * (1 + 4 * 2) + 2        # a train file, 4 test files and their truths a task; 2 KBs


def test_the_extended_kb(made):
    kb1, kb2 = extended_kb(0)
    for path, half, key in ((made / "extendedkb1.txt", kb1, "plain"), (made / "extendedkb2.txt", kb2, "oov")):
        lines = path.read_text().split("\n")
        assert lines[-1] == "" and len(lines) - 1 == 48_600
        facts = defaultdict(dict)
        for line in lines[:-1]:
            head, value = line.split("\t")
            one, name, rel = head.split(" ")
            assert one == "1" and rel.startswith("R_")
            facts[name][rel[2:]] = value
        assert len(facts) == 5_400 and all(list(f) == list(FACT_ORDER) for f in facts.values())
        assert all(NAME.fullmatch(n) for n in facts)
        assert all(f["phone"] == f"{n}_phone" and f["address"] == f"{n}_address" for n, f in facts.items())
        v = PAPER_VALUES[key]
        combos = defaultdict(int)
        groups = defaultdict(list)
        for f in facts.values():
            combos[f["cuisine"], f["location"], f["price"], f["atmosphere"], f["restrictions"]] += 1
            groups[f["location"], f["cuisine"], f["price"]].append(int(f["rating"]))
            assert f["number"] in v["sizes"]
        assert set(combos) == {(c, loc, p, a, r) for c in v["cuisines"] for loc in v["locations"]
                               for p in v["prices"] for a in ATMOSPHERES for r in RESTRICTIONS}
        assert set(combos.values()) == {8}
        assert len(groups) == 75 and all(sorted(g) == list(range(1, 73)) for g in groups.values())
        assert len(half.restaurants) == 5_400
    assert not set(r.name for r in kb1.restaurants) & set(r.name for r in kb2.restaurants)


def test_the_entries_format(made):
    for task in range(1, 6):
        for split in SPLITS6:
            found = load(made, task, split)
            count = 10 if split == "trn" else 11
            assert len(found) == ENTRIES
            assert len({e["dialog_id"] for e in found}) == ENTRIES
            truth = None if split == "trn" else json.loads((made / truth_name(file_name6(task, split, ENTRIES)))
                                                           .read_text())
            for i, e in enumerate(found):
                assert set(e) == ({"dialog_id", "utterances", "candidates", "answer"} if split == "trn"
                                  else {"dialog_id", "utterances", "candidates"})
                turns = _turns(e["utterances"])
                assert len(turns) % 2 == 1              # user, bot, ..., user: it ends with the user's turn
                ids = [c["candidate_id"] for c in e["candidates"]]
                texts = [c["utterance"] for c in e["candidates"]]
                assert len(ids) == len(set(ids)) == count and len(set(texts)) == count
                gold = e["answer"]["candidate_id"] if split == "trn" else truth[i]["lst_candidate_id"][0]["candidate_id"]
                assert gold in ids
                if truth is not None:
                    assert truth[i] == {"dialog_id": e["dialog_id"], "lst_candidate_id": [{"candidate_id": gold,
                                                                                            "rank": 1}]}


def _walk(made, task, split):
    """Every entry with its answer's text (from the answer, or the truth file)."""
    found = load(made, task, split)
    if split == "trn":
        return [(e, e["answer"]["utterance"]) for e in found]
    truth = json.loads((made / truth_name(file_name6(task, split, ENTRIES))).read_text())
    out = []
    for e, t in zip(found, truth):
        gold = t["lst_candidate_id"][0]["candidate_id"]
        out.append((e, next(c["utterance"] for c in e["candidates"] if c["candidate_id"] == gold)))
    return out


def test_slots_orders_and_wording(made):
    kb1, kb2 = extended_kb(0)
    for split in SPLITS6:
        info = SPLIT_INFO[split]
        values = (kb1, kb2)[info.half].values
        for task in range(1, 6):
            for e, answer in _walk(made, task, split):
                turns = _turns(e["utterances"]) + [answer]
                bots = turns[1::2]
                asked = "".join(ASK_LETTER.get(b, "") for b in bots)
                assert asked == "".join(x for x in "ACLNPR" if x in asked)      # a subsequence of ACLNPR
                assert ("R" in asked) <= (info.fields == 6)
                for b in bots:
                    assert b not in ("which price range are looking for", "sure let me find an other option for you")
                    if b.startswith("api_call "):
                        got = b.split()[1:]
                        assert len(got) == info.fields
                        assert all(g in values[f] for f, g in enumerate(got))
                for u in turns[0::2]:
                    assert u != "<SILENCE>" and u not in ("i love that", "no i don't like that")
                for u in e["utterances"]:
                    if _is_fact(u):
                        assert u.split(" ")[1][2:] in FACT_ORDER


def _blocks(utterances: list[str]) -> list[list[str]]:
    """The fact lines of each API result (the restaurants in a row)."""
    out, current = [], []
    for u in utterances:
        if _is_fact(u):
            current.append(u)
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def test_option_sets_facts_and_proposals(made):
    seen = {3: set(), 5: set()}
    for task in (3, 5):
        for split in SPLITS6:
            for e, answer in _walk(made, task, split):
                blocks = _blocks(e["utterances"])
                assert len(blocks) <= 1
                if not blocks:
                    continue
                facts = blocks[0]
                assert len(facts) % 9 == 0
                restaurants = [facts[i:i + 9] for i in range(0, len(facts), 9)]
                for r in restaurants:
                    assert [f.split(" ")[1] for f in r] == [f"r_{rel}" for rel in FACT_ORDER]
                    assert len({f.split(" ")[0] for f in r}) == 1
                seen[task].add(len(restaurants))
                rating = {r[0].split(" ")[0]: int(r[2].split(" ")[2]) for r in restaurants}
                proposed = [u.split(": ")[1] for u in _turns(e["utterances"]) + [answer]
                            if u.startswith("what do you think of this option: ")]
                assert all(p in rating for p in proposed)
                assert [rating[p] for p in proposed] == sorted((rating[p] for p in proposed), reverse=True)
    assert seen[3] == {3, 4}
    assert seen[5] == {1, 2, 3, 4}


def test_the_user_asides_get_their_replies(made):
    replies = defaultdict(set)
    for task in range(1, 6):
        for e, answer in _walk(made, task, "trn"):
            turns = _turns(e["utterances"]) + [answer]
            for user, bot in zip(turns[0::2], turns[1::2]):
                replies[user].add(bot if not bot.startswith("the option was ") else "the option was <name>")
    assert replies["will it be raining"] == {"i am sorry, i don't have an answer to that question"}
    assert replies["what was the first option again"] == {"the option was <name>"}
    friend = [u for u in replies if u.endswith("i am asking my friend if we need the phone number")]
    assert friend and all(replies[u] == {"whenever you're ready"} for u in friend)
    assert any(u.startswith("leaning towards ") for u in replies)


def test_repeat_requests_name_the_first_or_the_previous_option(made):
    checked = 0
    for e, answer in _walk(made, 5, "trn") + _walk(made, 3, "trn"):
        if not answer.startswith("the option was "):
            continue
        turns = _turns(e["utterances"])
        proposed = [u.split(": ")[1] for u in turns if u.startswith("what do you think of this option: ")]
        target = proposed[0] if "first" in turns[-1] else proposed[-2]
        assert answer == "the option was " + target
        checked += 1
    assert checked


def test_train_and_test_never_share_a_first_request():
    halves = extended_kb(0)
    trn, tst1 = world6(halves, "trn"), world6(halves, "tst1")
    tst3 = world6(halves, "tst3")
    assert trn.requests and tst1.requests and not set(trn.requests) & set(tst1.requests)
    assert not {r[:5] for r in trn.requests} & {r[:5] for r in tst3.requests}
    assert len(world6(halves, "tst2").requests) == 5 * 5 * 4 * 3 * 3


def test_near_miss_distractors(made):
    """An api_call answer has api_calls with one value changed among its candidates."""
    near = 0
    for e, answer in _walk(made, 1, "tst3"):
        if not answer.startswith("api_call "):
            continue
        gold = answer.split()
        for c in e["candidates"]:
            other = c["utterance"].split()
            near += len(other) == len(gold) and other[0] == "api_call" and sum(a != b for a, b in zip(gold, other)) == 1
    assert near


def test_same_seed_same_bytes(tmp_path):
    args = [*TASKS, "--split", "trn", "--split", "tst4", "--dialogs", "40", "--seed", "9"]
    assert simulate(tmp_path / "a", *args) == 0
    assert simulate(tmp_path / "b", *args) == 0
    assert simulate(tmp_path / "c", *args[:-1], "10") == 0
    a, b, c = ({p.name: p.read_bytes() for p in (tmp_path / x).iterdir()} for x in "abc")
    assert a == b
    assert a[file_name6(5, "trn", 40)] != c[file_name6(5, "trn", 40)]
    assert a["extendedkb1.txt"] == c["extendedkb1.txt"]


def test_golden_one_entry_a_task(tmp_path):
    """tests/golden/simulate-dstc6-1-entry.json: the train file of each task, 1 entry,
    3 candidates, seed 0."""
    assert simulate(tmp_path, *TASKS, "--split", "trn", "--dialogs", "1", "--candidates", "3") == 0
    made = {file_name6(t, "trn", 1): json.loads((tmp_path / file_name6(t, "trn", 1)).read_text())
            for t in range(1, 6)}
    assert made == json.loads((GOLDEN / "simulate-dstc6-1-entry.json").read_text())


def test_candidates_option(tmp_path):
    assert simulate(tmp_path, "--task", "4", "--split", "trn", "--split", "tst2", "--dialogs", "20",
                    "--candidates", "4") == 0
    assert {len(e["candidates"]) for t in ("trn", "tst2") for e in load(tmp_path, 4, t, 20)} == {4}


@pytest.mark.parametrize("args, says", [
    (["--split", "tst"], "unknown split 'tst' for --variant dstc6"),
    (["--split", "trn", "--jobs", "2"], "drop --kb, --values, --jobs"),
])
def test_bad_arguments_write_nothing(tmp_path, capsys, args, says):
    assert simulate(tmp_path / "o", "--task", "1", *args) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_the_babi_variant_refuses_the_dstc6_options(tmp_path, capsys):
    assert run(["simulate", "--quiet", "--out", str(tmp_path), "--task", "1", "--split", "tst1"]) == 2
    assert "tst1-tst4 are --variant dstc6's" in capsys.readouterr().err
    assert run(["simulate", "--quiet", "--out", str(tmp_path), "--task", "1", "--split", "trn",
                "--candidates", "5"]) == 2
    assert "--candidates is for --variant dstc6" in capsys.readouterr().err


# ---------------------------------------------------------------- the track's scripts, the project's reader

def _test_files(made):
    return [(t, s) for t in range(1, 6) for s in SPLITS6[1:]]


def test_the_tracks_score_py(made, tmp_path):
    """A perfect result scores 1.0 at P@1, 2, 5; a random one about 1/11 at P@1, 5/11 at P@5."""
    rng = random.Random(0)
    perfect, shuffled, truth = [], [], []
    for task, split in _test_files(made):
        name = file_name6(task, split, ENTRIES)
        found = json.loads((made / name).read_text())
        answers = json.loads((made / truth_name(name)).read_text())
        truth += answers
        for e, t in zip(found, answers):
            gold = t["lst_candidate_id"][0]["candidate_id"]
            ids = [c["candidate_id"] for c in e["candidates"]]
            order = [gold] + [i for i in ids if i != gold]
            perfect.append({"dialog_id": e["dialog_id"],
                            "lst_candidate_id": [{"candidate_id": c, "rank": r} for r, c in enumerate(order, 1)]})
            rng.shuffle(ids)
            shuffled.append({"dialog_id": e["dialog_id"],
                             "lst_candidate_id": [{"candidate_id": c, "rank": r} for r, c in enumerate(ids, 1)]})
    for name, data in (("truth.json", truth), ("perfect.json", perfect), ("random.json", shuffled)):
        (tmp_path / name).write_text(json.dumps(data))

    def score(result):
        out = dstc6("score.py", "--input-result-file-test", str(tmp_path / result), "--input-result-file-truth",
                    str(tmp_path / "truth.json"), "--input-nb-candidate", "11")
        return [float(x) for x in re.findall(r"Precision @\d: (\S+)", out)]

    assert score("perfect.json") == [1.0, 1.0, 1.0]
    p1, p2, p5 = score("random.json")
    n = len(truth)       # 6,000: the standard error of P@1 is about 0.004
    assert n == 20 * ENTRIES
    assert abs(p1 - 1 / 11) < 0.02 and abs(p2 - 2 / 11) < 0.025 and abs(p5 - 5 / 11) < 0.03


def _py2_check_validity() -> str:
    """The track's check_validity.py (Python 2 only), its print statements made calls in
    memory: nothing else changed, nothing written."""
    text = need(OFFICIAL / "dstc6" / "py2" / "check_validity.py").read_text()
    return re.sub(r"^(\s*)print (.+)$", r"\1print(\2)", text, flags=re.M)


def test_the_tracks_check_validity_reads_the_truth_files(made):
    code = _py2_check_validity()
    for task, split in _test_files(made)[::3]:
        path = made / truth_name(file_name6(task, split, ENTRIES))
        done = subprocess.run([sys.executable, "-", "--input-task-file", str(path)], input=code, capture_output=True,
                              text=True)
        assert done.returncode == 0 and done.stdout.strip() == "[Success]: Valid format", done.stdout + done.stderr


def test_the_tracks_dataset_walker_reads_the_files(made, tmp_path):
    pytest.importorskip("sklearn", reason="pip install scikit-learn (the extra official) to run the DSTC6 track's "
                                          "dataset_walker.py")
    need(DSTC6 / "dataset_walker.py")
    for task, split in ((1, "trn"), (3, "tst3"), (5, "tst4")):
        plain, stats = tmp_path / f"{task}{split}.plain", tmp_path / f"{task}{split}.stats"
        dstc6("dataset_walker.py", "--input-task-file", str(made / file_name6(task, split, ENTRIES)),
              "--output-task-file", str(plain), "--output-statistics", str(stats))
        assert f"nb_dialog:\n{ENTRIES}\n" in stats.read_text()
        text = plain.read_text()
        assert text.count("dialog_id: ") == ENTRIES
        assert ("Answer:\nNone\n" in text) == (split != "trn")


def test_the_projects_dstc6_reader_and_p_at_k(made, tmp_path):
    """exports.dstc6 reads the train file (answers) and a test file with its truth; the
    registry's P@k scores a result ranking the answer second 0 at P@1 and 1 at P@2."""
    path = made / file_name6(2, "trn", ENTRIES)
    known = read_samples(str(path))
    assert len(known) == ENTRIES and all(s.answer in dict(s.candidates) for s in known)
    second = []
    for s in known:
        ids = [c for c, _ in s.candidates]
        order = [i for i in ids if i != s.answer]
        order.insert(1, s.answer)
        second.append({"dialog_id": s.dialog_id,
                       "lst_candidate_id": [{"candidate_id": c, "rank": r} for r, c in enumerate(order, 1)]})
    (tmp_path / "second.json").write_text(json.dumps(second))
    ranks = [rank for _, rank in read_results(str(tmp_path / "second.json"), known)]
    assert [METRICS[f"p@{k}"].total(ranks, [])["precision"] for k in (1, 2, 5)] == [0.0, 1.0, 1.0]

    name = file_name6(4, "tst2", ENTRIES)
    tests = read_samples(str(made / name))
    assert all(s.answer is None for s in tests)
    ranked = read_results(str(made / truth_name(name)), tests)
    assert all(len(texts) == 1 for texts, _ in ranked)
