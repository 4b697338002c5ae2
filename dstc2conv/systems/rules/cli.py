"""`dstc2conv rules score | predict | report | check | tune`: the only part of the rule
baseline that prints. Exit codes: 0 ok, 1 findings (check), 2 bad input (a rule file's
problems are printed one a line, all of them)."""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...arguments import at_least
from ...errors import Dstc2ConvError, one_line
from ...files import check_writable, output_folder, read_bytes, read_text, write_files_atomic, write_stdout, write_text_atomic
from ...reporter import reporting
from .objectives import OBJECTIVES
from .problems import count
from .shipped import DEFAULT_RULES, default_rules, shipped_rules

if TYPE_CHECKING:
    from ...evaluate.responses import Score
    from .history import History, Scored

def _load(args):
    from ...task6.turns import read_turns
    from .ruleset import load_rules

    ruleset = load_rules(args.rules)
    turns = read_turns(args.data) if getattr(args, "data", None) else None
    return ruleset, turns


NO_MANIFEST = "none"    # --manifest none: no manifest, not even the one beside the data


def _load_systems(args, needed: bool = False):
    """``_load``, and the dialog system of each dialog (``Sessions``) from the build's
    manifest (--manifest, else manifest.json beside the data if it lists the file), or
    None without one (or with --manifest none); a manifest that does not fit the file is
    an error (saying, unless the systems are ``needed``, how to do without it)."""
    from ...evaluate.sessions import read_sessions
    from ...task6.turns import read_file
    from .ruleset import load_rules

    ruleset = load_rules(args.rules)
    dialogs, turns = read_file(args.data)
    if args.manifest == NO_MANIFEST:
        return ruleset, turns, None
    try:
        sessions = read_sessions(args.data, len(dialogs), args.manifest)
    except Dstc2ConvError as exc:
        if args.manifest is not None or needed:
            raise
        # the manifest beside the data, not asked for: say how to do without it
        raise Dstc2ConvError(f"{exc.message} (--manifest {NO_MANIFEST} ignores it)", exc.path, exc.line) from None
    return ruleset, turns, sessions


def _say(args, message: str) -> None:
    """A note on stderr, unless --quiet."""
    if not args.quiet:
        print(f"dstc2conv: {message}", file=sys.stderr)


def _warn(message: str) -> None:
    print(f"dstc2conv: warning: {message}", file=sys.stderr)


def _reporting(command):
    """Run a command; print every problem of a rule file, one a line (exit code 2)."""
    from .problems import RuleFileError

    def run(args) -> int:
        try:
            return command(args)
        except RuleFileError as exc:
            for problem in exc.problems:
                print(f"dstc2conv: error: {one_line(str(problem))}", file=sys.stderr)
            return 2
    return run


def _predict(ruleset, turns):
    from .system import Rules, answers

    return answers(Rules(ruleset), turns)


@dataclass(frozen=True)
class _Scoring:
    """What every scoring of one data file shares (``rules score``, each save with --watch)."""
    data: str
    data_sha: str
    dialogs: list
    turns: list
    systems: tuple | None      # each dialog's system, from the manifest
    history: History | None


@dataclass(frozen=True)
class _Baseline:
    label: str
    described: str
    score: Score
    scored: Scored


def _cmd_score(args) -> int:
    from ...evaluate.sessions import read_sessions
    from ...files import sha256_file
    from ...task6.turns import read_file
    from .history import History, history_path
    from .ruleset import load_rules

    _score_flags(args)
    if getattr(args, "chooser", None):
        return _score_chosen(args)
    ruleset = load_rules(args.rules)
    dialogs, turns = read_file(args.data)
    sessions = _sessions(args, len(dialogs), read_sessions)
    history = None if args.no_history else History(history_path(args.data, args.history_dir), args.data)
    setup = _Scoring(args.data, sha256_file(args.data), dialogs, turns, sessions.systems if sessions else None, history)
    baseline = _baseline(args, setup, ruleset)
    args.watched_ontology = ruleset.ontology_file
    if args.watch:
        from .watch import watch

        _rescore(args, setup, ruleset, baseline)
        _say(args, f"watching {args.rules} and its ontology for saves (Ctrl-C ends)")
        try:
            watch(args.rules, lambda: _rescore_saved(args, setup, baseline), lambda: _watched(args))
        except KeyboardInterrupt:
            pass       # the way a watch ends: quietly, exit 0
        return 0
    _rescore(args, setup, ruleset, baseline, pin=args.save)
    return 0


