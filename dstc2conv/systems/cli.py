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
LEARNED = ("embeddings", "memn2n", "memn2n+match")    # the rows whose figure depends on a training's seed


def _cmd_table2(args) -> int:
    from ..reporter import reporting
    from .table2 import table2

    systems = None if args.systems is None else [s.strip() for s in args.systems.split(",") if s.strip()]
    with reporting(notes=not args.quiet):
        result = table2(args.train, args.dev, args.test, args.candidates, systems, args.bootstrap, args.seed)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
        return 0
    print("\n".join(lines(result)))
    return 0


def lines(result) -> list[str]:
    """The table as text lines."""
    from ..evaluate.published import SOURCE
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
        cells = [row.name, row.accuracy["per_response"], row.accuracy["per_dialog"],
                 reported(row.paper)]
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
    beside = "".join(f"; {name}: {text}" for name, text in LATER_FIGURES if name in names)
    out.append(f"(paper: per response / per dialog, {SOURCE}{beside})")
    learned = [r.name for r in result.rows if r.name in LEARNED]
    if learned:
        out.append(f"({', '.join(learned)}: one training each, seed 0; MemN2N trained with seeds 0, 1 and 2 scored "
                   "54.12%, 53.11% and 52.34% on the published dev file, a spread as large as some gaps here: "
                   "docs/learned.md)")
    if compared:
        boot = next(row.versus for row in result.rows if row.versus is not None)
        out.append(f"(vs rules: the difference in per-response accuracy, and its 95% interval by a paired bootstrap "
                   f"of {boot.resamples} resamples of the dialogs, seed {boot.seed})")
    return out


def add_parser(sub) -> None:
    """``dstc2conv table2``, and the commands of every system: ``train``, ``predict``, ``explain``."""
    from .commands import add_parsers
    from .registry import NAMES

    add_parsers(sub)

    p = sub.add_parser("table2", help="the paper's task-6 row: every system on a test file, beside the paper's figures",
                       description="Fit every system of the paper's Table 2 (task 6) on TRN, with the choices made "
                                   "on DEV, run it on TST and print its per-response and per-dialog accuracy beside "
                                   "the paper's figure, with the paired bootstrap interval against the rules.")
    p.add_argument("--train", required=True, metavar="TRN", help="the task-6 training file")
    p.add_argument("--dev", required=True, metavar="DEV", help="the task-6 dev file (choices are made on it)")
    p.add_argument("--test", required=True, metavar="TST", help="the task-6 file to score")
    p.add_argument("--candidates", metavar="FILE",
                   help="candidates file, '1 <utterance>' a line (default: every distinct bot utterance of TRN, "
                        "DEV and TST, the paper's set)")
    p.add_argument("--systems", metavar="NAME,...", help=f"the systems to run, in order (default: all: {','.join(NAMES)})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.add_argument("--bootstrap", type=at_least(1, 100_000), default=RESAMPLES, metavar="N",
                   help=f"resamples of the dialogs for the paired bootstrap (default {RESAMPLES})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the bootstrap's random seed (default 0)")
    p.set_defaults(func=_cmd_table2)
