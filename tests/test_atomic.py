"""Results under signals and concurrency: a set stopped halfway is never read as one,
signals stop a command cleanly (one line, 128 + the signal), the score history keeps
every writer's entries and pins, and no output path is a pipe. Real processes, real signals."""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import SAMPLE

import dstc2conv
from dstc2conv.builder.pipeline import BuildOptions, build
from dstc2conv.cli import run
from dstc2conv.errors import Dstc2ConvError
from dstc2conv.files import write_text_atomic
from dstc2conv.systems.rules import history as history_module
from dstc2conv.systems.rules.engine import Prediction
from dstc2conv.systems.rules.history import Entry, History, Scored

TST = "dialog-babi-task6-dstc2-tst.txt"
DEV = "dialog-babi-task6-dstc2-dev.txt"
CANDIDATES = "dialog-babi-task6-dstc2-candidates.txt"
POSIX = pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX processes and signals")


def _dstc2conv(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dstc2conv", *map(str, args)], capture_output=True, text=True,
                          timeout=120, **kw)


def _consistent(out) -> bool:
    manifest = json.loads((out / "manifest.json").read_text())
    return all(hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
               for name, digest in manifest["checksums"].items())


# ---------------------------------------------------------------- a set stopped halfway

KILLED_AFTER_ONE_RENAME = """
import os, signal, sys
from dstc2conv.builder import output_set
real = os.replace
def replace(source, target):
    real(source, target)
    if os.path.dirname(target) == sys.argv[-1] and os.path.basename(source) != "COMMIT":
        os.kill(os.getpid(), signal.SIGKILL)   # kill -9 between two renames
output_set.os.replace = replace
from dstc2conv.cli import main
sys.argv = ["dstc2conv"] + sys.argv[1:]
main()
"""


@POSIX
def test_a_set_left_mixed_by_kill_9_is_refused_until_the_next_build(tmp_path):
    out = tmp_path / "o"
    # (a KB from the sample's logs: the result blocks' ratings change with the seed, so every file does)
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out), kb="logs"))
    old_candidates = (out / CANDIDATES).read_bytes()
    proc = subprocess.run([sys.executable, "-c", KILLED_AFTER_ONE_RENAME, "build", "--split", "test",
                           "--raw", str(SAMPLE), "--seed", "5", "--kb", "logs", "--out", str(out)],
                          capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert not _consistent(out)                     # the new test file beside the old candidates and manifest
    assert (out / CANDIDATES).read_bytes() == old_candidates
    for command in (["stats", out / TST], ["score", out / TST, out / TST],
                    ["rules", "score", "--data", out / TST, "--no-history"]):
        result = _dstc2conv(*command)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr == (f"dstc2conv: error: {out / TST}: not the file manifest.json beside it lists: a build "
                                 f"into {out} stopped while putting its files in place, leaving files of two builds; "
                                 "run the build again to finish it\n")
    link = tmp_path / "test.txt"          # by another name, the same file
    link.symlink_to(out / TST)
    with pytest.raises(Dstc2ConvError, match="stopped while putting its files in place"):
        dstc2conv.read(link)
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out), kb="logs", seed=5))   # finishes it
    assert _consistent(out)
    assert _dstc2conv("stats", out / TST).returncode == 0


