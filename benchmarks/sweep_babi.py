#!/usr/bin/env python3
"""The learned baselines on bAbI dialog tasks 1-5: the search of their settings on each
task's dev file, and the chosen settings' figures and times.

    python benchmarks/sweep_babi.py [--tasks T1,T2,...] [--systems tfidf,nn,embeddings,memn2n,memn2n+match]
                                    [--grid | --chosen] [--babi DIR] [--candidates FILE]

Each system is trained on the task's published train file (choices and early stopping on
its dev file), among the published candidates file's 4,212 responses, and scored on the
dev file and on its OOV stand-in (``babi_standin.py``: the dev file with the other KB
half's cuisines, locations and restaurants), per response and per dialog. The held-out
test files take no part.

``--grid`` tries every setting of ``GRIDS`` over ``FIXED`` (a line each: the settings,
the dev and stand-in figures, the fit and predict times, the epochs run) and names the
best: the highest sum of the dev and stand-in per-response accuracies (one model per task
is scored on both the test and the OOV test file); of equal sums, the fastest fit. Those are what
``dstc2conv/systems/task_settings.py`` holds.
``--chosen`` (the default) runs each system once with ``settings_for(system, task)`` and
prints its figures, fit and predict times, and each task's total time.
"""
from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROOT = Path(__file__).resolve().parents[1]
BABI = ROOT.parent / "shared" / "reference" / "babi"
FILES = {"T1": "dialog-babi-task1-API-calls", "T2": "dialog-babi-task2-API-refine",
         "T3": "dialog-babi-task3-options", "T4": "dialog-babi-task4-phone-address",
         "T5": "dialog-babi-task5-full-dialogs"}
SYSTEMS = ("tfidf", "nn", "embeddings", "memn2n", "memn2n+match")

# What the search tries, per system (every task the same grid), over FIXED (the settings
# given to every point of the grid); the others are the system's defaults.
GRIDS = {
    "embeddings": {"learning_rate": (0.01, 0.03, 0.1, 0.3)},
    "memn2n": {"hops": (1, 3), "memory": (50, 100)},
    "memn2n+match": {"hops": (1, 3), "typed_memory": (False, True)},
}
FIXED = {
    "embeddings": {"sparse": True, "epochs": 40, "patience": 6},
    "memn2n": {"sparse": True, "epochs": 40, "patience": 6},
    "memn2n+match": {"sparse": True, "epochs": 40, "patience": 6, "memory": 100},
}

# Task 5's dialogs are the longest (the memory of 100 utterances took 317 s to fit MemN2N,
# over the time the whole table may take): its MemN2N memory is 50 at every point.
TASK_GRIDS = {"T5": {"memn2n": {"hops": (1, 3), "memory": (50,)}}}
TASK_FIXED = {"T5": {"memn2n+match": {"memory": 50}}}


def grid(system: str, task: str = "") -> list[dict]:
    found = TASK_GRIDS.get(task, {}).get(system) or GRIDS.get(system, {})
    return [dict(zip(found, values)) for values in itertools.product(*found.values())] or [{}]


def evaluate(system, turns) -> tuple[float, float]:
    from dstc2conv.evaluate.metrics import accuracy
    from dstc2conv.evaluate.responses import outcomes
    from dstc2conv.systems.interface import predict

    found = accuracy(outcomes(predict(system, turns), turns), turns)
    return found["per_response"], found["per_dialog"]


def one(name: str, settings: dict, pool, trn, dev, standin) -> dict:
    from dstc2conv.systems import registry

    system = registry.entry(name).build(pool, **settings)
    start = time.perf_counter()
    system.fit(trn, dev)
    fitted = time.perf_counter() - start
    start = time.perf_counter()
    dev_figures = evaluate(system, dev)
    oov_figures = evaluate(system, standin)
    predicted = time.perf_counter() - start
    epochs = len(getattr(system, "curve", ())) or None
    return {"dev": dev_figures, "oov": oov_figures, "fit": fitted, "predict": predicted, "epochs": epochs}


def line(name: str, settings: dict, found: dict) -> str:
    said = ", ".join(f"{k}={v}" for k, v in settings.items()) or "(defaults)"
    (r, d), (ro, do) = found["dev"], found["oov"]
    epochs = f"{found['epochs']:>3} epochs" if found["epochs"] else "          "
    return (f"  {name:<13} {said:<38} dev {r:7.2%} ({d:7.2%})  oov stand-in {ro:7.2%} ({do:7.2%})  "
            f"fit {found['fit']:6.1f} s  predict {found['predict']:5.1f} s  {epochs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default=",".join(FILES))
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--grid", action="store_true", help="search every setting of GRIDS")
    parser.add_argument("--babi", default=str(BABI), help="the folder of the published bAbI files")
    parser.add_argument("--candidates", help="default: the folder's dialog-babi-candidates.txt")
    args = parser.parse_args()
    from babi_standin import write_standin

    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.systems.task_settings import settings_for
    from dstc2conv.task6.candidates import read_candidates
    from dstc2conv.task6.turns import read_turns

    tasks = args.tasks.split(",")
    for task in tasks:
        if task not in FILES:
            raise Dstc2ConvError(f"no task {task!r}: give some of {', '.join(FILES)}")
    pool = read_candidates(args.candidates or os.path.join(args.babi, "dialog-babi-candidates.txt"))
    for task in tasks:
        stem = os.path.join(args.babi, FILES[task])
        trn, dev = read_turns(f"{stem}-trn.txt"), read_turns(f"{stem}-dev.txt")
        path = write_standin(f"{stem}-dev.txt")
        try:
            standin = read_turns(path)
        finally:
            os.unlink(path)
        print(f"{task}: {len(trn)} training turns, {len(dev)} dev turns", flush=True)
        total = 0.0
        for name in args.systems.split(","):
            chosen = settings_for(name, task)
            if args.grid:
                results = []
                for settings in grid(name, task):
                    settings = {**FIXED.get(name, {}), **TASK_FIXED.get(task, {}).get(name, {}), **settings}
                    found = one(name, settings, pool, trn, dev, standin)
                    results.append((settings, found))
                    print(line(name, settings, found), flush=True)
                # one model is scored on both test files: the best sum of dev and stand-in; of equals, the fastest fit
                settings, found = max(results, key=lambda r: (r[1]["dev"][0] + r[1]["oov"][0], -r[1]["fit"]))
                print(f"  {name:<13} best: {', '.join(f'{k}={v}' for k, v in settings.items())}", flush=True)
            else:
                found = one(name, chosen, pool, trn, dev, standin)
                total += found["fit"] + found["predict"]
                print(line(name, chosen, found), flush=True)
        if not args.grid:
            print(f"{task}: {total:.1f} s for the fits and the predictions on both files", flush=True)


if __name__ == "__main__":
    from script import run_main

    run_main(main)
