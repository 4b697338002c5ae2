"""The small hand-written DSTC2-format sample calls, installed with dstc2conv as ``dstc2conv.sample``."""
