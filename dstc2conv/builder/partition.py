"""Which calls go into which task-6 split: a partition knows the pool of calls each split
is drawn from and deals the sessions out.

- ``published``: as the published task-6 files: DSTC2's train and dev calls in session
  order, the first 500 dev, the rest train; test: DSTC2's test calls;
- ``dstc2``: DSTC2's own train, dev and test flists;
- ``random``: every call given, dealt out at random (by the seed) in the published
  proportions 1618:500:1117, stratified by the session's folder.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from ..dstc2.inputs import Inputs, held_splits, needed_flists
from ..errors import Dstc2ConvError

# The published task-6 dev set is the first 500 of DSTC2's train+dev calls in session order.
PUBLISHED_DEV_SIZE = 500
# The published files' sizes: a random partition deals the calls out in these proportions.
PUBLISHED_SIZES = {"train": 1618, "dev": 500, "test": 1117}


@dataclass(frozen=True)
class Dealt:
    """The sessions of each split that gets calls, in session order."""
    splits: tuple[str, ...]              # of the splits asked for, those dealt calls
    sessions: dict[str, list[str]]       # split -> its sessions


@dataclass(frozen=True)
class Partition:
    """A way to deal calls into splits. This one, and ``PublishedPartition`` and
    ``Dstc2Partition``, go by DSTC2's flists: each split is drawn from the calls of its
    flists (train and dev from one pool), ``split_sessions``."""
    name = ""
    pooled = ("train", "dev")            # the splits drawn from one pool of calls
    every_call = False                   # whether the pool is every call given, whatever its flists
    own_flists = False                   # train and dev: DSTC2's own flists, not the published cut

    def pool(self, inputs: Inputs, split: str) -> list[str]:
        """The sessions a split is drawn from: those of its DSTC2 flists."""
        return [s for name in needed_flists(split) for s in inputs.flists[name]]

    def deal(self, inputs: Inputs, splits: tuple[str, ...], every: bool) -> Dealt:
        """The splits of ``splits`` the inputs hold (``every``: asked for with ``--split all``,
        so a split they do not hold is left out, not an error) and their sessions."""
        held = held_splits(inputs, splits, every)
        return Dealt(held, split_sessions(inputs.flists, held, dstc2_split=self.own_flists))

    def note(self, inputs: Inputs, dealt: Dealt) -> str | None:
        """What the user is told of the dealing, if anything."""
        return None


@dataclass(frozen=True)
class PublishedPartition(Partition):
    name = "published"


@dataclass(frozen=True)
class Dstc2Partition(Partition):
    name = "dstc2"
    own_flists = True


@dataclass(frozen=True)
class RandomPartition(Partition):
    seed: int = 0
    name = "random"
    pooled = ("train", "dev", "test")
    every_call = True

    def pool(self, inputs: Inputs, split: str) -> list[str]:
        return list(inputs.calls)

    def deal(self, inputs: Inputs, splits: tuple[str, ...], every: bool) -> Dealt:
        """Every call given, dealt out (``random_sessions``); with ``every``, a split too
        small to get a call is left out; none is an error."""
        sessions = random_sessions(inputs.calls, self.seed)
        held = tuple(split for split in splits if sessions[split])
        if not held:
            where = ", ".join(path for path, _ in inputs.used)
            raise Dstc2ConvError(f"--partition random: the {len(inputs.calls)} calls in {where} give the "
                                 f"{splits[0]} split none" if inputs.calls else f"--partition random: no calls in {where}")
        return Dealt(held, sessions)

    def note(self, inputs: Inputs, dealt: Dealt) -> str | None:
        return (f"--partition random (seed {self.seed}): the {len(inputs.calls)} calls given dealt out "
                + ", ".join(f"{len(dealt.sessions[s])} {s}" for s in dealt.sessions))


PARTITIONS = {"published": PublishedPartition, "dstc2": Dstc2Partition, "random": RandomPartition}


def partition_named(name: str, seed: int = 0) -> Partition:
    """The partition of that name (``PARTITIONS``); ``seed`` seeds the random one."""
    if name not in PARTITIONS:
        raise Dstc2ConvError(f"unknown partition {name!r}: choose {', '.join(PARTITIONS)}")
    return RandomPartition(seed) if name == "random" else PARTITIONS[name]()


def split_sessions(flists: dict[str, tuple[str, ...]], splits: tuple[str, ...],
                   dstc2_split: bool) -> dict[str, list[str]]:
    """Session paths per task-6 split, in file order (sorted session paths)."""
    out = {}
    pool = sorted(set(flists.get("train", ())) | set(flists.get("dev", ())))
    for split in splits:
        if split == "test":
            out[split] = sorted(flists["test"])
        elif dstc2_split:
            out[split] = sorted(flists[split])
        elif split == "dev":
            out[split] = pool[:PUBLISHED_DEV_SIZE]
        else:
            out[split] = pool[PUBLISHED_DEV_SIZE:]
    return out


def partition_sizes(calls: int) -> dict[str, int]:
    """The published sizes, scaled to ``calls``: each split gets the whole part of its
    share, and the calls left over go one each to the largest fractional parts (ties: in
    the order train, dev, test)."""
    total = sum(PUBLISHED_SIZES.values())
    sizes = {split: calls * n // total for split, n in PUBLISHED_SIZES.items()}
    by_remainder = sorted(PUBLISHED_SIZES, key=lambda s: -(calls * PUBLISHED_SIZES[s] % total))
    for split in by_remainder[:calls - sum(sizes.values())]:
        sizes[split] += 1
    return sizes


def random_sessions(sessions, seed: int) -> dict[str, list[str]]:
    """A seeded random partition of ``sessions`` at ``partition_sizes``, stratified by the
    session's folder (dialog manager and recogniser, ``Mar13_S0A1``): each folder's calls,
    shuffled, are dealt out in turn to the split furthest below its share so far, so that
    every split holds about its share of every folder's calls. Each split in session order."""
    sessions = sorted(sessions)
    sizes = partition_sizes(len(sessions))
    rng = random.Random(f"partition:{seed}")
    folders: dict[str, list[str]] = {}
    for session in sessions:
        folders.setdefault(session.split("/")[0], []).append(session)
    dealt: dict[str, list[str]] = {split: [] for split in sizes}
    i = 0
    for folder in sorted(folders):
        rng.shuffle(folders[folder])
        for session in folders[folder]:
            i += 1
            split = max(sizes, key=lambda s: sizes[s] * i - len(dealt[s]) * len(sessions))
            dealt[split].append(session)
    return {split: sorted(dealt[split]) for split in dealt}
