"""``dstc2conv report --data REF --system NAME=PREDS ... --out FILE.html``: the page of
``page.render`` for the systems' predictions (and their model folders) on a task-6 file,
written whole or not at all; its path on stdout, its size on stderr."""
from __future__ import annotations

import os
import sys

from ..arguments import at_least

MAX_RESAMPLES = 100_000


def _cmd_report(args) -> int:
    from ..errors import Dstc2ConvError
    from ..files import check_writable, write_text_atomic
    from ..reporter import note, reporting
    from .collect import ReportOptions, collect, parse_pairs
    from .page import render

    systems, models = parse_pairs(args.system or (), args.model)
    if not args.out.lower().endswith((".html", ".htm")):
        raise Dstc2ConvError("--out: give a file ending .html", args.out)
    check_writable(args.out, (args.data, args.manifest, args.candidates, args.kb, *(p for _, p in systems)))
    options = ReportOptions(args.data, systems, models, args.baseline, args.manifest, args.candidates, args.kb,
                            args.bootstrap, args.seed, args.attention)
    with reporting(notes=not args.quiet):
        report = collect(options)
        text = render(report)
        write_text_atomic(args.out, text)
        note(f"{args.out}: {len(text.encode('utf-8')) / 1e6:.2f} MB, {len(report.turns)} turns, "
             f"{len(report.names)} system{'s' if len(report.names) > 1 else ''}")
    print(os.fspath(args.out), file=sys.stdout)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("report", help="one self-contained HTML page comparing systems on a task-6 file",
                       description="Write one HTML file (no network needed to view it): every metric of each "
                                   "system with its 95% interval and its difference from the baseline, accuracy "
                                   "by response kind and by dialog system, agreement between the systems and "
                                   "their oracle, answers outside the candidates, entity F1 by slot, the model "
                                   "folders' learning curves and MemN2N's attention, and a browser of every "
                                   "dialog (#dialog-N opens one).")
    p.add_argument("--data", required=True, metavar="REF", help="the task-6 file the predictions answer")
    p.add_argument("--system", action="append", required=True, metavar="NAME=PREDS",
                   help="a system's predictions (one bot utterance a line, or ranked candidates as JSON lines); "
                        "repeatable")
    p.add_argument("--model", action="append", metavar="NAME=DIR",
                   help="the model folder of the system NAME: its learning curve, and attention for MemN2N")
    p.add_argument("--baseline", metavar="NAME", help="the system the others are compared with (default: the first)")
    p.add_argument("--out", required=True, metavar="FILE.html", help="the page to write")
    p.add_argument("--manifest", metavar="FILE",
                   help="the build's manifest.json, for each dialog's DSTC2 system (default: manifest.json beside "
                        "REF, if it lists the file)")
    p.add_argument("--candidates", metavar="FILE", help="a candidates file: the share of answers outside it")
    p.add_argument("--kb", metavar="FILE", help="the KB file (default: as score finds it)")
    p.add_argument("--bootstrap", type=at_least(1, MAX_RESAMPLES), default=1000, metavar="N",
                   help="resamples of the dialogs for the 95%% intervals (default 1000)")
    p.add_argument("--seed", type=at_least(0), default=0, metavar="S", help="the bootstrap's seed (default 0)")
    p.add_argument("--attention", type=at_least(0), default=100, metavar="N",
                   help="MemN2N: the attention of the first N turns it gets wrong (default 100)")
    p.add_argument("--quiet", action="store_true", help="no notes on stderr")
    p.set_defaults(func=_cmd_report)
