"""`dstc2conv export dstc6 REF --candidates FILE --out FILE` (task-6 data in the formats
other toolkits load) and `export dstc6-results RANKED --samples FILE --out FILE`."""
from __future__ import annotations

import os
import sys

from ..errors import Dstc2ConvError


def _cmd_dstc6(args) -> int:
    from ..files import check_writable, write_text_atomic
    from ..task6.candidates import coverage_note, read_candidates
    from ..task6.text import json_line
    from ..task6.turns import read_turns
    from .dstc6 import samples, truth

    check_writable(args.out, (args.ref, args.candidates))
    if args.truth is not None:
        check_writable(args.truth, (args.ref, args.candidates))
        if os.path.realpath(args.truth) == os.path.realpath(args.out):
            raise Dstc2ConvError("--truth and --out name one file: give two", args.truth)
    turns = read_turns(args.ref)
    made = samples(turns, read_candidates(args.candidates), args.k, args.seed)
    found = coverage_note(args.candidates)
    if found and not args.quiet:
        print(f"dstc2conv: note: {found}", file=sys.stderr)
    truths: list[dict] = []

    def pieces():   # a sample is written as it is made: memory stays that of one sample
        for i, sample in enumerate(made):
            truths.append(truth(sample))
            if args.no_answer:
                del sample["answer"]
            yield ("[\n" if i == 0 else ",\n") + json_line(sample)
        yield "\n]\n" if truths else "[]\n"

    write_text_atomic(args.out, pieces())
    if args.truth is not None:
        write_text_atomic(args.truth, _array(truths))
    if not args.quiet:
        print(f"dstc2conv: {len(truths)} DSTC6 samples of {args.k} candidates written to {args.out}"
              + (f"; their truth to {args.truth}" if args.truth is not None else ""), file=sys.stderr)
    return 0


def _cmd_dstc6_results(args) -> int:
    from ..files import check_writable, write_text_atomic
    from ..task6.rankings import read_rankings
    from .dstc6 import read_samples, results_of_rankings

    check_writable(args.out, (args.ranked, args.samples))
    rankings = read_rankings(args.ranked)
    known = read_samples(args.samples)
    if len(rankings) != len(known):
        raise Dstc2ConvError(f"{len(rankings)} rankings, {args.samples} has {len(known)} samples: give one ranking "
                             "per sample (per bot turn of the task-6 file the samples are of), in order", args.ranked)
    results, short = results_of_rankings(rankings, known)
    write_text_atomic(args.out, _array(results))
    if not args.quiet:
        print(f"dstc2conv: {len(results)} DSTC6 results written to {args.out}", file=sys.stderr)
    if short:
        print(f"dstc2conv: note: in {short} of {len(results)} samples the ranking does not hold every candidate: "
              "those are left unranked (wrong at every k if the answer is one of them); rank them all, e.g. "
              "ir ... --rank N with N the candidates file's size", file=sys.stderr)
    return 0


def _array(items: list[dict]) -> str:
    """A JSON array, one item a line."""
    from ..task6.text import json_line

    return "[\n" + ",\n".join(json_line(x) for x in items) + "\n]\n" if items else "[]\n"


def _whole(text: str) -> int:
    import argparse

    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def add_parser(sub) -> None:
    parser = sub.add_parser("export", help="task-6 data in the formats other toolkits load (DSTC6 track 1)",
                            description="Task-6 data in the formats other toolkits load. The formats made from "
                                        "the raw DSTC2 calls (JSON lines, DeepPavlov) are written by "
                                        "dstc2conv build --export FORMAT.")
    formats = parser.add_subparsers(dest="format", required=True, metavar="FORMAT")
    p = formats.add_parser("dstc6", help="DSTC6 track-1 samples: one per bot turn, the gold among K candidates",
                           description="One DSTC6 track-1 sample per bot turn of REF: the dialog so far and K "
                                       "candidates, the gold among K - 1 distractors drawn from the candidates "
                                       "file by --seed. Score a DSTC6 result file on them with "
                                       "dstc2conv score RESULTS REF --dstc6 SAMPLES.")
    p.add_argument("ref", metavar="REF", help="the task-6 file")
    p.add_argument("--candidates", required=True, metavar="FILE", help="the candidates file ('1 <utterance>' a line)")
    p.add_argument("--k", type=_whole, default=10, metavar="K",
                   help="candidates per sample (default 10; the track's released test files have 11)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the draw (default 0)")
    p.add_argument("--out", required=True, metavar="FILE", help="the JSON file of samples")
    p.add_argument("--truth", metavar="FILE",
                   help="also write the truth: a result file ranking each sample's answer alone (the DSTC6 "
                        "score.py's --input-result-file-truth)")
    p.add_argument("--no-answer", action="store_true",
                   help="leave 'answer' out of the samples, as the track's released test files do")
    p.add_argument("--quiet", action="store_true", help="no note on stderr")
    p.set_defaults(func=_cmd_dstc6)

    p = formats.add_parser("dstc6-results", help="a DSTC6 result file from ranked predictions (ir ... --rank)",
                           description="A DSTC6 result file for SAMPLES from RANKED, ranked predictions (one "
                                       "JSON list of candidate utterances a line, best first, per bot turn: "
                                       "ir ... --rank K writes them): each sample's candidates in the "
                                       "ranking's order; a candidate the ranking does not hold is left unranked.")
    p.add_argument("ranked", metavar="RANKED", help="the ranked predictions, one line per sample")
    p.add_argument("--samples", required=True, metavar="FILE", help="the DSTC6 samples (export dstc6)")
    p.add_argument("--out", required=True, metavar="FILE", help="the DSTC6 result file")
    p.add_argument("--quiet", action="store_true", help="no note on stderr")
    p.set_defaults(func=_cmd_dstc6_results)

    from .formats import EXPORTS

    for export in EXPORTS.values():   # made by the build, from the raw calls: asked of a task-6 file, one line;
        p = formats.add_parser(export.name,  # not listed (no help): they never work here
                               description=f"{export.description}. Made from the raw DSTC2 calls, whose "
                                           f"annotations the task-6 files lack: dstc2conv build --split SPLIT "
                                           f"--export {export.name}.")
        p.add_argument("ref", metavar="REF", nargs="?", help="a task-6 file (refused: the raw calls are needed)")
        p.set_defaults(func=_needs_the_calls, export=export.name)


def _needs_the_calls(args) -> int:
    from .formats import export_format

    export_format(args.export, have_calls=False)   # raises: the format needs the raw calls
    return 2
