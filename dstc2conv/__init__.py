"""dstc2conv: rebuild bAbI dialog task 6 from the raw DSTC2 corpus, and a rule baseline for it."""
from .errors import Dstc2ConvError  # noqa: E402
from .task6.format import Context, Dialog, Exchange  # noqa: E402
from .version import __version__  # noqa: E402

__all__ = ["Dstc2ConvError", "Dialog", "Exchange", "Context", "__version__"]
