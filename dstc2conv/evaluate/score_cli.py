"""`dstc2conv score PREDS REF`: the task-6 scorer for any system's predictions: one bot
utterance a line in the order of REF's bot turns, ranked candidates (JSON lines), or a
DSTC6 result file (``--dstc6 SAMPLES``); every metric of the registry
(``dstc2conv.evaluate.metrics``) the input allows, or those ``--metrics`` names. With
``--compare PREDS2``, the paired comparison of two systems; with ``--system NAME=PREDS``
(repeated), a table of several systems side by side; ``--turns FILE`` writes every
turn's figures."""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, replace

from ..arguments import at_least
from ..errors import Dstc2ConvError
from .published import DATA_SPLITS

FLIPS = 10
RESAMPLES = 1000
MAX_RESAMPLES = 100_000   # each resample is a pass over the dialogs: more would run for hours


@dataclass(frozen=True)
class System:
    name: str
    path: str
    kind: str                      # text, ranking, dstc6
    predictions: tuple[str, ...]
    ranks: tuple | None


@dataclass(frozen=True)
class _ScoreOptions:
    """``dstc2conv score``'s options."""
    files: tuple[str, ...]          # PREDS REF, or REF alone with --system
    system: tuple[str, ...]         # each --system NAME=PREDS
    metrics: str | None
    match: str
    kb: str | None
    candidates: str | None
    dstc6: str | None
    turns: str | None
    list_metrics: bool
    markdown: bool
    json: bool
    manifest: str | None
    compare: str | None
    flips: int | None
    bootstrap: int | None
    seed: int | None
    baseline: str | None = None     # --baseline NAME, with --system


def _load(path: str, name: str, options: _ScoreOptions, ref: str, turns, samples) -> System:
    """A system's predictions, of the kind the file holds."""
    from . import responses as r
    from .rankings import check_candidates, gold_rank, looks_ranked, read_rankings

    if options.dstc6 is not None:
        from ..exports.dstc6 import read_results
        results = read_results(path, samples)
        return System(name, path, "dstc6", tuple(ranked[0] if ranked else "" for ranked, _ in results),
                      tuple(rank for _, rank in results))
    if looks_ranked(path):
        rankings = read_rankings(path)
        r.check_count(path, rankings, ref, turns)
        if options.candidates is not None:
            from ..task6.candidates import read_candidates
            check_candidates(path, rankings, read_candidates(options.candidates), options.candidates)
        return System(name, path, "ranking", tuple(ranked[0] for ranked in rankings),
                      tuple(gold_rank(ranked, t.gold) for ranked, t in zip(rankings, turns)))
    predictions = r.read_predictions(path)
    r.check_count(path, predictions, ref, turns)
    return System(name, path, "text", predictions, None)


def _parse_systems(options: _ScoreOptions) -> tuple[str, list[tuple[str, str]]]:
    """REF, and (name, PREDS) of each system."""
    if options.system:
        if len(options.files) != 1:
            raise Dstc2ConvError("with --system NAME=PREDS, give REF alone: dstc2conv score REF --system A=PREDS ...")
        if options.compare is not None:
            raise Dstc2ConvError("--compare is for one PREDS: with --system, every system is compared with the first")
        out = []
        for given in options.system:
            name, sep, path = given.partition("=")
            if not sep or not name or not path:
                raise Dstc2ConvError(f"--system {given!r}: give NAME=PREDS")
            if name in (n for n, _ in out):
                raise Dstc2ConvError(f"--system {name}: the name is given twice")
            out.append((name, path))
        return options.files[0], out
    if len(options.files) != 2:
        raise Dstc2ConvError("give PREDS and REF (or PREDS --data REF, or REF and --system NAME=PREDS ...)")
    preds, ref = options.files
    return ref, [("PREDS", preds)] + ([("PREDS2", options.compare)] if options.compare is not None else [])


