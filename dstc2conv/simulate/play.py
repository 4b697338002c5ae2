"""`dstc2conv play`: the simulated user of a bAbI task (1-5) talks to a system turn by
turn, the system's own answers driving the dialog (``user.User``); the environment
answers its ``api_call``s with the KB's facts. Per dialog: success (the task's end
reached: the right call, the booking, the phone or address asked), its bot turns, or
where and how it failed; over the dialogs, the task success rate with its 95% Wilson
interval and a table of the failures.

Each dialog draws from its own ``random.Random``, seeded by the seed, the task, the split
and the dialog's number: the same arguments give the same output.
"""
from __future__ import annotations

import hashlib
import os
import random
from collections import Counter
from dataclasses import dataclass

from ..errors import Dstc2ConvError, naming
from .generate import SimulateOptions, load_kb
from .kb import KB, candidates
from .requests import SPLITS, check, world
from .tasks import dialog_text
from .user import KINDS, TURN_LIMIT, UNEXPECTED, User, draw_goal

# 3 x the bot turns of the longest dialog of each task's published train and dev files (8, 11, 19, 4, 28)
TURN_LIMITS = {1: 24, 2: 33, 3: 57, 4: 12, 5: 84}


@dataclass(frozen=True)
class PlayOptions:
    system: str | None              # a registry name, a plugin's or module:Class (None: the model's)
    task: int
    dialogs: int = 100
    seed: int = 0
    split: str = "tst"              # the requests the user draws from (requests.SPLITS)
    model: str | None = None        # a model folder
    train: str | None = None        # a training file (with dev) to fit the system on
    dev: str | None = None
    kb: str | None = None           # a KB file (default: the paper's KB, built with kb_seed)
    kb_seed: int = 0
    show: int = 0                   # dialogs to print in the published format


@dataclass(frozen=True)
class Played:
    """One dialog played: its lines (published format, without ids), its bot turns, and
    how it failed (None: the task's end was reached) at which turn and why."""
    lines: tuple[str, ...]
    turns: int
    failure: str | None = None
    why: str = ""

    @property
    def success(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class PlayResult:
    system: str
    task: int
    split: str
    seed: int
    played: tuple[Played, ...]
    signature: str = ""             # what the figures depend on: the system's data, the KB, the version

    @property
    def successes(self) -> int:
        return sum(p.success for p in self.played)

    def to_dict(self, show: int = 0) -> dict:
        from ..evaluate.intervals import wilson  # (numpy: not at the command line's start)

        n = len(self.played)
        low, high = wilson(self.successes, n)
        failures = Counter(p.failure for p in self.played if p.failure)
        return {"system": self.system, "task": self.task, "split": self.split, "seed": self.seed, "dialogs": n,
                "signature": self.signature,
                "task_success": self.successes / n, "interval": {"low": low, "high": high, "method": "wilson"},
                "turns_per_dialog": sum(p.turns for p in self.played) / n, "turn_limit": TURN_LIMITS[self.task],
                "failures": {kind: {"dialogs": failures[kind],
                                    "mean_turn": _mean([p.turns for p in self.played if p.failure == kind])}
                             for kind in KINDS if failures[kind]},
                "shown": [{"dialog": i + 1, "success": p.success, "turns": p.turns, "failure": p.failure,
                           "why": p.why, "text": dialog_text(list(p.lines))}
                          for i, p in enumerate(self.played[:show])]}


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def dialog_seed(seed: int, task: int, split: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"play:{seed}:{task}:{split}:{index}".encode()).digest()[:8], "big")


def play_dialog(system, task: int, w, kb: KB, rng: random.Random) -> Played:
    """One dialog of ``task``: the user (its goal drawn from the world ``w``) against the
    system, until the task's end, a failure or the turn limit."""
    goal = draw_goal(task, rng, w)
    user = User(task, goal, rng, kb)
    lead = tuple(line for r in goal.opening for line in r.facts())
    lines = list(lead)
    system.reset()
    if lead:
        system.preface(lead)
    said = user.first()
    limit = TURN_LIMITS[task]
    for turn in range(1, limit + 1):
        ranking = tuple(system.rank(said, 1))
        bot = " ".join(ranking[0].split()) if ranking and isinstance(ranking[0], str) else ""
        reply = user.reply(bot)
        system.observe(said, bot, reply.context)
        lines.append(f"{said}\t{bot}")
        lines.extend(reply.context)
        if reply.failure:
            return Played(tuple(lines), turn, reply.failure, reply.why)
        if reply.user is None:
            return Played(tuple(lines), turn)
        said = reply.user
    return Played(tuple(lines), limit, TURN_LIMIT, f"no end after {limit} bot turns")


def babi_rules() -> str:
    """The bAbI rule file: ``rules/babi.yaml`` of the current folder if it is there (a
    checkout), else the one shipped with dstc2conv (as ``rules score`` picks it)."""
    from ..systems.rules.shipped import BABI_RULES, shipped_rules

    return BABI_RULES if os.path.isfile(BABI_RULES) else shipped_rules("babi.yaml")


