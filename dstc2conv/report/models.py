"""What a model folder adds to the report: its learning curve (``facts["dev_curve"]`` of
model.json: the mean training loss and the dev accuracy of each epoch, as the neural
systems' training records them), and, for a system that reads a memory (MemN2N's
``attention``), the attention on each memory slot at every hop at some turns.

Attention cannot be computed when the page is viewed (it is offline), so it is computed
here for a bounded set of turns: the first ``limit`` turns the system gets wrong, in
file order (the turns one wants to read), each dialog run through the loop once, as
``explain`` runs it."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import Dstc2ConvError


@dataclass(frozen=True)
class ModelView:
    name: str                  # the system (--system NAME) the folder made
    folder: str
    system: str                # the registry's name of the model
    curve: tuple               # ({"epoch", "loss", "dev"}, ...), empty when the folder has none
    attention: dict            # turn position -> {"slots": [[who, text]], "hops": [[weight]], "answer", "beyond"}
    limit: int                 # at most this many turns have attention


def curve_of(meta: dict) -> tuple:
    """The epochs model.json records (``facts.dev_curve``), or none."""
    facts = meta.get("facts")
    found = facts.get("dev_curve") if isinstance(facts, dict) else None
    if not isinstance(found, list):
        return ()
    return tuple({"epoch": int(e["epoch"]), "loss": float(e["loss"]), "dev": float(e["dev"])}
                 for e in found if isinstance(e, dict) and {"epoch", "loss", "dev"} <= set(e))


def view(name: str, folder: str, turns: Sequence, outcomes: Sequence[bool], limit: int) -> ModelView:
    from ..reporter import note
    from ..systems.folder import read_meta
    from ..systems.interface import one_thread
    from ..systems.registry import load, trusted

    meta = read_meta(folder)
    curve = curve_of(meta)
    chosen = [i for i, ok in enumerate(outcomes) if not ok][:limit]
    attention: dict = {}
    system = None
    if chosen and not trusted(meta.get("system", "")):
        note(f"{folder}: a model of {meta.get('system')}, a system of your own: no attention shown (loading it "
             "would import its module)")
        chosen = []
    if chosen:
        system = load(folder)
        if not hasattr(system, "attention"):
            chosen = []
    if chosen:
        wanted = set(chosen)
        dialogs = {turns[i].dialog for i in chosen}
        with one_thread():
            current = None
            for i, turn in enumerate(turns):
                if turn.dialog not in dialogs:
                    continue
                if turn.dialog != current:
                    system.reset()
                    current = turn.dialog
                if i in wanted:
                    slots, hops, answer, beyond = system.attention(turn.user)
                    attention[i] = {"slots": [list(s) for s in slots], "hops": [[round(w, 3) for w in h] for h in hops],
                                    "answer": answer, "beyond": beyond}
                system.rank(turn.user, 1)
                system.observe(turn.user, turn.gold, turn.context)
    if not isinstance(meta.get("system"), str):
        raise Dstc2ConvError("model.json names no system", folder)
    return ModelView(name, folder, meta["system"], curve, attention, limit)
