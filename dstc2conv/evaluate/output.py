"""The comparison's report as text, or as JSON."""
from __future__ import annotations

import json

from .fidelity import CompareReport, Measure
from .tables import percent


def format_json(report: CompareReport, examples: int = 5) -> str:
    return json.dumps(report.to_dict(examples=examples), indent=2, sort_keys=True)


def _percent(m: Measure) -> str:
    return "-" if m.rate is None else percent(m.rate)


def format_report(report: CompareReport, examples: int = 5) -> str:
    examples = max(examples, 0)
    out = [f"ours: {report.ours} ({report.ours_dialogs} dialogs)",
           f"ref:  {report.ref} ({report.ref_dialogs} dialogs)"]
    if report.kb:
        out.append(f"kb:   {report.kb}")
    if report.manifest:
        out.append(f"sessions from {report.manifest}")
    out.append("")
    width = max(len(m.label) for m in report.measures)
    out.append(f"{'measure':<{width}}  {'count':>7}   {'total':>7}  {'percent':>7}")
    for m in report.measures:
        out.append(f"{m.label:<{width}}  {m.count:>7} / {m.total:>7}  {_percent(m):>7}")
    out.append("")
    if report.identical:
        out.append("no differences (ratings and the order of result lines aside)")
        return "\n".join(out)

    present = [k for k in report.kinds if k.count]
    width = max(len("difference"), *(len(k.name) for k in present))
    out.append(f"{'difference':<{width}}  {'count':>7}  {'dialogs':>7}")
    for k in present:
        out.append(f"{k.name:<{width}}  {k.count:>7}  {k.dialogs:>7}")
    out.append("")
    out.append("gaps accounted for:")
    for a in report.accounting:
        label = report.measure(a.measure).label
        parts = " + ".join(f"{n} {name}" for name, n in a.parts if n) or "0"
        mark = "" if a.explained else "  (not fully explained)"
        out.append(f"  {label}: {a.gap} = {parts}{mark}")
    if examples:
        out.append("")
        out.append(f"examples (first {examples} of each kind):")
        for k in present:
            out.append(f"  {k.name}:")
            for e in k.examples[:examples]:
                out.append(f"    [{e.where()}] {e.text}")
        out.append("")
        shown = report.differing[:examples]
        out.append(f"first {len(shown)} of {len(report.differing)} differing dialogs "
                   "(- ref, + ours; result lines sorted, ratings blanked):")
        for site in shown:
            out.append("")
            out.append(site.diff(report.ours, report.ref))
    return "\n".join(out)