def _files(args) -> tuple[str, ...]:
    """PREDS and REF (REF alone with --system), REF by position or by --data."""
    files = tuple(args.files)
    if args.data is None:
        return files
    if len(files) > (0 if args.system else 1):
        raise Dstc2ConvError(f"--data {args.data} and {files[-1]} by position: give the task-6 file once (dstc2conv "
                             "score PREDS --data REF, or dstc2conv score PREDS REF)")
    return (*files, args.data)


def _cmd_score(args) -> int:
    options = _ScoreOptions(
        files=_files(args), system=tuple(args.system or ()), metrics=args.metrics, match=args.match,
        kb=args.kb, candidates=args.candidates, dstc6=args.dstc6, turns=args.turns, list_metrics=args.list_metrics,
        markdown=args.markdown, json=args.json, manifest=args.manifest, compare=args.compare, flips=args.flips,
        bootstrap=args.bootstrap, seed=args.seed, baseline=args.baseline)
    if options.list_metrics:
        from . import metrics as m

        print(m.docs_table() if options.markdown else m.text_table())
        return 0
    if options.markdown:
        raise Dstc2ConvError("--markdown is for --list-metrics")
    _score(options)
    return 0


def _score(options: _ScoreOptions) -> None:
    from ..files import sha256_file
    from ..task6.format import read_dialogs
    from ..task6.turns import turns_of
    from . import metrics as m
    from .entities import find_kb
    from .published import published
    from .sessions import read_sessions

    ref, given = _parse_systems(options)
    several = bool(options.system)
    _check_flags(options, ref, given)
    try:
        dialogs = read_dialogs(ref)
    except Dstc2ConvError as exc:
        if exc.path == ref and exc.line == 1 and not several and ref == options.files[-1]:
            raise Dstc2ConvError(f"{exc.message} (not a task-6 file: the files in order are PREDS, then REF)",
                                 exc.path, exc.line, exc.rule_id) from None
        raise
    turns = turns_of(dialogs)
    if not turns:
        raise Dstc2ConvError("no bot turns", ref)
    samples = _samples(options.dstc6, turns) if options.dstc6 is not None else None
    systems = [_load(path, name, options, ref, turns, samples) for name, path in given]
    if options.candidates is not None:
        from ..task6.candidates import coverage_note
        found = coverage_note(options.candidates)
        if found:
            print(f"dstc2conv: note: {found}", file=sys.stderr)
    sessions = read_sessions(ref, len(dialogs), options.manifest)
    kb = find_kb(options.kb, ref, sessions)
    names = m.choose(options.metrics, [s.kind for s in systems], kb is not None)
    scored = [m.compute(m.Inputs(tuple(turns), s.predictions, s.kind, s.ranks, options.match, kb),
                        m.applicable(names, s.kind)) for s in systems]
    for system, s in zip(systems, scored):
        _say_normalisation(system.path, m.normalisation_only(s.inputs, s.outcomes))
    data_sha = sha256_file(ref)
    sig = m.signature(data_sha, [], scored[0].inputs, names)
    if options.turns is not None:
        _write_turns(options.turns, systems, scored, sessions, several)
    found = _intervals(options, systems, scored)
    if several:
        _print_table(options, ref, systems, scored, names, sig, published(data_sha), sessions, found)
    else:
        _print_one(options, ref, systems, scored, sig, sessions, published(data_sha), found)


def _baseline(options: _ScoreOptions, systems) -> int:
    """The position of the system the others are compared with: --baseline's, else the first."""
    if options.baseline is None:
        return 0
    names = [s.name for s in systems]
    if options.baseline not in names:
        raise Dstc2ConvError(f"--baseline {options.baseline}: no such system (given: {', '.join(names)})")
    return names.index(options.baseline)


def _intervals(options: _ScoreOptions, systems, scored) -> list | None:
    """Each system's 95% intervals (and differences from the baseline), by the bootstrap
    over dialogs; None with --bootstrap 0."""
    from .intervals import bootstrap

    resamples = RESAMPLES if options.bootstrap is None else options.bootstrap
    if resamples == 0:
        return None
    return bootstrap(scored, resamples, options.seed or 0, _baseline(options, systems) if len(systems) > 1 else None)


