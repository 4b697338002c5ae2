"""Where the rules are read from by default: the rule file shipped with dstc2conv, or
``rules/dstc2.yaml`` of the current folder (a checkout, where the rules are edited)."""
from __future__ import annotations

import os

DEFAULT_RULES = os.path.join("rules", "dstc2.yaml")


def shipped_rules() -> str:
    """The rule file shipped with dstc2conv."""
    from importlib import resources

    return str(resources.files("dstc2conv.rulefiles") / "dstc2.yaml")


def default_rules() -> str:
    """``rules/dstc2.yaml`` in the current folder (a checkout, where the rules are edited)
    if it is there, else the rule file shipped with dstc2conv."""
    return DEFAULT_RULES if os.path.isfile(DEFAULT_RULES) else shipped_rules()


__all__ = ["DEFAULT_RULES", "shipped_rules", "default_rules"]
