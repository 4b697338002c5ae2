"""Tables about a rule set on a data file (pandas is imported here only):
each rule's firings and accuracy, accuracy per response kind, the commonest confusions."""
from __future__ import annotations

import regex

from .engine import Compiled, Prediction, Turn, correct

_NAME_TOKEN = regex.compile(r"\S+_(?:phone|address|post_code)\b")


def response_kind(text: str, namers: list, generic: dict) -> str:
    """A response with its restaurant name (where a pattern with {name} places one),
    phone/address/postcode tokens, foods, areas and prices made generic."""
    text = text.strip()
    if text.startswith("api_call"):
        return "api_call" if text != "api_call no result" else text
    name = next((m.group("name") for m in (n.match(text) for n in namers) if m), None)
    out = []
    for token in text.split():
        if token == name:
            token = "<name>"
        elif _NAME_TOKEN.fullmatch(token):
            token = "<" + token.rsplit("_", 1)[1].replace("code", "post_code") + ">"
        else:
            token = generic.get(token, token)
        out.append(token)
    return " ".join(out)


def tables(predictions: list[Prediction], turns: list[Turn], compiled: Compiled, top: int = 15):
    """(rules, kinds, confusions) as pandas DataFrames."""
    import pandas as pd

    vocabulary = compiled.ontology.values
    generic = {v: f"<{slot}>" for slot, values in vocabulary.items() for v in values}

    def kind(text: str) -> str:
        return response_kind(text, compiled.namers, generic)

    rows = []
    for p, t in zip(predictions, turns):
        rows.append({"rule": p.rule or "(none)", "correct": correct(p.text, t.gold),
                     "kind": kind(t.gold), "predicted": kind(p.text) if p.text else "(nothing)",
                     "gold": t.gold.strip(), "prediction": p.text, "user": t.user})
    frame = pd.DataFrame(rows)
    rules = (frame.groupby("rule").agg(fired=("correct", "size"), correct=("correct", "sum"))
             .assign(accuracy=lambda f: (f.correct / f.fired).round(3))
             .sort_values("fired", ascending=False))
    kinds = (frame.groupby("kind").agg(turns=("correct", "size"), correct=("correct", "sum"))
             .assign(accuracy=lambda f: (f.correct / f.turns).round(3))
             .sort_values("turns", ascending=False).head(top))
    wrong = frame[~frame.correct]
    confusions = (wrong.groupby(["kind", "predicted"])
                  .agg(count=("correct", "size"), rule=("rule", "first"), user=("user", "first"),
                       gold=("gold", "first"))
                  .sort_values("count", ascending=False).head(top).reset_index())
    return rules, kinds, confusions
