"""The build's bytes, whatever the number of processes and the tarball's format."""
from __future__ import annotations

import json
import multiprocessing
import shutil
import tarfile

import pytest
from conftest import GOLDEN, SAMPLE

from dstc2conv.builder import pipeline as build_module
from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.cli import run
from dstc2conv.dstc2 import archive
from dstc2conv.dstc2 import calls as dstc2
from dstc2conv.errors import Dstc2ConvError


def _built(out) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def _golden(name: str) -> dict[str, bytes]:
    files = _built(GOLDEN / name)
    files["manifest.json"] = files["manifest.json"].replace(b"<sample>", str(SAMPLE).encode())
    return files


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("user, kb, golden", [("transcription", None, "sample-all"), ("asr", None, "sample-all-asr"),
                                              ("transcription", "logs", "sample-all-kb-logs")])
def test_sample_build_is_the_golden_bytes(tmp_path, jobs, user, kb, golden):
    """The shipped KB by default; with ``--kb logs``, the build of the KB from the logs,
    byte for byte as it was before the shipped KB became the default (sample-all-kb-logs)."""
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(tmp_path / "o"), user=user, jobs=jobs, kb=kb))
    assert _built(tmp_path / "o") == _golden(golden)


def _tarball(path, mode="w:gz", form=tarfile.PAX_FORMAT, top=""):
    with tarfile.open(path, mode, format=form) as tf:
        for part in ("data", "scripts"):
            tf.add(SAMPLE / part, arcname=top + part)
    return str(path)


@pytest.mark.parametrize("name, mode, form, top, plain", [
    ("pax.tar.gz", "w:gz", tarfile.PAX_FORMAT, "", True),
    ("gnu.tar.gz", "w:gz", tarfile.GNU_FORMAT, "", True),
    ("ustar.tar", "w", tarfile.USTAR_FORMAT, "", True),
    ("longnames.tar.gz", "w:gz", tarfile.PAX_FORMAT, "x" * 90 + "/", True),   # pax path records
    ("gnulong.tar.gz", "w:gz", tarfile.GNU_FORMAT, "x" * 90 + "/", False),    # GNU long-name headers
    ("bzip2.tar.bz2", "w:bz2", tarfile.PAX_FORMAT, "", False),
])
def test_every_tarball_reads_as_tarfile_reads_it(tmp_path, name, mode, form, top, plain):
    path = _tarball(tmp_path / name, mode, form, top)
    members = list(archive._tarfile_members(path))
    if plain:
        assert list(archive._plain_members(path)) == members
    else:
        with pytest.raises(archive._NotPlain):
            list(archive._plain_members(path))
    build(BuildOptions(split="all", raw=(path,), out=str(tmp_path / "o")))
    built, golden = _built(tmp_path / "o"), _golden("sample-all")
    del built["manifest.json"], golden["manifest.json"]
    assert built == golden


CALL = "Mar13_S9A0/voip-sample00001-20260101_100000"


def _files(call: str = CALL) -> tuple[dict, dict]:
    folder = SAMPLE / "data" / call
    return json.loads((folder / "log.json").read_text()), json.loads((folder / "label.json").read_text())


def _parsed(reader, log: dict, label: dict, asr: bool):
    """A Call, or the text of the error that reading it gives."""
    try:
        return reader(CALL, json.dumps(log).encode(), json.dumps(label).encode(), "sample", asr)
    except Dstc2ConvError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("asr", [False, True])
@pytest.mark.parametrize("call", [f"{d.parent.name}/{d.name}" for d in sorted((SAMPLE / "data").glob("*/*"))])
def test_the_typed_decoder_reads_what_the_strict_reader_reads(call, asr):
    log, label = _files(call)
    typed = dstc2._typed_call(call, json.dumps(log).encode(), json.dumps(label).encode(), "sample", asr)
    assert typed is not None
    assert typed == dstc2._strict_call(call, json.dumps(log).encode(), json.dumps(label).encode(), "sample", asr)


def _set(*path_and_value):
    *path, key, value = path_and_value

    def change(data):
        for step in path:
            data = data[step]
        if value is DELETE:
            del data[key]
        else:
            data[key] = value
    return change


