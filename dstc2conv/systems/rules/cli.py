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
from .shipped import DEFAULT_RULES, babi_reason, default_rules, first_bot_turn, shipped_for, shipped_rules

if TYPE_CHECKING:
    from ...evaluate.responses import Score
    from .history import History, Scored

@dataclass(frozen=True)
class _Files:
    """What the rule commands that read a rule file and a task-6 file share: --rules,
    --data, --quiet."""
    rules: str
    data: str
    quiet: bool


def _load(options: _Files):
    from ...task6.turns import read_turns
    from .ruleset import load_rules

    ruleset = load_rules(options.rules)
    turns = read_turns(options.data) if options.data else None
    return ruleset, turns


# the shipped rule files, each with its ontology: task 6's, bAbI tasks 1-5's
SHIPPED_FILES = ("dstc2.yaml", "ontology.yaml", "babi.yaml", "babi-ontology.yaml")
NO_MANIFEST = "none"    # --manifest none: no manifest, not even the one beside the data


def _load_systems(options: _TuneOptions | _ReportOptions, needed: bool = False):
    """``_load``, and the dialog system of each dialog (``Sessions``) from the build's
    manifest (--manifest, else manifest.json beside the data if it lists the file), or
    None without one (or with --manifest none); a manifest that does not fit the file is
    an error (saying, unless the systems are ``needed``, how to do without it)."""
    from ...evaluate.sessions import read_sessions
    from ...task6.turns import read_file
    from .ruleset import load_rules

    ruleset = load_rules(options.rules)
    dialogs, turns = read_file(options.data)
    if options.manifest == NO_MANIFEST:
        return ruleset, turns, None
    try:
        sessions = read_sessions(options.data, len(dialogs), options.manifest)
    except Dstc2ConvError as exc:
        if options.manifest is not None or needed:
            raise
        # the manifest beside the data, not asked for: say how to do without it
        raise Dstc2ConvError(f"{exc.message} (--manifest {NO_MANIFEST} ignores it)", exc.path, exc.line) from None
    return ruleset, turns, sessions


def _picked(args, data: str | None) -> str:
    """--rules, else the rule file for the data (``shipped.shipped_for``: bAbI tasks 1-5's
    for their files, else task 6's; the one in rules/ of the current folder if it is
    there); without data, task 6's. bAbI's is said on stderr with why, unless --quiet
    (task 6's, the rules' default, goes unsaid as before)."""
    if args.rules is not None:
        return args.rules
    if data is None:
        return default_rules()
    path, why = shipped_for(data)
    if not args.quiet and babi_reason(data, first_bot_turn(data)):
        print(f"dstc2conv: rules {path}: {why} (--rules names another)", file=sys.stderr)
    return path


def _say(options: _Files, message: str) -> None:
    """A note on stderr, unless --quiet."""
    if not options.quiet:
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


@dataclass(frozen=True)
class _ScoreOptions(_Files):
    """``rules score``'s options."""
    json: bool
    against: str | None
    save: str | None
    flips: int
    context: int
    watch: bool
    no_history: bool
    history_dir: str | None
    manifest: str | None
    chooser: str | None


def _cmd_score(args) -> int:
    from .dstc6 import looks_dstc6

    if looks_dstc6(args.data):
        return _score_dstc6(args)
    if args.truth:
        raise Dstc2ConvError("--truth is for a DSTC6 JSON file (its answers); this data is not one", args.data)
    options = _ScoreOptions(rules=_picked(args, args.data), data=args.data, quiet=args.quiet, json=args.json,
                            against=args.against, save=args.save, flips=args.flips, context=args.context,
                            watch=args.watch, no_history=args.no_history, history_dir=args.history_dir,
                            manifest=args.manifest, chooser=args.chooser)
    _score_flags(options)
    if options.chooser:
        return _score_chosen(options)
    return _score(options)


def _score(options: _ScoreOptions) -> int:
    from ...evaluate.sessions import read_sessions
    from ...files import sha256_file
    from ...task6.turns import read_file
    from .history import History, history_path
    from .ruleset import load_rules

    ruleset = load_rules(options.rules)
    dialogs, turns = read_file(options.data)
    sessions = _sessions(options, len(dialogs), read_sessions)
    history = None if options.no_history else History(history_path(options.data, options.history_dir), options.data)
    setup = _Scoring(options.data, sha256_file(options.data), dialogs, turns, sessions.systems if sessions else None,
                     history)
    baseline = _baseline(options, setup, ruleset)
    if options.watch:
        _watch(options, setup, ruleset, baseline)
        return 0
    _rescore(options, setup, ruleset, baseline, pin=options.save)
    return 0


