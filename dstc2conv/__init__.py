"""dstc2conv: rebuild bAbI dialog task 6 from the raw DSTC2 corpus, and a rule baseline for it."""
__version__ = "0.1.0"

from .errors import Dstc2ConvError  # noqa: E402
from .task6 import Context, Dialog, Exchange  # noqa: E402

__all__ = ["Dstc2ConvError", "Dialog", "Exchange", "Context", "__version__"]