DELETE = object()
# Inputs the typed decoder does not take: the reader says what the strict reader says, an
# error naming the file, turn and field (a call the strict reader reads, the typed one reads).
CHANGES = {
    "transcript not text": ("log", _set("turns", 1, "output", "transcript", 5)),
    "no output": ("log", _set("turns", 1, "output", DELETE)),
    "unknown system act": ("log", _set("turns", 1, "output", "dialog-acts", 0, "act", "teleport")),
    "malformed act": ("log", _set("turns", 1, "output", "dialog-acts", 0, "slots", [["name"]])),
    "a slot a text of two letters": ("log", _set("turns", 1, "output", "dialog-acts", 0, "slots", ["ab"])),
    "a slot an object": ("label", _set("turns", 0, "semantics", "json", 0, "slots", [{"food": 1, "x": 2}])),
    "manager not a number": ("log", _set("system-specific", "dialog-manager", "mdp")),
    "manager true": ("log", _set("system-specific", "dialog-manager", True)),
    "no ASR hypothesis": ("log", _set("turns", 2, "input", "live", "asr-hyps", [])),
    "ASR hypothesis not text": ("log", _set("turns", 2, "input", "live", "asr-hyps", 0, "asr-hyp", None)),
    "no log turns": ("log", _set("turns", DELETE)),
    "a label turn less": ("label", lambda d: d["turns"].pop()),
    "goal labels null": ("label", _set("turns", 0, "goal-labels", None)),
    "no semantics": ("label", _set("turns", 0, "semantics", "json", DELETE)),
    "unknown user act": ("label", _set("turns", 0, "semantics", "json", 0, "act", "dance")),
    "requested slots text": ("label", _set("turns", 0, "requested-slots", "ab")),
    "method label null": ("label", _set("turns", 0, "method-label", None)),
    "label a list": ("label", lambda d: d.clear()),
}


@pytest.mark.parametrize("asr", [False, True])
@pytest.mark.parametrize("change", CHANGES)
def test_what_the_typed_decoder_does_not_take_is_read_as_before(change, asr):
    log, label = _files()
    which, edit = CHANGES[change]
    edit(log if which == "log" else label)
    got = _parsed(dstc2.parse_call, log, label, asr)
    assert got == _parsed(dstc2._strict_call, log, label, asr)
    assert str(got).startswith("error: ") or not asr and "ASR" in change   # (only what the strict reader refuses)
    if asr or "ASR" not in change:   # (the hypotheses are read only for --user asr)
        assert dstc2._typed_call(CALL, json.dumps(log).encode(), json.dumps(label).encode(), "sample", asr) is None


# Slots, slot values and labels that are numbers (DSTC2's test tarball says
# inform(count=N) with N an integer), and a system-specific that is no object: the typed
# decoder takes them, read as the strict reader reads them (numbers made text), and the
# strict reader is not called.
NUMBERS = {
    "count an integer": ("log", _set("turns", 1, "output", "dialog-acts", 1, {"act": "inform", "slots": [["count", 3]]})),
    "count past 64 bits": ("log", _set("turns", 1, "output", "dialog-acts", 1, "slots", [["count", 2 ** 70]])),
    "value a float": ("log", _set("turns", 1, "output", "dialog-acts", 1, "slots", [["count", 1.5e3]])),
    "value true": ("log", _set("turns", 2, "output", "dialog-acts", 0, "slots", [["area", True]])),
    "1, 1.0 and true": ("log", _set("turns", 1, "output", "dialog-acts", [   # (equal as keys: "1", "1.0", "True")
        {"act": "inform", "slots": [["count", v]]} for v in ("1", 1, 1.0, True, 1, "1")])),
    "slot a number": ("label", _set("turns", 0, "semantics", "json", 0, "slots", [[7, "x"]])),
    "goal value a number": ("label", _set("turns", 0, "goal-labels", "food", 7)),
    "method label a number": ("label", _set("turns", 0, "method-label", 0)),
    "requested slots numbers": ("label", _set("turns", 0, "requested-slots", [1, "food", -0.0])),
    "system-specific a list": ("log", _set("system-specific", [1e300, {"dialog-manager": 2}])),   # (no dialog manager)
    "system-specific a text": ("log", _set("system-specific", "mdp")),
}


