"""Charts as inline SVG, written here (no plotting library, nothing fetched when the page
is viewed): grouped horizontal bars of shares, and lines over epochs. Text is escaped;
every number is rounded to a tenth of a pixel so the page is byte-identical run to run."""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22")


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _n(x: float) -> str:
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def legend(names: Sequence[str]) -> str:
    """The systems' colours, as HTML (shared by the charts of a page)."""
    return "<p class=legend>" + " ".join(
        f'<span><i style="background:{colour(i)}"></i>{escape(n)}</span>' for i, n in enumerate(names)) + "</p>"


def bars(title: str, groups: Sequence[str], names: Sequence[str], values: Sequence[Sequence[float | None]],
         notes: Sequence[str] = ()) -> str:
    """A bar per system (``values[g][s]``, a share in 0..1, None: no bar) in each group,
    groups one under the other; ``notes[g]``: written after the group's label."""
    label_w, plot_w, bar_h = 170, 420, 9
    group_h = bar_h * len(names) + 8
    height = 24 + group_h * len(groups) + 20
    out = [f'<svg class=chart role=img aria-label="{escape(title)}" width="{label_w + plot_w + 70}" '
           f'height="{height}" viewBox="0 0 {label_w + plot_w + 70} {height}" xmlns="http://www.w3.org/2000/svg">',
           f'<title>{escape(title)}</title>']
    for tick in range(0, 101, 25):
        x = label_w + plot_w * tick / 100
        out.append(f'<line x1="{_n(x)}" y1="18" x2="{_n(x)}" y2="{height - 18}" stroke="#ddd"/>'
                   f'<text x="{_n(x)}" y="12" font-size="10" text-anchor="middle">{tick}%</text>')
    for g, group in enumerate(groups):
        top = 22 + g * group_h
        note = f" {notes[g]}" if g < len(notes) and notes[g] else ""
        out.append(f'<text x="{label_w - 6}" y="{_n(top + group_h / 2)}" font-size="11" text-anchor="end" '
                   f'dominant-baseline="middle">{escape(group + note)}</text>')
        for s, value in enumerate(values[g]):
            if value is None:
                continue
            y = top + s * bar_h
            w = plot_w * max(0.0, min(1.0, value))
            out.append(f'<rect x="{label_w}" y="{_n(y)}" width="{_n(w)}" height="{bar_h - 1}" fill="{colour(s)}">'
                       f'<title>{escape(names[s])}, {escape(group)}: {value:.2%}</title></rect>')
        out.append(f'<line x1="{label_w}" y1="{_n(top + group_h - 4)}" x2="{label_w + plot_w}" '
                   f'y2="{_n(top + group_h - 4)}" stroke="#eee"/>')
    out.append("</svg>")
    return "".join(out)


def curve(title: str, xs: Sequence[int], series: Sequence[tuple[str, Sequence[float], str]],
          share: bool) -> str:
    """Lines over epochs: ``series`` of (label, values, colour); ``share``: values in
    0..1, the axis in percent; else the axis runs from 0 to the largest value."""
    w, h, left, bottom = 360, 200, 48, 28
    top = 1.0 if share else max((v for _, vs, _ in series for v in vs), default=1.0) or 1.0
    n = max(len(xs) - 1, 1)

    def px(i: int) -> float:
        return left + (w - left - 10) * i / n

    def py(v: float) -> float:
        return 10 + (h - bottom - 10) * (1 - v / top)
    out = [f'<svg class=chart role=img aria-label="{escape(title)}" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>']
    for k in range(5):
        v = top * k / 4
        out.append(f'<line x1="{left}" y1="{_n(py(v))}" x2="{w - 10}" y2="{_n(py(v))}" stroke="#ddd"/>'
                   f'<text x="{left - 4}" y="{_n(py(v) + 3)}" font-size="10" text-anchor="end">'
                   f'{f"{v:.0%}" if share else f"{v:.2f}"}</text>')
    for i, x in enumerate(xs):
        if len(xs) <= 15 or i % max(1, len(xs) // 10) == 0:
            out.append(f'<text x="{_n(px(i))}" y="{h - bottom + 14}" font-size="10" text-anchor="middle">{x}</text>')
    out.append(f'<text x="{_n((left + w) / 2)}" y="{h - 4}" font-size="10" text-anchor="middle">epoch</text>')
    for label, values, stroke in series:
        points = " ".join(f"{_n(px(i))},{_n(py(v))}" for i, v in enumerate(values))
        out.append(f'<polyline fill="none" stroke="{stroke}" stroke-width="2" points="{points}">'
                   f'<title>{escape(label)}</title></polyline>')
        out += [f'<circle cx="{_n(px(i))}" cy="{_n(py(v))}" r="2.5" fill="{stroke}"><title>{escape(label)}, epoch '
                f'{xs[i]}: {f"{v:.2%}" if share else f"{v:.4f}"}</title></circle>' for i, v in enumerate(values)]
    out.append("</svg>")
    return "".join(out)
