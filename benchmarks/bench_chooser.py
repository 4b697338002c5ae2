#!/usr/bin/env python3
"""Time to train the learned chooser (`dstc2conv rules learn`), in-process.

    python benchmarks/bench_chooser.py [--train ../shared/reference/dialog-babi-task6-dstc2-trn.txt]
        [--dev ../shared/reference/dialog-babi-task6-dstc2-dev.txt] [--iterations N] [--l2 L]

Prints the seconds (wall and CPU) of each stage: running the rules over the training turns
(the views), encoding them, training (L-BFGS); then of choosing on --dev, and the
per-response accuracy there beside the rules'. Set OMP_NUM_THREADS / OPENBLAS_NUM_THREADS
to bound numpy's threads on a shared machine.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def _timed(label: str, work):
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    print(f"{label:<16} {time.perf_counter() - wall:7.1f} s wall  {time.process_time() - cpu:7.1f} s CPU")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", default=str(ROOT / "rules" / "dstc2.yaml"))
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--l2", type=float)
    args = parser.parse_args()

    from dstc2conv.evaluate.responses import outcomes
    from dstc2conv.systems.chooser.encode import build, encode
    from dstc2conv.systems.chooser.settings import Settings
    from dstc2conv.systems.chooser.system import RulesLearned, training_views
    from dstc2conv.systems.chooser.training import train
    from dstc2conv.systems.interface import predict as answers
    from dstc2conv.systems.rules.engine import Compiled, predict
    from dstc2conv.systems.rules.ruleset import load_rules
    from dstc2conv.task6.turns import read_turns

    ruleset = load_rules(args.rules)
    turns = read_turns(args.train)
    given = {k: v for k, v in (("iterations", args.iterations), ("l2", args.l2)) if v is not None}
    settings = Settings(**given)
    start = time.perf_counter()
    train_views = _timed("views", lambda: training_views(Compiled(ruleset), turns))
    vocab, batch = _timed("encode", lambda: (lambda v: (v, encode(train_views, v)[0]))(build(train_views)))
    W, u, history = _timed("train",
                           lambda: train(vocab.shape, batch, len(vocab.features), len(vocab.columns), settings))
    print(f"{'learn, total':<16} {time.perf_counter() - start:7.1f} s wall  ({len(turns)} training turns, "
          f"{len(vocab.actions)} actions, {len(vocab.features)} features, {len(history)} iterations)")
    if Path(args.dev).exists():
        dev = read_turns(args.dev)
        system = RulesLearned(ruleset, **given)
        facts = {"actions": [a.key for a in vocab.actions], "features": list(vocab.features),
                 "columns": list(vocab.columns)}
        system.restore(facts, {"W": W, "u": u})
        chosen = _timed("choose (dev)", lambda: answers(system, dev))
        rules = sum(outcomes([p.text for p in predict(Compiled(ruleset), dev)], dev)) / len(dev)
        learned = sum(outcomes(chosen, dev)) / len(dev)
        print(f"dev              rules {rules:.2%}, rules+learned {learned:.2%} per response ({len(dev)} turns)")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
