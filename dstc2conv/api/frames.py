"""Every pandas DataFrame the API returns is built here, and pandas (a dependency) is
imported only here, when a table is asked for, so that importing the package or starting
the command line does not wait for it: the turns of a file (with predictions, their rule, whether
each is right and the per-turn metrics), a score by response kind and by dialog system,
the rules report's tables, and table2's systems and trainings."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

    from ..evaluate.responses import Count, Score
    from ..systems.rules.report import Table
    from ..systems.table2 import Table2
    from ..task6.turns import BotTurn

def turns_frame(turns: Sequence[BotTurn], systems: Sequence[str] | None = None,
                predictions: Sequence[str] | None = None, rules: Sequence[str | None] | None = None,
                metrics: Mapping[str, Sequence[Any]] | None = None) -> pandas.DataFrame:
    """One row per bot turn, in file order: ``dialog`` and ``turn`` (both from 1, as the
    command line numbers them), ``line`` (in the file), ``system`` (the dialog's DSTC2
    system, None when no manifest names it), ``kind`` (of the gold response), ``user``,
    ``gold``; with ``predictions``: ``prediction``, ``rule`` (None: not the rule
    baseline's, or no rule answered) and one column per per-turn metric (``correct``
    first)."""
    import pandas as pd

    from ..evaluate.response_kinds import kind_of

    def maybe(values) -> pandas.Series:   # None stays None (not NaN), also where every value is None
        return pd.Series(values, dtype="object")

    data = {
        "dialog": [t.dialog + 1 for t in turns],
        "turn": [t.index + 1 for t in turns],
        "line": [t.line for t in turns],
        "system": maybe([systems[t.dialog] if systems else None for t in turns]),
        "kind": [kind_of(t.gold) for t in turns],
        "user": [t.user for t in turns],
        "gold": [t.gold for t in turns],
    }
    if predictions is not None:
        data["prediction"] = list(predictions)
        data["rule"] = maybe(list(rules) if rules is not None else [None] * len(turns))
        for name, values in (metrics or {}).items():
            data[name] = list(values)
    return pd.DataFrame(data)


def parts_frame(parts: Mapping[str, Score | Count], index: str) -> pandas.DataFrame:
    """A score's parts (by kind, by system), one row each, indexed by ``index``; the
    columns are the parts' fields as ``--json`` writes them."""
    import pandas as pd

    rows = [{key: value for key, value in part.to_dict().items() if key != "signature"} for part in parts.values()]
    return pd.DataFrame(rows, index=pd.Index(list(parts), name=index))


def report_frame(table: Table) -> pandas.DataFrame:
    """A rules report table (``baseline.report.Table``) as it is, its columns named as the
    CSV files name them; an accuracy without turns is missing (NaN)."""
    import pandas as pd

    return pd.DataFrame([list(row) for row in table.rows], columns=list(table.columns))


def intervals_frame(figures: Mapping[str, dict], bounds: Mapping[str, dict]) -> pandas.DataFrame:
    """Each figure that has an interval, indexed by (metric, figure): ``value`` (on the
    whole file), ``low``, ``high`` (its 95% interval)."""
    import pandas as pd

    rows, index = [], []
    for metric, found in bounds.items():
        for name, (low, high) in found.items():
            index.append((metric, name))
            rows.append({"value": figures[metric][name], "low": low, "high": high})
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["metric", "figure"]))


def table2_frame(result: Table2) -> pandas.DataFrame:
    """``table2``'s rows, one a system, indexed by ``system``: ``per_response`` and
    ``per_dialog`` (the mean over the seeds for a system trained once per seed), their
    ``_min`` and ``_max``, ``seeds`` (how many trainings; 1 for a deterministic system),
    the paper's figures (``paper_per_response``, ``paper_per_dialog``; shares, None where
    it gives none), ``vs_rules``, ``vs_rules_low``, ``vs_rules_high`` (the first seed's
    training; None without the rules), ``fit_seconds`` and ``predict_seconds`` (the first
    seed's)."""
    import pandas as pd

    rows = []
    for row in result.rows:
        paper = row.to_dict()["paper"]
        rows.append({
            **{key: row.mean[key] for key in ("per_response", "per_dialog")},
            **{f"{key}_{end}": figures[key] for end, figures in (("min", row.low), ("max", row.high))
               for key in ("per_response", "per_dialog")},
            "seeds": len(row.runs), "paper_per_response": paper["per_response"],
            "paper_per_dialog": paper["per_dialog"], "vs_rules": row.difference,
            "vs_rules_low": None if row.versus is None else row.versus.low,
            "vs_rules_high": None if row.versus is None else row.versus.high,
            "fit_seconds": row.fit_seconds, "predict_seconds": row.predict_seconds})
    return pd.DataFrame(rows, index=pd.Index([row.name for row in result.rows], name="system"))


def whole_frame(result) -> pandas.DataFrame:
    """``table2 --release``'s whole table, one row a row of the paper's table and a system,
    indexed by ``row`` (``T1`` ... ``T6``) and ``system``: ``per_response`` and
    ``per_dialog`` (the mean over the seeds), the paper's (``paper_per_response``,
    ``paper_per_dialog``; shares, None where it gives none), ``vs_rules`` and its interval,
    ``fit_seconds`` and ``predict_seconds``. ``frame().unstack("system")`` sets the systems
    side by side, as the paper's table does."""
    import pandas as pd

    frames = [table2_frame(table) for table in result.tables.values()]
    return pd.concat(frames, keys=list(result.tables), names=["row", "system"])


def runs_frame(result: Table2) -> pandas.DataFrame:
    """Every training of ``table2``, one row each: ``system``, ``seed`` (None for a
    system that draws nothing at random), ``per_response``, ``per_dialog``, ``correct``,
    ``dialogs_correct``, ``fit_seconds``, ``predict_seconds``."""
    import pandas as pd

    rows = [{"system": row.name, "seed": run.seed,
             **{key: run.accuracy[key] for key in ("per_response", "per_dialog", "correct", "dialogs_correct")},
             "fit_seconds": run.fit_seconds, "predict_seconds": run.predict_seconds}
            for row in result.rows for run in row.runs]
    frame = pd.DataFrame(rows)
    frame["seed"] = pd.Series([r["seed"] for r in rows], dtype="object")
    return frame