def _score_dstc6(args) -> int:
    """``rules score`` on a DSTC6 track 1 JSON file: P@1 of the rules (``dstc6.score6``)."""
    from .dstc6 import score6
    from .ruleset import load_rules
    from .shipped import shipped_dstc6

    for flag, given in (("--against", args.against), ("--save", args.save), ("--watch", args.watch),
                        ("--manifest", args.manifest), ("--chooser", args.chooser)):
        if given:
            raise Dstc2ConvError(f"{flag} is for task-6 files, not a DSTC6 JSON file", args.data)
    rules = args.rules or shipped_dstc6()
    if args.rules is None and not args.quiet:
        print(f"dstc2conv: rules {rules}: the data is a DSTC6 JSON file (--rules names another)", file=sys.stderr)
    scored = score6(load_rules(rules), args.data, args.truth)
    if args.json:
        print(json.dumps({"data": args.data, "entries": scored.entries, "right": scored.right,
                          "p_at_1": round(scored.p_at_1, 6)}, indent=2))
    else:
        print(f"P@1 {scored.p_at_1:.2%} ({scored.right}/{scored.entries} entries)")
        for dialog_id, predicted, answer in scored.wrong[:args.flips]:
            print(f"  {dialog_id}: said {predicted!r}, answer {answer!r}")
    return 0


def _score_flags(options: _ScoreOptions) -> None:
    if options.no_history and (options.save or options.against in ("last", "best")):
        raise Dstc2ConvError(f"{'--save' if options.save else '--against ' + options.against} needs the score "
                             "history (not --no-history)")
    if options.watch and (options.json or options.save):
        raise Dstc2ConvError(f"--watch prints text after each save: {'--json' if options.json else '--save'} is "
                             "for one scoring")
    if options.save:
        from .history import check_name

        check_name(options.save)


def _sessions(options: _ScoreOptions, dialogs: int, read_sessions):
    """The sessions of the data's dialogs from the manifest, or None (see _load_systems)."""
    if options.manifest == NO_MANIFEST:
        return None
    try:
        return read_sessions(options.data, dialogs, options.manifest)
    except Dstc2ConvError as exc:
        if options.manifest is not None:
            raise
        raise Dstc2ConvError(f"{exc.message} (--manifest {NO_MANIFEST} ignores it)", exc.path, exc.line) from None


def _is_shipped(path: str) -> bool:
    for name in SHIPPED_FILES[::2]:
        try:
            if os.path.samefile(path, shipped_rules(name)):
                return True
        except OSError:
            pass
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


def _baseline(options: _ScoreOptions, setup: _Scoring, ruleset) -> _Baseline | None:
    """What --against names, scored on the data (None: nothing to compare with, said on stderr)."""
    from .ruleset import load_rules

    against, history = options.against, setup.history
    if against in (None, "last", "best"):
        if history is None:
            return None
        find = history.best_other(ruleset.sha256, setup.data_sha) if against == "best" else \
            history.last_other(options.rules, ruleset.sha256, setup.data_sha)
        if find is None:
            what = ("no scoring of other rules on this data is kept" if against == "best" else
                    "no earlier scoring of other rules in this rule file on this data")
            if history.changed_data(setup.data_sha):
                what = "the data file changed since the last score"
            if against is None:
                _say(options, f"{what}: nothing to compare with (--against shipped compares with the shipped rules)")
                return None
            raise Dstc2ConvError(f"--against {against}: {what}", setup.data)
        label = against or "last"
        where = "" if against != "best" else f" of {os.path.relpath(find.rules)}"
        scored = history.scored(find, len(setup.turns))
        _say(options, f"comparing with the scoring{where} of {find.time}")
        return _Baseline(label, f"{label}: rules:{find.sha256[:12]}{where}", find.to_score(), scored)
    if against == "shipped" or (history is None or against not in history.pinned):
        if against == "shipped":
            path, described = shipped_for(setup.data, setup.turns, installed=True)[0], \
                "shipped: the rules shipped with dstc2conv"
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


