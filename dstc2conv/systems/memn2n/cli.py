"""`dstc2conv memn2n train | predict | explain`: MemN2N, with --match the match-type features."""
from __future__ import annotations

import itertools
import sys

from ...errors import Dstc2ConvError
from ..learning.cli import add_commands, numpy_ready

# The grid --search tries (docs/learned.md); the model's defaults are its best on the dev file.
GRID = {"hops": (1, 3), "memory": (20, 50)}


def grid(args) -> list[dict]:
    return [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]


def system(args, **settings):
    from .model import MemN2N

    return MemN2N(match=getattr(args, "match", False), **settings)


def _options(p) -> None:
    p.add_argument("--match", action="store_true", help="with match-type features (the KB's entity types)")


def _explain(args) -> int:
    numpy_ready()
    from ...task6.turns import read_turns
    from ..learning.text import examples
    from .model import MemN2N

    system = MemN2N.load(args.model)
    turns = read_turns(args.data)
    dialog = [t for t in turns if t.dialog == args.dialog - 1]
    if not dialog:
        raise Dstc2ConvError(f"no dialog {args.dialog} (the file has {turns[-1].dialog + 1})", args.data)
    if args.turn > len(dialog):
        raise Dstc2ConvError(f"dialog {args.dialog} has {len(dialog)} bot turns, not {args.turn}", args.data)
    example = examples(dialog)[args.turn - 1]
    from ...task6.candidates import distinct

    system.use_candidates(distinct([*system.candidates, *(t.gold for t in turns)]))
    slots, attention, scores = system.attention(example)
    hops = attention.shape[0]
    out = sys.stdout
    print(f"dialog {args.dialog}, turn {args.turn} (line {dialog[args.turn - 1].line} of {args.data}), "
          f"{system.name}, {hops} hop{'s' if hops > 1 else ''}", file=out)
    print("  ".join(f"hop {h + 1:<2}" for h in range(hops)) + "  memory", file=out)
    shown = len(slots) - len(example.history)
    if shown < 0:
        print(f"({-shown} earlier utterances beyond the memory size)", file=out)
    for j, (who, text) in enumerate(slots):
        print("  ".join(f"{attention[h, j]:.3f} " for h in range(hops)) + f"  {who[1:]:<4} {text}", file=out)
    print(f"user:  {example.user}", file=out)
    best = int(scores.argmax())
    answer = system.candidates[best]
    print(f"answer {'(right)' if answer.strip() == example.gold.strip() else '(wrong)'}: {answer}", file=out)
    print(f"gold:  {example.gold}", file=out)
    return 0


def _explain_parser(commands) -> None:
    from ...arguments import at_least

    p = commands.add_parser("explain", help="a turn as the model saw it: the memories with their attention at each hop, "
                                            "the answer and the gold")
    p.add_argument("--model", required=True, metavar="DIR", help="the model folder")
    p.add_argument("--data", required=True, metavar="T6FILE", help="the task-6 file")
    p.add_argument("--dialog", type=at_least(1), required=True, metavar="N", help="the dialog, from 1")
    p.add_argument("--turn", type=at_least(1), required=True, metavar="T", help="the bot turn of the dialog, from 1")
    p.set_defaults(func=_explain)


def add_parser(sub) -> None:
    add_commands(sub, "memn2n", "MemN2N (--match: with match-type features): train, predict, explain",
                 system, grid, _options, _explain_parser)