def _check_flags(options: _ScoreOptions, ref: str, given: list[tuple[str, str]]) -> None:
    """Refuse the options that do not go together; check that --turns can be written."""
    from ..files import check_writable

    several = bool(options.system)
    if options.compare is None and options.flips is not None:
        raise Dstc2ConvError("--flips is for --compare PREDS2")
    if options.baseline is not None and not several:
        raise Dstc2ConvError("--baseline is for --system NAME=PREDS (with --compare, PREDS is the baseline)")
    if options.bootstrap == 0 and (options.compare is not None or (several and len(given) > 1)):
        raise Dstc2ConvError("--bootstrap 0 leaves the intervals out: it is for one system (a comparison needs 1 or more)")
    if options.turns is not None:
        check_writable(options.turns, (ref, options.kb, options.manifest, options.dstc6, options.candidates,
                                       *(p for _, p in given)))
        if os.path.splitext(options.turns)[1].lower() not in (".jsonl", ".csv"):
            raise Dstc2ConvError("--turns: give a file ending .jsonl (JSON lines) or .csv", options.turns)


def _say_normalisation(path: str, count: int) -> None:
    """A note on stderr when predictions are wrong only by their Unicode normalisation."""
    if count:
        print(f"dstc2conv: {path}: predictions wrong only by their Unicode normalisation: {count} (each equals "
              "its gold once both are in NFC; the match compares code points, as the reference scorers do: give "
              "predictions in NFC, as task-6 files are)", file=sys.stderr)


def _samples(path: str, turns):
    from ..exports.dstc6 import read_samples

    found = read_samples(path)
    if len(found) != len(turns):
        raise Dstc2ConvError(f"{len(found)} samples, the reference has {len(turns)} bot turns: "
                             "not the samples of this file", path)
    out = []
    for number, (sample, turn) in enumerate(zip(found, turns), 1):
        if sample.answer is None:   # as the track's released test files: the answer is the gold's candidate
            golds = [c for c, text in sample.candidates if text.strip() == turn.gold.strip()]
            if len(golds) != 1:
                raise Dstc2ConvError(f"sample {number} ({sample.dialog_id}) has no answer, and {len(golds)} of its "
                                     f"candidates are the gold of bot turn {number} of the reference: give one",
                                     path)
            sample = replace(sample, answer=golds[0])
        answer = dict(sample.candidates).get(sample.answer)
        if answer is None or answer.strip() != turn.gold.strip():
            raise Dstc2ConvError(f"sample {number} ({sample.dialog_id}): its answer is not the gold of bot turn "
                                 f"{number} of the reference", path)
        out.append(sample)
    return out


def _summary(scored, turns, sessions) -> dict:
    from . import responses as r

    outcomes = scored.outcomes
    has_accuracy = "accuracy" in scored.figures
    by_system = None
    if sessions and has_accuracy:
        by_system = {n: s.to_dict() for n, s in r.by_system(outcomes, turns, sessions.systems).items()}
    return {"figures": scored.figures, "outcomes": outcomes, "by_system": by_system,
            "by_kind": r.by_kind(outcomes, turns) if has_accuracy else None}


def _print_one(options: _ScoreOptions, ref: str, systems, scored, sig, sessions, known=None, found=None) -> None:
    from . import score_output as out

    turns = scored[0].inputs.turns
    first = _summary(scored[0], turns, sessions)
    compared = _compared(options, systems, scored, turns, sessions, first) if len(systems) == 2 else None
    if options.json:
        result = _one_as_dict(options.compare, first, compared, sig, known)
        if found:
            result["intervals"] = found[0].to_dict()
            if compared:
                result["compare"]["intervals"] = found[1].to_dict()
        print(json.dumps(result, indent=2))
        return
    print("\n".join(out.score_lines(first["figures"], sig, first["by_system"])))
    if known:
        print(f"{'note':<22} {_ref_note(ref, known, sessions)}")
    if found:
        print("\n".join(out.interval_lines(found[0])))
    if not compared:
        if first["by_kind"] is not None:
            print()
            print(_kinds_table([first["by_kind"]], first["figures"]["accuracy"]))
    else:
        _print_compared(options.compare, first, compared, sig, turns, found)
    _print_reported(known)