def _rescore(options: _ScoreOptions, setup: _Scoring, ruleset, baseline: _Baseline | None,
             pin: str | None = None) -> None:
    """Score the rules, print the score and the change since the baseline, keep it in the history."""
    from ...evaluate.responses import by_system
    from .flips import as_dict, as_text, compare

    scored, seconds = _scored(ruleset, setup)
    now = _score_of(ruleset, setup, scored)
    turns, predictions = setup.turns, scored.predictions
    systems = by_system(scored.results, turns, setup.systems) if setup.systems else None
    change = None if baseline is None else compare(baseline.label, baseline.described, baseline.score,
                                                   baseline.scored, predictions, scored.results, turns, setup.systems)
    _say(options, f"rules {ruleset.path}" + (" (the shipped rules)" if _is_shipped(ruleset.path) else ""))
    # kept before it is printed: a reader that stops early (| head) leaves the next rescore its baseline
    kept = _keep(setup, ruleset, now, scored, pin)
    more = {}
    if change is not None and options.json:
        more["against"] = as_dict(change, now, turns, predictions, options.flips, options.context, setup.dialogs)
    _print_score(options, now, systems, turns, seconds, more)
    if change is not None and not options.json:
        print("\n".join(as_text(change, now, turns, predictions, options.flips, options.context, setup.dialogs)))
    if kept and pin:
        _say(options, f"pinned as {pin}: --against {pin} compares with it")


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


def _watch(options: _ScoreOptions, setup: _Scoring, ruleset, baseline: _Baseline | None) -> None:
    """score --watch: score, then rescore after every save until Ctrl-C."""
    from .watch import watch

    watched = _Watched(options.rules, ruleset.ontology_file)
    _rescore(options, setup, ruleset, baseline)
    _say(options, f"watching {options.rules} and its ontology for saves (Ctrl-C ends)")
    try:
        watch(options.rules, lambda: _rescore_saved(options, setup, baseline, watched), watched.files)
    except KeyboardInterrupt:
        pass       # the way a watch ends: quietly, exit 0


class _Watched:
    """The files to watch: the rule file and, once it has loaded, its ontology (which a
    save of the rule file may change)."""

    def __init__(self, rules: str, ontology: str | None):
        self.rules = rules
        self.ontology = ontology

    def files(self) -> list[str]:
        return [self.rules] + ([self.ontology] if self.ontology else [])


def _rescore_saved(options: _ScoreOptions, setup: _Scoring, baseline: _Baseline | None, watched: _Watched) -> None:
    """After a save: rescore, or print the problems of a file that does not load."""
    from .problems import RuleFileError
    from .ruleset import load_rules

    try:
        ruleset = load_rules(options.rules)
        watched.ontology = ruleset.ontology_file
        print()
        _rescore(options, setup, ruleset, baseline)     # may find a regular expression too slow on the data
    except RuleFileError as exc:
        for problem in exc.problems:
            print(f"dstc2conv: error: {one_line(str(problem))}", file=sys.stderr)
    except Dstc2ConvError as exc:
        print(f"dstc2conv: error: {one_line(str(exc))}", file=sys.stderr)
    else:
        sys.stdout.flush()
        return
    _say(options, "not rescored; watching for the next save")


def _print_score(options: _ScoreOptions, now, systems, turns, seconds, more: dict) -> None:
    """Print the score (and, with --json, the ``more`` keys in the same object)."""
    from ...evaluate.score_output import parts, score_lines

    if options.json:
        out = now.to_dict()
        if systems is not None:
            out["by_system"] = parts(systems)
        out["turns_per_second"] = round(len(turns) / seconds) if seconds else None
        out.update(more)
        print(json.dumps(out, indent=2))
        return
    print("\n".join(score_lines({"accuracy": now.to_dict()}, now.signature, parts(systems) if systems else None)))


INIT_FOLDER = "my-rules"


@dataclass(frozen=True)
class _InitOptions:
    """``rules init``'s options."""
    folder: str
    force: bool