@pytest.mark.parametrize("asr", [False, True])
@pytest.mark.parametrize("change", NUMBERS)
def test_the_typed_decoder_reads_numbers_as_the_strict_reader(change, asr, monkeypatch):
    log, label = _files()
    which, edit = NUMBERS[change]
    edit(log if which == "log" else label)
    strict = _parsed(dstc2._strict_call, log, label, asr)
    assert not isinstance(strict, str), strict
    monkeypatch.setattr(dstc2, "_strict_call", _not_called)
    assert _parsed(dstc2.parse_call, log, label, asr) == strict
    if change == "1, 1.0 and true":
        assert [act.slots[0][1] for act in strict.turns[1].system_acts] == ["1", "1", "1.0", "True", "1", "1"]


def _not_called(*args):
    raise AssertionError("the strict reader read a call the typed decoder should take")


def test_an_integer_count_is_text_in_the_call_and_the_export(tmp_path):
    """inform(count=3), a number, is the slot ("count", "3"), as the strict reader makes
    it; the whole build, export included, is the same bytes as the strict reader's."""
    raw = tmp_path / "dstc2"
    shutil.copytree(SAMPLE, raw)
    path = raw / "data" / CALL / "log.json"
    log = json.loads(path.read_text())
    log["turns"][1]["output"]["dialog-acts"].insert(0, {"act": "inform", "slots": [["count", 3]]})
    path.write_text(json.dumps(log, indent=1))
    call = dstc2.parse_call(CALL, path.read_bytes(), (path.parent / "label.json").read_bytes(), "sample")
    assert call.turns[1].system_acts[0] == dstc2.Act("inform", (("count", "3"),))
    options = dict(split="all", raw=(str(raw),), exports=("jsonl",), jobs=1)
    build(BuildOptions(out=str(tmp_path / "typed"), **options))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(dstc2, "_typed_call", lambda *args: None)
        build(BuildOptions(out=str(tmp_path / "strict"), **options))
    typed, strict = _built(tmp_path / "typed"), _built(tmp_path / "strict")
    assert b'"count"' in typed["dialog-babi-task6-dstc2-tst.jsonl"]
    del typed["manifest.json"], strict["manifest.json"]
    assert typed == strict


# ---------------------------------------------------------------- the worker processes

SESSIONS = [f"{d.parent.name}/{d.name}" for d in sorted((SAMPLE / "data").glob("*/*"))]


def _errors(capsys, raw, out, jobs, *extra, split="all") -> str:
    code = run(["build", "--split", split, "--raw", str(raw), "--out", str(out), "--jobs", str(jobs), *extra])
    err = capsys.readouterr().err
    assert code == 2
    return err


@pytest.mark.parametrize("session", SESSIONS)
def test_a_reading_error_is_the_same_whichever_process_reads_the_call(tmp_path, capsys, session):
    raw = tmp_path / "dstc2"
    shutil.copytree(SAMPLE, raw)
    log = raw / "data" / session / "log.json"
    log.write_text(log.read_text()[:-40])
    tarball = _tarball(tmp_path / "dstc2.tar.gz", top="")   # (of the sample as it is: read as a second input)
    one, two = (_errors(capsys, raw, tmp_path / f"o{jobs}", jobs) for jobs in (1, 2))
    assert one == two and f"{session}/log.json: malformed JSON" in one
    one, two = (_errors(capsys, tarball, tmp_path / f"t{jobs}", jobs, "--raw", str(raw)) for jobs in (1, 2))
    assert one == two


@pytest.mark.parametrize("failing", [(1, 3), (1, 2), (2,)])   # (the sample's third call is the worker's)
def test_a_conversion_error_names_the_first_call_whatever_the_processes(tmp_path, capsys, monkeypatch, failing):
    real = build_module.convert_call
    failing = [SESSIONS[i] for i in failing]

    def fails(call, *args, **kwargs):
        if call.session in failing:
            raise ValueError("no such turn")
        return real(call, *args, **kwargs)

    monkeypatch.setattr(build_module, "convert_call", fails)   # (the forked workers have it too)
    errors = {jobs: _errors(capsys, SAMPLE, tmp_path / f"o{jobs}", jobs) for jobs in (1, 2)}
    assert errors[1] == errors[2]
    files = json.loads(_golden("sample-all")["manifest.json"])["files"]
    order = [s for name in ("dialog-babi-task6-dstc2-trn.txt", "dialog-babi-task6-dstc2-dev.txt",
                            "dialog-babi-task6-dstc2-tst.txt") for s in files[name]["dialogs"]]
    first = min(failing, key=order.index)
    assert f"cannot convert call {first}: ValueError: no such turn" in errors[1]


