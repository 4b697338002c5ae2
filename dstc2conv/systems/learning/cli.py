"""What the learned systems' commands share: ``train`` (fit on a task-6 file, choices on
a dev file, into a model folder; ``--search``: the grid first) and ``predict`` (a
model's predictions for a task-6 file, and their score)."""
from __future__ import annotations

import json
import os
import time

from ...arguments import at_least
from ...errors import Dstc2ConvError
from ...reporter import note, reporting


def numpy_ready() -> None:
    """numpy, on one BLAS thread (results that do not depend on threads, and a shared
    machine spared); one line saying what to install when it is missing."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise Dstc2ConvError("the learned systems need numpy: pip install numpy") from None


def add_commands(sub, name: str, help: str, system_of, grid_of, options=None, explain=None) -> None:
    """``dstc2conv NAME train | predict [| explain]``. ``system_of(args, **settings)`` makes
    the system; ``grid_of(args)`` the grid of settings that ``--search`` tries;
    ``options(parser)`` adds the system's own train options."""
    parser = sub.add_parser(name, help=help)
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = commands.add_parser("train", help="train on a task-6 file (choices on --dev) into a model folder")
    p.add_argument("--train", required=True, metavar="T6FILE", help="the task-6 training file")
    p.add_argument("--dev", required=True, metavar="T6FILE",
                   help="the task-6 dev file: early stopping (and, with --search, the settings) chosen on it")
    p.add_argument("--model", required=True, metavar="DIR", help="the model folder to write (replaced if a model)")
    p.add_argument("--seed", type=at_least(0), metavar="N", help="the random seed (default: the model's, 0)")
    p.add_argument("--search", action="store_true",
                   help="train every setting of the grid (docs/learned.md) and keep the best on --dev")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    if options:
        options(p)
    p.set_defaults(func=lambda args: _train(args, system_of, grid_of))
    p = commands.add_parser("predict", help="a trained model's responses for a task-6 file, and their score")
    p.add_argument("--model", required=True, metavar="DIR", help="the model folder")
    p.add_argument("--data", required=True, metavar="T6FILE", help="the task-6 file to predict and score")
    p.add_argument("--out", default="-", metavar="PREDS",
                   help="the file for one predicted bot utterance per line, or - for stdout (default; the score "
                        "then goes to stderr)")
    p.add_argument("--rank", type=at_least(1), metavar="K",
                   help="write the K best candidates of every turn, best first, one JSON list a line, and score "
                        "hits@k (k up to K) and MRR too")
    p.add_argument("--candidates", metavar="FILE",
                   help="rank the responses of this candidates file ('1 <utterance>' a line; every gold response "
                        "of --data must be there) (default: the model's candidates, the distinct bot utterances "
                        "of its train and dev files, and those of --data)")
    p.add_argument("--json", action="store_true", help="print the score as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.set_defaults(func=lambda args: _predict(args, system_of))
    if explain:
        explain(commands)


def _train(args, system_of, grid_of) -> int:
    numpy_ready()
    from ...files import sha256_file
    from ...task6.turns import read_turns
    from .folder import check_writable

    check_writable(args.model)      # before any work
    start = time.perf_counter()
    with reporting(notes=not args.quiet, progress=False):
        train = read_turns(args.train)
        dev = read_turns(args.dev)
        seed = {} if args.seed is None else {"seed": args.seed}
        grid = grid_of(args) if args.search else [{}]
        tried = []
        best = None
        for i, settings in enumerate(grid, 1):
            if args.search:
                note(f"grid {i}/{len(grid)}: {json.dumps(settings)}")
            system = system_of(args, **settings, **seed).fit(train, dev)
            accuracy = max((e.dev for e in system.curve), default=0.0)
            tried.append({"settings": settings, "dev": round(accuracy, 6), "epochs": len(system.curve)})
            if best is None or accuracy > best[0]:
                best = accuracy, system
            if args.search:
                note(f"grid {i}/{len(grid)}: dev {accuracy:.2%}")
        accuracy, system = best
        seconds = time.perf_counter() - start
        system.trained_on = {"train": os.path.basename(args.train), "train_sha256": sha256_file(args.train),
                             "dev": os.path.basename(args.dev), "dev_sha256": sha256_file(args.dev),
                             "dev_accuracy": round(accuracy, 6),
                             **({"search": tried} if args.search else {})}
        system.save(args.model)
        note(f"{system.name}: dev {accuracy:.2%} per response (best epoch); model written to {args.model} "
             f"({seconds:.1f} s)")
    return 0


def _predict(args, system_of) -> int:
    numpy_ready()
    from ...evaluate import score_output
    from ...evaluate.rankings import score_system
    from ...files import check_writable, sha256_file
    from ...task6.candidates import distinct, read_candidates
    from ...task6.turns import read_turns
    from ..interface import run
    from ..output import write_answers

    if args.out != "-":
        check_writable(args.out, (args.data, args.candidates))
    start = time.perf_counter()
    system = type(system_of(args)).load(args.model)
    turns = read_turns(args.data)
    if args.candidates:
        candidates = read_candidates(args.candidates)
        have = {c.strip() for c in candidates}
        for turn in turns:
            if turn.gold.strip() not in have:
                raise Dstc2ConvError(f"the gold response of line {turn.line} of {args.data} is not a candidate: "
                                     f"{turn.gold[:60]!r}", args.candidates)
    else:
        candidates = distinct([*system.candidates, *(t.gold for t in turns)])
    system.use_candidates(candidates)
    with reporting(notes=not args.quiet, progress=False):
        rankings = run(system, turns, args.rank or 1)
    predictions = [r[0] for r in rankings]
    parts = [system.name, f"model:{system.trained_on.get('train_sha256', '')[:12]}",
             f"candidates:{sha256_file(args.candidates)[:12] if args.candidates else 'model+data'}"]
    scored, sig = score_system(predictions, rankings if args.rank else None, turns, sha256_file(args.data), parts,
                               args.rank)
    seconds = time.perf_counter() - start
    out = write_answers(predictions, rankings if args.rank else None, args.out, args.quiet)
    if args.json:
        print(json.dumps({**score_output.as_dict(scored.figures, sig), "system": system.name,
                          "candidates": len(candidates), "seconds": round(seconds, 3)}, indent=2), file=out)
        return 0
    print(f"system                 {system.name} ({args.model})", file=out)
    print(f"candidates             {len(candidates)} ({args.candidates or 'the model and ' + args.data})", file=out)
    print("\n".join(score_output.score_lines(scored.figures, sig)), file=out)
    print(f"time                   {seconds:.1f} s", file=out)
    return 0
