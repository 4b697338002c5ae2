"""`dstc2conv table2`: the paper's task-6 row, every system of the registry on one test
file, beside the paper's figures. Results on stdout (text, or one JSON object with
--json); notes and progress on stderr."""
from __future__ import annotations

import json

from ..arguments import at_least

RESAMPLES = 1000
# the rows shown beside a later paper's figure, and whose figure it is
LATER_FIGURES = (("rules+learned", "HCN's, the best published figure"), ("hcn", "HCN's"),
                 ("hcn+turn-dropout", "the variational HCN's (Shalyminov & Lee 2018)"))


def seed_list(text: str) -> tuple[int, ...]:
    """An argparse type: seeds, comma-separated (``0,1,2``)."""
    import argparse

    from ..errors import Dstc2ConvError
    from .table2 import checked_seeds

    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: give seeds as whole numbers from 0, comma-separated (0,1,2)")
    try:
        return checked_seeds([int(p) for p in parts])
    except Dstc2ConvError as exc:
        raise argparse.ArgumentTypeError(exc.message.partition("seeds: ")[2]) from None


def _cmd_table2(args) -> int:
    from ..errors import Dstc2ConvError, naming
    from ..reporter import reporting
    from .table2 import table2

    if args.release is not None:
        given = [f"--{name}" for name in ("train", "dev", "test", "candidates") if getattr(args, name) is not None]
        if given:
            raise Dstc2ConvError(f"table2: --release takes each task's files from the release: give it without "
                                 f"{', '.join(given)}")
        return _cmd_whole_table(args)
    lacking = [f"--{name}" for name in ("train", "dev", "test") if getattr(args, name) is None]
    if lacking:
        raise Dstc2ConvError(f"table2: give --train, --dev and --test (missing: {', '.join(lacking)}), "
                             "or --release PATH for the whole table")
    systems = None if args.systems is None else [s.strip() for s in args.systems.split(",") if s.strip()]
    with reporting(notes=not args.quiet), naming(args.train, args.dev, args.test, args.candidates):
        result = table2(args.train, args.dev, args.test, args.candidates, systems, args.bootstrap, args.seed,
                        args.seeds)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print("\n".join(lines(result)))
    return 0


def _cmd_whole_table(args) -> int:
    from ..reporter import reporting
    from .whole_table import whole_table

    with reporting(notes=not args.quiet):
        result = whole_table(args.release, args.systems, args.bootstrap, args.seed, args.seeds)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print("\n".join(whole_lines(result)))
    return 0


def _cell(share: float | None, dialog: float | None) -> str:
    """``per response (per dialog)`` in percent."""
    if share is None:
        return "-"
    return f"{100 * share:.2f}" + ("" if dialog is None else f" ({100 * dialog:.1f})")


def _paper_cell(figures: tuple) -> str:
    response, dialog = figures
    if response is None:
        return "-"
    return f"{response:g}" + ("" if dialog is None else f" ({dialog:g})")


def whole_lines(result) -> list[str]:
    """The whole table as text lines: a row of the paper's table and, under it, the
    paper's figures; then the notes on the files, the time per task and what was skipped."""
    from ..evaluate.tables import Table, as_text

    head = ("row", *result.systems)
    rows = []
    for name, table in result.tables.items():
        by = {row.name: row for row in table.rows}
        rows.append((name, *(_cell(by[s].mean["per_response"], by[s].mean["per_dialog"]) if s in by else "n/a"
                             for s in result.systems)))
        rows.append(("  paper", *(_paper_cell(by[s].paper) if s in by else "" for s in result.systems)))
    out = [f"{'release':<10} {result.source}", ""]
    out.append(as_text(Table("table2", head, tuple(rows))))
    out.append("(per response (per dialog), in %: ours, and under it the paper's, Bordes & Weston 2017, Table 2)")
    notes: dict[str, list[str]] = {}
    for name, table in result.tables.items():
        notes.setdefault(table.note, []).append(name)
    out += [f"({', '.join(names)}: {text})" for text, names in notes.items()]
    unavailable = {name: why for table in result.tables.values() for name, why in table.unavailable}
    out += [f"(not available: {name}: {why})" for name, why in unavailable.items()]
    total = sum(result.seconds.values())
    out.append("(time: " + ", ".join(f"{task} {s:.1f} s" for task, s in result.seconds.items()) +
               f"; {total:.1f} s in all)")
    out += [f"(skipped {task}: {why})" for task, why in result.skipped]
    out += seed_lines(next(iter(result.tables.values())))
    return out


