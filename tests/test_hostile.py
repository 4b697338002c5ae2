"""Hostile inputs: nothing an input holds is lost by a write, nothing corrupt is accepted,
memory stays bounded, and every refusal is one line with exit code 2.

Each test holds one class of fault at its root (the guard every reader or writer goes
through), on cases made here. The memory tests run the CLI in a subprocess under
``resource.setrlimit``, so that a regression fails the test instead of hurting the machine.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from conftest import ONTOLOGY, SAMPLE, write_rule_files

from dstc2conv.builder.output_set import BUILD_PREFIX, COMMIT
from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.task6.format import parse
from dstc2conv.task6.turns import read_turns

RULES = """\
ontology: ontology.yaml
patterns:
  hello: Welcome .
  ask_food: Which food?
rules:
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: ask-food
    when: {missing: food}
    say: ask_food
"""

DIALOG = """\
1 <SILENCE>\tWelcome .
2 hello\tWhich food?
3 thai please\tWhich food?

1 <SILENCE>\tWelcome .
2 hi\tWhich food?
"""

MEMORY = 1 << 30     # bytes of address space a command may take on these small inputs


def _one_error(capsys, argv) -> str:
    """Run the CLI, expecting exit code 2 and one line on stderr; return that line."""
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dstc2conv: error: "), err
    return err.strip()


def _limited(argv: list[str], stdin=None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI in a subprocess whose address space is limited to MEMORY."""
    code = ("import resource, sys\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY}, {MEMORY}))\n"
            "from dstc2conv.cli import main\n"
            "sys.argv = ['dstc2conv', *sys.argv[1:]]\n"
            "main()\n")
    return subprocess.run([sys.executable, "-c", code, *argv], stdin=stdin, capture_output=True, text=True,
                          timeout=timeout)


