"""DSTC6 track 1: our samples and result files run through the track's own scripts
(``official.dstc6``: score.py, dataset_walker.py, baseline_tfidf.py, read at run time
from ../shared/official), and our P@k against its score.py on the edge cases of the
result format: ranks written as text or floats, ties, ids written as numbers, samples
without their answer."""
from __future__ import annotations

import json
import re

import pytest
from conftest import REFERENCE, need
from official import dstc6

from dstc2conv.cli import run

K = 5


def _sklearn():
    # a library, not data: dataset_walker.py and baseline_tfidf.py import scikit-learn, which the
    # extra "official" installs (some 50 MB beyond numpy and scipy; CI installs it): skipped
    # without it, whatever DSTC2CONV_REQUIRE_DATA says
    return pytest.importorskip("sklearn", reason="pip install scikit-learn (the extra official) to run the DSTC6 track's "
                                                 "dataset_walker.py and baseline_tfidf.py")


def _official_score(result, truth, k=K) -> list[float]:
    """P@1, P@2, P@5 as the track's score.py prints them."""
    out = dstc6("score.py", "--input-result-file-test", str(result), "--input-result-file-truth", str(truth),
                "--input-nb-candidate", str(k))
    return [float(x) for x in re.findall(r"Precision @\d: (\S+)", out)]


def _ours(capsys, result, ref, samples, *extra) -> tuple[int, list[float] | None, str]:
    code = run(["score", str(result), str(ref), "--dstc6", str(samples), "--metrics", "p@1,p@2,p@5", "--json",
                *extra])
    out, err = capsys.readouterr()
    if code:
        return code, None, err
    got = json.loads(out)
    return code, [got[f"p@{k}"]["precision"] for k in (1, 2, 5)], err


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The shipped sample's test file, its 17 candidates, and its DSTC6 samples (K = 5)
    with their truth file."""
    out = tmp_path_factory.mktemp("dstc6")
    assert run(["build", "--split", "test", "--out", str(out / "o"), "--quiet"]) == 0
    ref, cands = out / "o" / "dialog-babi-task6-dstc2-tst.txt", out / "o" / "dialog-babi-task6-dstc2-candidates.txt"
    assert run(["export", "dstc6", str(ref), "--candidates", str(cands), "--k", str(K), "--out",
                str(out / "samples.json"), "--truth", str(out / "truth.json"), "--quiet"]) == 0
    return out, ref, cands


def _results(samples: list[dict], order, rank=lambda r: r, cid=lambda c: c) -> list[dict]:
    """A result per sample: its candidates in the order ``order(sample)`` gives, ranks 1, 2, ..."""
    return [{"dialog_id": s["dialog_id"],
             "lst_candidate_id": [{"candidate_id": cid(c), "rank": rank(r)} for r, c in enumerate(order(s), 1)]}
            for s in samples]


def _answer_first(s):
    answer = s["answer"]["candidate_id"]
    return [answer] + [c["candidate_id"] for c in s["candidates"] if c["candidate_id"] != answer]


def _answer_second(s):
    order = _answer_first(s)
    return order[1:2] + order[:1] + order[2:]


def test_the_samples_are_the_tracks_format(sample):
    out, ref, _ = sample
    found = json.loads((out / "samples.json").read_text())
    truth = json.loads((out / "truth.json").read_text())
    assert len(found) == len(truth) == 22
    for s, t in zip(found, truth):
        assert all(isinstance(u, str) for u in s["utterances"]) and len(s["speakers"]) == len(s["utterances"])
        assert set(s["speakers"]) <= {"u", "s"} and s["speakers"][-1] == "u"
        assert t == {"dialog_id": s["dialog_id"], "lst_candidate_id": [{"candidate_id": s["answer"]["candidate_id"],
                                                                        "rank": 1}]}
    # the first sample of the second dialog: the greeting's silence alone
    second = next(s for s in found if s["dialog_id"] == "2-1")
    assert (second["utterances"], second["speakers"]) == (["<SILENCE>"], ["u"])


def test_the_tracks_dataset_walker_reads_the_samples(sample, tmp_path):
    _sklearn()
    out, _, _ = sample
    dstc6("dataset_walker.py", "--input-task-file", str(out / "samples.json"), "--output-task-file",
          str(tmp_path / "plain.txt"), "--output-statistics", str(tmp_path / "stats.txt"))
    found = json.loads((out / "samples.json").read_text())
    plain = (tmp_path / "plain.txt").read_text()
    assert plain.count("dialog_id: ") == len(found)
    assert f" * {found[3]['utterances'][-1]}\n" in plain
    stats = (tmp_path / "stats.txt").read_text()
    assert f"nb_dialog:\n{len(found)}\n" in stats
    assert f"nb_utterance_total:\n{sum(len(s['utterances']) for s in found)}\n" in stats


def test_the_tracks_tfidf_baseline_scores_the_same_with_both_scorers(sample, tmp_path, capsys):
    _sklearn()
    out, ref, _ = sample
    dstc6("baseline_tfidf.py", "--input-task-file", str(out / "samples.json"), "--output_result-file",
          str(tmp_path / "tfidf.json"))
    official = _official_score(tmp_path / "tfidf.json", out / "truth.json")
    code, ours, err = _ours(capsys, tmp_path / "tfidf.json", ref, out / "samples.json")
    assert code == 0, err
    assert ours == official


@pytest.mark.parametrize("rank", [int, str, float], ids=["int", "text", "float"])
def test_ranks_int_reads_score_as_the_official_scorer(sample, tmp_path, capsys, rank):
    out, ref, _ = sample
    found = json.loads((out / "samples.json").read_text())
    for order, want in ((_answer_first, [1.0, 1.0, 1.0]), (_answer_second, [0.0, 1.0, 1.0])):
        (tmp_path / "r.json").write_text(json.dumps(_results(found, order, rank=rank)))
        official = _official_score(tmp_path / "r.json", out / "truth.json")
        code, ours, err = _ours(capsys, tmp_path / "r.json", ref, out / "samples.json")
        assert code == 0, err
        assert ours == official == want


def test_samples_without_their_answer_score_the_same(sample, tmp_path, capsys):
    """As the track's released test files: no ``answer``; score --dstc6 takes the
    candidate that is the reference's gold, score.py the truth file."""
    out, ref, cands = sample
    assert run(["export", "dstc6", str(ref), "--candidates", str(cands), "--k", str(K), "--no-answer",
                "--out", str(tmp_path / "test.json"), "--truth", str(tmp_path / "truth.json"), "--quiet"]) == 0
    with_answer = json.loads((out / "samples.json").read_text())
    without = json.loads((tmp_path / "test.json").read_text())
    assert without == [{k: v for k, v in s.items() if k != "answer"} for s in with_answer]
    assert (tmp_path / "truth.json").read_bytes() == (out / "truth.json").read_bytes()
    (tmp_path / "r.json").write_text(json.dumps(_results(with_answer, _answer_second)))
    official = _official_score(tmp_path / "r.json", tmp_path / "truth.json")
    assert _ours(capsys, tmp_path / "r.json", ref, tmp_path / "test.json")[1] == official == [0.0, 1.0, 1.0]


