"""The one reporter: notes and progress through logging, shown only where asked."""
from __future__ import annotations

import logging
import re

from dstc2conv.reporter import NOTES, PROGRESS, note, progress, reporting, stopwatch


def test_nothing_is_shown_unless_asked(capsys):
    note("a note")
    progress("a step")
    assert capsys.readouterr().err == ""


def test_notes_and_progress_as_asked(capsys):
    for notes, shown_progress, expected in [(True, True, "a note\na step\n"), (True, False, "a note\n"),
                                            (False, True, "a step\n"), (False, False, "")]:
        with reporting(notes=notes, progress=shown_progress):
            note("a note")
            progress("a step")
        assert capsys.readouterr().err == expected
    assert (NOTES.level, NOTES.propagate, PROGRESS.level, NOTES.handlers) == (logging.NOTSET, True, logging.NOTSET, [])


def test_progress_by_default_only_on_a_terminal(capsys, monkeypatch):
    with reporting():
        progress("a step")
    assert capsys.readouterr().err == ""
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    with reporting():
        progress("a step")
    with reporting(notes=False):
        progress("not shown: quiet")
    assert capsys.readouterr().err == "a step\n"


def test_a_stopwatch_names_and_times_the_progress_lines(capsys):
    with reporting(progress=True), stopwatch("build"):
        progress("reading x")
        note("a note, untimed")
    progress("after: nothing shown")
    err = capsys.readouterr().err
    assert re.fullmatch(r"build: reading x \(\d+\.\d s\)\na note, untimed\n", err)
    assert PROGRESS.filters == []