def _score_flags(args) -> None:
    if args.no_history and (args.save or args.against in ("last", "best")):
        raise Dstc2ConvError(f"{'--save' if args.save else '--against ' + args.against} needs the score history "
                             "(not --no-history)")
    if args.watch and (args.json or args.save):
        raise Dstc2ConvError(f"--watch prints text after each save: {'--json' if args.json else '--save'} is for "
                             "one scoring")
    if args.save:
        from .history import check_name

        check_name(args.save)


def _sessions(args, dialogs: int, read_sessions):
    """The sessions of the data's dialogs from the manifest, or None (see _load_systems)."""
    if args.manifest == NO_MANIFEST:
        return None
    try:
        return read_sessions(args.data, dialogs, args.manifest)
    except Dstc2ConvError as exc:
        if args.manifest is not None:
            raise
        raise Dstc2ConvError(f"{exc.message} (--manifest {NO_MANIFEST} ignores it)", exc.path, exc.line) from None


def _is_shipped(path: str) -> bool:
    try:
        return os.path.samefile(path, shipped_rules())
    except OSError:
        return False


def _scored(ruleset, setup: _Scoring) -> tuple[Scored, float]:
    from ...evaluate.responses import outcomes
    from .history import Scored

    start = time.perf_counter()
    predictions = _predict(ruleset, setup.turns)
    seconds = time.perf_counter() - start
    return Scored(tuple(predictions), tuple(outcomes([p.text for p in predictions], setup.turns))), seconds


def _score_of(ruleset, setup: _Scoring, scored: Scored) -> Score:
    from ...evaluate.responses import score, signature

    return score(scored.results, setup.turns, signature(setup.data_sha, f"rules:{ruleset.sha256[:12]}"))


def _baseline(args, setup: _Scoring, ruleset) -> _Baseline | None:
    """What --against names, scored on the data (None: nothing to compare with, said on stderr)."""
    from .ruleset import load_rules

    against, history = args.against, setup.history
    if against in (None, "last", "best"):
        if history is None:
            return None
        find = history.best_other(ruleset.sha256, setup.data_sha) if against == "best" else \
            history.last_other(args.rules, ruleset.sha256, setup.data_sha)
        if find is None:
            what = ("no scoring of other rules on this data is kept" if against == "best" else
                    "no earlier scoring of other rules in this rule file on this data")
            if history.changed_data(setup.data_sha):
                what = "the data file changed since the last score"
            if against is None:
                _say(args, f"{what}: nothing to compare with (--against shipped compares with the shipped rules)")
                return None
            raise Dstc2ConvError(f"--against {against}: {what}", setup.data)
        label = against or "last"
        where = "" if against != "best" else f" of {os.path.relpath(find.rules)}"
        scored = history.scored(find, len(setup.turns))
        _say(args, f"comparing with the scoring{where} of {find.time}")
        return _Baseline(label, f"{label}: rules:{find.sha256[:12]}{where}", find.to_score(), scored)
    if against == "shipped" or (history is None or against not in history.pinned):
        if against == "shipped":
            path, described = shipped_rules(), "shipped: the rules shipped with dstc2conv"
        elif os.path.isfile(against):
            path, described = against, against
        else:
            pinned = ", ".join(sorted(history.pinned)) if history and history.pinned else "none"
            raise Dstc2ConvError(f"--against {against}: no such rule file, nor a score pinned under that name "
                                 f"(pinned on this data: {pinned}; or shipped, last, best)", setup.data)
        other = load_rules(path)
        scored, _ = _scored(other, setup)
        return _Baseline(against, f"{described}, rules:{other.sha256[:12]}", _score_of(other, setup, scored), scored)
    entry = history.pinned[against]
    if entry.data_sha256 != setup.data_sha:
        raise Dstc2ConvError(f"--against {against}: that score was pinned on another version of the data file",
                             setup.data)
    return _Baseline(against, f"{against}: pinned, rules:{entry.sha256[:12]}", entry.to_score(),
                     history.scored(entry, len(setup.turns)))