def test_what_the_official_scorer_counts_wrong_silently_is_refused(sample, tmp_path, capsys):
    out, ref, _ = sample
    found = json.loads((out / "samples.json").read_text())
    result = tmp_path / "r.json"
    first = found[0]["answer"]["candidate_id"]
    other = next(c["candidate_id"] for c in found[0]["candidates"] if c["candidate_id"] != first)
    # every candidate at rank 1, the answer listed first: score.py keeps the last at a rank
    result.write_text(json.dumps(_results(found, _answer_first, rank=lambda r: 1)))
    assert _official_score(result, out / "truth.json") == [0.0, 0.0, 0.0]
    code, _, err = _ours(capsys, result, ref, out / "samples.json")
    assert code == 2 and err == (f"dstc2conv: error: {result}:1: candidates {first!r} and {other!r} of dialog_id "
                                 "'1-1' both have rank 1: give each candidate its own rank (the DSTC6 scorer keeps "
                                 "the last at a rank)\n")
    # ids written as JSON numbers: never equal to the truth's strings
    result.write_text(json.dumps(_results(found, _answer_first, cid=int)))
    assert _official_score(result, out / "truth.json") == [0.0, 0.0, 0.0]
    code, _, err = _ours(capsys, result, ref, out / "samples.json")
    assert code == 2 and err == (f"dstc2conv: error: {result}:1: candidate_id {first} for dialog_id '1-1': write it "
                                 "as a JSON string (the DSTC6 scorer compares it with the truth's string and counts "
                                 "it wrong)\n")
    # ranks that int() does not read exactly
    for bad in (1.5, "1.0", True, 0):
        result.write_text(json.dumps(_results(found, _answer_first, rank=lambda r: bad if r == 1 else r)))
        code, _, err = _ours(capsys, result, ref, out / "samples.json")
        assert code == 2 and err == (f"dstc2conv: error: {result}:1: rank {json.dumps(bad)} of candidate {first!r}: "
                                     "give a whole number from 1\n"), bad


