"""`dstc2conv export dstc6 REF --candidates FILE --out FILE`: task-6 data in the formats
other toolkits load."""
from __future__ import annotations

import sys


def _cmd_dstc6(args) -> int:
    from ..files import check_writable, write_text_atomic
    from ..task6.candidates import read_candidates
    from ..task6.text import json_line
    from ..task6.turns import read_turns
    from .dstc6 import samples

    check_writable(args.out, (args.ref, args.candidates))
    turns = read_turns(args.ref)
    found = samples(turns, read_candidates(args.candidates), args.k, args.seed)
    write_text_atomic(args.out, "[\n" + ",\n".join(json_line(x) for x in found) + "\n]\n")
    if not args.quiet:
        print(f"dstc2conv: {len(found)} DSTC6 samples of {args.k} candidates written to {args.out}", file=sys.stderr)
    return 0


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
    p.add_argument("--k", type=_whole, default=10, metavar="K", help="candidates per sample (default 10)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the seed of the draw (default 0)")
    p.add_argument("--out", required=True, metavar="FILE", help="the JSON file of samples")
    p.add_argument("--quiet", action="store_true", help="no note on stderr")
    p.set_defaults(func=_cmd_dstc6)

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
