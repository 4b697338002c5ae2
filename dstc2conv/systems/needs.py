"""What the learned systems need before they start: numpy, on one BLAS thread."""
from __future__ import annotations

import os

from ..errors import Dstc2ConvError


def numpy_ready() -> None:
    """numpy, on one BLAS thread (results that do not depend on threads, and a shared
    machine spared); one line saying what to install when it is missing."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise Dstc2ConvError("the learned systems need numpy: pip install numpy") from None


__all__ = ["numpy_ready"]
