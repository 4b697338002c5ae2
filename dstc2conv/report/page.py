"""The page: one HTML file, its CSS, script and data inline (nothing fetched when it is
viewed). The summary, the charts and the tables are written here as HTML and SVG, so
they read with JavaScript off; the dialog browser and the attention views are drawn by
the script (``browser.js``) from the data blob (``blob.py``)."""
from __future__ import annotations

from html import escape
from importlib import resources

from ..evaluate.score_output import figure
from ..evaluate.tables import percent
from . import svg
from .blob import as_script, blob


def _asset(name: str) -> str:
    return resources.files("dstc2conv.report").joinpath(name).read_text(encoding="utf-8")


def _table(head, rows, cls: str = "") -> str:
    out = [f"<div class=wide><table{f' class={cls}' if cls else ''}><thead><tr>"]
    out += [f"<th>{escape(str(h))}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _summary(report) -> str:
    """Every figure of every system with its 95% interval; the differences from the baseline."""
    first = report.intervals[0]
    rows, diffs = [], []
    for metric, figures in first.figures.items():
        for key in figures:
            label = f"{escape(metric)}" + (f" <small>{escape(key)}</small>" if key != metric else "")
            cells = [label]
            for iv, s in zip(report.intervals, report.scored):
                value = s.figures[metric][key]
                cells.append(f"<b>{figure(metric, value)}</b><br><small>[{figure(metric, iv.figures[metric][key][0])}, "
                             f"{figure(metric, iv.figures[metric][key][1])}]</small>")
            rows.append(cells)
            if len(report.names) > 1:
                cells = [label]
                for i, iv in enumerate(report.intervals):
                    if i == report.baseline:
                        continue
                    d, lo, hi, nb = iv.differences[metric][key]
                    cls = "up" if lo > 0 else "down" if hi < 0 else "same"
                    cells.append(f"<span class={cls}>{figure(metric, d, True)}</span><br><small>[{figure(metric, lo, True)}, "
                                 f"{figure(metric, hi, True)}]</small>")
                diffs.append(cells)
    out = [f"<p>Each figure on the whole file, and its 95% interval by the bootstrap over the {first.dialogs} "
           f"dialogs ({first.resamples} resamples, seed {first.seed}).</p>",
           _table(["metric", *map(escape, report.names)], rows, "figures")]
    if diffs:
        base = escape(report.names[report.baseline])
        out += [f"<h3>Difference from {base}</h3><p>Each system's figure minus {base}'s, paired (the same dialogs "
                "drawn for both), with its 95% interval; green: the interval is above 0, red: below.</p>",
                _table(["metric", *(escape(n) for i, n in enumerate(report.names) if i != report.baseline)], diffs,
                       "figures")]
    return "".join(out)


def _kinds(report) -> str:
    from ..evaluate.responses import by_kind

    found = [by_kind(s.outcomes, report.turns) for s in report.scored]
    kinds = list(found[0])
    values = [[f[k].per_response for f in found] for k in kinds]
    notes = [f"({found[0][k].responses})" for k in kinds]
    rows = [[escape(k), found[0][k].responses, *(percent(f[k].per_response) for f in found)] for k in kinds]
    return (svg.bars("accuracy by response kind", kinds, report.names, values, notes)
            + "<details><summary>as a table</summary>"
            + _table(["kind", "responses", *map(escape, report.names)], rows) + "</details>")


def _dialog_systems(report) -> str:
    from ..evaluate.responses import by_system

    if report.dialog_systems is None:
        return ("<p class=note>The task-6 file does not say which DSTC2 system (S0, S1, ...) ran each dialog: "
                "a build's <code>manifest.json</code> does. Give <code>--manifest FILE</code> (a build of the same "
                "split) for this chart.</p>")
    found = [by_system(s.outcomes, report.turns, report.dialog_systems) for s in report.scored]
    groups = list(found[0])
    values = [[f[g].per_response for f in found] for g in groups]
    notes = [f"({found[0][g].dialogs} dialogs)" for g in groups]
    rows = [[escape(g), found[0][g].dialogs, *(f"{percent(f[g].per_response)} / {percent(f[g].per_dialog)}"
                                               for f in found)] for g in groups]
    return (svg.bars("per-response accuracy by dialog system", groups, report.names, values, notes)
            + "<details><summary>as a table (per response / per dialog)</summary>"
            + _table(["system", "dialogs", *map(escape, report.names)], rows) + "</details>")


def _agreement(report) -> str:
    from .agreement import oracle, pairs

    outcomes = [s.outcomes for s in report.scored]
    found = pairs(report.names, outcomes)
    n = found["turns"]
    rows = [[f"<b>{escape(a)}</b>", *("" if i == j else f"{percent(c / n)} <small>({c})</small>"
                                       for j, c in enumerate(found["only"][i]))] for i, a in enumerate(report.names)]
    best = oracle(outcomes, report.turns)
    return ("<p>Row A, column B: the share of the turns A gets right and B wrong.</p>"
            + _table(["A right, B wrong", *map(escape, report.names)], rows)
            + f"<p>Oracle of all (at each turn, a system that is right, if any): <b>{percent(best['per_response'])}</b> "
              f"per response ({best['correct']}/{best['responses']}), <b>{percent(best['per_dialog'])}</b> per dialog "
              f"({best['dialogs_correct']}/{best['dialogs']}).</p>")


def _entities(report) -> str:
    out = []
    if report.outside is None:
        out.append("<p class=note>Give <code>--candidates FILE</code> for the share of answers outside the "
                   "candidates (what a generating system writes that no candidate says).</p>")
    else:
        out.append(_table(["", *map(escape, report.names)], [["answers outside the candidates", *(
            f"{percent(o['outside'] / o['answers'])} <small>({o['outside']})</small>" for o in report.outside)]]))
    if report.slots is None:
        out.append("<p class=note>No KB was found: give <code>--kb FILE</code> for entity F1 by slot.</p>")
    else:
        slots = list(report.slots[0])
        rows = [[escape(slot), report.slots[0][slot]["tp"] + report.slots[0][slot]["fn"],
                 *(f"{percent(s[slot]['f1'])} <small>P {percent(s[slot]['precision'])}, R {percent(s[slot]['recall'])}"
                   "</small>" for s in report.slots)] for slot in slots]
        out.append("<h3>Entity F1 by slot</h3>" + _table(["slot", "gold entities", *map(escape, report.names)], rows))
    return "".join(out)


def _models(report) -> str:
    out = []
    for model in report.models:
        out.append(f"<h3>{escape(model.name)} <small>({escape(model.system)}, {escape(model.folder)})</small></h3>")
        if model.curve:
            xs = [e["epoch"] for e in model.curve]
            best = max(model.curve, key=lambda e: e["dev"])
            out.append("<figure>" + svg.curve("training loss by epoch", xs, [("loss", [e["loss"] for e in model.curve],
                                                                              "#d62728")], False)
                       + "<figcaption>mean training loss by epoch</figcaption></figure><figure>"
                       + svg.curve("dev accuracy by epoch", xs, [("dev accuracy", [e["dev"] for e in model.curve],
                                                                 "#1f77b4")], True)
                       + f"<figcaption>dev accuracy by epoch (best {percent(best['dev'])}, epoch {best['epoch']}: "
                         "the weights kept)</figcaption></figure>")
        else:
            out.append("<p class=note>The folder's model.json records no learning curve.</p>")
        if model.attention:
            out.append(f"<p>Attention per hop at {len(model.attention)} turns: the first {model.limit} turns "
                       f"{escape(model.name)} gets wrong (<code>--attention N</code>). In the browser, such a turn "
                       "has an <em>attention</em> button.</p>")
    return "".join(out)


def _task(name: str) -> str:
    """How a published file's task is named: ``task-6``, ``bAbI T1``, ``bAbI T1-OOV``..."""
    from ..evaluate.published import row_of

    row = row_of(name) or "T6"
    return "task-6" if row == "T6" else f"bAbI {row}"


def render(report) -> str:
    title = f"dstc2conv report: {', '.join(report.names)} on {report.options.data.rsplit('/', 1)[-1]}"
    note = f" (the published {_task(report.published[0])} {report.published[1]} file)" if report.published else ""
    sections = [("summary", "Summary", _summary(report)),
                ("kinds", "Accuracy by response kind", svg.legend(report.names) + _kinds(report)),
                ("dialog-systems", "Accuracy by dialog system",
                 ("" if report.dialog_systems is None else svg.legend(report.names)) + _dialog_systems(report)),
                ("agreement", "Agreement between systems", _agreement(report)),
                ("entities", "Candidates and entities", _entities(report))]
    if report.models:
        sections.append(("models", "Models", _models(report)))
    nav = " · ".join(f'<a href="#{k}">{escape(t)}</a>' for k, t, _ in sections) + ' · <a href="#browser">Dialogs</a>'
    body = "".join(f'<section id="{k}"><h2>{escape(t)}</h2>{html}</section>' for k, t, html in sections)
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{escape(title)}</title>"
            f"<meta name=viewport content='width=device-width'><style>{_asset('report.css')}</style></head><body>"
            f"<header><h1>{escape(title)}</h1><p>REF <code>{escape(report.options.data)}</code>{escape(note)}; "
            f"{len(report.dialogs)} dialogs, {len(report.turns)} bot turns.<br>signature <code>{escape(report.signature)}"
            f"</code></p><nav>{nav}</nav></header><main>{body}"
            "<section id=browser><h2>Dialogs</h2><noscript><p class=note>The dialog browser needs JavaScript."
            "</p></noscript><div id=controls></div><p id=shown></p><div id=dialogs></div></section></main>"
            f"<script type=application/json id=data>{as_script(blob(report))}</script>"
            f"<script>{_asset('browser.js')}</script></body></html>\n")
