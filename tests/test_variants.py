"""The build's variants: user turns from the live ASR (--user asr), the random partition
(--partition random --seed N). The KB built from the logs of every input given is
tested with the official tarballs, in test_release.py."""
from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from conftest import SAMPLE, TRAINDEV, need
from test_release import CANDIDATES, DEV, KB_FILE, TRN, TST, _build, _manifest

from dstc2conv.builder.partition import partition_sizes, random_sessions
from dstc2conv.evaluate.sessions import system_of
from dstc2conv.task6.format import Exchange, read

FILES = (TRN, DEV, TST)
# The user turns where the sample's live ASR top hypothesis is not the transcription,
# as the task-6 files show them: (heard, transcribed).
HEARD = {("what is the phone number", "whats the phone number"),
         ("modern_european food in the center", "modern_european food in the centre"),
         ("how about chinese", "how about chinese food"),
         ("and anything else", "anything else"),
         ("indian food in the centre", "indian food in the center")}


def _lines(path):
    return [[(line.user, line.bot) if isinstance(line, Exchange) else line for line in d.lines]
            for d in read(path)]


# ---------------------------------------------------------------- --user asr

def test_asr_changes_only_the_user_turns_the_recogniser_got_wrong(tmp_path, capsys):
    assert _build(capsys, tmp_path / "said", "all", SAMPLE)[0] == 0
    code, err = _build(capsys, tmp_path / "heard", "all", SAMPLE, extra=["--user", "asr"])
    assert code == 0, err
    differ = set()
    for name in FILES:
        said, heard = _lines(tmp_path / "said" / name), _lines(tmp_path / "heard" / name)
        assert len(said) == len(heard) and [len(d) for d in said] == [len(d) for d in heard]
        for one, two in zip(said, heard):
            for a, b in zip(one, two):
                if isinstance(a, tuple):
                    assert a[1] == b[1]             # every bot turn and api_call the same
                    if a[0] != b[0]:
                        differ.add((b[0], a[0]))
                else:
                    assert a == b                   # result lines too
    assert differ == HEARD
    said, heard = _manifest(tmp_path / "said"), _manifest(tmp_path / "heard")
    assert "user" not in said and heard["user"] == "asr"
    assert {n: e["dialogs"] for n, e in said["files"].items()} == {n: e["dialogs"] for n, e in heard["files"].items()}
    for name in (CANDIDATES, KB_FILE):
        assert (tmp_path / "said" / name).read_bytes() == (tmp_path / "heard" / name).read_bytes()


def test_asr_and_transcription_files_are_not_one_set(tmp_path, capsys):
    out = tmp_path / "o"
    assert _build(capsys, out, "test", SAMPLE)[0] == 0
    code, err = _build(capsys, out, "dev", SAMPLE, extra=["--user", "asr"])
    assert code == 2 and f"it holds {TST} and it was built with other settings (user turns transcription, this build asr)" in err
    assert _build(capsys, out, "test", SAMPLE, extra=["--user", "asr"])[0] == 0
    assert _build(capsys, out, "dev", SAMPLE, extra=["--user", "asr"])[0] == 0
    assert sorted(_manifest(out)["files"]) == [DEV, TST]


def _break_asr(folder, edit):
    log = folder / "data" / "Mar13_S9A0" / "voip-sample00002-20260101_110000" / "log.json"
    data = json.loads(log.read_text())
    edit(data["turns"][2]["input"]["live"])
    log.write_text(json.dumps(data))


@pytest.mark.parametrize("edit, problem", [
    (lambda live: live.update({"asr-hyps": []}), "no input.live.asr-hyps[0].asr-hyp"),
    (lambda live: live.pop("asr-hyps"), "no input.live.asr-hyps[0].asr-hyp"),
    (lambda live: live["asr-hyps"][0].update({"asr-hyp": None}), "input.live.asr-hyps[0].asr-hyp is None, not text"),
])
def test_bad_asr_is_named_only_when_read(tmp_path, capsys, edit, problem):
    copy = tmp_path / "dstc2"
    shutil.copytree(SAMPLE, copy)
    _break_asr(copy, edit)
    code, err = _build(capsys, tmp_path / "o", "test", copy, extra=["--user", "asr"])
    assert code == 2
    assert err == f"dstc2conv: error: {copy}/data/Mar13_S9A0/voip-sample00002-20260101_110000/log.json: " \
                  f"turn 2: {problem}\n"
    assert _build(capsys, tmp_path / "o", "test", copy)[0] == 0   # the transcriptions need no ASR


# ---------------------------------------------------------------- --partition random

def test_partition_sizes_are_the_published_ones_scaled():
    assert partition_sizes(3235) == {"train": 1618, "dev": 500, "test": 1117}
    assert partition_sizes(2118) == {"train": 1059, "dev": 328, "test": 731}   # 1059.3, 327.4, 731.3
    assert partition_sizes(4) == {"train": 2, "dev": 1, "test": 1}
    for calls in range(200):
        sizes = random_sessions([f"Mar13_S{i % 3}A0/voip-{i:04d}" for i in range(calls)], 0)
        assert {s: len(v) for s, v in sizes.items()} == partition_sizes(calls)


