"""`dstc2conv ir tfidf | nn`: the information-retrieval baselines' predictions and score.

The predictions go to --out (or stdout with ``--out -``); the score goes to stdout, or to
stderr when the predictions take stdout; notes go to stderr."""
from __future__ import annotations

import json
import sys
import time

from ..evaluate.responses import signature
from ..files import check_writable, sha256_file, write_stdout, write_text_atomic


def _cmd_ir(args) -> int:
    from ..task6.turns import read_turns
    from . import baselines as ir

    if args.out != "-":
        check_writable(args.out, (args.train, args.data, getattr(args, "candidates", None), getattr(args, "dev", None)))
    start = time.perf_counter()
    train = read_turns(args.train)
    turns = read_turns(args.data)
    info: dict = {"method": args.method}
    if args.method == "nn":
        predictions = ir.nn_predict(ir.NearestNeighbor(train), turns)
        info["input"] = "last"
        parts = ["ir:nn", f"train:{sha256_file(args.train)[:12]}"]
    else:
        if args.candidates:
            candidates = ir.read_candidates(args.candidates)
        else:
            candidates = ir.train_candidates(train)
        index = ir.TfIdf(candidates)
        dev = None
        if args.dev:
            choice = ir.choose_input(index, read_turns(args.dev))
            variant, dev = choice.variant, choice.dev
        else:
            variant = args.input
        predictions = ir.tfidf_predict(index, turns, variant)
        info.update(input=variant, candidates=len(candidates), candidates_from=args.candidates or "train",
                    dev={v: _parts(s) for v, s in dev.items()} if dev else None)
        parts = [f"ir:tfidf-{variant}", f"train:{sha256_file(args.train)[:12]}",
                 f"candidates:{sha256_file(args.candidates)[:12] if args.candidates else 'train'}"]
    now = ir.evaluate(predictions, turns, signature(sha256_file(args.data), *parts))
    seconds = time.perf_counter() - start
    text = "".join(p.replace("\n", " ") + "\n" for p in predictions)
    if args.out == "-":
        write_stdout(text)
        out = sys.stderr
    else:
        write_text_atomic(args.out, text)
        if not args.quiet:
            print(f"dstc2conv: {len(predictions)} predictions written to {args.out}", file=sys.stderr)
        out = sys.stdout
    if args.json:
        print(json.dumps({**now.to_dict(), **info, "seconds": round(seconds, 3)}, indent=2), file=out)
        return 0
    line = {"nn": "nearest neighbor, input: last user utterance",
            "tfidf": f"tf-idf match, input: {info['input']}"}[args.method]
    if info.get("dev"):
        line += " (chosen on --dev: " + ", ".join(
            f"{v} {s['per_response']:.2%}" for v, s in info["dev"].items()) + " per response)"
    print(f"baseline               {line}", file=out)
    if args.method == "tfidf":
        where = args.candidates or f"the distinct bot utterances of {args.train}"
        print(f"candidates             {info['candidates']} ({where})", file=out)
    print(f"per-response accuracy  {now.per_response:.2%}  ({now.correct}/{now.responses})", file=out)
    print(f"per-dialog accuracy    {now.per_dialog:.2%}  ({now.dialogs_correct}/{now.dialogs})", file=out)
    print(f"signature              {now.signature}", file=out)
    print(f"time                   {seconds:.1f} s", file=out)
    return 0


def _parts(score) -> dict:
    return {key: value for key, value in score.to_dict().items() if key != "signature"}


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