def _compared(options: _ScoreOptions, systems, scored, turns, sessions, first: dict) -> tuple:
    """PREDS2's summary, its paired comparison with PREDS, and the turns that flipped."""
    from . import responses as r

    second = _summary(scored[1], turns, sessions)
    comparison = r.paired(first["outcomes"], second["outcomes"], turns, options.bootstrap or RESAMPLES,
                          options.seed or 0)
    flips = _flips(comparison, turns, systems[0].predictions, systems[1].predictions,
                   FLIPS if options.flips is None else options.flips)
    return second, comparison, flips


def _one_as_dict(compare: str | None, first: dict, compared: tuple | None, sig: str, known) -> dict:
    """The JSON object of the score of PREDS (and its comparison with PREDS2)."""
    result = _as_dict(first, sig)
    if compared:
        second, comparison, flips = compared
        result["compare"] = {"file": compare, **_as_dict(second, sig), "difference": comparison.difference,
                             "bootstrap": comparison.bootstrap.to_dict(),
                             "flipped_right": len(comparison.flipped_right),
                             "flipped_wrong": len(comparison.flipped_wrong), "flips": flips}
        del result["compare"]["signature"]
    if known:
        from .published import as_dict
        result.update(as_dict(known))
    return result


def _print_compared(compare: str, first: dict, compared: tuple, sig: str, turns, found) -> None:
    """PREDS2's score, the difference with PREDS and the turns that flipped."""
    from . import score_output as out

    second, comparison, flips = compared
    boot = comparison.bootstrap
    print()
    print(f"PREDS2                 {compare}")
    lines = out.score_lines(second["figures"], sig, second["by_system"])
    print("\n".join(line for line in lines if not line.startswith("signature ")))
    print("\n".join(out.interval_lines(found[1]) + out.difference_lines(found[1], "PREDS2 - PREDS")))
    if first["by_kind"] is not None:
        print()
        print(_kinds_table([first["by_kind"], second["by_kind"]], first["figures"]["accuracy"],
                           second["figures"]["accuracy"]))
    print()
    print(f"difference             {out.percent(comparison.difference, signed=True)} per response (PREDS2 - PREDS), "
          f"95% interval [{out.percent(boot.low, signed=True)}, {out.percent(boot.high, signed=True)}]")
    print(f"bootstrap              {boot.resamples} resamples of the {len({t.dialog for t in turns})} dialogs, "
          f"seed {boot.seed}; PREDS2 not better in {out.percent(boot.share_not_better, 1)} of them")
    print(f"flipped                {len(comparison.flipped_right)} turns now right, "
          f"{len(comparison.flipped_wrong)} now wrong (PREDS -> PREDS2)")
    for label, key, total in (("now right", "right", comparison.flipped_right),
                              ("now wrong", "wrong", comparison.flipped_wrong)):
        for f in flips[key]:
            print(f"  {label}: dialog {f['dialog']} line {f['line']}  user: {f['user']!r}  gold: {f['gold']!r}  "
                  f"PREDS: {f['preds']!r}  PREDS2: {f['preds2']!r}")
        if len(total) > len(flips[key]):
            print(f"  ... and {len(total) - len(flips[key])} more {label} (--flips N shows more)")


def _as_dict(summary: dict, sig: str) -> dict:
    from . import score_output as out

    result = out.as_dict(summary["figures"], sig, summary["by_system"])
    if summary["by_kind"] is not None:
        result["by_kind"] = out.parts(summary["by_kind"])
    return result


def _flips(comparison, turns, a, b, first: int) -> dict:
    """The first ``first`` turns that flipped each way, as dicts."""
    def row(i: int) -> dict:
        t = turns[i]
        return {"dialog": t.dialog + 1, "line": t.line, "user": t.user, "gold": t.gold.strip(),
                "preds": a[i], "preds2": b[i]}
    return {"right": [row(i) for i in comparison.flipped_right[:first]],
            "wrong": [row(i) for i in comparison.flipped_wrong[:first]]}