def test_random_partition_of_the_sample(tmp_path, capsys):
    code, err = _build(capsys, tmp_path / "a", "all", SAMPLE, extra=["--partition", "random"])
    assert code == 0, err
    assert "--partition random (seed 0): the 4 calls given dealt out 2 train, 1 dev, 1 test" in err
    manifest = _manifest(tmp_path / "a")
    assert (manifest["partition"], manifest["seed"]) == ("random", 0)
    dealt = {e["split"]: e["dialogs"] for e in manifest["files"].values()}
    assert {s: len(d) for s, d in dealt.items()} == {"train": 2, "dev": 1, "test": 1}
    assert sorted(sum(dealt.values(), [])) == sorted(p.parent.name + "/" + p.name
                                                     for p in SAMPLE.glob("data/*/*"))
    assert all(d == sorted(d) for d in dealt.values())
    # the same seed, the same bytes (whatever --jobs); another seed, another partition
    assert _build(capsys, tmp_path / "b", "all", SAMPLE, extra=["--partition", "random", "--jobs", "1"])[0] == 0
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name
    others = []
    for seed in (1, 2, 3):
        assert _build(capsys, tmp_path / f"s{seed}", "all", SAMPLE,
                      extra=["--partition", "random", "--seed", str(seed)])[0] == 0
        others.append({e["split"]: e["dialogs"] for e in _manifest(tmp_path / f"s{seed}")["files"].values()})
    assert any(other != dealt for other in others)


def test_random_partition_splits_built_apart_are_one_set(tmp_path, capsys):
    random0 = ["--partition", "random"]
    assert _build(capsys, tmp_path / "all", "all", SAMPLE, extra=random0)[0] == 0
    out = tmp_path / "o"
    for split in ("train", "dev", "test"):
        code, err = _build(capsys, out, split, SAMPLE, extra=random0)
        assert code == 0, err
    for name in FILES + (CANDIDATES, KB_FILE):
        assert (out / name).read_bytes() == (tmp_path / "all" / name).read_bytes(), name
    code, err = _build(capsys, out, "dev", SAMPLE, extra=random0 + ["--seed", "1"])
    assert code == 2 and "it was built with other settings (seed 0, this build 1)" in err
    code, err = _build(capsys, out, "dev", SAMPLE)
    assert code == 2 and "it was built with other settings (partition random, this build published)" in err


def test_random_partition_mixes_every_system_into_every_split(tmp_path, capsys):
    """The sample has one dialog manager (S9): copies of its calls under three systems'
    folders, eight calls each."""
    folder = tmp_path / "systems"
    calls = sorted(SAMPLE.glob("data/*/*"))
    for system in ("S0", "S1", "S2"):
        for copy in range(2):
            for call in calls:
                shutil.copytree(call, folder / "data" / f"Mar13_{system}A0" / f"{call.name}-{copy}")
    (folder / "scripts" / "config").mkdir(parents=True)
    shutil.copy(SAMPLE / "scripts" / "config" / "ontology_dstc2.json", folder / "scripts" / "config")
    assert _build(capsys, tmp_path / "o", "all", folder, extra=["--partition", "random"])[0] == 0
    files = _manifest(tmp_path / "o")["files"]
    mix = {e["split"]: Counter(system_of(s) for s in e["dialogs"]) for e in files.values()}
    assert {s: sum(m.values()) for s, m in mix.items()} == partition_sizes(24) == {"train": 12, "dev": 4, "test": 8}
    assert all(set(m) == {"S0", "S1", "S2"} for m in mix.values()), mix


def test_random_partition_of_the_traindev_tarball(tmp_path, capsys):
    code, err = _build(capsys, tmp_path / "o", "all", need(TRAINDEV), extra=["--partition", "random"])
    assert code == 0, err
    files = _manifest(tmp_path / "o")["files"]
    mix = {e["split"]: Counter(s.split("/")[0] for s in e["dialogs"]) for e in files.values()}
    assert {s: sum(m.values()) for s, m in mix.items()} == {"train": 1059, "dev": 328, "test": 731}
    assert mix == {"train": {"Mar13_S0A0": 192, "Mar13_S0A1": 291, "Mar13_S1A0": 288, "Mar13_S1A1": 288},
                   "dev": {"Mar13_S0A0": 59, "Mar13_S0A1": 91, "Mar13_S1A0": 89, "Mar13_S1A1": 89},
                   "test": {"Mar13_S0A0": 132, "Mar13_S0A1": 202, "Mar13_S1A0": 198, "Mar13_S1A1": 199}}


def test_dstc2_split_is_partition_dstc2(tmp_path, capsys):
    assert _build(capsys, tmp_path / "a", "all", SAMPLE, extra=["--dstc2-split"])[0] == 0
    assert _build(capsys, tmp_path / "b", "all", SAMPLE, extra=["--partition", "dstc2"])[0] == 0
    assert _manifest(tmp_path / "a")["partition"] == "dstc2"
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name
    with pytest.raises(SystemExit) as stop:
        _build(capsys, tmp_path / "c", "all", SAMPLE, extra=["--dstc2-split", "--partition", "random"])
    assert stop.value.code == 2
    assert "argument --partition: not allowed with argument --dstc2-split" in capsys.readouterr().err