def _rescore(args, setup: _Scoring, ruleset, baseline: _Baseline | None, pin: str | None = None) -> None:
    """Score the rules, print the score and the change since the baseline, keep it in the history."""
    from ...evaluate.responses import by_system
    from .flips import as_dict, as_text, compare

    scored, seconds = _scored(ruleset, setup)
    now = _score_of(ruleset, setup, scored)
    turns, predictions = setup.turns, scored.predictions
    systems = by_system(scored.results, turns, setup.systems) if setup.systems else None
    change = None if baseline is None else compare(baseline.label, baseline.described, baseline.score,
                                                   baseline.scored, predictions, scored.results, turns, setup.systems)
    _say(args, f"rules {ruleset.path}" + (" (the shipped rules)" if _is_shipped(ruleset.path) else ""))
    # kept before it is printed: a reader that stops early (| head) leaves the next rescore its baseline
    kept = _keep(setup, ruleset, now, scored, pin)
    more = {}
    if change is not None and args.json:
        more["against"] = as_dict(change, now, turns, predictions, args.flips, args.context, setup.dialogs)
    _print_score(args, now, systems, turns, seconds, more)
    if change is not None and not args.json:
        print("\n".join(as_text(change, now, turns, predictions, args.flips, args.context, setup.dialogs)))
    if kept and pin:
        _say(args, f"pinned as {pin}: --against {pin} compares with it")


def _keep(setup: _Scoring, ruleset, now, scored, pin: str | None) -> bool:
    """Add the score to the history (if any); whether it was added. A failure is a warning,
    an error with ``pin`` (--save)."""
    from ...files import sha256_file
    from .history import Entry, now_utc
    from .ruleset import rules_sha256

    if setup.history is None:
        return False
    try:
        file_sha = sha256_file(ruleset.path)
        if rules_sha256(file_sha, ruleset.ontology.sha256) != ruleset.sha256:
            raise Dstc2ConvError("the rule file changed while it was scored", ruleset.path)
        entry = Entry(os.path.abspath(ruleset.path), file_sha, ruleset.ontology.sha256, ruleset.sha256,
                      setup.data_sha, now.to_dict(), now_utc())
        setup.history.add(entry, scored, pin)
    except Dstc2ConvError as exc:
        if pin:
            raise
        _warn(f"the score is not kept for the next comparison: {exc}")
        return False
    return True


def _watched(args) -> list[str]:
    """The files to watch: the rule file and, once it has loaded, its ontology."""
    return [args.rules] + ([args.watched_ontology] if getattr(args, "watched_ontology", None) else [])


def _rescore_saved(args, setup: _Scoring, baseline: _Baseline | None) -> None:
    """After a save: rescore, or print the problems of a file that does not load."""
    from .problems import RuleFileError
    from .ruleset import load_rules

    try:
        ruleset = load_rules(args.rules)
        args.watched_ontology = ruleset.ontology_file
        print()
        _rescore(args, setup, ruleset, baseline)     # may find a regular expression too slow on the data
    except RuleFileError as exc:
        for problem in exc.problems:
            print(f"dstc2conv: error: {one_line(str(problem))}", file=sys.stderr)
    except Dstc2ConvError as exc:
        print(f"dstc2conv: error: {one_line(str(exc))}", file=sys.stderr)
    else:
        sys.stdout.flush()
        return
    _say(args, "not rescored; watching for the next save")


def _print_score(args, now, systems, turns, seconds, more: dict) -> None:
    """Print the score (and, with --json, the ``more`` keys in the same object)."""
    from ...evaluate.score_output import parts, score_lines

    if args.json:
        out = now.to_dict()
        if systems is not None:
            out["by_system"] = parts(systems)
        out["turns_per_second"] = round(len(turns) / seconds) if seconds else None
        out.update(more)
        print(json.dumps(out, indent=2))
        return
    print("\n".join(score_lines({"accuracy": now.to_dict()}, now.signature, parts(systems) if systems else None)))


INIT_FOLDER = "my-rules"


