"""Find the DSTC2 inputs of a build and read from each what the splits need.

An input is a tarball or an unpacked folder of the official release: ``data/`` (the
calls), ``scripts/config/`` (the flists and ``ontology_dstc2.json``), or both. The
official downloads are named for what they hold; a tarball of another name is read to
find out. Each input is read for one of three things:

- **calls**: an input that holds (or may hold) a flist the splits need: its calls are parsed;
- **ontology**: no input read for calls holds ``ontology_dstc2.json``, this one does: only
  the ontology is taken from it, its calls are not parsed;
- **skipped**: neither.

With no ontology in any input, ``Inputs.ontology`` is None: the build then takes the
values the conversion needs from the calls themselves and the KB (``Ontology.from_calls``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from typing import Callable

from .convert import Ontology
from .dstc2 import FLISTS, ONTOLOGY, Call, Source, read_source
from .errors import Dstc2ConvError

DEFAULT_RAW_DIR = "data_raw"
TARBALL_ENDINGS = (".tar.gz", ".tgz", ".tar")


@dataclass(frozen=True)
class Holds:
    """What an input holds, as far as is known before reading it."""
    flists: frozenset     # split names whose flist it holds
    ontology: bool


# What each official download holds (see the README's "Getting DSTC2").
OFFICIAL = {
    "dstc2_traindev": Holds(frozenset({"train", "dev"}), True),
    "dstc2_test": Holds(frozenset({"test"}), False),
    "dstc2_scripts": Holds(frozenset({"train", "dev", "test"}), True),
}


@dataclass(frozen=True)
class Inputs:
    sources: tuple[Source, ...]         # the inputs read for their calls
    calls: dict                         # session -> Call, from every source
    flists: dict                        # split -> sorted session paths, from every source
    ontology: Ontology | None           # None: no input holds one
    ontology_from: str | None           # "<input>:<member>"
    read: tuple[tuple[str, str], ...]   # (input, what it was read for: calls, ontology, skipped)


def sample_dir() -> str:
    """The small hand-written DSTC2-format sample shipped with dstc2conv."""
    return str(resources.files("dstc2conv") / "sample")


def default_sources(raw_dir: str = DEFAULT_RAW_DIR) -> tuple[list[str], bool]:
    """The DSTC2 tarballs and unpacked folders in ``raw_dir``; else the shipped sample.
    Returns (paths, is_sample)."""
    found = []
    if _is_release_folder(raw_dir):  # a release unpacked in place
        found.append(raw_dir)
    if os.path.isdir(raw_dir):
        for name in sorted(os.listdir(raw_dir)):
            path = os.path.join(raw_dir, name)
            if name.endswith(TARBALL_ENDINGS) and os.path.isfile(path) or _is_release_folder(path):
                found.append(path)
    if found:
        return found, False
    return [sample_dir()], True


def _is_release_folder(path: str) -> bool:
    return os.path.isdir(os.path.join(path, "scripts", "config")) or os.path.isdir(os.path.join(path, "data"))


def needed_flists(split: str) -> frozenset:
    """The DSTC2 flists a task-6 split is made from (train and dev are one pool)."""
    return frozenset({"test"}) if split == "test" else frozenset({"train", "dev"})


def holds(path: str) -> Holds | None:
    """What an input holds, found cheaply: a folder's ``scripts/config/`` listing, a
    tarball's official name; None for a tarball of another name."""
    if os.path.isdir(path):
        config = os.path.join(path, "scripts", "config")
        names = set(os.listdir(config)) if os.path.isdir(config) else set()
        return Holds(frozenset(s for s, f in FLISTS.items() if f in names), ONTOLOGY in names)
    base = os.path.basename(path)
    for ending in TARBALL_ENDINGS:
        if base.endswith(ending):
            return OFFICIAL.get(base[: -len(ending)])
    return None


