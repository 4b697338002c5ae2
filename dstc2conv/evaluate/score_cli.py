"""`dstc2conv score PREDS REF`: the task-6 scorer for any system's predictions, one bot
utterance a line in the order of REF's bot turns; with ``--compare PREDS2``, the paired
comparison of two systems."""
from __future__ import annotations

import json

from ..errors import Dstc2ConvError

FLIPS = 10
RESAMPLES = 1000


def _cmd_score(args) -> int:
    from ..files import sha256_file
    from ..task6.format import read_dialogs
    from ..task6.turns import turns_of
    from . import responses as r
    from .sessions import read_sessions

    if args.compare is None and (args.bootstrap, args.seed, args.flips) != (None, None, None):
        raise Dstc2ConvError("--bootstrap, --seed and --flips are for --compare PREDS2")
    dialogs = read_dialogs(args.ref)
    turns = turns_of(dialogs)
    if not turns:
        raise Dstc2ConvError("no bot turns", args.ref)
    files = [args.preds] + ([args.compare] if args.compare is not None else [])
    results = []
    for path in files:
        predictions = r.read_predictions(path)
        r.check_count(path, predictions, args.ref, turns)
        results.append((predictions, r.outcomes(predictions, turns)))
    sessions = read_sessions(args.ref, len(dialogs), args.manifest)
    sig = r.signature(sha256_file(args.ref))

    def summary(outcomes) -> dict:
        return {"score": r.score(outcomes, turns, sig), "by_kind": r.by_kind(outcomes, turns),
                "by_system": r.by_system(outcomes, turns, sessions.systems) if sessions else None}

    first = summary(results[0][1])
    if args.compare is None:
        _print(args, first, None)
        return 0
    second = summary(results[1][1])
    comparison = r.paired(results[0][1], results[1][1], turns, args.bootstrap or RESAMPLES, args.seed or 0)
    flips = _flips(comparison, turns, results[0][0], results[1][0], FLIPS if args.flips is None else args.flips)
    _print(args, first, (second, comparison, flips))
    return 0


def _flips(comparison, turns, a, b, first: int) -> dict:
    """The first ``first`` turns that flipped each way, as dicts."""
    def row(i: int) -> dict:
        t = turns[i]
        return {"dialog": t.dialog + 1, "line": t.line, "user": t.user, "gold": t.gold.strip(),
                "preds": a[i], "preds2": b[i]}
    return {"right": [row(i) for i in comparison.flipped_right[:first]],
            "wrong": [row(i) for i in comparison.flipped_wrong[:first]]}


def _parts(parts: dict) -> dict:
    return {name: {k: v for k, v in part.to_dict().items() if k != "signature"} for name, part in parts.items()}


def _as_dict(summary: dict) -> dict:
    out = summary["score"].to_dict()
    if summary["by_system"] is not None:
        out["by_system"] = _parts(summary["by_system"])
    out["by_kind"] = _parts(summary["by_kind"])
    return out