def _cmd_init(args) -> int:
    """Copy the shipped rule file and its ontology into a folder, to edit."""
    from importlib import resources

    options = _InitOptions(folder=args.folder, force=args.force)
    shipped = resources.files("dstc2conv.rulefiles")
    names = SHIPPED_FILES
    targets = [os.path.join(options.folder, name) for name in names]
    there = [t for t in targets if os.path.lexists(t)]
    if there and not options.force:
        raise Dstc2ConvError(f"{' and '.join(there)} already there: not overwritten (--force overwrites)")
    if os.path.exists(options.folder) and not os.path.isdir(options.folder):
        raise Dstc2ConvError("cannot write the rules: it is a file, not a folder", options.folder)
    try:
        os.makedirs(options.folder, exist_ok=True)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", options.folder) from None
    write_files_atomic([(target, (shipped / name).read_bytes()) for name, target in zip(names, targets)])
    for target in targets:
        print(target)
    print(f"score them: dstc2conv rules score --rules {targets[0]} --data T6FILE "
          f"(bAbI tasks 1-5: --rules {targets[2]})", file=sys.stderr)
    return 0


@dataclass(frozen=True)
class _PredictOptions(_Files):
    """``rules predict``'s options."""
    out: str
    chooser: str | None


def _cmd_predict(args) -> int:
    options = _PredictOptions(rules=_picked(args, args.data), data=args.data, quiet=args.quiet, out=args.out, chooser=args.chooser)
    if options.out != "-":
        check_writable(options.out, (options.data, options.rules))
    ruleset, turns = _load(options)
    if options.out != "-":
        check_writable(options.out)    # nor the ontology the rules name
    predictions = _chosen(options, ruleset, turns) if options.chooser else _predict(ruleset, turns)
    text = "".join(p.text.replace("\n", " ") + "\n" for p in predictions)
    if options.out == "-":
        write_stdout(text)
        return 0
    write_text_atomic(options.out, text)
    _say(options, f"{count(len(predictions), 'prediction')} written to {options.out}")
    return 0


@dataclass(frozen=True)
class _ReportOptions(_Files):
    """``rules report``'s options."""
    format: str
    out: str | None
    top: int | None
    by_system: bool
    manifest: str | None
    chooser: str | None


def _cmd_report(args) -> int:
    from .engine import Compiled, predict
    from .report import tables

    options = _ReportOptions(rules=_picked(args, args.data), data=args.data, quiet=args.quiet, format=args.format, out=args.out,
                             top=args.top, by_system=args.by_system, manifest=args.manifest, chooser=args.chooser)
    to_csv = options.format == "csv"
    _report_flags(options)
    if to_csv:
        output_folder(options.out, "the CSV files")
    systems = None
    if options.by_system:
        ruleset, turns, sessions = _load_systems(options, needed=True)
        if sessions is None:
            raise Dstc2ConvError("--by-system needs the build's manifest.json beside the data file "
                                 "(listing it), or --manifest FILE", options.data)
        _say(options, f"dialog systems from {sessions.manifest}")
        systems = [sessions.systems[t.dialog] for t in turns]
    else:
        ruleset, turns = _load(options)
    compiled = Compiled(ruleset)
    top = options.top or (None if to_csv else 15)
    predictions = predict(compiled, turns)
    sections = tables(predictions, turns, compiled, top=top, systems=systems)
    if options.chooser:
        from .overrides import overrides

        sections.insert(0, overrides(predictions, _chosen(options, ruleset, turns), turns, top))
    _print_report(options, sections)
    return 0


def _report_flags(options: _ReportOptions) -> None:
    to_csv = options.format == "csv"
    if options.top is not None and options.top < 1:
        raise Dstc2ConvError(f"--top {options.top}: give 1 or more")
    if to_csv and options.out is None:
        raise Dstc2ConvError("--format csv needs --out DIR, the folder for rules.csv, kinds.csv and confusions.csv")
    if options.out is not None and not to_csv:
        raise Dstc2ConvError("--out is for --format csv (text and markdown go to stdout)")
    if options.manifest is not None and not options.by_system:
        raise Dstc2ConvError("--manifest is for --by-system")