def test_no_worker_is_left_after_a_build_that_stops(tmp_path, capsys):
    out = tmp_path / "o"
    assert run(["build", "--split", "test", "--raw", str(SAMPLE), "--out", str(out), "--jobs", "2"]) == 0
    (out / "dialog-babi-task6-dstc2-dev.txt").write_text("not of this build\n")   # refused without --replace
    assert _errors(capsys, SAMPLE, out, 2, split="test").count("--replace") == 1
    assert multiprocessing.active_children() == []


def test_calls_held_by_a_worker_are_those_read_here():
    here = archive.read_source(SAMPLE)
    there = archive.read_source(SAMPLE, workers=2, keep=True)
    try:
        assert list(there.calls) == sorted(here.calls) and len(there.calls) == len(here.calls)
        assert all(there.calls[s] == here.calls[s] for s in here.calls)
        assert there.calls.map(_session) == sorted(here.calls)
        backwards = sorted(here.calls, reverse=True)
        assert there.calls.map(_turns, 1, sessions=backwards) == [len(here.calls[s].turns) + 1 for s in backwards]
        with pytest.raises(ZeroDivisionError):
            there.calls.map(_fails)
        assert there.calls.map(_session) == sorted(here.calls)   # still answering
    finally:
        there.calls.close()
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("failing", [(0,), (1,), (2,), (3,), (1, 2), (2, 3), (3, 0)])
def test_map_raises_the_first_failing_call_in_the_order_asked(failing):
    """Whichever process holds the failing calls: that of the first in ``sessions``."""
    for workers in (1, 2):
        source = archive.read_source(SAMPLE, workers=workers, keep=True)
        try:
            order = list(source.calls)[::-1]
            bad = [order[i] for i in failing]
            with pytest.raises(ValueError) as raised:
                source.calls.map(_fails_on, bad, sessions=order)
            assert str(raised.value) == min(bad, key=order.index)
        finally:
            source.calls.close()


def _session(call):
    return call.session


def _turns(call, more):
    return len(call.turns) + more


def _fails(call):
    return 1 / 0


def _fails_on(call, bad):
    if call.session in bad:
        raise ValueError(call.session)
    return call.session


def test_one_kb_one_signature(tmp_path, capsys):
    """A build with a KB file writes that file byte for byte: the manifest's SHA-256 is
    the written file's, and a score signature's ``kb:`` is the same whichever copy scores.
    A folder holding the same KB written sorted (as earlier builds wrote it) keeps its files."""
    from dstc2conv.convert.kb import format_kb, read_kb
    from dstc2conv.evaluate.entities import shipped_kb

    out = tmp_path / "o"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out), kb="shipped"))
    kb = out / "dialog-babi-task6-dstc2-kb.txt"
    assert kb.read_bytes() == open(shipped_kb(), "rb").read()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kb"]["sha256"] == manifest["checksums"][kb.name]
    ref = out / "dialog-babi-task6-dstc2-tst.txt"
    preds = tmp_path / "preds.txt"
    preds.write_text("".join(line.split("\t")[1] + "\n" for line in ref.read_text().splitlines() if "\t" in line))
    signatures = []
    for extra in ([], ["--kb", shipped_kb()], ["--kb", str(kb)]):
        assert run(["score", str(preds), str(ref), "--json", *extra]) == 0
        signatures.append(json.loads(capsys.readouterr().out)["signature"])
    assert len(set(signatures)) == 1 and f"|kb:{manifest['kb']['sha256'][:12]}|" in signatures[0]
    # the same KB written sorted: the same KB, the test file stays; the KB file is rewritten as shipped
    kb.write_text(format_kb(read_kb(shipped_kb())))
    assert kb.read_bytes() != open(shipped_kb(), "rb").read()
    build(BuildOptions(split="dev", raw=(str(SAMPLE),), out=str(out), kb="shipped"))
    assert ref.is_file() and kb.read_bytes() == open(shipped_kb(), "rb").read()
    # another KB's file: refused
    kb.write_text(format_kb(read_kb(shipped_kb())).replace("R_cuisine italian", "R_cuisine thai", 1))
    with pytest.raises(Dstc2ConvError, match="built with another KB"):
        build(BuildOptions(split="dev", raw=(str(SAMPLE),), out=str(out), kb="shipped"))
