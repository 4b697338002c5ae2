"""Scores as text lines and JSON, written once for ``score``, ``rules score`` and ``ir``.

A score is the figures of the chosen metrics (``metrics.Scored.figures``); accuracy
prints as the two lines ``per-response accuracy  54.60%  (2271/4159)`` and
``per-dialog accuracy ...``; every other metric as one line, its name first."""
from __future__ import annotations

from .metrics import METRICS, SLOTS
from .tables import percent

LABEL = 22


def _line(label: str, text: str) -> str:
    return f"{label:<{LABEL}} {text}"


def accuracy_lines(a: dict) -> list[str]:
    return [_line("per-response accuracy", f"{percent(a['per_response'])}  ({a['correct']}/{a['responses']})"),
            _line("per-dialog accuracy", f"{percent(a['per_dialog'])}  ({a['dialogs_correct']}/{a['dialogs']})")]


def metric_line(name: str, f: dict) -> str:
    """The line of a metric other than accuracy."""
    if name == "bleu":
        p = "/".join(f"{x:.1f}" for x in f["precisions"])
        text = (f"{f['bleu']:.2f}  ({p}, BP {f['brevity_penalty']:.3f}, hyp_len {f['hyp_len']}, "
                f"ref_len {f['ref_len']})")
    elif name == "entity_f1_mem2seq":
        text = (f"{percent(f['f1'])}  (mean over {f['responses']} responses with entities; recall "
                f"{percent(f['recall'])}, {f['tp']}/{f['tp'] + f['fn']}: the paper-era \"F1\")")
    elif name == "entity_micro":
        text = (f"{percent(f['f1'])}  (precision {percent(f['precision'])}, recall {percent(f['recall'])}; "
                f"TP {f['tp']}, FP {f['fp']}, FN {f['fn']})")
    elif name == "entity_recall":
        text = f"{percent(f['recall'])}  ({f['tp']}/{f['tp'] + f['fn']})"
    elif name == "api_call":
        slots = ", ".join(f"{s} {percent(f[s])}" for s in SLOTS)
        text = f"{percent(f['accuracy'])}  ({f['correct']}/{f['turns']}); {slots}"
    elif name == "task_success":
        text = f"{percent(f['success'])}  ({f['dialogs_successful']}/{f['dialogs']} dialogs)"
    elif name == "mrr":
        text = f"{f['mrr']:.4f}  ({f['turns']} turns)"
    elif name.startswith("hits@"):
        text = f"{percent(f['hits'])}  ({f['right']}/{f['turns']})"
    elif name.startswith("p@"):
        text = f"{percent(f['precision'])}  ({f['right']}/{f['samples']})"
    else:   # a metric added to the registry without a line of its own
        text = f"{f[METRICS[name].headline]}"
    return _line(name, text)


def system_lines(by_system: dict | None) -> list[str]:
    """Accuracy per dialog system (figures of ``accuracy``)."""
    return [f"system {name:<15} {percent(a['per_response'])}  ({a['correct']}/{a['responses']}) per response, "
            f"{percent(a['per_dialog'])}  ({a['dialogs_correct']}/{a['dialogs']}) per dialog"
            for name, a in (by_system or {}).items()]


def score_lines(figures: dict, signature: str, by_system: dict | None = None) -> list[str]:
    """Accuracy's two lines, a line per other metric, the signature, accuracy per system."""
    out = accuracy_lines(figures["accuracy"]) if "accuracy" in figures else []
    out += [metric_line(name, f) for name, f in figures.items() if name != "accuracy"]
    out.append(_line("signature", signature))
    return out + system_lines(by_system)


def as_dict(figures: dict, signature: str, by_system: dict | None = None) -> dict:
    """Accuracy's figures at the top (as ever), the signature, then each other metric's
    figures under its name, and accuracy per system."""
    out = dict(figures.get("accuracy", {}))
    out["signature"] = signature
    out.update({name: f for name, f in figures.items() if name != "accuracy"})
    if by_system is not None:
        out["by_system"] = parts(by_system)
    return out


def parts(parts: dict) -> dict:
    """Figures of parts (systems, kinds) without a signature (the whole's)."""
    return {name: {k: v for k, v in (p if isinstance(p, dict) else p.to_dict()).items() if k != "signature"}
            for name, p in parts.items()}


def figure(name: str, value: float, signed: bool = False) -> str:
    """A figure of the metric ``name`` as its line writes it: a share as a percentage,
    BLEU with two decimals, MRR with four."""
    if METRICS[name].percent:
        return percent(value, signed=signed)
    sign = "+" if signed else ""
    return f"{value:{sign}.2f}" if name == "bleu" else f"{value:{sign}.4f}"


def interval(name: str, bounds) -> str:
    """``[59.29%, 61.98%]``"""
    low, high = bounds
    return f"[{figure(name, low)}, {figure(name, high)}]"


def interval_lines(intervals) -> list[str]:
    """The 95% interval of each figure (``intervals.Intervals``), a line per metric."""
    out = [_line("95% intervals", f"bootstrap over the {intervals.dialogs} dialogs: {intervals.resamples} "
                                  f"resamples, seed {intervals.seed}")]
    for name, figures in intervals.figures.items():
        out.append(_line(f"  {name}", ", ".join(f"{f} {interval(name, b)}" for f, b in figures.items())))
    return out


def difference_lines(intervals, label: str) -> list[str]:
    """Each figure's difference from the baseline, its 95% interval and the share of the
    resamples where it is not above 0."""
    out = [_line("differences", f"{label}, 95% intervals by the same resamples (paired), and the share of the "
                                "resamples where it is not above 0")]
    for name, figures in (intervals.differences or {}).items():
        out.append(_line(f"  {name}", "; ".join(
            f"{f} {figure(name, d, True)} [{figure(name, lo, True)}, {figure(name, hi, True)}] "
            f"not above 0 in {percent(nb, 1)}" for f, (d, lo, hi, nb) in figures.items())))
    return out
