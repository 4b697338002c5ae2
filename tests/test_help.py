"""The command line's help: every command and argument says what it is, and a help
lists only what works there."""
from __future__ import annotations

import argparse

import pytest

from dstc2conv.cli import build_parser, run


def _parsers(parser: argparse.ArgumentParser, path: str = "dstc2conv"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_argument_of_every_command_has_a_help_text():
    missing = [f"{path} {action.option_strings[0] if action.option_strings else action.metavar or action.dest}"
               for path, parser in _parsers(build_parser()) for action in parser._actions
               if not isinstance(action, argparse._SubParsersAction) and not action.help]
    assert missing == []


def test_export_lists_only_the_formats_it_writes(capsys):
    with pytest.raises(SystemExit):
        run(["export", "--help"])
    out = capsys.readouterr().out
    assert "dstc6 " in out and "jsonl " not in out.split("positional arguments")[1]
    assert "deeppavlov" not in out.split("positional arguments")[1]
    assert "written by dstc2conv build --export FORMAT" in " ".join(out.split())
    # asked for all the same, they say where they come from
    assert run(["export", "jsonl", "x.txt"]) == 2
    assert "dstc2conv build --split SPLIT --export jsonl" in capsys.readouterr().err


@pytest.mark.parametrize("argv, prog", [(["score", "a", "b", "--nosuch"], "dstc2conv score"),
                                        (["rules", "score", "--data", "x", "--nosuch"], "dstc2conv rules score")])
def test_an_unknown_option_is_named_by_its_commands_parser(capsys, argv, prog):
    with pytest.raises(SystemExit) as stopped:
        run(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2
    assert err == f"{prog}: error: unrecognized arguments: --nosuch ({prog} --help lists the options)\n"
