"""One command line for every system of the registry (or a plugin's, or module:Class):

- ``train``: fit a system on a task-6 file (choices on a dev file; ``--search``: its
  grid first) into a model folder;
- ``predict``: a model's predictions for a task-6 file, and their score;
- ``explain``: why a model answers one turn as it does.

Each handler turns its arguments into a frozen options dataclass and calls the function
of the same name; ``memn2n`` and ``embeddings`` are the same commands under their old
names. The candidates a system is trained among are the train and dev files' bot
utterances, or those of ``--test`` too (the paper's set, as ``table2`` uses), or a
``--candidates`` file's: the model folder records which.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass

from ..errors import Dstc2ConvError, naming
from ..reporter import note, reporting


@dataclass(frozen=True)
class TrainOptions:
    system: str                     # a registry name, a plugin's, or module:Class
    train: str
    dev: str
    model: str
    seed: int | None = None
    search: bool = False
    candidates: str | None = None   # a candidates file: the responses it is trained among (and ranks)
    test: str | None = None         # a task-6 file whose bot utterances join TRN's and DEV's
    settings: tuple = ()            # (name, value) pairs
    quiet: bool = False


@dataclass(frozen=True)
class PredictOptions:
    model: str
    data: str
    out: str = "-"
    rank: int | None = None
    candidates: str | None = None
    json: bool = False
    quiet: bool = False
    systems: tuple = ()             # the systems the model must be of (the aliases'); () any


@dataclass(frozen=True)
class ExplainOptions:
    model: str
    data: str
    dialog: int                     # from 1
    turn: int                       # from 1
    top: int = 8
    systems: tuple = ()


# ---------------------------------------------------------------- train

def training_candidates(options: TrainOptions, train, dev) -> tuple[tuple[str, ...] | None, str]:
    """The candidates the system is trained among (None: the train and dev files' bot
    utterances, the system's own default) and where they come from."""
    from ..task6.candidates import distinct, read_candidates
    from ..task6.turns import read_turns

    name = os.path.basename          # a model's bytes do not depend on where its data lay
    pool: list[str] = []
    origin = []
    if options.test is not None:
        pool += [t.gold for t in (*train, *dev, *read_turns(options.test))]
        origin.append(f"the bot utterances of {name(options.train)}, {name(options.dev)} and {name(options.test)}")
    if options.candidates is not None:
        pool += read_candidates(options.candidates)
        origin.append(f"the candidates file {name(options.candidates)}")
    if not origin:
        return None, f"the bot utterances of {name(options.train)} and {name(options.dev)}"
    return distinct(pool), "; ".join(origin)


def _settings(options: TrainOptions) -> dict:
    settings = dict(options.settings)
    if "candidates" in settings:
        raise Dstc2ConvError("--set candidates: the candidates are no setting: give --candidates FILE (or --test T6FILE)")
    if options.seed is not None:
        settings["seed"] = options.seed
    return settings


def train(options: TrainOptions):
    """Fit ``options.system`` and write it as a model folder; returns the fitted system."""
    from ..files import sha256_file
    from ..task6.turns import read_turns
    from . import registry
    from .folder import check_writable
    from .mistakes import check_data
    from .search import search

    check_writable(options.model, (options.train, options.dev, options.test, options.candidates))   # before any work
    entry = registry.entry(options.system)
    start = time.perf_counter()
    trn, dv = read_turns(options.train), read_turns(options.dev)
    check_data(options.train, options.dev, trn, dv)
    pool, origin = training_candidates(options, trn, dv)
    with naming(options.train, options.dev, options.test, options.candidates):   # the files the data came from
        system = entry.build(pool, **_settings(options))
        if not entry.ranks_candidates():
            if pool is not None:
                note(f"{entry.name} takes no candidates: --candidates and --test are not used")
            origin = None
        tried = ()
        if options.search:
            system, tried = search(system, getattr(type(system), "GRID", {}), trn, dv)
        else:
            system.fit(trn, dv)
    about = {"train": os.path.basename(options.train), "train_sha256": sha256_file(options.train),
             "dev": os.path.basename(options.dev), "dev_sha256": sha256_file(options.dev),
             **({"candidates_from": origin} if origin else {}),
             **({"search": [t.to_dict() for t in tried]} if tried else {})}
    system.save(options.model, about)
    among = f"trained among {origin}; " if origin else ""
    note(f"{system.label()}: {among}model written to {options.model} ({time.perf_counter() - start:.1f} s)")
    return system


def _cmd_train(args, system: str | None = None) -> int:
    settings = tuple(parse_setting(s) for s in args.set or ())
    options = TrainOptions(system or args.system, args.train, args.dev, args.model, args.seed, args.search,
                           args.candidates, args.test, settings, args.quiet)
    with reporting(notes=not options.quiet):
        train(options)
    return 0


def parse_setting(text: str) -> tuple[str, object]:
    """``key=value``: the value as JSON (``3``, ``true``, ``0.5``), else as text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise Dstc2ConvError(f"--set {text!r}: give key=value")
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value


# ---------------------------------------------------------------- predict and explain

def load_model(model: str, systems: tuple = ()):
    """The fitted system of a model folder (one of ``systems``, when named)."""
    from .folder import class_path, read_meta
    from .registry import entry, load

    if systems:
        meta = read_meta(model)
        found = meta["system"]
        classes = {class_path(entry(name).system_class()) for name in systems}
        if found not in systems and not (found == meta["class"] and found in classes):
            raise Dstc2ConvError(f"a model of {found}, not of {' or '.join(systems)}", os.path.join(model, "model.json"))
        system = load(model, found if found in systems else None)
    else:
        system = load(model)
    if not system.fitted():
        raise Dstc2ConvError(f"a damaged model: {system.label()} is not fitted by what the folder holds", model)
    return system


def _candidates(system, options: PredictOptions, turns) -> tuple[int, str]:
    """Set the responses the system ranks; their number and where they come from."""
    from ..task6.candidates import distinct, read_candidates

    if not hasattr(system, "use_candidates"):
        if options.candidates:
            raise Dstc2ConvError(f"{system.label()} sets its candidates when it is trained: train it with "
                                 "--candidates", options.candidates)
        return 0, "the system's own"
    if options.candidates:
        candidates = read_candidates(options.candidates)
        have = {c.strip() for c in candidates}
        for turn in turns:
            if turn.gold.strip() not in have:
                raise Dstc2ConvError(f"the gold response of line {turn.line} of {options.data} is not a candidate: "
                                     f"{turn.gold[:60]!r}", options.candidates)
    else:
        candidates = distinct([*system.candidates, *(t.gold for t in turns)])
    system.use_candidates(candidates)
    return len(candidates), options.candidates or f"the model and {options.data}"


def predict(options: PredictOptions) -> int:
    from ..evaluate import score_output
    from ..evaluate.rankings import score_system
    from ..files import check_writable, sha256_file
    from ..task6.turns import read_turns
    from .folder import fingerprint
    from .interface import progress_lines, run
    from .output import write_answers

    if options.out != "-":
        check_writable(options.out, (options.data, options.candidates))
    start = time.perf_counter()
    system = load_model(options.model, options.systems)
    turns = read_turns(options.data)
    with naming(*((options.candidates,) if options.candidates else (options.model, options.data))):
        count, where = _candidates(system, options, turns)
    with reporting(notes=not options.quiet):
        rankings = run(system, turns, options.rank or 1, progress=progress_lines("predicting"))
    predictions = [r[0] for r in rankings]
    parts = [system.label(), f"model:{fingerprint(options.model)[:12]}",
             f"candidates:{sha256_file(options.candidates)[:12] if options.candidates else 'model+data'}"]
    ranked = rankings if options.rank else None
    scored, sig = score_system(predictions, ranked, turns, sha256_file(options.data), parts, options.rank)
    seconds = time.perf_counter() - start
    out = write_answers(predictions, ranked, options.out, options.quiet)
    if options.out == "-" and sys.stdout.isatty():
        print("dstc2conv: the score follows on stderr; --out FILE writes the predictions to a file", file=sys.stderr)
    facts = _trained_among(system)
    if options.json:
        print(json.dumps({**score_output.as_dict(scored.figures, sig), "system": system.label(), "candidates": count,
                          "trained_among": facts, "seconds": round(seconds, 3)}, indent=2), file=out)
        return 0
    print(f"system                 {system.label()} ({options.model})", file=out)
    if facts:
        print(f"trained among          {facts['count']} candidates ({facts['from']})", file=out)
    if count:
        print(f"candidates             {count} ({where})", file=out)
    print("\n".join(score_output.score_lines(scored.figures, sig)), file=out)
    print(f"time                   {seconds:.1f} s", file=out)
    return 0


def _trained_among(system) -> dict | None:
    """The candidates the model was trained among: their number and where they came from."""
    count = getattr(system, "trained_with", {}).get("candidates")
    if count is None:
        return None
    return {"count": count, "from": system.about.get("candidates_from", "not recorded")}


def _cmd_predict(args) -> int:
    return predict(PredictOptions(args.model, args.data, args.out, args.rank, args.candidates, args.json, args.quiet,
                                  _systems(args)))


def _systems(args) -> tuple:
    """The systems the model must be of: the alias's, or the one ``--system`` names."""
    return (args.system,) if getattr(args, "system", None) else args.systems


def explain(options: ExplainOptions) -> list[str]:
    """The lines ``explain`` prints: the turn, the system's explanation, the gold."""
    from ..task6.turns import read_turns
    from .interface import explain_turn

    system = load_model(options.model, options.systems)
    turns = read_turns(options.data)
    dialog = [i for i, t in enumerate(turns) if t.dialog == options.dialog - 1]
    if not dialog:
        raise Dstc2ConvError(f"no dialog {options.dialog} (the file has {turns[-1].dialog + 1 if turns else 0})",
                             options.data)
    if options.turn > len(dialog):
        raise Dstc2ConvError(f"dialog {options.dialog} has {len(dialog)} bot turns, not {options.turn}", options.data)
    index = dialog[options.turn - 1]
    lines = explain_turn(system, turns, index, options.top)
    return [f"dialog {options.dialog}, turn {options.turn} (line {turns[index].line} of {options.data}), "
            f"{system.label()}", *lines, f"gold:  {turns[index].gold}"]


def _cmd_explain(args) -> int:
    options = ExplainOptions(args.model, args.data, args.dialog, args.turn, args.top, _systems(args))
    print("\n".join(explain(options)))
    return 0


# ---------------------------------------------------------------- the parsers

def add_train_options(p, system: bool = True) -> None:
    """``train``'s options (``system``: with ``--system``, which the aliases set)."""
    from ..arguments import at_least

    if system:
        from .registry import listed

        p.add_argument("--system", required=True, metavar="NAME",
                       help=f"the system: one of the registry's ({listed()}), a plugin's, or module:Class")
    p.add_argument("--train", required=True, metavar="T6FILE", help="the task-6 training file")
    p.add_argument("--dev", required=True, metavar="T6FILE",
                   help="the task-6 dev file: early stopping (and, with --search, the settings) chosen on it")
    p.add_argument("--model", required=True, metavar="DIR", help="the model folder to write (replaced if a model)")
    p.add_argument("--seed", type=at_least(0), metavar="N", help="the random seed (default: the system's, 0)")
    p.add_argument("--search", action="store_true",
                   help="train every setting of the system's grid (docs/learned.md) and keep the best on --dev")
    p.add_argument("--candidates", metavar="FILE",
                   help="train among (and rank) the responses of this candidates file, '1 <utterance>' a line")
    p.add_argument("--test", metavar="T6FILE",
                   help="train among the bot utterances of this task-6 file too, with TRN's and DEV's (the paper's "
                        "set, as table2 uses; default: TRN's and DEV's)")
    p.add_argument("--quiet", action="store_true", help="no notes or progress on stderr")
    p.set_defaults(set=None, match=False)


def add_predict_options(p) -> None:
    from ..arguments import at_least

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
                        "of --data must be there) (default: the model's candidates and the distinct bot "
                        "utterances of --data)")
    p.add_argument("--json", action="store_true", help="print the score as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.set_defaults(func=_cmd_predict, systems=())


def add_explain_options(p, top: bool = True) -> None:
    from ..arguments import at_least

    p.add_argument("--model", required=True, metavar="DIR", help="the model folder")
    p.add_argument("--data", required=True, metavar="T6FILE", help="the task-6 file")
    p.add_argument("--dialog", type=at_least(1), required=True, metavar="N", help="the dialog, from 1")
    p.add_argument("--turn", type=at_least(1), required=True, metavar="T", help="the bot turn of the dialog, from 1")
    if top:
        p.add_argument("--top", type=at_least(1), default=8, metavar="N",
                       help="how many answers (or features) to show (default 8)")
    else:
        p.set_defaults(top=1)
    p.set_defaults(func=_cmd_explain, systems=())


def add_parsers(sub) -> None:
    """``dstc2conv train | predict | explain``."""
    p = sub.add_parser("train", help="train any system on a task-6 file (choices on --dev) into a model folder")
    add_train_options(p)
    p.add_argument("--set", action="append", metavar="KEY=VALUE",
                   help="a setting of the system (repeatable): --set hops=3 --set optimizer=sgd")
    p.set_defaults(func=_cmd_train)
    for p in (sub.add_parser("predict", help="a trained model's responses for a task-6 file, and their score"),
              sub.add_parser("explain", help="why a trained model answers a turn as it does (the systems that can "
                                             "say)")):
        (add_predict_options if p.prog.endswith("predict") else add_explain_options)(p)
        p.add_argument("--system", metavar="NAME",
                       help="the system the model must be of; a model of your own (module:Class) is loaded only "
                            "when named so, since loading it imports its module")


def add_alias(sub, name: str, help: str, systems: tuple, match: bool = False, explain: bool = False) -> None:
    """``dstc2conv NAME train | predict [| explain]``: the commands above for the systems
    ``systems`` (with ``match``: ``--match`` picks the second)."""
    parser = sub.add_parser(name, help=help)
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = commands.add_parser("train", help="train on a task-6 file (choices on --dev) into a model folder")
    add_train_options(p, system=False)
    if match:
        p.add_argument("--match", action="store_true", help="with match-type features (the KB's entity types)")
    p.set_defaults(func=lambda args: _cmd_train(args, systems[1] if args.match else systems[0]))
    p = commands.add_parser("predict", help="a trained model's responses for a task-6 file, and their score")
    add_predict_options(p)
    p.set_defaults(systems=systems)
    if explain:
        p = commands.add_parser("explain", help="a turn as the model saw it: the memories with their attention at "
                                                "each hop, the answer and the gold")
        add_explain_options(p, top=False)
        p.set_defaults(systems=systems)