def _print_report(options: _ReportOptions, sections: list) -> None:
    """The report's tables: on stdout, or one CSV file each in --out (their paths on stdout)."""
    from .report import as_csv, as_markdown, as_text

    if options.format == "csv":
        from ...builder.output_set import OutputFolder

        with OutputFolder(options.out) as folder:   # all the CSV files, or none (as a build's set)
            written = folder.commit({f"{table.name}.csv": as_csv(table) for table in sections})
        for path, table in zip(written, sections):
            print(path)
            if table.more:
                _say(options, f"{path}: {table.more_note()}")
        return
    write = as_markdown if options.format == "markdown" else as_text
    print("\n\n".join(f"## {table.name}\n\n{write(table)}" for table in sections))


@dataclass(frozen=True)
class _CheckOptions:
    """``rules check``'s options: the rules are checked on each --data file."""
    rules: str
    data: tuple[str, ...]
    quiet: bool


def _cmd_check(args) -> int:
    from ...task6.turns import read_turns
    from .check import find_problems
    from .ruleset import load_rules

    options = _CheckOptions(rules=_picked(args, (args.data or [None])[0]), data=tuple(args.data or ()),
                            quiet=args.quiet)
    ruleset = load_rules(options.rules)
    files = [read_turns(path) for path in options.data]
    findings = find_problems(ruleset, files) if files else []
    print(f"{options.rules}: {count(len(ruleset.rules), 'rule')}, {count(len(ruleset.patterns), 'pattern')}: valid")
    if files and not findings:
        print(f"every response rule answers some of the {count(sum(map(len, files)), 'bot turn')} of "
              f"{', '.join(options.data)}")
    for finding in findings:
        print(finding)
    return 1 if findings else 0


@dataclass(frozen=True)
class _TuneOptions(_Files):
    """``rules tune``'s options."""
    out: str
    budget: float
    objective: str
    force: bool
    manifest: str | None


def _cmd_tune(args) -> int:
    from .tune import tune, write_tuned

    options = _TuneOptions(rules=_picked(args, args.data), data=args.data, quiet=args.quiet, out=args.out, budget=args.budget,
                           objective=args.objective, force=args.force, manifest=args.manifest)
    name = os.path.basename(options.data).lower()
    if ("tst" in name or "test" in name) and not options.force:
        raise Dstc2ConvError("refusing to tune on what looks like a test split (use --force to insist)",
                             options.data)
    check_writable(options.out, (options.data, options.rules, options.manifest))
    ruleset, turns, sessions = _load_systems(options)
    check_writable(options.out)    # nor the ontology the rules name, nor the manifest beside the data
    copy = _ontology_copy(ruleset, options.out)
    _tune_sessions(options, sessions)
    with reporting(notes=not options.quiet):   # tune's progress, when stderr is a terminal
        tuned = tune(ruleset, turns, budget_seconds=options.budget, systems=sessions.systems if sessions else None,
                     objective=options.objective)
    text = write_tuned(read_text(options.rules, "a rule file"), ruleset, tuned)
    files = [(options.out, text.encode("utf-8"))]
    if copy:     # the ontology beside the tuned file, where it looks for it: both written, or neither
        files.append((copy[1], read_bytes(copy[0], "an ontology file")))
        try:
            os.makedirs(os.path.dirname(copy[1]) or ".", exist_ok=True)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot create the folder: {exc.strerror}", os.path.dirname(copy[1])) from None
    write_files_atomic(files)
    if copy:
        _say(options, f"copied the ontology {copy[0]} to {copy[1]}, where the tuned file looks for it")
    _print_tuned(tuned, OBJECTIVES[options.objective], options.out)
    return 0


def _tune_sessions(options: _TuneOptions, sessions) -> None:
    """Refuse the test split's dialogs (unless --force), and an objective by system without the systems."""
    if sessions is not None and not options.force:
        if sessions.split == "test":
            raise Dstc2ConvError(f"refusing to tune on a test split: {sessions.manifest} says so "
                                 "(use --force to insist)", options.data)
        if "S2" in sessions.systems:
            raise Dstc2ConvError(f"refusing to tune on dialogs of system S2, the test split's ({sessions.manifest}; "
                                 "use --force to insist)", options.data)
    if options.objective != "overall" and sessions is None:
        raise Dstc2ConvError(f"--objective {options.objective} needs each dialog's system: no manifest.json "
                             "beside the data lists it; give the build's with --manifest", options.data)