def _refused(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr[-2000:]


# ---------------------------------------------------------------- 1. an output that is an input

@pytest.fixture
def rule_files(tmp_path):
    rules, data = write_rule_files(tmp_path, RULES, ONTOLOGY, DIALOG)
    return tmp_path, rules, data


def _cases(folder, rules, data):
    ontology = str(folder / "ontology.yaml")
    os.link(data, folder / "hard.txt")
    os.symlink(ontology, folder / "soft.yaml")
    csv = folder / "csv"
    csv.mkdir()
    (csv / "kinds.csv").write_text(DIALOG)
    return {
        "tune over its data": (["rules", "tune", "--rules", rules, "--data", data, "--out", data,
                                "--budget", "1"], data),
        "tune over the ontology the rules name": (["rules", "tune", "--rules", rules, "--data", data, "--out",
                                                   ontology, "--budget", "1"], ontology),
        "predict over the ontology by a link": (["rules", "predict", "--rules", rules, "--data", data, "--out",
                                                 str(folder / "soft.yaml")], ontology),
        "predict over a hard link to the data": (["rules", "predict", "--rules", rules, "--data", data, "--out",
                                                  str(folder / "hard.txt")], data),
        "report over its data": (["rules", "report", "--rules", rules, "--data", str(csv / "kinds.csv"),
                                  "--format", "csv", "--out", str(csv)], str(csv / "kinds.csv")),
        "ir over the candidates": (["ir", "tfidf", "--train", data, "--data", data, "--candidates", ontology,
                                    "--out", ontology], ontology),
    }


@pytest.mark.parametrize("case", ["tune over its data", "tune over the ontology the rules name",
                                  "predict over the ontology by a link", "predict over a hard link to the data",
                                  "report over its data", "ir over the candidates"])
def test_no_command_writes_over_a_file_it_reads(rule_files, capsys, case):
    folder, rules, data = rule_files
    argv, victim = _cases(folder, rules, data)[case]
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert "cannot write: it is the input" in _one_error(capsys, argv)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert os.path.isfile(victim)


def test_the_build_does_not_replace_the_kb_it_reads_by_another(tmp_path, capsys):
    out = tmp_path / "out"
    assert run(["build", "--split", "all", "--raw", str(SAMPLE), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    kb = out / "dialog-babi-task6-dstc2-kb.txt"
    assert run(["build", "--split", "all", "--raw", str(SAMPLE), "--out", str(out), "--kb", str(kb),
                "--quiet"]) == 0   # it reads the KB it writes: the same text, so nothing is lost
    capsys.readouterr()
    edited = kb.read_text().replace(" R_", " R_", 1).splitlines(keepends=True)
    kb.write_text("".join(reversed(edited)))      # another order: a KB file is written as it is read
    before = kb.read_bytes()
    assert run(["build", "--split", "all", "--raw", str(SAMPLE), "--out", str(out), "--kb", str(kb),
                "--quiet"]) == 0
    assert kb.read_bytes() == before


def test_the_build_does_not_write_over_its_tarball(tmp_path, capsys):
    raw = _tarball(tmp_path / "manifest.json")     # a tarball, named as an output of the build
    before = open(raw, "rb").read()
    assert "cannot write: it is the input" in _one_error(
        capsys, ["build", "--split", "all", "--raw", raw, "--out", str(tmp_path), "--quiet"])
    assert open(raw, "rb").read() == before


# ---------------------------------------------------------------- 3. bounded memory, endless reads

def test_endless_and_special_files_are_refused_within_bounded_memory(rule_files, tmp_path):
    folder, rules, data = rule_files
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:      # sparse: 5 GB that take no room
        fh.truncate(5 << 30)
    refusals = [
        (["stats", "/dev/zero"], "/dev/zero: a character device, not a task-6 file"),
        (["stats", str(huge)], "larger than the 64 MB an input may be"),
        (["rules", "check", "--rules", "/dev/zero"], "a character device, not a rule file"),
        (["score", "/dev/zero", data], "a character device, not a predictions file"),
        (["compare", data, data, "--manifest", "/dev/zero"], "a character device, not a manifest"),
        (["ir", "tfidf", "--train", data, "--data", data, "--candidates", "/dev/zero", "--out", "-"],
         "a character device, not a candidates file"),
        (["build", "--split", "all", "--raw", str(SAMPLE), "--kb", "/dev/zero", "--out", str(tmp_path / "o"),
          "--quiet"],
         "a character device, not a KB file"),
    ]
    for argv, message in refusals:
        _refused(_limited(argv), message)


def test_a_pipe_is_read_up_to_the_bound(rule_files, tmp_path):
    _, _, data = rule_files
    with open(data, "rb") as fh:      # a pipe with a writer, as <(cat file): read as the file
        with subprocess.Popen(["cat"], stdin=fh, stdout=subprocess.PIPE) as cat:
            result = _limited(["stats", "/dev/stdin"], stdin=cat.stdout)
    assert result.returncode == 0 and "dialogs" in result.stdout
    rules = str(tmp_path / "rules.yaml")
    scores = []
    for given, stdin in ((data, None), ("/dev/stdin", open(data, "rb"))):   # signed with the bytes read
        cat = subprocess.Popen(["cat"], stdin=stdin, stdout=subprocess.PIPE) if stdin else None
        result = _limited(["rules", "score", "--rules", rules, "--data", given, "--no-history"],
                          stdin=cat.stdout if cat else None)
        assert result.returncode == 0, result.stderr
        scores.append(result.stdout)
        if cat:
            cat.wait()
            stdin.close()
    assert scores[0] == scores[1] and "data:" in scores[0]
    preds = tmp_path / "preds.txt"
    preds.write_text("Welcome .\nWhich food?\nWhich food?\nWelcome .\nWhich food?\n")
    with open(preds, "rb") as fh:     # score reads the predictions twice (are they ranked?): a pipe too
        with subprocess.Popen(["cat"], stdin=fh, stdout=subprocess.PIPE) as cat:
            result = _limited(["score", "/dev/stdin", data], stdin=cat.stdout)
    assert result.returncode == 0 and "(5/5)" in result.stdout, result.stderr
    with subprocess.Popen(["yes"], stdout=subprocess.PIPE) as endless:   # a pipe without an end
        try:
            _refused(_limited(["stats", "/dev/stdin"], stdin=endless.stdout), "larger than the 64 MB")
        finally:
            endless.kill()


PATTERNS = ["a{4294967294}", "x{1000}y{1000}" * 6, "(?:(?:ab){100}){101}", "[a-z]{" + "9" * 5000 + "}",
            "\\w{20000}"]


def test_a_regular_expression_is_bounded_before_it_is_compiled(tmp_path):
    rules = RULES + "".join(f"  - id: big{i}\n    when: {{user_regex: {json.dumps(p)}}}\n    say: hello\n"
                            for i, p in enumerate(PATTERNS))
    paths = write_rule_files(tmp_path, rules, ONTOLOGY, DIALOG)
    result = _limited(["rules", "check", "--rules", paths[0]])
    assert result.returncode == 2, result.stderr[-500:]
    assert result.stderr.count("regular expression too large") == len(PATTERNS), result.stderr[-2000:]


# ---------------------------------------------------------------- 4. one line, exit 2, never a traceback

def test_json_nested_too_deeply_is_one_line(rule_files, capsys, tmp_path):
    _, _, data = rule_files
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in _one_error(capsys, ["compare", data, data, "--manifest", str(deep)])


def test_a_deep_score_history_is_one_line(rule_files, capsys, tmp_path):
    _, rules, data = rule_files
    history = tmp_path / "history"
    assert run(["rules", "score", "--rules", rules, "--data", data, "--history-dir", str(history)]) == 0
    (kept,) = history.iterdir()
    index = kept / "index.json"
    index.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    capsys.readouterr()
    assert _one_error(capsys, ["rules", "score", "--rules", rules, "--data", data, "--history-dir", str(history)]) == (
        f"dstc2conv: error: {index}: the score history is unreadable: remove the folder to start a new one, "
        "or score with --no-history")


@pytest.mark.parametrize("where", ["rules", "ontology"])
def test_a_control_character_in_yaml_is_one_line(rule_files, capsys, where):
    folder, rules, _ = rule_files
    path = folder / ("rules.yaml" if where == "rules" else "ontology.yaml")
    text = path.read_text().split("\n")
    text.insert(2, "# a comment with \x07 in it")
    path.write_text("\n".join(text))
    assert _one_error(capsys, ["rules", "check", "--rules", rules]) == (
        f"dstc2conv: error: {path}:3: YAML: the character #x0007 is not allowed, not even in a comment")


def test_numbers_of_thousands_of_digits_are_one_line(tmp_path, capsys):
    lines = tmp_path / "lines.txt"
    lines.write_text("9" * 5000 + " hello\tWelcome .\n")
    assert "has more than 9 digits" in _one_error(capsys, ["stats", str(lines)])
    rating = tmp_path / "rating.txt"
    rating.write_text("1 hi\tapi_call thai north cheap\n2 x R_rating " + "7" * 5000 + "\n3 ok\tbye\n")
    assert run(["stats", str(rating)]) == 0


def test_a_path_that_is_not_utf8_prints_to_a_strict_stdout(tmp_path, monkeypatch):
    out = os.path.join(os.fsencode(tmp_path), b"out-\xff")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert run(["build", "--split", "dev", "--raw", str(SAMPLE), "--out", os.fsdecode(out), "--quiet"]) == 0
    stdout.flush()
    assert os.path.join(out, b"manifest.json") in stdout.buffer.getvalue().split(b"\n")


def test_cr_only_line_ends_are_said(tmp_path, capsys):
    path = tmp_path / "cr.txt"
    path.write_bytes(DIALOG.replace("\n", "\r").encode())
    assert "end with a carriage return alone" in _one_error(capsys, ["stats", str(path)])


# ---------------------------------------------------------------- 5. the output folder is not a door

def test_a_link_named_as_a_build_folder_is_not_followed(tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("mine")
    (elsewhere / COMMIT).write_text(json.dumps({"remove": [], "move": ["secret.txt"]}))
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{BUILD_PREFIX}1").symlink_to(elsewhere)
    error = _one_error(capsys, ["build", "--split", "dev", "--raw", str(SAMPLE), "--out", str(out)])
    assert f"{out / BUILD_PREFIX}1: {BUILD_PREFIX}1 in the output folder" in error and "symbolic link" in error
    assert (elsewhere / "secret.txt").read_text() == "mine" and not (out / "secret.txt").exists()


def test_a_commit_list_that_moves_a_link_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    work = out / f"{BUILD_PREFIX}1"
    work.mkdir(parents=True)
    (work / "manifest.json").symlink_to("/etc/passwd")
    (work / COMMIT).write_text(json.dumps({"remove": [], "move": ["manifest.json"]}))
    assert "not a regular file" in _one_error(capsys, ["build", "--split", "dev", "--raw", str(SAMPLE),
                                                         "--out", str(out)])
    assert not (out / "manifest.json").exists()


# ---------------------------------------------------------------- 6. messages

def test_rules_score_refuses_negative_flips(rule_files, capsys):
    _, rules, data = rule_files
    with pytest.raises(SystemExit) as stop:
        run(["rules", "score", "--rules", rules, "--data", data, "--flips", "-1"])
    assert stop.value.code == 2 and "-1: give 0 or more" in capsys.readouterr().err


def test_an_unknown_file_as_ontology_is_quoted_short(rule_files, capsys):
    folder, rules, _ = rule_files
    (folder / "ontology.yaml").write_text("".join(f"user{i}: x{i}\n" for i in range(30)))
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err   # no key of an ontology: some other file, none of it quoted
    assert err.count("\n") == 1 and "not an ontology file" in err and "user" not in err
    (folder / "ontology.yaml").write_text("food: [x]\n" + "".join(f"user{i}: x{i}\n" for i in range(30)))
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert err.count("unknown key '") == 3 and "and 27 more unknown keys" in err and "user29" not in err


def test_a_report_set_is_written_whole_or_not_at_all(rule_files, capsys, monkeypatch):
    folder, rules, data = rule_files
    out = folder / "report"
    assert run(["rules", "report", "--rules", rules, "--data", data, "--format", "csv", "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(before) == ["confusions.csv", "kinds.csv", "rules.csv"]
    import builtins

    from dstc2conv.builder import output_set

    written = []

    def full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode:
            written.append(path)
            if len(written) == 2:
                raise OSError(28, "No space left on device")
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(output_set, "open", full_disk, raising=False)
    (folder / "data.txt").write_text(DIALOG.replace("hello", "hello there"))
    capsys.readouterr()
    assert "No space left on device" in _one_error(
        capsys, ["rules", "report", "--rules", rules, "--data", data, "--format", "csv", "--out", str(out)])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


# ---------------------------------------------------------------- 2. corrupt DSTC2 input is refused

SESSION = "Mar13_S9A0/voip-sample00001-20260101_100000"


def _tarball(path, extra=(), skip=(), fmt=None) -> str:
    """The shipped sample as a gzipped tarball; ``extra``: (name, bytes) added after it,
    ``skip``: member names left out."""
    import tarfile

    mode = "w:xz" if str(path).endswith(".xz") else "w" if str(path).endswith(".tar") else "w:gz"
    level = {"compresslevel": 1} if mode == "w:gz" else {}
    with tarfile.open(path, mode, format=fmt or tarfile.PAX_FORMAT, **level) as tar:
        for root, folders, files in sorted(os.walk(SAMPLE)):
            folders.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                arcname = os.path.relpath(full, SAMPLE)
                if arcname.startswith(("data", "scripts")) and arcname not in skip:
                    tar.add(full, arcname)
        for name, data in extra:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def _build_refused(capsys, tmp_path, raw, message, *extra) -> str:
    out = tmp_path / "out"
    error = _one_error(capsys, ["build", "--split", "all", "--raw", str(raw), "--out", str(out), "--quiet",
                                *extra])
    assert message in error, error
    assert not out.exists()
    return error


@pytest.mark.parametrize("damage, message", [
    (lambda data: data[:-8] + bytes([data[-8] ^ 1]) + data[-7:], "CRC check failed"),   # the CRC trailer
    (lambda data: data[:-4], "ended before the end-of-stream marker"),                   # the length cut off
    (lambda data: data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF]) + data[len(data) // 2 + 1:],
     "cannot read the tarball"),                                                          # the deflate stream
])
def test_a_damaged_gzip_stream_is_refused(tmp_path, capsys, damage, message):
    good = _tarball(tmp_path / "good.tar.gz")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(damage(open(good, "rb").read()))
    for jobs in ("1", "2"):
        _build_refused(capsys, tmp_path, bad, message, "--jobs", jobs)


def test_a_damaged_xz_stream_is_one_line(tmp_path, capsys):
    good = _tarball(tmp_path / "good.tar.xz")
    data = bytearray(open(good, "rb").read())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.tar.xz"
    bad.write_bytes(bytes(data))
    _build_refused(capsys, tmp_path, bad, "cannot read the tarball")


@pytest.mark.parametrize("extra, message", [
    ((("elsewhere/scripts/config/dstc2_test.flist", b"Mar13_S9A0/voip-sample00001-20260101_100000\n"),),
     "dstc2_test.flist twice: scripts/config/dstc2_test.flist and elsewhere/scripts/config/dstc2_test.flist"),
    (((f"data/{SESSION}/log.json", b"{}"),), f"call {SESSION}'s log.json twice"),
    (((f"copy/data/{SESSION}/label.json", b"{}"),), f"call {SESSION}'s label.json twice"),
])
def test_a_file_twice_in_one_tarball_is_refused(tmp_path, capsys, extra, message):
    _build_refused(capsys, tmp_path, _tarball(tmp_path / "dup.tar.gz", extra), message)


def test_a_link_to_a_call_file_is_named(tmp_path, capsys):
    import tarfile

    raw = _tarball(tmp_path / "link.tar", skip=(f"data/{SESSION}/label.json",))
    with tarfile.open(raw, "a") as tar:
        info = tarfile.TarInfo(f"data/{SESSION}/label.json")
        info.type, info.linkname = tarfile.LNKTYPE, f"data/{SESSION}/log.json"
        tar.addfile(info)
    _build_refused(capsys, tmp_path, raw, f"data/{SESSION}/label.json is a hard link")


def _sample_copy(tmp_path, edit, which="label.json"):
    """The sample as a folder, one call's ``which`` changed by ``edit`` (a function of its JSON)."""
    import shutil

    raw = tmp_path / "raw"
    shutil.copytree(SAMPLE, raw, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    path = raw / "data" / SESSION / which
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return raw, path


def _set(keys, value):
    def edit(data):
        for key in keys[:-1]:
            data = data[key]
        data[keys[-1]] = value
    return edit


@pytest.mark.parametrize("which, keys, value, message", [
    ("label.json", ["turns"], 5, "label.json: no 'turns' list"),
    ("log.json", ["turns"], None, "log.json: no 'turns' list"),
    ("label.json", ["turns", 0, "requested-slots"], 5, "turn 0: goal-labels, method-label or requested-slots"),
    ("label.json", ["turns", 1, "goal-labels", "food"], {"x": 1}, "turn 1: goal-labels, method-label"),
    ("log.json", ["turns", 0, "output", "transcript"], None, "log.json: turn 0: output.transcript is None"),
    ("log.json", ["turns", 1, "output", "dialog-acts"], [{"act": "offer", "slots": [["name", {"x": 1}]]}],
     "turn 1: malformed dialog act"),
])
def test_json_of_the_wrong_type_in_a_call_is_said_on_its_file(tmp_path, capsys, which, keys, value, message):
    raw, path = _sample_copy(tmp_path, _set(keys, value), which)
    for jobs in ("1", "2"):
        assert f"{SESSION}/{which}: " in _build_refused(capsys, tmp_path, raw, message, "--jobs", jobs)


def test_a_session_name_that_is_not_utf8_is_refused_whatever_the_jobs(tmp_path, capsys):
    raw, path = _sample_copy(tmp_path, lambda data: None)
    os.rename(path.parent, os.path.join(os.fsencode(path.parent.parent), b"voip-\xff"))
    for jobs in ("1", "2"):
        _build_refused(capsys, tmp_path, raw, "a session folder's name that is not UTF-8", "--jobs", jobs)


def test_an_empty_test_tarball_is_said_to_be_read(tmp_path, capsys):
    import tarfile

    raw = tmp_path / "dstc2_test.tar.gz"
    with tarfile.open(raw, "w:gz") as tar:
        info = tarfile.TarInfo("README")
        tar.addfile(info, io.BytesIO(b""))
    assert _one_error(capsys, ["build", "--split", "test", "--raw", str(raw), "--out", str(tmp_path / "o")]) == (
        "dstc2conv: error: no dstc2_test.flist in the inputs: --split test needs dstc2_test.tar.gz "
        f"(read, but it holds no DSTC2 flist or call: {raw})")


def test_members_are_bounded_in_memory(tmp_path):
    zeros = b"\0" * (64 << 20)
    big = [(f"data/{SESSION.replace('00001', '00009')}/log.json", zeros[:40 << 20])]
    raw = _tarball(tmp_path / "big.tar.gz", big)
    _refused(_limited(["build", "--split", "all", "--raw", raw, "--out", str(tmp_path / "o"), "--quiet"]),
             "is 40 MB, more than the 16 MB a DSTC2 file may be")
    waiting = [(f"data/Mar13_S9A0/voip-w{i}/log.json", zeros[:15 << 20]) for i in range(5)]
    raw = _tarball(tmp_path / "waiting.tar.gz", waiting)
    _refused(_limited(["build", "--split", "all", "--raw", raw, "--out", str(tmp_path / "o"), "--quiet"]),
             "more than 64 MB of call files wait for their other half")
    unused = _tarball(tmp_path / "unused.tar.gz", [("data/big.bin", zeros)])   # 64 MB, never held
    result = _limited(["build", "--split", "all", "--raw", unused, "--out", str(tmp_path / "o"), "--quiet"])
    assert result.returncode == 0, result.stderr   # (read past a megabyte at a time)
    _refused(_limited(["build", "--split", "all", "--raw", "/dev/zero", "--out", str(tmp_path / "o")], timeout=30),
             "/dev/zero: a character device, not a DSTC2 tarball or folder")
    zeros = tmp_path / "zeros.tar.xz"     # a file of zeros is not read to its end as xz padding
    with open(zeros, "wb") as fh:
        fh.truncate(4 << 30)
    _refused(_limited(["build", "--split", "all", "--raw", str(zeros), "--out", str(tmp_path / "o")], timeout=30),
             "not a tarball (neither gzip, bzip2, xz nor plain tar)")


def test_a_long_dialog_does_not_fill_the_memory_of_tfidf(tmp_path):
    """The conversation before each turn grows with the dialog: one turn's is held at a
    time, so a 1.6 MB dialog of 160 turns (lines near the 10,000-character limit) stays
    well under the limit."""
    data = tmp_path / "long.txt"
    data.write_text("".join(f"{i} {'a ' * 4_990}\thi\n" for i in range(1, 161)))
    result = _limited(["ir", "tfidf", "--train", str(data), "--data", str(data), "--out", str(tmp_path / "o.txt"),
                       "--quiet"])
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "o.txt").read_text() == "hi\n" * 160


@pytest.mark.parametrize("make", [os.mkfifo, os.mkdir])
def test_an_output_name_taken_by_a_pipe_or_a_folder_is_refused_by_name(tmp_path, capsys, make):
    out = tmp_path / "out"
    out.mkdir()
    make(out / "dialog-babi-task6-dstc2-tst.txt")
    assert _one_error(capsys, ["build", "--split", "test", "--out", str(out), "--quiet"]) == (
        f"dstc2conv: error: {out}/dialog-babi-task6-dstc2-tst.txt: dialog-babi-task6-dstc2-tst.txt in the output "
        "folder is not a regular file: move it away")
    assert sorted(p.name for p in out.iterdir()) == ["dialog-babi-task6-dstc2-tst.txt"]


def test_a_number_too_long_in_a_rule_file_is_one_line(rule_files, capsys):
    folder, rules, _ = rule_files
    path = folder / "rules.yaml"
    text = path.read_text().split("\n")
    text.insert(3, "# a long number next")
    path.write_text("\n".join(text).replace("priority: 100", "priority: " + "9" * 5000, 1))
    line = next(i for i, t in enumerate(path.read_text().split("\n"), 1) if "9" * 5000 in t)
    assert _one_error(capsys, ["rules", "check", "--rules", rules]) == (
        f"dstc2conv: error: {path}:{line}: YAML: a number too long to read")


def test_a_rule_id_with_an_escape_sequence_is_refused(rule_files, capsys):
    folder, rules, _ = rule_files
    path = folder / "rules.yaml"
    path.write_text(path.read_text().replace("  - id: greet\n", '  - id: "greet\\e]0;title\\a"\n', 1))
    error = _one_error(capsys, ["rules", "check", "--rules", rules])
    assert error.endswith("a rule needs an 'id' (a string of printable characters)") and "\x1b" not in error


def test_a_file_cut_short_mid_line_is_refused(tmp_path, capsys):
    path = tmp_path / "cut.txt"
    text = DIALOG.rstrip("\n")
    cut = text[:text.rindex("\t") - 1]                 # cut before the last line's tab: no whole line
    path.write_text(cut)
    assert _one_error(capsys, ["stats", str(path)]).endswith(
        f"cut.txt:{cut.count(chr(10)) + 1}: the last line has no line end and is not a whole line (neither an "
        "exchange (user<TAB>bot), a result fact (name R_attr value) nor 'api_call no result': 'h'), so the file "
        "may be cut short")
    with pytest.raises(Dstc2ConvError, match="may be cut short"):
        read_turns(path)
    path.write_text(text + "\n")
    assert run(["stats", str(path)]) == 0
    assert parse(text) == parse(text + "\n")            # a text in Python, not a file, may leave it out


def test_a_whole_last_line_without_its_line_end_is_read_with_one_warning(tmp_path, capsys, caplog):
    (tmp_path / "whole").mkdir()
    (tmp_path / "unended").mkdir()
    whole, unended = tmp_path / "whole" / "d.txt", tmp_path / "unended" / "d.txt"
    whole.write_text(DIALOG)
    unended.write_text(DIALOG.rstrip("\n"))           # as "\n".join(lines) writes it
    assert run(["stats", str(whole)]) == 0
    expected = capsys.readouterr().out
    assert run(["stats", str(unended)]) == 0
    assert capsys.readouterr().out == expected
    assert read_turns(unended) == read_turns(whole)
    assert [r.getMessage() for r in caplog.records] == [   # one warning a file, however often it is read
        f"warning: {unended}:6: the last line has no line end; read as a whole line (a file cut short there could "
        "not be told from it)"]
    done = subprocess.run([sys.executable, "-m", "dstc2conv", "stats", str(unended)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == ("warning: " f"{unended}:6: the last line has no line end; read as a "
                                                  "whole line (a file cut short there could not be told from it)\n")