def test_a_file_edited_in_a_finished_set_is_read_as_it_is(tmp_path, capsys):
    out = tmp_path / "o"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out)))
    path = out / TST
    path.write_text(path.read_text().split("\n\n")[0] + "\n")     # the first dialog only
    assert len(dstc2conv.read(path)) == 1          # no build stopped there: the user's edit stands
    stopped = out / ".dstc2conv-build-1"
    stopped.mkdir()
    (stopped / "COMMIT").write_text('{"remove": [], "move": []}')
    with pytest.raises(Dstc2ConvError, match="run the build again"):
        dstc2conv.read(path)
    assert run(["build", "--split", "test", "--raw", str(SAMPLE), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert len(dstc2conv.read(path)) == 3 and _consistent(out)


# ---------------------------------------------------------------- signals

STOPPED_WHILE_CONVERTING = """
import os, signal, sys, time
from dstc2conv.builder import pipeline
def convert(calls, *args, **kw):
    print(len(calls._workers), flush=True)
    os.killpg(0, int(os.environ["SIGNAL"]))    # as Ctrl-C or `kill -TERM -PGID`: every process of the group
    time.sleep(60)
pipeline._convert = convert
from dstc2conv.cli import main
sys.argv = ["dstc2conv"] + sys.argv[1:]
main()
"""


def _signals_by_default() -> None:
    """In the child: the stop signals as a terminal gives them, whatever the tests were
    started under (``nohup`` ignores SIGHUP, a background job SIGINT; the command then
    rightly leaves them ignored, and this test would wait out its sleep)."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _gone(group: int) -> bool:
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@POSIX
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_stops_a_build_in_one_line_leaving_the_old_set(tmp_path, name):
    number = getattr(signal, name)
    out = tmp_path / "o"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(out)))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    proc = subprocess.Popen([sys.executable, "-c", STOPPED_WHILE_CONVERTING, "build", "--split", "test", "--raw",
                             str(SAMPLE), "--jobs", "2", "--seed", "3", "--quiet", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "SIGNAL": str(number)}, preexec_fn=_signals_by_default)
    stdout, stderr = proc.communicate(timeout=120)
    workers = int(stdout.split()[0])
    assert workers == min(2, os.cpu_count() or 1) - 1
    what = "interrupted" if name == "SIGINT" else f"stopped by {name}"
    assert stderr == f"dstc2conv: {what}: what was being written is left as it was\n"   # no worker's traceback
    assert proc.returncode == 128 + number
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before      # no .dstc2conv-build-PID/ left
    assert _gone(proc.pid)                          # the workers too


@POSIX
def test_a_signal_once_the_command_is_done_changes_nothing(tmp_path):
    script = ("import os, signal, sys\n"
              "real = sys.exit\n"
              "def exit(code):\n"
              "    os.kill(os.getpid(), signal.SIGINT)\n"
              "    os.kill(os.getpid(), signal.SIGTERM)\n"
              "    real(code)\n"
              "sys.exit = exit\n"
              "from dstc2conv.cli import main\n"
              "sys.argv = ['dstc2conv'] + sys.argv[1:]\n"
              "main()\n")
    out = tmp_path / "o"
    proc = subprocess.run([sys.executable, "-c", script, "build", "--split", "test", "--raw", str(SAMPLE),
                           "--quiet", "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines()[-1] == str(out / "manifest.json") and _consistent(out)


@POSIX
def test_sigterm_to_a_command_that_writes_one_file_leaves_no_temporary(tmp_path):
    script = ("import os, signal, sys\n"
              "from dstc2conv import files\n"
              "real = files.os.replace\n"
              "def replace(a, b):\n"
              "    os.kill(os.getpid(), signal.SIGTERM)\n"
              "    real(a, b)\n"
              "files.os.replace = replace\n"
              "from dstc2conv.cli import main\n"
              "sys.argv = ['dstc2conv'] + sys.argv[1:]\n"
              "main()\n")
    data = tmp_path / "data.txt"
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(tmp_path / "o")))
    data.write_bytes((tmp_path / "o" / TST).read_bytes())
    (tmp_path / "preds.txt").write_text("old\n")
    proc = subprocess.run([sys.executable, "-c", script, "rules", "predict", "--data", str(data), "--out",
                           str(tmp_path / "preds.txt")], capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (143, "dstc2conv: stopped by SIGTERM: what was being written is "
                                                   "left as it was\n")
    assert (tmp_path / "preds.txt").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.txt", "o", "preds.txt"]


def test_an_interrupted_write_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    target.write_text("old\n")

    def stopped(source, destination):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", stopped)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(str(target), "new\n")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# ---------------------------------------------------------------- the score history

def _entry(i: int, rules: str = "r.yaml") -> Entry:
    sha = hashlib.sha256(f"{rules} {i}".encode()).hexdigest()
    return Entry(os.path.abspath(rules), sha, "0" * 64, sha, "d" * 64,
                 {"responses": 2, "correct": i % 3, "dialogs": 1, "dialogs_correct": 0, "signature": "s"},
                 "2026-01-01T00:00:00Z")


SCORED = Scored((Prediction("hello", None), Prediction("bye", "r1")), (True, False))


def _writer(folder: str, data: str, worker: int, start) -> None:
    start.wait()
    for i in range(2):
        History(folder, data).add(_entry(i, f"rules-{worker}.yaml"), SCORED,
                                  pin=f"pin{worker}-{i}" if worker * 2 + i < 10 else None)


@POSIX
def test_concurrent_writers_keep_every_entry_and_pin(tmp_path):
    folder, data = str(tmp_path / "h"), str(tmp_path / "data.txt")
    context = multiprocessing.get_context("fork")
    start = context.Barrier(8)
    writers = [context.Process(target=_writer, args=(folder, data, w, start)) for w in range(8)]
    for p in writers:
        p.start()
    for p in writers:
        p.join(60)
    assert [p.exitcode for p in writers] == [0] * 8
    history = History(folder, data)
    assert len(history.entries) == 16 and len(history.pinned) == 10
    assert sorted(os.listdir(folder)) == sorted({e.file for e in history.entries} | {"index.json"})
    for entry in history.entries:
        assert history.scored(entry, 2) == SCORED


def test_a_history_that_cannot_write_its_index_leaves_no_scoring(tmp_path, monkeypatch):
    folder, data = str(tmp_path / "h"), str(tmp_path / "data.txt")
    History(folder, data).add(_entry(0), SCORED)
    before = sorted(os.listdir(folder)), (tmp_path / "h" / "index.json").read_bytes()
    real = history_module.write_text_atomic

    def full(path, text, updates=False):
        if path.endswith("index.json"):
            raise Dstc2ConvError("cannot write: No space left on device", path)
        real(path, text, updates)

    monkeypatch.setattr(history_module, "write_text_atomic", full)
    with pytest.raises(Dstc2ConvError, match="No space left"):
        History(folder, data).add(_entry(1), SCORED, pin="best-yet")
    assert (sorted(os.listdir(folder)), (tmp_path / "h" / "index.json").read_bytes()) == before


# ---------------------------------------------------------------- no output is a pipe

@pytest.fixture
def task6(tmp_path):
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(tmp_path / "o")))
    os.mkfifo(tmp_path / "fifo.csv")
    return tmp_path


def _commands(t):
    test, dev, fifo = t / "o" / TST, t / "o" / DEV, t / "fifo.csv"
    return {
        "score --turns": ["score", test, test, "--turns", fifo],
        "rules predict --out": ["rules", "predict", "--data", test, "--out", fifo],
        "rules tune --out": ["rules", "tune", "--data", dev, "--out", fifo, "--budget", "1"],
        "ir tfidf --out": ["ir", "tfidf", "--train", dev, "--data", test, "--out", fifo],
        "ir nn --out": ["ir", "nn", "--train", dev, "--data", test, "--out", fifo],
        "export dstc6 --out": ["export", "dstc6", test, "--candidates", t / "o" / CANDIDATES, "--out", fifo],
        "rules init": ["rules", "init", t / "init", "--force"],
        "build --out": ["build", "--split", "test", "--raw", SAMPLE, "--out", t / "built", "--quiet"],
    }


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
@pytest.mark.parametrize("name", ["score --turns", "rules predict --out", "rules tune --out", "ir tfidf --out",
                                  "ir nn --out", "export dstc6 --out", "rules init", "build --out"])
def test_no_command_writes_into_a_pipe_no_one_reads(task6, name):
    if name == "rules init":
        (task6 / "init").mkdir()
        os.mkfifo(task6 / "init" / "ontology.yaml")
        where = task6 / "init" / "ontology.yaml"
    elif name == "build --out":
        (task6 / "built").mkdir()
        os.mkfifo(task6 / "built" / TST)
        where = task6 / "built" / TST
    else:
        where = task6 / "fifo.csv"
    result = _dstc2conv(*_commands(task6)[name])
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert str(where) in result.stderr and ("is a pipe" in result.stderr or "not a regular file" in result.stderr)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_the_api_writes_into_no_pipe(tmp_path):
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(tmp_path / "o")))
    os.mkfifo(tmp_path / "p.txt")
    with pytest.raises(Dstc2ConvError, match="is a pipe"):
        dstc2conv.write(dstc2conv.read(tmp_path / "o" / TST), tmp_path / "p.txt")


def test_a_character_device_is_still_an_output(tmp_path, capsys):
    build(BuildOptions(split="test", raw=(str(SAMPLE),), out=str(tmp_path / "o")))
    assert run(["rules", "predict", "--data", str(tmp_path / "o" / TST), "--out", os.devnull]) == 0


# ---------------------------------------------------------------- messages

@pytest.mark.parametrize("argv", [["score", "a", "b", "--bootstrap", "-1"], ["ir", "tfidf", "--rank", "0"],
                                  ["build", "--split", "test", "--jobs", "0"], ["no-such-command"], [],
                                  ["rules"], ["export", "dstc6", "x"]])
def test_a_usage_error_is_one_line(argv):
    result = _dstc2conv(*argv)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "usage:" not in result.stderr
    assert result.stderr.startswith("dstc2conv") and ": error: " in result.stderr
    assert result.stderr.endswith("--help lists the options)\n")


def test_an_ontology_of_200_identical_unknown_lines(tmp_path, capsys):
    assert run(["rules", "init", str(tmp_path / "r")]) == 0
    capsys.readouterr()
    ontology, rules = tmp_path / "r" / "ontology.yaml", str(tmp_path / "r" / "dstc2.yaml")
    ontology.write_text("secret: text\n" * 200)
    assert run(["rules", "check", "--rules", rules]) == 2
    err = capsys.readouterr().err
    assert err == (f"dstc2conv: error: {ontology}:1: not an ontology file: an ontology file is a mapping with "
                   "food, area, price (and synonyms, served), and this one has none of them\n")
    ontology.write_text("food: [thai]\narea: [north]\nprice: [cheap]\n" + "secret: text\n" * 200)
    assert run(["rules", "check", "--rules", rules]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 3)[-1] for line in lines if "duplicate" in line] == [
        "duplicate key 'secret'"] * 3 + ["and 196 more duplicate keys"]
    assert sum("secret" in line for line in lines) <= 4 and len(lines) <= 8
