"""The Python API: the functions ``import dstc2conv`` offers, and the pandas tables they return."""