def _kinds_table(kinds: list[dict], *totals) -> str:
    """Responses per kind, and each file's correct ones and accuracy; a total row last."""
    from .tables import Table, as_text

    columns = ("kind", "responses") + (("correct", "accuracy") if len(kinds) == 1 else
                                       ("PREDS", "accuracy", "PREDS2", "accuracy", "difference"))
    rows = [_row(name, count.responses, [k[name].correct for k in kinds]) for name, count in kinds[0].items()]
    rows.append(_row("total", totals[0]["responses"], [t["correct"] for t in totals]))
    return as_text(Table("kinds", columns, tuple(rows)))


def _row(name: str, responses: int, rights: list[int]) -> tuple:
    from .tables import Signed

    row = [name, responses]
    for right in rights:
        row += [right, right / responses]
    if len(rights) == 2:
        row.append(Signed((rights[1] - rights[0]) / responses))
    return tuple(row)


# ---------------------------------------------------------------- several systems


def _columns(names) -> list[tuple[str, str, str]]:
    """(column, metric, figure) of the table of systems: accuracy's two, each other
    metric's headline."""
    from .metrics import METRICS

    out = []
    for name in names:
        if name == "accuracy":
            out += [("per_response", name, "per_response"), ("per_dialog", name, "per_dialog")]
        else:
            out.append((name, name, METRICS[name].headline))
    return out


def _cell(metric: str, value):
    from .metrics import METRICS
    from .tables import Fixed, Plain

    if METRICS[metric].percent:
        return value
    return Plain(value) if metric == "bleu" else Fixed(value)


def _print_table(options: _ScoreOptions, ref: str, systems, scored, names, sig, known, sessions, found=None) -> None:
    from . import responses as r
    from .tables import Signed, Table, as_text, percent

    turns = scored[0].inputs.turns
    columns = _columns(names)
    base = _baseline(options, systems)
    rows, comparisons = [], {}
    for system, s in zip(systems, scored):
        row = [system.name] + [_cell(metric, s.figures[metric][key]) if metric in s.figures else None
                               for _, metric, key in columns]
        if len(systems) > 1:
            if s is scored[base]:
                row += [None, None]
            else:
                comparison = r.paired(scored[base].outcomes, s.outcomes, turns, options.bootstrap or RESAMPLES,
                                      options.seed or 0)
                comparisons[system.name] = comparison
                boot = comparison.bootstrap
                row += [Signed(comparison.difference), f"[{percent(boot.low, signed=True)}, {percent(boot.high, signed=True)}]"]
        rows.append(tuple(row))
    head = ("system",) + tuple(c for c, _, _ in columns)
    if len(systems) > 1:
        head += (f"vs {systems[base].name}", "95% interval")
    note = _ref_note(ref, known, sessions)
    if options.json:
        print(json.dumps(_table_as_dict(ref, systems, scored, sig, known, note, comparisons, base, found), indent=2))
        return
    print(f"{'REF':<22} {ref}")
    print(f"{'signature':<22} {sig}")
    if note:
        print(f"{'note':<22} {note}")
    print()
    print(as_text(Table("systems", head, tuple(rows))))
    if len(systems) > 1:
        boot = next(iter(comparisons.values())).bootstrap
        print(f"(vs {systems[base].name}: the difference in per-response accuracy, and its 95% interval by a paired "
              f"bootstrap of {boot.resamples} resamples of the dialogs, seed {boot.seed})")
    if found:
        _print_intervals(systems, columns, found, base)
    _print_reported(known)


