#!/usr/bin/env python3
"""Other readings of the api_call values, measured against the published files.

    python benchmarks/api_readings.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz]
                                      [--reference ../shared/reference]

For each reading, on the published train and dev split, as ``dstc2conv compare``
measures them: api_call lines identical, and dialogs identical. Every reading but the
second and third goes through the converter's fitting of the values to the offer
(``apicall.offer_values``). The first row is the converter's rule
(``dstc2conv.convert.apicall``: the ontology's values found in what the user said); the table of
docs/design.md ("Other readings of the api_call values") comes from this script. Then, per DSTC2 dialog manager: the "cannot
help" turns at which a call would be written if every system's counted as the MDP
system's, and how many of them have a call in the published files.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import tarfile
from collections import Counter
from dataclasses import replace
from functools import partial
from pathlib import Path

from dstc2conv.builder.partition import split_sessions
from dstc2conv.convert import apicall
from dstc2conv.convert.dialogs import convert_call
from dstc2conv.convert.kb import KB, read_kb, underscore
from dstc2conv.convert.lexicon import make_lexicon
from dstc2conv.dstc2.archive import read_source
from dstc2conv.dstc2.ontology import Dstc2Ontology
from dstc2conv.evaluate.align import compare_views
from dstc2conv.evaluate.views import view
from dstc2conv.task6.format import read
from dstc2conv.task6.vocabulary import DSTC2_SLOTS

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SLOTS = DSTC2_SLOTS   # food, area, pricerange
NONE = (None, None, None)


def live_hypotheses(path: str, wanted: set) -> dict:
    """session -> per turn (the top live SLU hypothesis's informs, the live ASR n-best)."""
    out = {}

    def keep(session, data):
        turns = []
        for turn in json.loads(data)["turns"]:
            live = turn["input"]["live"]
            slu = max(live.get("slu-hyps", []), key=lambda h: h["score"], default={"slu-hyp": []})
            informs = [tuple(s) for a in slu["slu-hyp"] if a["act"] == "inform" for s in a["slots"]]
            turns.append((informs, [h["asr-hyp"] for h in live.get("asr-hyps", [])]))
        out[session] = turns

    if os.path.isdir(path):
        for session in wanted:
            with open(os.path.join(path, "data", session, "log.json"), "rb") as f:
                keep(session, f.read())
        return out
    with tarfile.open(path) as tf:
        for member in tf:
            parts = member.name.split("/")
            if parts[-1] == "log.json" and "/".join(parts[-3:-1]) in wanted:
                keep("/".join(parts[-3:-1]), tf.extractfile(member).read())
    return out


def kept_if_said(call, upto, values, upto_text=None):
    """The values whose text occurs in the user's transcriptions before system turn upto."""
    said = " ".join(t.user.lower() for t in call.turns[:upto if upto_text is None else upto_text])
    return tuple(v if v and v.replace("_", " ") in said else None for v in values)


def goals(call, i):
    if i < 0:
        return NONE
    g = dict(call.turns[min(i, len(call.turns) - 1)].goals)
    return tuple(underscore(g[s]) if g.get(s) not in (None, "dontcare") else None for s in SLOTS)


def system_informs(turn):
    found = {}
    for act in turn.system_acts:
        if act.act in ("inform", "canthelp", "offer", "impl-conf", "expl-conf"):
            for slot, value in act.slots:
                if slot in SLOTS:
                    found[slot] = underscore(value)
    return tuple(found.get(s) for s in SLOTS)


def labels_said(call, upto):
    """The goal labels after the user turn before system turn upto, kept where the user said them."""
    return kept_if_said(call, upto, goals(call, upto - 1)) if upto else NONE


def readings(live, kb, lexicon):
    def said(call, upto):
        return apicall.said_values(call, upto, lexicon)

    # a memo of its own: the values found in a user turn depend on the pattern
    bounded = replace(lexicon, values=re.compile(r"(?<!\w)(?:%s)(?!\w)" % lexicon.values.pattern), memo={})

    def dontcare_open(call, upto):
        labels = dict(call.turns[upto - 1].goals) if upto else {}
        return tuple(None if labels.get(s) == "dontcare" else v for s, v in zip(SLOTS, said(call, upto)))

    def slu_tracked(call, upto):
        state = {}
        for informs, _asr in live[call.session][:upto]:
            for slot, value in informs:
                if slot in SLOTS:
                    state[slot] = value
        return tuple(underscore(state[s]) if state.get(s) not in (None, "dontcare") else None for s in SLOTS)

    def asr_too(call, upto):
        heard = " | ".join(h for _i, asr in live[call.session][:upto] for h in asr)
        return tuple(v if v and v.replace("_", " ") in heard else None
                     for v in labels_said(call, upto))

    def before_reqalts(managers):
        def values(call, upto):
            i = upto - 1
            if i >= 0 and call.dialog_manager in managers and \
                    any(a.act == "reqalts" for a in call.turns[i].user_acts):
                i -= 1
            return kept_if_said(call, upto, goals(call, i)) if upto else NONE
        return values

    def informs_or_rule(call, upto):
        found = system_informs(call.turns[upto])
        return kept_if_said(call, upto, found) if any(found) else said(call, upto)

    def matching_offers(call, runs, lexicon, kb):
        planned, last = {}, None
        for index, (first, _last) in enumerate(runs):
            turn = call.turns[first]
            if not apicall.eligible(turn, lexicon.names, canthelp_calls=apicall.mdp_system(call)):
                continue
            values = apicall.offer_values(call, turn, said(call, first),
                                          apicall.offered_restaurant(turn, kb))
            if values == last:
                continue
            if last is not None and turn.offered and values != NONE and \
                    underscore(turn.offered) not in {r.name for r in kb.matching(*values)}:
                continue
            planned[index], last = values, values
        return planned

    def always_fitted(call, runs, lexicon, kb):
        planned, last = {}, None
        for index, (first, _last) in enumerate(runs):
            turn = call.turns[first]
            if apicall.eligible(turn, lexicon.names, canthelp_calls=apicall.mdp_system(call)):
                values = apicall.fit_offer(said(call, first),
                                           apicall.offered_restaurant(turn, kb))
                if values != last:
                    planned[index], last = values, values
        return planned

    def unfitted(call, runs, lexicon, _kb):
        return apicall.plan_calls(call, runs, lexicon, KB((), "no facts"))

    plan = apicall.plan_calls
    return [
        ("the converter's rule", plan),
        ("the user's values as they are (not fitted to the offer)", unfitted),
        ("fitted to every offer, the MDP system's disputed ones too", always_fitted),
        ("the ontology's values at word boundaries only (not in \"moderately\")",
         partial(plan, values_at=partial(apicall.said_values, lexicon=bounded))),
        ("the rule, but a goal label dontcare leaves the slot open",
         partial(plan, values_at=dontcare_open)),
        ("goal labels, kept where the user said them", partial(plan, values_at=labels_said)),
        ("goal labels after the user turn that follows the call",
         partial(plan, values_at=lambda c, u: kept_if_said(c, u + 1, goals(c, u)))),
        ("text check without the user turn just before the call",
         partial(plan, values_at=lambda c, u: kept_if_said(c, u, goals(c, u - 1), u - 1) if u else NONE)),
        ("the system's own informs at the offer, kept where the user said them",
         partial(plan, values_at=informs_or_rule)),
        ("the live SLU's top hypotheses, tracked (no goal labels)", partial(plan, values_at=slu_tracked)),
        ("the same, kept where the user said them",
         partial(plan, values_at=lambda c, u: kept_if_said(c, u, slu_tracked(c, u)))),
        ("goal labels checked against the live ASR n-best as well", partial(plan, values_at=asr_too)),
        ('after "how about X" (reqalts), the goal labels from before it',
         partial(plan, values_at=before_reqalts({0, 1}))),
        ("the same, POMDP calls only", partial(plan, values_at=before_reqalts({1}))),
        ("no new call at an offer the new values do not match", matching_offers),
    ]


def measure(calls, refs, kb, lexicon, plan):
    ours = [view(convert_call(call, kb, lexicon, random.Random(0), plan)) for call in calls]
    rates = {m.key: m.rate for m in compare_views(ours, [view(ref) for ref in refs]).measures}
    return rates["api_calls"], rates["dialogs"]


def canthelp_calls(calls, refs, kb, lexicon) -> Counter:
    """(dialog manager, published call there?) -> count, over the "cannot help" turns at
    which the MDP reading writes a call. Dialogs whose system turns differ are skipped."""
    tally = Counter()
    for call, ref in zip(calls, refs):
        seen = {}

        def plan(c, runs, lexicon, kb):
            seen["runs"] = runs
            seen["calls"] = apicall.plan_calls(replace(c, dialog_manager=None), runs, lexicon, kb)
            return seen["calls"]

        ours = convert_call(call, kb, lexicon, random.Random(0), plan)
        ref_at, position = set(), 0
        for x in ref.exchanges:
            if x.bot.startswith("api_call"):
                ref_at.add(position)
            else:
                position += 1
        if [x.bot for x in ours.exchanges if not x.bot.startswith("api_call")] != \
                [x.bot for x in ref.exchanges if not x.bot.startswith("api_call")]:
            tally["skipped", None] += 1
            continue
        for index, (first, _last) in enumerate(seen["runs"]):
            turn = call.turns[first]
            if index in seen["calls"] and not apicall.eligible(turn, lexicon.names, canthelp_calls=False):
                tally[call.dialog_manager, index in ref_at] += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--reference", default=str(SHARED / "reference"))
    args = parser.parse_args()
    ref_dir = Path(args.reference)

    source = read_source(args.raw, workers=2)
    kb = read_kb(ref_dir / "dialog-babi-task6-dstc2-kb.txt")
    lexicon = make_lexicon(Dstc2Ontology.from_json(source.ontology), kb)
    split = split_sessions(source.flists, ("train", "dev"), dstc2_split=False)
    live = live_hypotheses(args.raw, set(split["train"]) | set(split["dev"]))
    files = {"train": "trn", "dev": "dev"}
    data = {name: ([source.calls[s] for s in split[name]],
                   read(ref_dir / f"dialog-babi-task6-dstc2-{files[name]}.txt")) for name in files}

    print(f"{'reading of the values':70} {'api_calls train / dev':>22}  {'dialogs train / dev':>20}")
    for label, plan in readings(live, kb, lexicon):
        (api_t, dlg_t), (api_d, dlg_d) = (measure(*data[name], kb, lexicon, plan) for name in files)
        print(f"{label:70} {api_t:>10.1%} / {api_d:<9.1%}  {dlg_t:>9.1%} / {dlg_d:<8.1%}", flush=True)

    tally = sum((canthelp_calls(*data[name], kb, lexicon) for name in files), Counter())
    for manager in sorted({m for m, _ in tally if m is not None}):
        with_call, without = tally[manager, True], tally[manager, False]
        print(f'dialog manager {manager}: a published call at {with_call} of {with_call + without} '
              '"cannot help" turns where the values changed')
    if tally["skipped", None]:
        print(f"({tally['skipped', None]} dialogs skipped: their system turns differ)")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