def lines(result) -> list[str]:
    """The table as text lines."""
    from ..evaluate.published import source
    from ..evaluate.tables import Signed, Table, as_text
    from .registry import reported

    def label(text: str, value: str) -> str:
        return f"{text:<22} {value}"

    candidates = f"{result.candidates} (" + ("every distinct bot utterance of TRN, DEV and TST"
                                             if result.candidates_from == "TRN, DEV and TST" else result.candidates_from)
    candidates += ")" + (f"; {result.missing_gold} distinct gold responses of TST are not among them"
                         if result.missing_gold else "")
    out = [label("TST", f"{result.test.path} ({result.test.turns} bot turns)"),
           label("TRN, DEV", f"{result.train.path}, {result.dev.path}"),
           label("candidates", candidates), label("note", result.note), label("signature", result.signature), ""]
    compared = any(row.versus is not None for row in result.rows)
    head = ("system", "per_response", "per_dialog", "paper") + (("vs rules", "95% interval") if compared else ())
    rows = []
    for row in result.rows:
        cells = [row.name, *(_figure(row, key) for key in ("per_response", "per_dialog")), reported(row.paper)]
        if compared:
            cells += ([None, None] if row.versus is None else
                      [Signed(row.difference), f"[{row.versus.low:+.2%}, {row.versus.high:+.2%}]"])
        rows.append(tuple(cells))
    out.append(as_text(Table("systems", head, tuple(rows))))
    if result.unavailable:
        reasons: dict[str, list[str]] = {}
        for name, why in result.unavailable:
            reasons.setdefault(why, []).append(name)
        out.append(label("not available", "; ".join(f"{', '.join(names)} ({why})" for why, names in reasons.items())))
    names = {r.name for r in result.rows}
    beside = "".join(f"; {name}: {text}" for name, text in LATER_FIGURES if name in names and result.row == "T6")
    out.append(f"(paper: per response / per dialog, {source(result.row)}{beside})")
    out += seed_lines(result)
    if compared:
        boot = next(row.versus for row in result.rows if row.versus is not None)
        first = f"; for a row trained with each seed, seed {result.seeds[0]}'s training" if len(result.seeds) > 1 and \
            any(row.seeded and row.versus is not None for row in result.rows) else ""
        out.append(f"(vs rules: the difference in per-response accuracy, and its 95% interval by a paired bootstrap "
                   f"of {boot.resamples} resamples of the dialogs, seed {boot.seed}{first})")
    return out


def _figure(row, key: str):
    """A row's figure: a share, or for several trainings ``mean (min-max)``."""
    from ..evaluate.tables import percent

    if len(row.runs) == 1:
        return row.accuracy[key]
    return f"{percent(row.mean[key])} ({percent(row.low[key])}-{percent(row.high[key])})"


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def seed_lines(result) -> list[str]:
    """What the table says of seeds: which rows were trained with which seeds, how far
    their figures moved, and which rows draw nothing at random."""
    seeded = [row for row in result.rows if row.seeded]
    if not seeded:
        return []
    names = ", ".join(row.name for row in seeded)
    fixed = [row.name for row in result.rows if not row.seeded]
    still = f"; {', '.join(fixed)}: one run, nothing drawn at random" if fixed else ""
    if len(result.seeds) == 1:
        return [f"({names}: one training each, seed {result.seeds[0]}, and another seed moves their figures: "
                f"--seeds 0,1,2 gives the mean (min-max) of three{still})"]
    widest = max(seeded, key=lambda row: row.high["per_response"] - row.low["per_response"])
    spread = 100 * (widest.high["per_response"] - widest.low["per_response"])
    return [f"({names}: the mean (min-max) of {len(result.seeds)} trainings each, seeds "
            f"{_names([str(s) for s in result.seeds])}; the widest range per response: {widest.name}, "
            f"{spread:.2f} points{still})"]


def add_parser(sub) -> None:
    """``dstc2conv table2``, and the commands of every system: ``train``, ``predict``, ``explain``."""
    from .commands import add_parsers
    from .registry import NAMES

    add_parsers(sub)

    p = sub.add_parser("table2", help="the paper's Table 2: every system on a test file, or on every task of the "
                                      "published release, beside the paper's figures",
                       description="Fit every system of the paper's Table 2 on TRN, with the choices made on DEV, run "
                                   "it on TST and print its per-response and per-dialog accuracy beside the paper's "
                                   "figure, with the paired bootstrap interval against the rules. With --release, the "
                                   "whole table: each task of the published release (tasks 1-5 with their OOV test "
                                   "sets, and task 6), the paper's six columns.")
    p.add_argument("--release", metavar="PATH",
                   help="the published bAbI dialog release (dialog_babi.tar.gz, dialog-bAbI-tasks_1_.tgz, or the "
                        "unpacked dialog-bAbI-tasks/ folder): the whole table, eleven rows; no --train, --dev, --test")
    p.add_argument("--train", metavar="TRN", help="the training file")
    p.add_argument("--dev", metavar="DEV", help="the dev file (choices are made on it)")
    p.add_argument("--test", metavar="TST", help="the file to score")
    p.add_argument("--candidates", metavar="FILE",
                   help="candidates file, '1 <utterance>' a line (default: every distinct bot utterance of TRN, "
                        "DEV and TST, the paper's set)")
    p.add_argument("--systems", metavar="NAME,...",
                   help=f"the systems to run, in order (default: all: {','.join(NAMES)}; with --release: the paper's "
                        "six columns, and +NAME,-NAME add or remove columns)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.add_argument("--bootstrap", type=at_least(1, 100_000), default=RESAMPLES, metavar="N",
                   help=f"resamples of the dialogs for the paired bootstrap (default {RESAMPLES})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the bootstrap's random seed (default 0)")
    p.add_argument("--seeds", type=seed_list, default=(0,), metavar="S,...",
                   help="the seeds a system whose training draws random numbers (embeddings, memn2n, ...) is "
                        "trained with, once each; its figures: the mean (min-max) (default 0: one training)")
    p.set_defaults(func=_cmd_table2)
