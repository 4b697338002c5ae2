"""Every pandas DataFrame the API returns is built here, and pandas is imported only here,
when a table is asked for: the turns of a file (with predictions, their rule, whether
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

INSTALL = "pip install 'dstc2conv[pandas]'"


def pandas_module():
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"dstc2conv's tables are pandas DataFrames, and pandas is not installed: {INSTALL}") from None
    return pandas


def turns_frame(turns: Sequence[BotTurn], systems: Sequence[str] | None = None,
                predictions: Sequence[str] | None = None, rules: Sequence[str | None] | None = None,
                metrics: Mapping[str, Sequence[Any]] | None = None) -> pandas.DataFrame:
    """One row per bot turn, in file order: ``dialog`` and ``turn`` (both from 1, as the
    command line numbers them), ``line`` (in the file), ``system`` (the dialog's DSTC2
    system, None when no manifest names it), ``kind`` (of the gold response), ``user``,
    ``gold``; with ``predictions``: ``prediction``, ``rule`` (None: not the rule
    baseline's, or no rule answered) and one column per per-turn metric (``correct``
    first)."""
    from ..evaluate.response_kinds import kind_of

    pd = pandas_module()
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
    pd = pandas_module()
    rows = [{key: value for key, value in part.to_dict().items() if key != "signature"} for part in parts.values()]
    return pd.DataFrame(rows, index=pd.Index(list(parts), name=index))


def report_frame(table: Table) -> pandas.DataFrame:
    """A rules report table (``baseline.report.Table``) as it is, its columns named as the
    CSV files name them; an accuracy without turns is missing (NaN)."""
    pd = pandas_module()
    return pd.DataFrame([list(row) for row in table.rows], columns=list(table.columns))