def _cmd_init(args) -> int:
    """Copy the shipped rule file and its ontology into a folder, to edit."""
    from importlib import resources

    shipped = resources.files("dstc2conv.rulefiles")
    names = ("dstc2.yaml", "ontology.yaml")
    targets = [os.path.join(args.folder, name) for name in names]
    there = [t for t in targets if os.path.lexists(t)]
    if there and not args.force:
        raise Dstc2ConvError(f"{' and '.join(there)} already there: not overwritten (--force overwrites)")
    if os.path.exists(args.folder) and not os.path.isdir(args.folder):
        raise Dstc2ConvError("cannot write the rules: it is a file, not a folder", args.folder)
    try:
        os.makedirs(args.folder, exist_ok=True)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", args.folder) from None
    write_files_atomic([(target, (shipped / name).read_bytes()) for name, target in zip(names, targets)])
    for target in targets:
        print(target)
    print(f"score them: dstc2conv rules score --rules {targets[0]} --data T6FILE", file=sys.stderr)
    return 0


def _cmd_predict(args) -> int:
    if args.out != "-":
        check_writable(args.out, (args.data, args.rules))
    ruleset, turns = _load(args)
    if args.out != "-":
        check_writable(args.out)    # nor the ontology the rules name
    predictions = _chosen(args, ruleset, turns) if args.chooser else _predict(ruleset, turns)
    text = "".join(p.text.replace("\n", " ") + "\n" for p in predictions)
    if args.out == "-":
        write_stdout(text)
        return 0
    write_text_atomic(args.out, text)
    _say(args, f"{count(len(predictions), 'prediction')} written to {args.out}")
    return 0


def _cmd_report(args) -> int:
    from .engine import Compiled, predict
    from .report import as_csv, as_markdown, as_text, tables

    to_csv = args.format == "csv"
    if args.top is not None and args.top < 1:
        raise Dstc2ConvError(f"--top {args.top}: give 1 or more")
    if to_csv and args.out is None:
        raise Dstc2ConvError("--format csv needs --out DIR, the folder for rules.csv, kinds.csv and confusions.csv")
    if args.out is not None and not to_csv:
        raise Dstc2ConvError("--out is for --format csv (text and markdown go to stdout)")
    if args.manifest is not None and not args.by_system:
        raise Dstc2ConvError("--manifest is for --by-system")
    if to_csv:
        output_folder(args.out, "the CSV files")
    systems = None
    if args.by_system:
        ruleset, turns, sessions = _load_systems(args, needed=True)
        if sessions is None:
            raise Dstc2ConvError("--by-system needs the build's manifest.json beside the data file "
                                 "(listing it), or --manifest FILE", args.data)
        _say(args, f"dialog systems from {sessions.manifest}")
        systems = [sessions.systems[t.dialog] for t in turns]
    else:
        ruleset, turns = _load(args)
    compiled = Compiled(ruleset)
    top = args.top or (None if to_csv else 15)
    predictions = predict(compiled, turns)
    sections = tables(predictions, turns, compiled, top=top, systems=systems)
    if args.chooser:
        from .overrides import overrides

        sections.insert(0, overrides(predictions, _chosen(args, ruleset, turns), turns, top))
    if to_csv:
        from ...builder.output_set import OutputFolder

        with OutputFolder(args.out) as folder:   # all the CSV files, or none (as a build's set)
            written = folder.commit({f"{table.name}.csv": as_csv(table) for table in sections})
        for path, table in zip(written, sections):
            print(path)
            if table.more:
                _say(args, f"{path}: {table.more_note()}")
        return 0
    write = as_markdown if args.format == "markdown" else as_text
    print("\n\n".join(f"## {table.name}\n\n{write(table)}" for table in sections))
    return 0


def _cmd_check(args) -> int:
    from ...task6.turns import read_turns
    from .check import find_problems
    from .ruleset import load_rules

    ruleset = load_rules(args.rules)
    files = [read_turns(path) for path in args.data or ()]
    findings = find_problems(ruleset, files) if files else []
    print(f"{args.rules}: {count(len(ruleset.rules), 'rule')}, {count(len(ruleset.patterns), 'pattern')}: valid")
    if files and not findings:
        print(f"every response rule answers some of the {count(sum(map(len, files)), 'bot turn')} of "
              f"{', '.join(args.data)}")
    for finding in findings:
        print(finding)
    return 1 if findings else 0