def _print(args, first: dict, compared) -> None:
    if args.json:
        out = _as_dict(first)
        if compared:
            second, comparison, flips = compared
            out["compare"] = {"file": args.compare, **_as_dict(second), "difference": comparison.difference,
                              "bootstrap": comparison.bootstrap.to_dict(),
                              "flipped_right": len(comparison.flipped_right),
                              "flipped_wrong": len(comparison.flipped_wrong), "flips": flips}
            del out["compare"]["signature"]
        print(json.dumps(out, indent=2))
        return
    _print_score(first)
    print(f"signature              {first['score'].signature}")
    _print_systems(first)
    if not compared:
        print()
        print(_kinds_table([first["by_kind"]], first["score"]))
        return
    second, comparison, flips = compared
    boot = comparison.bootstrap
    print()
    print(f"PREDS2                 {args.compare}")
    _print_score(second)
    _print_systems(second)
    print()
    print(_kinds_table([first["by_kind"], second["by_kind"]], first["score"], second["score"]))
    print()
    print(f"difference             {comparison.difference:+.2%} per response (PREDS2 - PREDS), "
          f"95% interval [{boot.low:+.2%}, {boot.high:+.2%}]")
    print(f"bootstrap              {boot.resamples} resamples of the {first['score'].dialogs} dialogs, "
          f"seed {boot.seed}; PREDS2 not better in {boot.share_not_better:.1%} of them")
    print(f"flipped                {len(comparison.flipped_right)} turns now right, "
          f"{len(comparison.flipped_wrong)} now wrong (PREDS -> PREDS2)")
    for label, key, total in (("now right", "right", comparison.flipped_right),
                              ("now wrong", "wrong", comparison.flipped_wrong)):
        for f in flips[key]:
            print(f"  {label}: dialog {f['dialog']} line {f['line']}  user: {f['user']!r}  gold: {f['gold']!r}  "
                  f"PREDS: {f['preds']!r}  PREDS2: {f['preds2']!r}")
        if len(total) > len(flips[key]):
            print(f"  ... and {len(total) - len(flips[key])} more {label} (--flips N shows more)")


def _print_score(summary: dict) -> None:
    s = summary["score"]
    print(f"per-response accuracy  {s.per_response:.2%}  ({s.correct}/{s.responses})")
    print(f"per-dialog accuracy    {s.per_dialog:.2%}  ({s.dialogs_correct}/{s.dialogs})")


def _print_systems(summary: dict) -> None:
    for name, part in (summary["by_system"] or {}).items():
        print(f"system {name:<15} {part.per_response:.2%}  ({part.correct}/{part.responses}) per response, "
              f"{part.per_dialog:.2%}  ({part.dialogs_correct}/{part.dialogs}) per dialog")


def _kinds_table(kinds: list[dict], *totals) -> str:
    """Responses per kind, and each file's correct ones and accuracy; a total row last."""
    head = ["kind", "responses"] + (["correct", "accuracy"] if len(kinds) == 1 else
                                    ["PREDS", "accuracy", "PREDS2", "accuracy", "difference"])
    rows = []
    for name, count in kinds[0].items():
        rows.append(_row(name, count.responses, [k[name].correct for k in kinds]))
    rows.append(_row("total", totals[0].responses, [t.correct for t in totals]))
    widths = [max(len(row[i]) for row in [head] + rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     .rstrip() for row in [head] + rows)


def _row(name: str, responses: int, rights: list[int]) -> list[str]:
    row = [name, str(responses)]
    for right in rights:
        row += [str(right), f"{right / responses:.2%}"]
    if len(rights) == 2:
        row.append(f"{(rights[1] - rights[0]) / responses:+.2%}")
    return row


def _count(least: int):
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"{value}: give {least} or more")
        return value
    return parse


def add_parser(sub) -> None:
    p = sub.add_parser("score", help="score any system's predictions on a task-6 file; compare two systems",
                       description="Per-response and per-dialog accuracy of PREDS, one predicted bot utterance a "
                                   "line in the order of REF's bot turns, per response kind and per dialog system; "
                                   "with --compare, the paired comparison of two systems.")
    p.add_argument("preds", metavar="PREDS", help="the predictions, one bot utterance a line")
    p.add_argument("ref", metavar="REF", help="the task-6 file they answer")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--manifest", metavar="FILE",
                   help="the build's manifest.json, for each dialog's DSTC2 system (default: manifest.json "
                        "beside REF, if it lists the file)")
    p.add_argument("--compare", metavar="PREDS2", help="a second system's predictions, compared with PREDS")
    p.add_argument("--flips", type=_count(0), metavar="N", help=f"flipped turns to show each way (default {FLIPS})")
    p.add_argument("--bootstrap", type=_count(1), metavar="N",
                   help=f"resamples of the dialogs for the paired bootstrap (default {RESAMPLES})")
    p.add_argument("--seed", type=int, metavar="S", help="the bootstrap's random seed (default 0)")
    p.set_defaults(func=_cmd_score)
