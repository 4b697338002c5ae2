"""dstc2conv: rebuild bAbI dialog task 6 from the raw DSTC2 corpus, and the baselines of its Table 2.

The names below are imported when first used (``dstc2conv.api.functions`` and the
stages it calls), so that importing the package, as the command line does, stays quick.
"""
from importlib import import_module

from .errors import Dstc2ConvError
from .version import __version__

# name -> the module that defines it
_NAMES = {
    "read": "api.functions", "write": "api.functions", "turns": "api.functions",
    "build": "api.functions", "compare": "api.functions",
    "load_rules": "api.functions", "predict": "api.functions", "rules_report": "api.functions",
    "score": "api.functions", "turns_table": "api.functions", "ScoreResult": "api.functions",
    "system": "api.functions", "rank": "api.functions", "table2": "api.functions",
    "whole_table": "api.functions",
    "Dialog": "task6.format", "Exchange": "task6.format", "Context": "task6.format",
    "BotTurn": "task6.turns", "Prediction": "systems.rules.engine",
    "System": "systems.interface", "clone": "systems.interface", "load": "systems.registry",
    "check_system": "systems.check",
}

__all__ = ["Dstc2ConvError", "__version__", *_NAMES]


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'dstc2conv' has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

