"""The command line: ``dstc2conv build | compare | stats | rules ... | ir ... | score | export ...``.

Exit codes: 0 success, 1 a comparison or check found differences/problems,
2 bad input or usage (the message names the file, the line or turn, and what is wrong),
141 (128 + SIGPIPE, as the shell reports a command stopped by a closed pipe) when the
reader of the output went away early (``dstc2conv stats F | head -1``): no message.
Stopped by a signal, a command cleans up, says so in one line and exits 128 + the
signal's number, as the shell reports it: 130 (Ctrl-C, SIGINT), 143 (SIGTERM), 129
(SIGHUP). A signal that comes once the command is done changes nothing.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys

from .arguments import at_least
from .errors import Dstc2ConvError, one_line
from .files import guarded
from .version import __version__

SPLITS = ("train", "dev", "test", "all")


def _cmd_build(args: argparse.Namespace) -> int:
    from .builder.pipeline import BuildOptions, build
    from .reporter import reporting

    options = BuildOptions(
        split=args.split,
        raw=tuple(args.raw or ()),
        out=args.out,
        seed=args.seed,
        kb=args.kb,
        partition=args.partition,
        user=args.user,
        jobs=args.jobs,
        replace=args.replace,
        exports=tuple(args.export or ()),
    )
    with reporting(notes=not args.quiet):   # progress too, when stderr is a terminal
        result = build(options)
    for path in result.written:
        print(path)
    return 0


def _folder(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder name")
    return text


def _cmd_compare(args: argparse.Namespace) -> int:
    from .evaluate.align import compare_files
    from .evaluate.output import format_json, format_report

    report = compare_files(args.ours, args.ref, kb=args.kb, manifest=args.manifest)
    show = format_json if args.json else format_report
    print(show(report, examples=args.examples))
    return 0 if report.identical else 1


def _cmd_stats(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from .errors import Dstc2ConvError
    from .evaluate.published import row_of
    from .files import sha256_file
    from .task6.stats import file_stats, format_stats

    rows = []
    for path in args.files:
        found = file_stats(path)
        try:
            sha = sha256_file(path)
        except Dstc2ConvError:          # (no file to read twice: known by its name alone)
            sha = None
        rows.append(replace(found, row=row_of(path, sha)))
    if args.json:
        import json

        print(json.dumps([row.to_dict() for row in rows], indent=2))
    else:
        print(format_stats(rows))
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, as every other error (exit code 2):
    ``dstc2conv score: error: argument --bootstrap: -1: give 1 or more (dstc2conv score
    --help lists the options)``; the subcommands' parsers are of this class too."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} ({self.prog} --help lists the options)\n")


def build_parser() -> argparse.ArgumentParser:
    from .systems.registry import listed

    parser = _Parser(
        prog="dstc2conv",
        description=f"Rebuild bAbI dialog task 6 from the raw DSTC2 corpus, and run and score systems on it: "
                    f"{listed()}, or your own (module:Class). table2 runs them all beside the paper's figures; "
                    "train, predict and explain take any system by name.",
    )
    parser.add_argument("--version", action="version", version=f"dstc2conv {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_build(sub)
    _add_compare(sub)
    _add_stats(sub)

    from .systems.rules.cli import add_parser as add_rules_parser

    add_rules_parser(sub)
    from .systems.chooser.cli import add_parsers as add_chooser_parsers

    add_chooser_parsers(sub)        # rules learn, rules explain
    from .systems.ir.cli import add_parser as add_ir_parser

    add_ir_parser(sub)
    from .systems.embeddings.cli import add_parser as add_embeddings_parser
    from .systems.memn2n.cli import add_parser as add_memn2n_parser

    add_embeddings_parser(sub)
    add_memn2n_parser(sub)
    from .systems.cli import add_parser as add_table2_parser

    add_table2_parser(sub)
    from .evaluate.score_cli import add_parser as add_score_parser

    add_score_parser(sub)
    from .exports.cli import add_parser as add_export_parser

    add_export_parser(sub)
    from .report.cli import add_parser as add_report_parser

    add_report_parser(sub)
    from .simulate.cli import add_parser as add_simulate_parser

    add_simulate_parser(sub)
    from .simulate.cli import add_play_parser

    add_play_parser(sub)
    return parser


def _add_build(sub) -> None:
    p = sub.add_parser("build", help="convert raw DSTC2 calls into task-6 files",
                       description="Convert raw DSTC2 calls (the official tarballs or unpacked folders) into "
                                   "bAbI dialog task-6 files, with their candidates, KB and manifest.json.")
    p.add_argument("--split", choices=SPLITS, required=True,
                   help="which task-6 file(s) to write (all: every split the inputs hold)")
    p.add_argument("--raw", action="append", metavar="PATH",
                   help="a DSTC2 tarball (dstc2_traindev, dstc2_test or dstc2_scripts .tar.gz) or unpacked "
                        "folder (repeatable; default: what is in data_raw/, else the small sample shipped "
                        "with dstc2conv)")
    p.add_argument("--out", type=_folder, default="outputs", metavar="DIR", help="output folder (default: outputs)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed for the random ratings and the random partition (default: 0)")
    p.add_argument("--kb", metavar="FILE",
                   help="KB file in the published format to draw results from; 'shipped': the published KB "
                        "shipped with dstc2conv; 'logs': a KB built from the system's acts in the logs of every "
                        "call the inputs hold (default: without --raw, data_raw/dialog-babi-task6-dstc2-kb.txt if "
                        "present; else shipped; logs for the sample built when there is no DSTC2 data)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--partition", choices=("published", "dstc2", "random"), default="published",
                       help="which calls go into which split: published (default: DSTC2's train and dev "
                            "calls in session order, the first 500 dev, the rest train; test: DSTC2's), "
                            "dstc2 (DSTC2's own flists), random (every call given, dealt out at random "
                            "by --seed in the published proportions 1618:500:1117)")
    which.add_argument("--dstc2-split", dest="partition", action="store_const", const="dstc2",
                       help="the same as --partition dstc2")
    p.add_argument("--user", choices=("transcription", "asr"), default="transcription",
                   help="the user turns: what the user said, as transcribed (default), or what the system "
                        "heard (the live ASR's top hypothesis); api_calls come from the transcriptions either way")
    p.add_argument("--jobs", type=at_least(1), default=min(2, os.cpu_count() or 1), metavar="N",
                   help="processes that parse the JSON (default: 2, or 1 on a one-core machine; at most "
                        "the number of cores); the output does not depend on it")
    p.add_argument("--replace", action="store_true",
                   help="remove task-6 files of another build from --out instead of refusing to mix them")
    from .exports.formats import EXPORTS

    p.add_argument("--export", action="append", metavar="FORMAT",
                   help="also write each split in this format (repeatable): " + "; ".join(
                       f"{f.name}: {f.description}" for f in EXPORTS.values()))
    p.add_argument("--quiet", action="store_true", help="print no notes or progress on stderr")
    p.set_defaults(func=_cmd_build)


def _add_compare(sub) -> None:
    p = sub.add_parser("compare", help="how closely a built task-6 file reproduces a published one")
    p.add_argument("ours", help="the built file")
    p.add_argument("ref", help="the published (reference) file")
    p.add_argument("--kb", metavar="FILE", help="the published KB file, to name the facts behind differing results")
    p.add_argument("--manifest", metavar="FILE",
                   help="the build's manifest.json, to name each differing dialog's DSTC2 call "
                        "(default: manifest.json beside OURS if present)")
    p.add_argument("--examples", type=int, default=5, metavar="N", help="examples per kind of difference (default 5)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_cmd_compare)


def _add_stats(sub) -> None:
    p = sub.add_parser("stats", help="the paper's Table 1 statistics for task-6 files")
    p.add_argument("files", nargs="+", metavar="FILE", help="task-6 files (a column each)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_stats)


def run(argv: list[str] | None = None) -> int:
    """Run the CLI in-process; return the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:       # said by the command's own parser, as its other usage errors are
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    _printable_paths()
    try:
        with guarded():    # no command writes over a file it reads
            return args.func(args)
    except Dstc2ConvError as exc:
        print(f"dstc2conv: error: {one_line(str(exc))}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Stopped) as exc:
        return _stopped(exc)


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command that ``args`` ran: ``dstc2conv rules score``'s."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name not in (subs[0].choices if subs else {}):
            return parser
        parser = subs[0].choices[name]


class Stopped(BaseException):
    """Raised in the main thread by a signal that asks the command to stop (SIGTERM,
    SIGHUP), as Ctrl-C raises KeyboardInterrupt: what was being written is cleaned up on
    the way out."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


def _stopped(exc: BaseException) -> int:
    """Say, in one line, that the command was stopped; its exit code, 128 + the signal's number."""
    _ignore_signals()
    signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
    what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    # outputs are written whole or not at all (a build's set, next build finishing it)
    print(f"dstc2conv: {what}: what was being written is left as it was", file=sys.stderr)
    return 128 + signum


def _on_signal(signum: int, frame) -> None:
    _ignore_signals()    # the cleanup on the way out is not stopped halfway by a second signal
    raise KeyboardInterrupt if signum == signal.SIGINT else Stopped(signum)


def _handle_signals() -> None:
    """SIGINT, SIGTERM and SIGHUP stop the command by an exception (cleaning up on the
    way out), unless they were ignored when it started (``nohup``, a background job)."""
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _on_signal)


