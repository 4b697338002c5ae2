"""The version of dstc2conv, named in every signature and manifest."""
__version__ = "0.1.0"
