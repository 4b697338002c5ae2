"""The shipped rule files (YAML), installed with dstc2conv as ``dstc2conv.rules``."""