def _ignore_signals() -> None:
    if sys.platform == "win32" or not _in_main_thread():
        return
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) is _on_signal:
            signal.signal(number, signal.SIG_IGN)


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _printable_paths() -> None:
    """Let a strict UTF-8 stdout print paths that are not UTF-8 (the bytes as they are,
    as ``ls`` does) and any other stdout print what it cannot encode escaped."""
    out = sys.stdout
    if getattr(out, "errors", None) == "strict" and hasattr(out, "reconfigure"):
        utf8 = (out.encoding or "").lower().replace("-", "") == "utf8"
        out.reconfigure(errors="surrogateescape" if utf8 else "backslashreplace")


BROKEN_PIPE = 141


def main() -> None:
    # One BLAS thread, before any command loads numpy: the learned systems' results then
    # do not depend on the machine's thread count, and a shared machine is spared
    # (table2 loads numpy for TF-IDF before it trains them). A value the user set stands.
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    _handle_signals()
    try:
        code = run()
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught
    except (KeyboardInterrupt, Stopped) as exc:   # outside the command: parsing the arguments, the flush
        code = _stopped(exc)
    except OSError as exc:
        # Point stdout at devnull, as the Python docs advise, so that the flush at exit
        # does not fail again. A reader that went away (`| head`) stops us quietly; any
        # other failure to write (a full disk) is said.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if isinstance(exc, BrokenPipeError):
            code = BROKEN_PIPE
        else:
            print(f"dstc2conv: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
            code = 2
    _ignore_signals()   # the command is done: its exit code stands
    sys.exit(code)
