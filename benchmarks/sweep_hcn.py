#!/usr/bin/env python3
"""hcn's recurrence under several settings, on one linear part: the dev curve of each.

    python benchmarks/sweep_hcn.py [--tracker rules|kb] [--cross-fit] [--train TRN] [--dev DEV] \\
        '{}' '{"seed": 1}' '{"lr": 0.001}' '{"turn_dropout": 0.1}' ...

The linear part (the chooser's L-BFGS, with hcn's defaults) is trained once on TRN with
the tracker's features; then, for each setting (a JSON object of hcn's training settings:
hidden, dimension, epochs, patience, batch, lr, dropout, turn_dropout, seed; the others
at their defaults), the recurrence is trained with early stopping on DEV, and one line
gives the dev figures (per turn, per dialog, in percent) after each epoch (epoch 0: the
linear part alone), the best epoch and the time. What docs/hcn.md's tables of choices show.

--cross-fit: the recurrence learns over the chooser's scores of each training dialog by a
chooser that did not see it (two halves of TRN's dialogs, odd and even, each scored by the
L-BFGS of the other, in the vocabulary of all of TRN), not by the one trained on all of
TRN, whose training scores are those of a model fitted on those turns; DEV is scored by
the one trained on all of TRN, as hcn answers.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT.parent / "shared" / "reference"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train", default=str(REFERENCE / "dialog-babi-task6-dstc2-trn.txt"))
    parser.add_argument("--dev", default=str(REFERENCE / "dialog-babi-task6-dstc2-dev.txt"))
    parser.add_argument("--tracker", default="rules", choices=("rules", "kb"))
    parser.add_argument("--cross-fit", action="store_true", help="train the recurrence over out-of-fold chooser scores")
    parser.add_argument("settings", nargs="*", default=["{}"], help="a JSON object of training settings")
    args = parser.parse_args()

    from dstc2conv.systems.chooser.choosing import learn as learn_linear
    from dstc2conv.systems.hcn.learning import as_turns
    from dstc2conv.systems.hcn.system import HCN
    from dstc2conv.systems.hcn.training import Settings, train
    from dstc2conv.systems.interface import as_turns as read
    from dstc2conv.systems.interface import one_thread

    trn, dev = read(args.train), read(args.dev)
    start = time.monotonic()
    with one_thread():
        hcn = HCN(tracker=args.tracker)
        hcn._compile()
        views, dev_views = hcn.views(trn), hcn.views(dev)
        linear = learn_linear(list(views), hcn.chooser_settings())
        turns, dev_turns = as_turns(views, trn, linear), as_turns(dev_views, dev, linear)
        if args.cross_fit:
            turns = replace(turns, base=cross_fitted(views, trn, linear, hcn.chooser_settings(), turns.base.shape))
        print(f"sweep_hcn: the linear part, {time.monotonic() - start:.0f} s", file=sys.stderr)
        for given in args.settings:
            setting = json.loads(given)
            began = time.monotonic()
            _, curve = train(turns, dev_turns, replace(Settings(), **setting))
            best = max(curve, key=lambda c: (c[2][0], -c[0]))
            figures = ", ".join(f"{acc[0]:.2%}/{acc[1]:.2%}" for _, _, acc in curve)
            print(f"{args.tracker} {json.dumps(setting)}: {figures}; best epoch {best[0]}; "
                  f"{time.monotonic() - began:.1f} s")
    return 0


def cross_fitted(views, trn, linear, settings, shape):
    """The chooser's scores of every training turn by the chooser trained on the other half
    of the dialogs (odd and even, in file order), in the vocabulary of the whole file."""
    import numpy as np

    from dstc2conv.systems.chooser.encode import encode
    from dstc2conv.systems.chooser.training import scores, train

    vocab = linear.vocab
    batch, _ = encode(views, vocab)
    order = {d: i for i, d in enumerate(dict.fromkeys(t.dialog for t in trn))}
    half = np.array([order[t.dialog] % 2 for t in trn])
    base = np.full(shape, -np.inf)
    for k in (0, 1):
        fit, out = np.flatnonzero(half != k), np.flatnonzero(half == k)
        W, u, _ = train(vocab.shape, batch.take(fit), len(vocab.features), len(vocab.columns), settings,
                        lambda *_: None)
        got = scores(W, u, vocab.shape, batch.take(out))
        base[out, :got.shape[1]] = got[:, :shape[1]]
    return base


if __name__ == "__main__":
    from script import run_main

    run_main(main)