def _cmd_tune(args) -> int:
    from ...evaluate.tables import percent
    from .tune import tune, write_tuned

    name = os.path.basename(args.data).lower()
    if ("tst" in name or "test" in name) and not args.force:
        raise Dstc2ConvError("refusing to tune on what looks like a test split (use --force to insist)", args.data)
    check_writable(args.out, (args.data, args.rules, args.manifest))
    ruleset, turns, sessions = _load_systems(args)
    check_writable(args.out)    # nor the ontology the rules name, nor the manifest beside the data
    copy = _ontology_copy(ruleset, args.out)
    if sessions is not None and not args.force:
        if sessions.split == "test":
            raise Dstc2ConvError(f"refusing to tune on a test split: {sessions.manifest} says so "
                                 "(use --force to insist)", args.data)
        if "S2" in sessions.systems:
            raise Dstc2ConvError(f"refusing to tune on dialogs of system S2, the test split's ({sessions.manifest}; "
                                 "use --force to insist)", args.data)
    if args.objective != "overall" and sessions is None:
        raise Dstc2ConvError(f"--objective {args.objective} needs each dialog's system: no manifest.json "
                             "beside the data lists it; give the build's with --manifest", args.data)
    what = OBJECTIVES[args.objective]
    with reporting(notes=not args.quiet):   # tune's progress, when stderr is a terminal
        tuned = tune(ruleset, turns, budget_seconds=args.budget, systems=sessions.systems if sessions else None,
                     objective=args.objective)
    text = write_tuned(read_text(args.rules, "a rule file"), ruleset, tuned)
    files = [(args.out, text.encode("utf-8"))]
    if copy:     # the ontology beside the tuned file, where it looks for it: both written, or neither
        files.append((copy[1], read_bytes(copy[0], "an ontology file")))
        try:
            os.makedirs(os.path.dirname(copy[1]) or ".", exist_ok=True)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", os.path.dirname(copy[1])) from None
    write_files_atomic(files)
    if copy:
        _say(args, f"copied the ontology {copy[0]} to {copy[1]}, where the tuned file looks for it")
    print(f"before  {percent(tuned.before)} {what}")
    print(f"after   {percent(tuned.after)} {what}")
    for (system, before), (_, after) in zip(tuned.systems_before, tuned.systems_after):
        print(f"  {system:<5} {percent(before.per_response)} -> {percent(after.per_response)} per response "
              f"({before.correct} -> {after.correct} of {after.responses})")
    if not tuned.converged:
        print(f"stopped by the time budget after {count(tuned.rounds, 'round')}; not converged")
    print(f"changed {count(len(tuned.changes), 'rule')}" + (":" if tuned.changes else ""))
    for change in tuned.changes:
        print(f"  {change}")
    print(f"written to {args.out}")
    return 0


def _ontology_copy(ruleset, out_path: str) -> tuple[str, str] | None:
    """The tuned file keeps the rule file's ``ontology:`` line. When that path, read from
    the tuned file's folder, is not the rule file's ontology: (ontology, where to copy it)
    if nothing is there and it is in the tuned file's folder (or below); an error if
    another file is there, or if it is outside."""
    value = ruleset.ontology_path
    if os.path.isabs(value):
        return None
    source = ruleset.ontology_file
    target = os.path.join(os.path.dirname(out_path), value)
    if os.path.exists(target):
        if not _same_file(source, target):
            raise Dstc2ConvError(f"the tuned file would name the ontology {target}, which is not the rule file's "
                                 f"{source}: write it to another folder", out_path)
        return None
    if os.path.normpath(value).split(os.sep)[0] == os.pardir:
        raise Dstc2ConvError(f"the tuned file would name the ontology {value!r} ({target}), which is not there; "
                             f"it is outside the tuned file's folder, so not copied: copy {source} there "
                             "yourself", out_path)
    return source, target


def _same_file(a: str, b: str) -> bool:
    import filecmp

    return os.path.samefile(a, b) or filecmp.cmp(a, b, shallow=False)


