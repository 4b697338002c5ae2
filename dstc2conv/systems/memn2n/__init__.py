"""MemN2N (end-to-end memory network) ranking task-6 responses, with or without match-type features."""
from .model import MemN2N

__all__ = ["MemN2N"]