def _table_as_dict(ref, systems, scored, sig, known, note, comparisons, base, found) -> dict:
    result = {"ref": ref, "published": known[0] if known else None, "signature": sig,
              "systems": {s.name: {"file": s.path, **{k: v for k, v in sc.figures.items()}} for s, sc
                          in zip(systems, scored)}}
    if len(systems) > 1:
        result["baseline"] = systems[base].name
    for name, comparison in comparisons.items():
        result["systems"][name]["compare"] = {"with": systems[base].name, "difference": comparison.difference,
                                              "bootstrap": comparison.bootstrap.to_dict()}
    for system, intervals in zip(systems, found or ()):
        result["systems"][system.name]["intervals"] = intervals.to_dict()
    if known and known[1] in DATA_SPLITS:
        from .published import as_dict
        result.update(as_dict(known))
    else:
        result["note"] = note
    return result


def _print_intervals(systems, columns, found, base: int) -> None:
    """The table of each system's 95% intervals, and that of the differences from the baseline."""
    from .score_output import figure, interval
    from .tables import Table, as_text

    head = ("system",) + tuple(c for c, _, _ in columns)
    rows = [(s.name, *(interval(m, iv.figures[m][k]) if m in iv.figures else None for _, m, k in columns))
            for s, iv in zip(systems, found)]
    first = found[0]
    print()
    print(f"95% intervals (bootstrap over the {first.dialogs} dialogs: {first.resamples} resamples, seed {first.seed}):")
    print(as_text(Table("intervals", head, tuple(rows), keep=head)))
    if len(systems) < 2:
        return

    def cell(iv, m, k):
        if iv.differences is None or m not in iv.differences:
            return None
        d, lo, hi, _ = iv.differences[m][k]
        return f"{figure(m, d, True)} [{figure(m, lo, True)}, {figure(m, hi, True)}]"
    rows = [(s.name, *(cell(iv, m, k) for _, m, k in columns)) for i, (s, iv) in enumerate(zip(systems, found))
            if i != base]
    print()
    print(f"differences from {systems[base].name} (paired: the same resamples), with their 95% intervals:")
    print(as_text(Table("differences", head, tuple(rows), keep=head)))


def _print_reported(known) -> None:
    """The paper's figures on the file's row, after a score on a published data file."""
    from .published import reported, row_of, source
    from .tables import Table, as_text

    row = row_of(known[0]) if known and known[1] in DATA_SPLITS else None
    if row is not None:
        print()
        print(f"reported figures ({source(row)}; not computed here):")
        print(as_text(Table("reported", ("system", "per_response", "per_dialog"),
                            tuple((n, f"{p:.1f}%", f"{d:.1f}%") for n, p, d in reported(row)))))


def _ref_note(ref: str, known, sessions) -> str | None:
    if known:
        from .published import row_of

        row = row_of(known[0]) or "T6"
        return f"REF is the published {'task-6' if row == 'T6' else 'bAbI ' + row} {known[1]} file ({known[0]})"
    if sessions is not None:
        return f"REF is a file of the build whose manifest is {sessions.manifest}"
    return ("REF is no published task-6 file and no file of a build manifest: its figures compare only with "
            "figures on the same file")


# ---------------------------------------------------------------- per-turn output

TURN_COLUMNS = ("dialog", "turn", "line", "dialog_system", "kind", "user", "gold", "prediction", "correct")


def _write_turns(path: str, systems, scored, sessions, several: bool) -> None:
    from ..files import write_text_atomic
    from .response_kinds import kind_of

    rows = []
    for system, s in zip(systems, scored):
        outcomes = s.outcomes
        for i, (turn, prediction) in enumerate(zip(s.inputs.turns, s.inputs.predictions)):
            row = {"preds": system.name} if several or len(systems) > 1 else {}
            row.update({"dialog": turn.dialog + 1, "turn": turn.index + 1, "line": turn.line,
                        "dialog_system": sessions.systems[turn.dialog] if sessions else None,
                        "kind": kind_of(turn.gold), "user": turn.user, "gold": turn.gold.strip(),
                        "prediction": prediction, "correct": outcomes[i]})
            row.update({k: v for k, v in s.turn_columns(i).items() if k != "correct"})
            rows.append(row)
    if path.lower().endswith(".csv"):
        import csv
        import io

        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(list(rows[0]))
        for row in rows:
            writer.writerow(["" if v is None else json.dumps(v) if isinstance(v, (bool, list)) else v
                             for v in row.values()])
        body = text.getvalue()
    else:
        body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    write_text_atomic(path, body)
    print(f"dstc2conv: {len(rows)} turns written to {path}", file=sys.stderr)