def test_a_result_file_from_a_ranking(sample, tmp_path, capsys):
    """ir tfidf --rank 17 ranks every candidate: the result orders each sample's 5 as the
    ranking does, and both scorers agree with hits@k of the ranking restricted to them."""
    out, ref, cands = sample
    ranked = tmp_path / "ranked.jsonl"
    assert run(["ir", "tfidf", "--train", str(ref), "--data", str(ref), "--candidates", str(cands), "--rank", "17",
                "--out", str(ranked), "--quiet"]) == 0
    capsys.readouterr()
    assert run(["export", "dstc6-results", str(ranked), "--samples", str(out / "samples.json"), "--out",
                str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().err == f"dstc2conv: 22 DSTC6 results written to {tmp_path / 'r.json'}\n"
    found = json.loads((out / "samples.json").read_text())
    results = json.loads((tmp_path / "r.json").read_text())
    rankings = [json.loads(line) for line in ranked.read_text().splitlines()]
    answer_ranks = []
    for s, r, ranking in zip(found, results, rankings):
        texts = {c["candidate_id"]: c["utterance"] for c in s["candidates"]}
        mine = sorted(texts, key=lambda c: [t.strip() for t in ranking].index(texts[c].strip()))
        assert r == {"dialog_id": s["dialog_id"],
                     "lst_candidate_id": [{"candidate_id": c, "rank": i} for i, c in enumerate(mine, 1)]}
        answer_ranks.append(mine.index(s["answer"]["candidate_id"]) + 1)
    want = [sum(a <= k for a in answer_ranks) / len(answer_ranks) for k in (1, 2, 5)]
    official = _official_score(tmp_path / "r.json", out / "truth.json")
    assert _ours(capsys, tmp_path / "r.json", ref, out / "samples.json")[1] == official == want
    # a ranking of 2 a turn: the other candidates are left unranked, and the note says so
    assert run(["ir", "tfidf", "--train", str(ref), "--data", str(ref), "--candidates", str(cands), "--rank", "2",
                "--out", str(ranked), "--quiet"]) == 0
    capsys.readouterr()
    assert run(["export", "dstc6-results", str(ranked), "--samples", str(out / "samples.json"), "--out",
                str(tmp_path / "r2.json"), "--quiet"]) == 0
    assert "the ranking does not hold every candidate: those are left unranked" in capsys.readouterr().err
    assert all(len(r["lst_candidate_id"]) <= 2 for r in json.loads((tmp_path / "r2.json").read_text()))
    official = _official_score(tmp_path / "r2.json", out / "truth.json")
    assert _ours(capsys, tmp_path / "r2.json", ref, out / "samples.json")[1] == official
    # one ranking per sample
    ranked.write_text(ranked.read_text().split("\n", 1)[1])
    assert run(["export", "dstc6-results", str(ranked), "--samples", str(out / "samples.json"), "--out",
                str(tmp_path / "r3.json")]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {ranked}: 21 rankings, {out / 'samples.json'} has 22 "
                                       "samples: give one ranking per sample (per bot turn of the task-6 file the "
                                       "samples are of), in order\n")
    assert not (tmp_path / "r3.json").exists()


def test_the_published_dev_file_with_the_tracks_tfidf_baseline(tmp_path, capsys):
    """The first 100 dialogs of the dev file (K = 10, the scorer's default; the
    candidates: every bot utterance of the file): the track's TF-IDF baseline reads the
    samples, and its score.py and ours agree on its result (the whole file takes a
    minute here, all of it in the baseline)."""
    text = need(REFERENCE / "dialog-babi-task6-dstc2-dev.txt").read_text()
    _sklearn()
    dev, cands = tmp_path / "dev100.txt", tmp_path / "cands.txt"
    dev.write_text("\n\n".join(text.split("\n\n")[:100]) + "\n\n")
    bots = {line.split("\t")[1] for line in text.splitlines() if "\t" in line}
    cands.write_text("".join(f"1 {b}\n" for b in sorted(bots)))
    samples, truth = tmp_path / "samples.json", tmp_path / "truth.json"
    assert run(["export", "dstc6", str(dev), "--candidates", str(cands), "--out", str(samples), "--truth", str(truth),
                "--quiet"]) == 0
    dstc6("baseline_tfidf.py", "--input-task-file", str(samples), "--output_result-file", str(tmp_path / "r.json"))
    official = _official_score(tmp_path / "r.json", truth, k=10)
    code, ours, err = _ours(capsys, tmp_path / "r.json", dev, samples)
    assert code == 0, err
    assert ours == official and 0 < official[0] < official[2] < 1


def test_the_truth_file_is_checked_before_any_work(sample, tmp_path, capsys):
    out, ref, cands = sample
    base = ["export", "dstc6", str(ref), "--candidates", str(cands), "--k", str(K), "--out", str(tmp_path / "s.json")]
    assert run([*base, "--truth", str(tmp_path / "s.json")]) == 2
    assert capsys.readouterr().err == (f"dstc2conv: error: {tmp_path / 's.json'}: --truth and --out name one file: "
                                       "give two\n")
    assert run([*base, "--truth", str(ref)]) == 2
    assert "cannot write: it is the input" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_a_write_in_pieces_that_fails_leaves_the_file_as_it_was(tmp_path):
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.files import write_text_atomic

    target = tmp_path / "s.json"
    target.write_text("before\n")

    def pieces():
        yield "[\n"
        raise Dstc2ConvError("stopped")

    with pytest.raises(Dstc2ConvError, match="stopped"):
        write_text_atomic(str(target), pieces())
    assert target.read_text() == "before\n" and [p.name for p in tmp_path.iterdir()] == ["s.json"]