def seconds(text: str) -> float:
    """An argparse type: a number of seconds, more than 0 (--budget)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text}: give more than 0 seconds")
    return value


def add_parser(sub) -> None:
    parser = sub.add_parser("rules", help="the rule baseline: score, predict, report, check, tune, init, learn, explain")
    rules_sub = parser.add_subparsers(dest="rules_command", required=True, metavar="ACTION")

    def common(p, data_required=True):
        p.add_argument("--rules", default=default_rules(), metavar="FILE",
                       help=f"rule file (default: {DEFAULT_RULES} if it is in the current folder, "
                            "else the rules shipped with dstc2conv)")
        if data_required:
            p.add_argument("--data", required=True, metavar="T6FILE", help="a task-6 file")
        elif data_required is not None:    # None: the command takes its files under other names
            p.add_argument("--data", action="append", metavar="T6FILE",
                           help="a task-6 file (repeat for several: a rule is checked on all of them)")
        p.add_argument("--quiet", action="store_true", help="no progress or notes on stderr (warnings stay)")

    def chooser(p, what=""):
        p.add_argument("--chooser", metavar="DIR",
                       help="a learned chooser's model folder (rules learn): it picks among the rules' proposals"
                            + what)

    def manifest(p, what="for each dialog's DSTC2 system"):
        p.add_argument("--manifest", metavar="FILE",
                       help=f"the build's manifest.json, {what} (default: manifest.json beside the data, if it "
                            f"lists the file; {NO_MANIFEST}: no manifest, not even that one)")

    p = rules_sub.add_parser("score", help="per-response and per-dialog accuracy")
    common(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--against", metavar="WHAT",
                   help="what to compare with: last (the latest scoring of this rule file on this data with other "
                        "rules; the default), best (the best kept scoring on this data of other rules), shipped "
                        "(the shipped rules, scored now), a rule file (scored now), or a NAME pinned with --save")
    p.add_argument("--save", metavar="NAME", help="pin this scoring under NAME, for --against NAME")
    p.add_argument("--flips", type=at_least(0), default=3, metavar="N",
                   help="flipped turns to show per change of rule (default 3)")
    p.add_argument("--context", type=at_least(0), default=0, metavar="N",
                   help="show the N dialog lines before each flipped turn shown")
    p.add_argument("--watch", action="store_true",
                   help="rescore on every save of the rule file or its ontology, against the same baseline "
                        "(Ctrl-C ends)")
    p.add_argument("--no-history", action="store_true", help="neither read nor keep the score history")
    p.add_argument("--history-dir", metavar="DIR",
                   help="where the scores per data file are kept "
                        "(default: $XDG_CACHE_HOME/dstc2conv/history, else ~/.cache/dstc2conv/history)")
    manifest(p)
    chooser(p)
    p.set_defaults(func=_reporting(_cmd_score))

    p = rules_sub.add_parser("init", help="write an editable copy of the shipped rules and their ontology")
    p.add_argument("folder", nargs="?", default=INIT_FOLDER, metavar="DIR",
                   help=f"where to write dstc2.yaml and ontology.yaml (default {INIT_FOLDER})")
    p.add_argument("--force", action="store_true", help="overwrite the files if they are there")
    p.set_defaults(func=_cmd_init)

    p = rules_sub.add_parser("predict", help="one predicted bot utterance per line")
    common(p)
    p.add_argument("--out", required=True, metavar="PREDS", help="the file to write, or - for stdout")
    chooser(p)
    p.set_defaults(func=_reporting(_cmd_predict))

    p = rules_sub.add_parser("report", help="per-rule, per-kind and confusion tables")
    common(p)
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text",
                   help="text (default) or markdown tables on stdout; csv: rules.csv, kinds.csv and "
                        "confusions.csv in --out DIR")
    p.add_argument("--out", metavar="DIR", help="the folder for the CSV files (needed by --format csv)")
    p.add_argument("--top", type=int, metavar="N",
                   help="rows per table, the largest first (default 15; with --format csv, every row)")
    p.add_argument("--by-system", action="store_true",
                   help="turns and accuracy per DSTC2 dialog system (S0, S1, ...) in the rules and kinds tables")
    manifest(p, "for --by-system")
    chooser(p, "; adds a table of the turns where it overrode each rule, right and wrong")
    p.set_defaults(func=_reporting(_cmd_report))

    p = rules_sub.add_parser("check", help="validate; with --data, rules that never fire or are always shadowed "
                                           "on the files given")
    common(p, data_required=False)
    p.set_defaults(func=_reporting(_cmd_check))

    p = rules_sub.add_parser("tune", help="choose enabled rules and priorities on a validation file")
    common(p)
    p.add_argument("--out", required=True, metavar="NEW.yaml",
                   help="the tuned rule file to write: the rule file with the chosen rules enabled and their "
                        "priorities (not the rule file itself; its ontology is copied beside it when needed)")
    p.add_argument("--budget", type=seconds, default=100.0, metavar="SECONDS", help="time budget (default 100)")
    p.add_argument("--objective", choices=list(OBJECTIVES), default="overall",
                   help="what to maximise: per-response accuracy over all turns (default), or the mean, or "
                        "the lowest, of the dialog systems' (these need the manifest)")
    p.add_argument("--force", action="store_true", help="tune even on what looks like a test split")
    manifest(p)
    p.set_defaults(func=_reporting(_cmd_tune))


def _chosen(args, ruleset, turns):
    """The predictions of the model folder --chooser DIR (a system over the rules, such as
    the learned chooser), built over ``ruleset``, through the one dialog loop: each with
    the first rule proposing it (``learned``: a template no rule proposed)."""
    from ..registry import load
    from .engine import Prediction
    from .system import answers, over_rules

    system = load(args.chooser)
    if "rules" not in system.get_params() or not hasattr(system, "last_rule"):
        raise Dstc2ConvError(f"a model of {system.label()}, not of a system over the rules", args.chooser)
    return [Prediction(p.text, p.rule or "learned") for p in answers(over_rules(system, ruleset), turns)]


def _score_chosen(args) -> int:
    """score --chooser: the score with the chooser, and the change against the same rules
    without it (or what --against names), with the turns that flipped."""
    from ...evaluate.responses import by_system, outcomes, score, signature
    from ...evaluate.sessions import read_sessions
    from ...files import sha256_file
    from ...task6.turns import read_file
    from .flips import as_text, compare
    from .ruleset import load_rules

    if args.save or args.watch:
        raise Dstc2ConvError(f"{'--save' if args.save else '--watch'} is for the rules alone, not with --chooser")
    ruleset = load_rules(args.rules)
    dialogs, turns = read_file(args.data)
    sessions = _sessions(args, len(dialogs), read_sessions)
    data_sha = sha256_file(args.data)
    start = time.perf_counter()
    predictions = _chosen(args, ruleset, turns)
    seconds = time.perf_counter() - start
    results = tuple(outcomes([p.text for p in predictions], turns))
    from ..folder import WEIGHTS

    weights = sha256_file(os.path.join(args.chooser, WEIGHTS))
    now = score(results, turns, signature(data_sha, f"rules:{ruleset.sha256[:12]}+learned:{weights[:12]}"))
    systems = by_system(results, turns, sessions.systems) if sessions else None
    if args.against in (None, "last", "best", "shipped") or os.path.isfile(args.against):
        path = args.rules if args.against in (None, "last", "best") else \
            shipped_rules() if args.against == "shipped" else args.against
        other = load_rules(path)
        label = "rules" if args.against in (None, "last", "best") else args.against
        described = (f"{label}: the same rules without the chooser" if label == "rules" else label) + \
            f", rules:{other.sha256[:12]}"
    else:
        raise Dstc2ConvError(f"--against {args.against}: with --chooser, give shipped or a rule file", args.data)
    setup = _Scoring(args.data, data_sha, dialogs, turns, sessions.systems if sessions else None, None)
    before, _ = _scored(other, setup)
    change = compare(label, described, _score_of(other, setup, before), before, predictions, results, turns,
                     setup.systems)
    more = {}
    if args.json:
        from .flips import as_dict

        more["against"] = as_dict(change, now, turns, predictions, args.flips, args.context, dialogs)
    _say(args, f"rules {ruleset.path} with the chooser {args.chooser}")
    _print_score(args, now, systems, turns, seconds, more)
    if not args.json:
        print("\n".join(as_text(change, now, turns, predictions, args.flips, args.context, dialogs)))
    return 0