class _MetricNames:
    """The metrics' names, for --help: the registry is loaded only when help is shown."""

    def __str__(self) -> str:
        from .metrics import NAMES
        return ", ".join(NAMES)


def add_parser(sub) -> None:
    from . import MATCHES

    p = sub.add_parser("score", help="score any system's predictions on a task-6 file; compare systems",
                       description="Score PREDS (one predicted bot utterance a line in the order of REF's bot "
                                   "turns, or ranked candidates as JSON lines, or a DSTC6 result file with "
                                   "--dstc6) on the task-6 file REF: every metric the input allows (see "
                                   "--list-metrics), accuracy per response kind and per dialog system; with "
                                   "--compare, the paired comparison of two systems; with --system (repeated), "
                                   "a table of several.")
    p.add_argument("files", nargs="*", metavar="PREDS REF", help="the predictions and the task-6 file they answer "
                   "(REF alone with --system; or REF by --data)")
    p.add_argument("--data", metavar="REF", help="the task-6 file the predictions answer, as predict, report and "
                   "rules score take it (instead of REF by position)")
    p.add_argument("--system", action="append", metavar="NAME=PREDS",
                   help="a system's predictions, for a table of several systems (repeatable; the first is the "
                        "one the others are compared with)")
    p.add_argument("--metrics", metavar="NAME,...",   # (argparse fills %(names)s in from the action)
                   help="the metrics to report (default: every one the input allows): %(names)s").names = _MetricNames()
    p.add_argument("--match", choices=MATCHES, default="strip",
                   help="when a prediction is right: strip (equal once stripped, the default), lower (also "
                        "lowercased, as DeepPavlov), template (equal once delexicalised by the KB, as HCN)")
    p.add_argument("--kb", metavar="FILE",
                   help="the KB file, for the entity metrics, task success and --match template (default: the "
                        "build's beside its manifest, else the published KB shipped with dstc2conv, else "
                        "dialog-babi-task6-dstc2-kb.txt beside REF)")
    p.add_argument("--candidates", metavar="FILE",
                   help="a candidates file ('1 <utterance>' a line) every ranked candidate must come from (with "
                        "--dstc6: the one the samples were drawn from, for the note on what it holds)")
    p.add_argument("--dstc6", metavar="SAMPLES",
                   help="PREDS is a DSTC6 result file ranking the candidates of these samples "
                        "(dstc2conv export dstc6 REF ...)")
    p.add_argument("--turns", metavar="FILE", help="write every turn's figures to FILE (.jsonl or .csv)")
    p.add_argument("--list-metrics", action="store_true", help="print the metrics and their definitions")
    p.add_argument("--markdown", action="store_true", help="with --list-metrics: as a markdown table")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--manifest", metavar="FILE",
                   help="the build's manifest.json, for each dialog's DSTC2 system (default: manifest.json "
                        "beside REF, if it lists the file)")
    p.add_argument("--compare", metavar="PREDS2", help="a second system's predictions, compared with PREDS")
    p.add_argument("--flips", type=at_least(0), metavar="N", help=f"flipped turns to show each way (default {FLIPS})")
    p.add_argument("--bootstrap", type=at_least(0, MAX_RESAMPLES), metavar="N",
                   help=f"resamples of the dialogs for the 95%% intervals and the paired bootstrap (default {RESAMPLES}, "
                        f"at most {MAX_RESAMPLES:,}; 0: no intervals)")
    p.add_argument("--seed", type=int, metavar="S", help="the bootstrap's random seed (default 0)")
    p.add_argument("--baseline", metavar="NAME",
                   help="with --system: the system the others are compared with (default: the first)")
    p.set_defaults(func=_cmd_score)