def _print_tuned(tuned, what: str, out: str) -> None:
    from ...evaluate.tables import percent

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
    print(f"written to {out}")


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
    _add_score(rules_sub)
    _add_init(rules_sub)
    _add_predict(rules_sub)
    _add_report(rules_sub)
    _add_check(rules_sub)
    _add_tune(rules_sub)


def _common(p, data_required=True) -> None:
    """--rules, --data (required; with ``data_required`` False, repeatable and optional;
    None: none) and --quiet."""
    p.add_argument("--rules", default=None, metavar="FILE",
                   help=f"rule file (default: for bAbI tasks 1-5's data, babi.yaml, else dstc2.yaml: the one in "
                        f"{os.path.dirname(DEFAULT_RULES)}/ of the current folder if it is there, else the one "
                        "shipped with dstc2conv)")
    if data_required:
        p.add_argument("--data", required=True, metavar="T6FILE", help="a task-6 file")
    elif data_required is not None:    # None: the command takes its files under other names
        p.add_argument("--data", action="append", metavar="T6FILE",
                       help="a task-6 file (repeat for several: a rule is checked on all of them)")
    p.add_argument("--quiet", action="store_true", help="no progress or notes on stderr (warnings stay)")


def _manifest(p, what="for each dialog's DSTC2 system") -> None:
    p.add_argument("--manifest", metavar="FILE",
                   help=f"the build's manifest.json, {what} (default: manifest.json beside the data, if it "
                        f"lists the file; {NO_MANIFEST}: no manifest, not even that one)")


def _add_score(rules_sub) -> None:
    p = rules_sub.add_parser("score", help="per-response and per-dialog accuracy")
    _common(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--against", metavar="WHAT",
                   help="what to compare with: last (the latest scoring of this rule file on this data with other "
                        "rules; the default), best (the best kept scoring on this data of other rules), shipped "
                        "(the shipped rules, scored now), a rule file (scored now), or a NAME pinned with --save")
    p.add_argument("--save", metavar="NAME", help="pin this scoring under NAME, for --against NAME")
    p.add_argument("--truth", metavar="FILE",
                   help="a DSTC6 test file's truth file (its answers; --data a DSTC6 JSON file: the rules' P@1)")
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
    _manifest(p)
    _chooser_option(p)
    p.set_defaults(func=_reporting(_cmd_score))


def _add_init(rules_sub) -> None:
    p = rules_sub.add_parser("init", help="write an editable copy of the shipped rules and their ontology")
    p.add_argument("folder", nargs="?", default=INIT_FOLDER, metavar="DIR",
                   help=f"where to write dstc2.yaml and ontology.yaml (default {INIT_FOLDER})")
    p.add_argument("--force", action="store_true", help="overwrite the files if they are there")
    p.set_defaults(func=_cmd_init)


def _add_predict(rules_sub) -> None:
    p = rules_sub.add_parser("predict", help="one predicted bot utterance per line")
    _common(p)
    p.add_argument("--out", required=True, metavar="PREDS", help="the file to write, or - for stdout")
    _chooser_option(p)
    p.set_defaults(func=_reporting(_cmd_predict))


def _add_report(rules_sub) -> None:
    p = rules_sub.add_parser("report", help="per-rule, per-kind and confusion tables")
    _common(p)
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text",
                   help="text (default) or markdown tables on stdout; csv: rules.csv, kinds.csv and "
                        "confusions.csv in --out DIR")
    p.add_argument("--out", metavar="DIR", help="the folder for the CSV files (needed by --format csv)")
    p.add_argument("--top", type=int, metavar="N",
                   help="rows per table, the largest first (default 15; with --format csv, every row)")
    p.add_argument("--by-system", action="store_true",
                   help="turns and accuracy per DSTC2 dialog system (S0, S1, ...) in the rules and kinds tables")
    _manifest(p, "for --by-system")
    _chooser_option(p, "; adds a table of the turns where it overrode each rule, right and wrong")
    p.set_defaults(func=_reporting(_cmd_report))


def _add_check(rules_sub) -> None:
    p = rules_sub.add_parser("check", help="validate; with --data, rules that never fire or are always shadowed "
                                           "on the files given")
    _common(p, data_required=False)
    p.set_defaults(func=_reporting(_cmd_check))


