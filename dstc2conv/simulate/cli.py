"""`dstc2conv simulate --task 1..5 --split trn|dev|tst|tst-OOV --dialogs N --seed S --out DIR`
(the bAbI dialog tasks 1-5 as the published files are) and `dstc2conv simulate --compare DIR`
(how closely generated files match the published ones)."""
from __future__ import annotations

import os

from ..arguments import at_least
from ..errors import Dstc2ConvError
from .splits import SPLITS, SPLITS6

PUBLISHED = os.path.join("..", "shared", "reference", "babi")


def _cmd_simulate(args) -> int:
    from ..reporter import reporting

    if args.compare is not None:
        return _compare(args)
    if not args.task or not args.split:
        raise Dstc2ConvError("give --task and --split (or --compare DIR)")
    if args.variant == "dstc6":
        return _dstc6(args)
    if args.candidates is not None:
        raise Dstc2ConvError("--candidates is for --variant dstc6")
    unknown = [s for s in args.split if s not in SPLITS]
    if unknown:
        raise Dstc2ConvError(f"unknown split {unknown[0]!r}: the splits are {', '.join(SPLITS)} (tst1-tst4 are "
                             "--variant dstc6's)")
    from .generate import SimulateOptions, simulate

    options = SimulateOptions(tasks=tuple(dict.fromkeys(args.task)), splits=tuple(dict.fromkeys(args.split)),
                              dialogs=args.dialogs, seed=args.seed, out=args.out, kb=args.kb, values=args.values,
                              kb_seed=args.kb_seed, jobs=args.jobs)
    with reporting(notes=not args.quiet):
        for path in simulate(options):
            print(path)
    return 0


def _dstc6(args) -> int:
    from ..reporter import reporting
    from .dstc6 import Dstc6Options, simulate6

    if args.kb or args.values or args.jobs != 1:
        raise Dstc2ConvError("--variant dstc6 builds its own extended KB in one process: drop --kb, --values, --jobs")
    options = Dstc6Options(tasks=tuple(dict.fromkeys(args.task)), splits=tuple(dict.fromkeys(args.split)),
                           entries=args.dialogs, seed=args.seed, out=args.out, kb_seed=args.kb_seed,
                           candidates=args.candidates)
    with reporting(notes=not args.quiet):
        for path in simulate6(options):
            print(path)
    return 0


def _compare(args) -> int:
    from .compare import compare_folders, format_json, format_text

    report = compare_folders(args.compare, args.reference or PUBLISHED, tasks=tuple(args.task or ()))
    print(format_json(report) if args.json else format_text(report))
    return 0 if report["within"] else 1


def add_parser(sub) -> None:
    p = sub.add_parser("simulate", help="generate bAbI dialog tasks 1-5 files (or compare generated ones with the "
                                        "published ones)",
                       description="Generate bAbI dialog tasks 1-5 (Bordes & Weston 2017, section 3.1) in the "
                                   "published format, with the KB and candidates files; or, with --compare DIR, "
                                   "measure generated files against the published train files.")
    p.add_argument("--task", type=at_least(1, 5), action="append", metavar="N", help="task 1 to 5 (repeatable)")
    p.add_argument("--split", choices=(*SPLITS, *SPLITS6[1:]), action="append",
                   help="trn, dev, tst (requests held out of trn/dev) or tst-OOV (the KB's other half); with "
                        "--variant dstc6: trn, tst1, tst2, tst3, tst4; repeatable")
    p.add_argument("--variant", choices=("babi2017", "dstc6"), default="babi2017",
                   help="babi2017 (default): the published bAbI files; dstc6: the DSTC6 track 1 variant (atmosphere "
                        "and restrictions slots, the track's JSON files, the extended KB)")
    p.add_argument("--dialogs", type=at_least(1), default=1000, metavar="N",
                   help="dialogs a file (default 1000); with --variant dstc6, entries a file (one a dialog)")
    p.add_argument("--candidates", type=at_least(2, 100), metavar="N",
                   help="--variant dstc6: candidates an entry (default 10 in the train file, 11 in the test files)")
    p.add_argument("--seed", type=int, default=0, help="seed of the dialogs' random draws (default 0)")
    p.add_argument("--out", default="outputs", metavar="DIR", help="output folder (default: outputs)")
    kb = p.add_mutually_exclusive_group()
    kb.add_argument("--kb", metavar="FILE", help="a KB file in the published format (dialog-babi-kb-all.txt) to draw "
                                                 "from (default: a KB built as the paper says)")
    kb.add_argument("--values", metavar="FILE", help="a YAML of cuisines, locations, prices and sizes for each half "
                                                     "(plain:, oov:) to build a KB of")
    p.add_argument("--kb-seed", type=int, default=0, help="seed of the party sizes of a KB built here (default 0)")
    p.add_argument("--jobs", type=at_least(1), default=1, metavar="N",
                   help="processes that make the dialogs (default 1); the output does not depend on it")
    p.add_argument("--compare", metavar="DIR", help="compare the files in DIR with the published train files")
    p.add_argument("--reference", metavar="DIR",
                   help=f"the published files for --compare (default: {PUBLISHED})")
    p.add_argument("--json", action="store_true", help="--compare: print JSON")
    p.add_argument("--quiet", action="store_true", help="print no notes on stderr")
    p.set_defaults(func=_cmd_simulate)


def _cmd_play(args) -> int:
    import json

    from ..reporter import reporting
    from .play import PlayOptions, format_text, play

    options = PlayOptions(args.system, args.task, args.dialogs, args.seed, args.split, args.model, args.train,
                          args.dev, args.kb, args.kb_seed, args.show)
    with reporting(notes=not args.quiet):
        result = play(options)
    print(json.dumps(result.to_dict(args.show), indent=2) if args.json else format_text(result, args.show))
    return 0


def add_play_parser(sub) -> None:
    """``dstc2conv play`` (its module, ``simulate.play``, imported when it runs)."""
    from ..arguments import at_least
    from ..systems.registry import listed

    p = sub.add_parser("play", help="a system against the simulated user of a bAbI task (1-5): task success",
                       description="The simulated user of bAbI dialog task 1-5 talks to a system turn by turn, the "
                                   "system's own answers driving the dialog; the task success rate (the right "
                                   "api_call, the booking, the phone or address asked), turns per dialog and where "
                                   "dialogs fail.")
    p.add_argument("--system", metavar="NAME",
                   help=f"the system: one of the registry's ({listed()}), a plugin's, or module:Class; rules needs no "
                        "training (the bAbI rule file)")
    p.add_argument("--model", metavar="DIR", help="a trained model folder to play")
    p.add_argument("--train", metavar="FILE", help="a bAbI training file to fit the system on (with --dev)")
    p.add_argument("--dev", metavar="FILE", help="the dev file the system's choices are made on")
    p.add_argument("--task", type=at_least(1, 5), required=True, metavar="N", help="the bAbI task, 1 to 5")
    p.add_argument("--dialogs", type=at_least(1, 1_000_000), default=100, metavar="N", help="dialogs (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the user's draws (default 0)")
    p.add_argument("--split", choices=SPLITS, default="tst",
                   help="the requests the user draws from: trn, dev, tst (default; held out of trn) or tst-OOV")
    p.add_argument("--kb", metavar="FILE", help="a KB file in the published format (default: a KB built as the "
                                                "paper says, as simulate builds it)")
    p.add_argument("--kb-seed", type=int, default=0, help="seed of the party sizes of a KB built here (default 0)")
    p.add_argument("--show", type=at_least(0), default=0, metavar="K",
                   help="print the first K dialogs played, in the published format")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.set_defaults(func=_cmd_play)
