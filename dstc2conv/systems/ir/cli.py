"""`dstc2conv ir tfidf | nn`: the information-retrieval baselines' predictions and score.

The predictions go to --out (or stdout with ``--out -``); the score goes to stdout, or to
stderr when the predictions take stdout; notes go to stderr."""
from __future__ import annotations

import json
import sys
import time

from ...arguments import at_least
from ...files import check_writable, sha256_file


def _cmd_ir(args) -> int:
    from ...errors import naming
    from ...evaluate import score_output
    from ...evaluate.rankings import score_system
    from ...reporter import reporting, stopwatch
    from ...task6.turns import read_turns
    from ..interface import progress_lines, run
    from ..output import write_answers

    if args.out != "-":
        check_writable(args.out, (args.train, args.data, getattr(args, "candidates", None), getattr(args, "dev", None)))
    start = time.perf_counter()
    train = read_turns(args.train)
    turns = read_turns(args.data)
    info: dict = {"method": args.method}
    if args.method == "nn":
        from .nearest import NearestNeighbor
        system = NearestNeighbor()
        info["input"] = "last"
        parts = ["ir:nn", f"train:{sha256_file(args.train)[:12]}"]
    else:
        from .tfidf import TfIdfMatch, read_candidates
        candidates = read_candidates(args.candidates) if args.candidates else None
        if candidates is not None:
            _note_coverage(args, candidates, train)
        system = TfIdfMatch(candidates, None if args.dev else args.input)
    with reporting(notes=not args.quiet), stopwatch(f"ir {args.method}"):
        with naming(args.train, getattr(args, "dev", None), args.candidates if args.method == "tfidf" else None):
            system.fit(train, read_turns(args.dev) if getattr(args, "dev", None) else None)
        rankings = run(system, turns, args.rank or 1, progress=progress_lines("predicting"))
    predictions = [r[0] for r in rankings]
    if not args.rank:
        rankings = None
    if args.method == "tfidf":
        variant, dev = system.input_, system.dev_
        info.update(input=variant, candidates=len(system.index_.candidates), candidates_from=args.candidates or "train",
                    dev=score_output.parts(dev) if dev else None)
        parts = [f"ir:tfidf-{variant}", f"train:{sha256_file(args.train)[:12]}",
                 f"candidates:{sha256_file(args.candidates)[:12] if args.candidates else 'train'}"]
    scored, sig = score_system(predictions, rankings, turns, sha256_file(args.data), parts, args.rank)
    seconds = time.perf_counter() - start
    out = write_answers(predictions, rankings, args.out, args.quiet)
    if args.json:
        print(json.dumps({**score_output.as_dict(scored.figures, sig), **info, "seconds": round(seconds, 3)},
                         indent=2), file=out)
        return 0
    line = {"nn": "nearest neighbor, input: last user utterance",
            "tfidf": f"tf-idf match, input: {info['input']}"}[args.method]
    if info.get("dev"):
        line += " (chosen on --dev: " + ", ".join(
            f"{v} {score_output.percent(s['per_response'])}" for v, s in info["dev"].items()) + " per response)"
    print(f"baseline               {line}", file=out)
    if args.method == "tfidf":
        where = args.candidates or f"the distinct bot utterances of {args.train}"
        print(f"candidates             {info['candidates']} ({where})", file=out)
    print("\n".join(score_output.score_lines(scored.figures, sig)), file=out)
    print(f"time                   {seconds:.1f} s", file=out)
    return 0


def _note_coverage(args, candidates, train) -> None:
    """A note when --candidates does not hold the training utterances (its manifest, or --train, says so)."""
    from ...task6.candidates import coverage_note

    found = coverage_note(args.candidates, candidates, args.train, (t.gold for t in train))
    if found and not args.quiet:
        print(f"dstc2conv: note: {found}", file=sys.stderr)


def add_parser(sub) -> None:
    parser = sub.add_parser("ir", help="the information-retrieval baselines: tf-idf match, nearest neighbor")
    methods = parser.add_subparsers(dest="method", required=True, metavar="METHOD")

    def common(p):
        p.add_argument("--train", required=True, metavar="T6FILE", help="the task-6 training file")
        p.add_argument("--data", required=True, metavar="T6FILE", help="the task-6 file to predict and score")
        p.add_argument("--out", required=True, metavar="PREDS",
                       help="the file for one predicted bot utterance per line, or - for stdout "
                            "(the score then goes to stderr)")
        p.add_argument("--json", action="store_true", help="print the score as one JSON object")
        p.add_argument("--quiet", action="store_true", help="no notes on stderr")
        p.add_argument("--rank", type=at_least(1), metavar="K",
                       help="write the K best candidates of every turn, best first, one JSON list a line, and "
                            "score hits@k (k up to K) and MRR too")
        p.set_defaults(func=_cmd_ir)

    p = methods.add_parser("tfidf", help="rank the candidates by tf-idf cosine with the input")
    common(p)
    p.add_argument("--candidates", metavar="FILE",
                   help="candidates file, '1 <utterance>' a line (default: the distinct bot utterances of --train)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--dev", metavar="T6FILE",
                       help="choose the input (last user utterance or whole conversation) on this file")
    which.add_argument("--input", choices=("last", "conversation"), default="conversation",
                       help="the input without --dev (default: conversation)")

    p = methods.add_parser("nn", help="the response of the training pair whose user utterance shares most words")
    common(p)
