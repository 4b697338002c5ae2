"""dstc2conv: rebuild bAbI dialog task 6 from the raw DSTC2 corpus, and a rule baseline for it.

The names below are imported when first used (``dstc2conv.api.functions`` and the
stages it calls), so that importing the package, as the command line does, stays quick.
"""
import sys
import types
from importlib import import_module

from .errors import Dstc2ConvError
from .version import __version__

# name -> the module that defines it
_NAMES = {
    "read": "api.functions", "write": "api.functions", "turns": "api.functions",
    "build": "api.functions", "compare": "api.functions",
    "load_rules": "api.functions", "predict": "api.functions", "rules_report": "api.functions",
    "score": "api.functions", "turns_table": "api.functions", "ScoreResult": "api.functions",
    "Dialog": "task6.format", "Exchange": "task6.format", "Context": "task6.format",
    "BotTurn": "task6.turns", "Prediction": "baseline.engine",
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


class _Package(types.ModuleType):
    """``dstc2conv.build`` is the function that builds, though the pipeline's stage
    ``dstc2conv/build/`` has that name too: importing that package does not set it here.
    The stage stays in ``sys.modules``: ``from dstc2conv.build import pipeline`` and
    ``from dstc2conv.build.pipeline import ...`` work, ``import dstc2conv.build.pipeline
    as pipeline`` does not (it looks ``build`` up here)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "build" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
