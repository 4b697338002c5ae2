"""Every pandas DataFrame the API returns is built here, and pandas (a dependency) is
imported only here, when a table is asked for, so that importing the package or starting
the command line does not wait for it: the turns of a file (with predictions, their rule, whether
each is right and the per-turn metrics), a score by response kind and by dialog system,
and the rules report's tables."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

    from ..evaluate.responses import Count, Score
    from ..systems.rules.report import Table
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