def build_system(options: PlayOptions, kb: KB):
    """The system to play against: the model folder's, fitted on the training file, or
    one that needs no training (the rules, with the bAbI rule file)."""
    from ..reporter import note
    from ..systems import registry
    from ..systems.commands import load_model
    from ..systems.rules.system import Rules
    from ..task6.candidates import distinct

    allowed = candidates(kb)
    if options.model is not None:
        if options.train is not None or options.dev is not None:
            raise Dstc2ConvError("give --model DIR or --train FILE --dev FILE, not both")
        system = load_model(options.model, (options.system,) if options.system else ())
        if hasattr(system, "use_candidates"):        # the KB's restaurants and calls among its answers
            system.use_candidates(distinct([*system.candidates, *allowed]))
        return system
    if options.system is None:
        raise Dstc2ConvError("give --system NAME (or --model DIR)")
    entry = registry.entry(options.system)
    if options.train is not None:
        from ..systems.mistakes import check_data
        from ..systems.task_settings import settings_for
        from ..task6.turns import read_turns

        if options.dev is None:
            raise Dstc2ConvError("--train needs --dev FILE (the choices made on it)")
        trn, dv = read_turns(options.train), read_turns(options.dev)
        check_data(options.train, options.dev, trn, dv)
        with naming(options.train, options.dev):      # the settings chosen for the task (table2's)
            system = entry.build(distinct([*(t.gold for t in (*trn, *dv)), *allowed]),
                                 **settings_for(entry.name, f"T{options.task}"))
            note(f"{entry.name}: fitting on {os.path.basename(options.train)}")
            return system.fit(trn, dv)
    if options.dev is not None:
        raise Dstc2ConvError("--dev needs --train FILE")
    if issubclass(entry.system_class(), Rules):
        return entry.build(rules=babi_rules()).fit()
    system = entry.build(allowed)
    if not system.fitted():
        raise Dstc2ConvError(f"{entry.name} learns from data: give --train FILE --dev FILE, or --model DIR")
    return system


def play(options: PlayOptions, system=None) -> PlayResult:
    """Play ``options.dialogs`` dialogs of ``options.task`` against ``system`` (default: the
    one the options name, ``build_system``)."""
    from ..systems.interface import one_thread

    if options.task not in TURN_LIMITS:
        raise Dstc2ConvError(f"task {options.task!r}: give 1 to 5")
    if options.dialogs < 1:
        raise Dstc2ConvError(f"{options.dialogs} dialogs: give 1 or more")
    if options.split not in SPLITS:
        raise Dstc2ConvError(f"unknown split {options.split!r}: the splits are {', '.join(SPLITS)}")
    kb = load_kb(SimulateOptions((options.task,), (options.split,), kb=options.kb, kb_seed=options.kb_seed))
    w = world(kb, options.split)
    check(w, options.task, options.split)
    if system is None:
        system = build_system(options, kb)
    if not system.fitted():
        raise Dstc2ConvError(f"{system.label()}: not fitted: call fit(train, dev) first (or load a model)")
    with one_thread():
        played = tuple(play_dialog(system, options.task, w, kb,
                                   random.Random(dialog_seed(options.seed, options.task, options.split, i)))
                       for i in range(options.dialogs))
    return PlayResult(system.label(), options.task, options.split, options.seed, played,
                      signature(options, system, kb))


def signature(options: PlayOptions, system, kb: KB) -> str:
    """``play|<system>|<what it was made of>|kb:<sha>|task:..|split:..|seed:..|dialogs:..|version:..``:
    the model folder's fingerprint, the training file's SHA-256 or the rule file's (12
    hex digits each), the KB file's as written (``kb_text``)."""
    from ..files import sha256_file
    from ..systems.folder import fingerprint
    from ..version import __version__
    from .kb import kb_text

    made = []
    if options.model is not None:
        made.append(f"model:{fingerprint(options.model)[:12]}")
    elif options.train is not None:
        made.append(f"train:{sha256_file(options.train)[:12]}")
    rules = getattr(system, "rules", None)
    if isinstance(rules, (str, os.PathLike)):
        made.append(f"rules:{sha256_file(os.fspath(rules))[:12]}")
    kb_sha = hashlib.sha256(kb_text(kb).encode()).hexdigest()[:12]
    return "|".join(["play", system.label(), *made, f"kb:{kb_sha}", f"task:{options.task}", f"split:{options.split}",
                     f"seed:{options.seed}", f"dialogs:{options.dialogs}", f"version:{__version__}"])


def format_text(result: PlayResult, show: int = 0) -> str:
    d = result.to_dict(show)
    out = [shown["text"].rstrip("\n") + "\n" for shown in d["shown"]]
    n = d["dialogs"]
    out += [f"system            {d['system']}",
            f"task              {d['task']} ({d['split']} requests, seed {d['seed']})",
            f"dialogs           {n:,}",
            f"task success      {d['task_success']:.2%}  ({result.successes:,} of {n:,}; 95% interval "
            f"[{d['interval']['low']:.2%}, {d['interval']['high']:.2%}], Wilson)",
            f"turns per dialog  {d['turns_per_dialog']:.2f}  (bot turns; the limit {d['turn_limit']})",
            f"signature         {d['signature']}"]
    if d["failures"]:
        out += ["", "failure                           dialogs   share  mean turn"]
        for kind, f in d["failures"].items():
            out.append(f"{kind:<32}{f['dialogs']:>8,}  {f['dialogs'] / n:>6.1%}  {f['mean_turn']:>9.1f}")
    else:
        out.append("failures          none")
    if d["shown"]:
        out.append("")
        for s in d["shown"]:
            end = "success" if s["success"] else f"failed at bot turn {s['turns']}: {s['failure']}: {s['why']}"
            out.append(f"dialog {s['dialog']}: {end}")
    return "\n".join(out)


__all__ = ["PlayOptions", "PlayResult", "Played", "TURN_LIMITS", "UNEXPECTED", "build_system", "play", "play_dialog"]