def _add_tune(rules_sub) -> None:
    p = rules_sub.add_parser("tune", help="choose enabled rules and priorities on a validation file")
    _common(p)
    p.add_argument("--out", required=True, metavar="NEW.yaml",
                   help="the tuned rule file to write: the rule file with the chosen rules enabled and their "
                        "priorities (not the rule file itself; its ontology is copied beside it when needed)")
    p.add_argument("--budget", type=seconds, default=100.0, metavar="SECONDS", help="time budget (default 100)")
    p.add_argument("--objective", choices=list(OBJECTIVES), default="overall",
                   help="what to maximise: per-response accuracy over all turns (default), or the mean, or "
                        "the lowest, of the dialog systems' (these need the manifest)")
    p.add_argument("--force", action="store_true", help="tune even on what looks like a test split")
    _manifest(p)
    p.set_defaults(func=_reporting(_cmd_tune))


# ---------------------------------------------------------------- a system over the rules


def _chooser_option(p, what=""):
    """--chooser DIR, of score, predict and report."""
    p.add_argument("--chooser", metavar="DIR",
                   help="a learned chooser's model folder (rules learn): it picks among the rules' proposals"
                        + what)


def _chosen(options: _PredictOptions | _ReportOptions | _ScoreOptions, ruleset, turns):
    """The predictions of the model folder --chooser DIR (a system over the rules, such as
    the learned chooser), built over ``ruleset``, through the one dialog loop: each with
    the first rule proposing it (``learned``: a template no rule proposed)."""
    from ..registry import load
    from .engine import Prediction
    from .system import answers, over_rules

    system = load(options.chooser)
    if "rules" not in system.get_params() or not hasattr(system, "last_rule"):
        raise Dstc2ConvError(f"a model of {system.label()}, not of a system over the rules", options.chooser)
    return [Prediction(p.text, p.rule or "learned") for p in answers(over_rules(system, ruleset), turns)]


def _score_chosen(options: _ScoreOptions) -> int:
    """score --chooser: the score with the chooser, and the change against the same rules
    without it (or what --against names), with the turns that flipped."""
    from ...evaluate.responses import by_system, outcomes, score, signature
    from ...evaluate.sessions import read_sessions
    from ...files import sha256_file
    from ...task6.turns import read_file
    from .flips import as_text, compare
    from .ruleset import load_rules

    if options.save or options.watch:
        raise Dstc2ConvError(f"{'--save' if options.save else '--watch'} is for the rules alone, not with --chooser")
    ruleset = load_rules(options.rules)
    dialogs, turns = read_file(options.data)
    sessions = _sessions(options, len(dialogs), read_sessions)
    data_sha = sha256_file(options.data)
    start = time.perf_counter()
    predictions = _chosen(options, ruleset, turns)
    seconds = time.perf_counter() - start
    results = tuple(outcomes([p.text for p in predictions], turns))
    from ..folder import WEIGHTS

    weights = sha256_file(os.path.join(options.chooser, WEIGHTS))
    now = score(results, turns, signature(data_sha, f"rules:{ruleset.sha256[:12]}+learned:{weights[:12]}"))
    systems = by_system(results, turns, sessions.systems) if sessions else None
    if options.against in (None, "last", "best", "shipped") or os.path.isfile(options.against):
        path = options.rules if options.against in (None, "last", "best") else \
            shipped_rules() if options.against == "shipped" else options.against
        other = load_rules(path)
        label = "rules" if options.against in (None, "last", "best") else options.against
        described = (f"{label}: the same rules without the chooser" if label == "rules" else label) + \
            f", rules:{other.sha256[:12]}"
    else:
        raise Dstc2ConvError(f"--against {options.against}: with --chooser, give shipped or a rule file", options.data)
    setup = _Scoring(options.data, data_sha, dialogs, turns, sessions.systems if sessions else None, None)
    before, _ = _scored(other, setup)
    change = compare(label, described, _score_of(other, setup, before), before, predictions, results, turns,
                     setup.systems)
    more = {}
    if options.json:
        from .flips import as_dict

        more["against"] = as_dict(change, now, turns, predictions, options.flips, options.context, dialogs)
    _say(options, f"rules {ruleset.path} with the chooser {options.chooser}")
    _print_score(options, now, systems, turns, seconds, more)
    if not options.json:
        print("\n".join(as_text(change, now, turns, predictions, options.flips, options.context, dialogs)))
    return 0