def gather(paths: list[str], splits: tuple[str, ...], jobs: int = 1,
           log: Callable[[str], None] = lambda _msg: None,
           progress: Callable[[str], None] = lambda _msg: None) -> Inputs:
    """Read the inputs the splits need (see the module's docstring). ``log``: notes for
    the user; ``progress``: a line as each input is read."""
    for path in paths:
        if not os.path.exists(path):
            raise Dstc2ConvError("no such file or folder", path)
    needed = frozenset().union(*(needed_flists(s) for s in splits))
    known = {path: holds(path) for path in paths}
    first = [p for p in paths if known[p] is None or known[p].flists & needed]
    later = [p for p in paths if p not in first]

    sources: list[Source] = []
    for path in first:
        progress(f"reading {path}")
        sources.append(read_source(path, workers=jobs))
    if later and not _has_calls_of(sources, needed, every=len(splits) < 3):
        for path in later:  # a tarball whose name says otherwise may still hold them
            progress(f"reading {path}")
            sources.append(read_source(path, workers=jobs))

    calls: dict[str, Call] = {}
    flists: dict[str, set] = {}
    for source in sources:
        calls.update(source.calls)
        for split, sessions in source.flists.items():
            flists.setdefault(split, set()).update(sessions)
    read = {s.path: "calls" for s in sources}

    ontology_from = None
    ontology_json = None
    for source in sources:
        if source.ontology is not None:
            ontology_json, ontology_from = source.ontology, source.path
            break
    else:
        for path in paths:
            if path not in read and (known[path] is None or known[path].ontology):
                progress(f"looking for the ontology in {path}")
                peek = read_source(path, wanted=frozenset())  # the ontology only: no call is parsed
                if peek.ontology is not None:
                    log(f"the ontology comes from {path}")
                    ontology_json, ontology_from = peek.ontology, path
                    read[path] = "ontology"
                    break
    ontology = None
    if ontology_json is not None:
        try:
            ontology = Ontology.from_json(ontology_json)
        except (KeyError, TypeError):
            raise Dstc2ConvError("malformed ontology: it needs informable food, area, pricerange and name lists of text",
                                 f"{ontology_from}:scripts/config/{ONTOLOGY}") from None
        ontology_from = f"{ontology_from}:scripts/config/{ONTOLOGY}"

    return Inputs(
        sources=tuple(sources),
        calls=calls,
        flists={split: sorted(sessions) for split, sessions in flists.items()},
        ontology=ontology,
        ontology_from=ontology_from,
        read=tuple((path, read.get(path, "skipped")) for path in paths),
    )


def _has_calls_of(sources: list[Source], needed: frozenset, every: bool) -> bool:
    """Whether the sources hold the needed flists (``every``: all of them; else any) and
    the calls they name."""
    flists: dict[str, set] = {}
    calls: set = set()
    for source in sources:
        calls.update(source.calls)
        for split, sessions in source.flists.items():
            flists.setdefault(split, set()).update(sessions)
    have = needed & set(flists)
    if not have or every and have != needed:
        return False
    return all(flists[split] <= calls for split in have)


def held_splits(inputs: Inputs, splits: tuple[str, ...]) -> tuple[str, ...]:
    """The splits, of those asked for, whose flists and calls the inputs hold. A split
    asked for alone (not ``all``) that they do not hold is an error saying what is missing."""
    held = []
    for split in splits:
        missing_flists = sorted(needed_flists(split) - set(inputs.flists))
        named = [(name, s) for name in sorted(needed_flists(split) & set(inputs.flists))
                 for s in inputs.flists[name]]
        absent = [(name, s) for name, s in named if s not in inputs.calls]
        if not missing_flists and not absent:
            held.append(split)
            continue
        if len(splits) == 3 and (missing_flists or len(absent) == len(named)):
            continue  # --split all: not in these inputs
        where = ", ".join(path for path, what in inputs.read if what == "calls") or "the inputs"
        needs = f"--split {split} needs {'dstc2_test.tar.gz' if split == 'test' else 'dstc2_traindev.tar.gz'}"
        if missing_flists:
            raise Dstc2ConvError(f"no {', '.join(FLISTS[m] for m in missing_flists)} in {where}: {needs}")
        name, first = absent[0]
        more = f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""
        raise Dstc2ConvError(f"{FLISTS[name]} names call {first}{more}, which is not in the data: {needs}",
                             where)
    if not held:
        raise Dstc2ConvError(f"no split's flists and calls are in {', '.join(p for p, _ in inputs.read)}")
    return tuple(held)
