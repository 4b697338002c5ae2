"""Find the DSTC2 inputs of a build and read from each what the splits need.

An input is a tarball or an unpacked folder of the official release: ``data/`` (the
calls), ``scripts/config/`` (the flists and ``ontology_dstc2.json``), or both. The
official downloads are named for what they hold (``OFFICIAL``); a tarball of another
name is read to find out. What is taken from each input:

- **calls** and **flists**: from every input that holds, or may hold, a flist the splits
  need (with ``every_call``, for a random partition: from every input that may hold
  calls); an official download that holds none of them is not read at all, unless the KB
  is built from the logs (``for_kb``): then every input that holds calls is read, and
  the calls of those the splits do not need serve the KB only (**kb**);
- **ontology**: from the first input read that holds ``ontology_dstc2.json``; if none
  does, from another input that may hold it, reading only up to the ontology (no call is
  parsed).

Two inputs that disagree (the same flist with other calls, or the same call with other
turns) are an error. With no ontology in any input, ``Inputs.ontology`` is None: the
build then takes the values the conversion needs from the calls themselves and the KB
(``Dstc2Ontology.from_calls``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import Dstc2ConvError
from ..reporter import note, progress
from .archive import FLISTS, ONTOLOGY, Source, read_ontology, read_source
from .ontology import Dstc2Ontology
from .workers import Calls

DEFAULT_RAW_DIR = "data_raw"
TARBALL_ENDINGS = (".tar.gz", ".tgz", ".tar")


@dataclass(frozen=True)
class Holds:
    """What an input holds, as far as is known before reading it."""
    flists: frozenset     # split names whose flist it holds
    ontology: bool
    calls: bool = True


# What each official download holds (see docs/building.md, "Getting DSTC2").
OFFICIAL = {
    "dstc2_traindev": Holds(frozenset({"train", "dev"}), ontology=True),
    "dstc2_test": Holds(frozenset({"test"}), ontology=False),
    "dstc2_scripts": Holds(frozenset({"train", "dev", "test"}), ontology=True, calls=False),
}


@dataclass(frozen=True)
class Inputs:
    sources: tuple[Source, ...]         # the inputs read for their calls and flists
    calls: Calls                        # session -> Call, from every source
    source_of: dict                     # session -> the input its call is read from (the last that holds it)
    flists: dict                        # split -> sorted session paths, from every source
    ontology: Dstc2Ontology | None           # None: no input holds one
    ontology_from: str | None           # where it was read: "<tarball>:<member>" or a file
    used: tuple[tuple[str, tuple[str, ...]], ...]   # (input, what was taken from it: calls, flists,
                                                     # kb, ontology; nothing: not read)

    def close(self) -> None:
        """Stop the worker processes that hold calls (see ``workers.Calls``)."""
        self.calls.close()


def sample_dir() -> str:
    """The small hand-written DSTC2-format sample shipped with dstc2conv."""
    from importlib import resources  # (here: it takes a few milliseconds to import)

    return str(resources.files("dstc2conv.sample"))


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


def downloads_in(path: str) -> list[str]:
    """An input named with --raw: a tarball or a release folder is itself; a folder of
    downloads (as ``data_raw/``) stands for the tarballs and release folders in it."""
    if not os.path.isdir(path) or _is_release_folder(path):
        return [path]
    found, is_sample = default_sources(path)
    if is_sample:
        raise Dstc2ConvError("holds no DSTC2 data: neither data/ and scripts/config/ (an unpacked release) "
                             "nor DSTC2 tarballs", path)
    return found


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
           for_kb: bool = False, asr: bool = False, every_call: bool = False) -> Inputs:
    """Read the inputs the splits need (see the module's docstring), with a progress line
    as each input is read and a note saying where the ontology comes from. ``for_kb``: also read every
    other input that holds calls, for a KB built from the logs. ``asr``: read what the
    system heard too (``calls.CallTurn.heard``). ``every_call``: read every input that may hold
    calls, whatever its flists. With ``jobs`` > 1 the calls stay in the worker processes
    that read them: ``Inputs.close()`` stops these."""
    sources: list[Source] = []
    try:
        return _gather(paths, splits, jobs, for_kb, asr, every_call, sources)
    except BaseException:
        for source in sources:
            source.calls.close()
        raise


def _gather(paths: list[str], splits: tuple[str, ...], jobs: int, for_kb: bool, asr: bool, every_call: bool,
            sources: list[Source]) -> Inputs:
    for path in paths:
        if not os.path.exists(path):
            raise Dstc2ConvError("no such file or folder", path)
    needed = frozenset().union(*(needed_flists(s) for s in splits))
    known = {path: holds(path) for path in paths}
    for path in paths:
        if _wanted(known[path], needed, every_call):
            progress(f"reading {path}")
            sources.append(read_source(path, workers=jobs, asr=asr, keep=True))
    calls, flists = _merged(sources)
    kb_only = set()
    if for_kb and needed <= set(flists):   # (without those flists the build stops: read no more)
        for path in paths:
            if not _wanted(known[path], needed, every_call) and known[path].calls:
                progress(f"reading {path} (its calls, for the KB)")
                sources.append(read_source(path, workers=jobs, asr=asr, keep=True))
                kb_only.add(path)
        calls, flists = _merged(sources)
    ontology_json, ontology_from = _find_ontology(paths, sources, known)
    ontology = _ontology(ontology_json, ontology_from)
    used = _used(paths, sources, kb_only, ontology_from)
    source_of = {session: source.path for source in sources for session in source.calls}
    return Inputs(tuple(sources), calls, source_of, flists, ontology, ontology_from, tuple(used))


def _wanted(known: Holds | None, needed: frozenset, every_call: bool) -> bool:
    """Whether an input that holds ``known`` is read for its calls: it may hold the
    ``needed`` flists (or, with ``every_call``, any calls)."""
    return known is None or bool(known.flists & needed) or every_call and known.calls


def _find_ontology(paths: list[str], sources: list[Source], known: dict) -> tuple[dict | None, str | None]:
    """The ontology's JSON and where it comes from: the first source read that holds one,
    else the first other input that may hold one; (None, None) if none does."""
    for source in sources:
        if source.ontology is not None:
            return source.ontology, source.ontology_path
    read = {source.path for source in sources}
    for path in paths:
        if path not in read and (known[path] is None or known[path].ontology):
            progress(f"looking for the ontology in {path}")
            found = read_ontology(path)
            if found is not None:
                return found
    return None, None


def _ontology(ontology_json: dict | None, ontology_from: str | None) -> Dstc2Ontology | None:
    """The ontology read from its JSON, with a note saying where it comes from."""
    if ontology_json is None:
        return None
    note(f"the ontology comes from {ontology_from}")
    try:
        return Dstc2Ontology.from_json(ontology_json)
    except (KeyError, TypeError):
        raise Dstc2ConvError("malformed ontology: it needs informable food, area, pricerange and name "
                             "lists of text", ontology_from) from None


def _used(paths: list[str], sources: list[Source], kb_only: set, ontology_from: str | None) -> list:
    """(input, what was taken from it) for each input: calls, flists, kb, ontology."""
    used = []
    for path in paths:
        source = next((s for s in sources if s.path == path), None)
        if source is None:
            taken = []
        elif path in kb_only:
            taken = ["kb"] if source.calls else []
        else:
            taken = [k for k, v in (("calls", source.calls), ("flists", source.flists)) if v]
        if ontology_from is not None and _within(ontology_from, path):
            taken.append("ontology")
        used.append((path, tuple(taken)))
    return used


def _within(where: str, path: str) -> bool:
    """Whether ``where`` ("<tarball>:<member>", or a file) was read from the input ``path``."""
    return where.startswith(f"{path}:") or where.startswith(os.path.join(path, ""))


def _merged(sources: list[Source]) -> tuple[Calls, dict]:
    """The calls and flists of every source, checked to agree where two hold the same."""
    flists: dict[str, tuple] = {}
    where: dict[str, str] = {}
    for i, source in enumerate(sources):
        for session in source.calls:
            holder = next((s for s in reversed(sources[:i]) if session in s.calls), None)
            if holder is None:
                continue
            other, call = holder.calls[session], source.calls[session]
            if (other.turns, other.dialog_manager) != (call.turns, call.dialog_manager):
                raise Dstc2ConvError(f"call {session} is in {other.source} and in {call.source}, with other turns")
        for split, sessions in source.flists.items():
            mine = tuple(sorted(set(sessions)))
            if split in flists and flists[split] != mine:
                raise Dstc2ConvError(f"{FLISTS[split]} of {where[split]} and of {source.path} name other calls")
            flists[split], where[split] = mine, source.path
    calls = Calls.merged([source.calls for source in sources])
    return calls, {split: list(sessions) for split, sessions in flists.items()}


def download_for(split: str) -> str:
    """The official download that holds a split's calls."""
    return next(f"{name}.tar.gz" for name, h in OFFICIAL.items() if h.calls and needed_flists(split) <= h.flists)


def held_splits(inputs: Inputs, splits: tuple[str, ...], every: bool = False) -> tuple[str, ...]:
    """The splits, of those asked for, whose flists and calls the inputs hold. A split
    asked for alone (not ``every``, as by ``--split all``) that they do not hold is an
    error saying what is missing."""
    held = []
    for split in splits:
        missing_flists = sorted(needed_flists(split) - set(inputs.flists))
        named = [(name, s) for name in sorted(needed_flists(split) & set(inputs.flists))
                 for s in inputs.flists[name]]
        absent = [(name, s) for name, s in named if s not in inputs.calls]
        if not missing_flists and not absent:
            held.append(split)
            continue
        if every and (missing_flists or len(absent) == len(named)):
            continue  # --split all: not in these inputs
        read = [path for path, taken in inputs.used if taken]
        opened = {source.path for source in inputs.sources}
        unread = [path for path, taken in inputs.used if not taken and path not in opened]
        empty = [path for path, taken in inputs.used if not taken and path in opened]
        where = ", ".join(read) or "the inputs"
        needs = f"--split {split} needs {download_for(split)}"
        if unread:
            needs += f" (not read, as by its name it holds no {split} calls: {', '.join(unread)})"
        if empty:
            needs += f" (read, but it holds no DSTC2 flist or call: {', '.join(empty)})"
        if missing_flists:
            raise Dstc2ConvError(f"no {', '.join(FLISTS[m] for m in missing_flists)} in {where}: {needs}")
        name, first = absent[0]
        of = f", one of {len(absent)} calls of the {split} split's flists" if len(absent) > 1 else ""
        raise Dstc2ConvError(f"{FLISTS[name]} names call {first}, which is not in the data{of}: {needs}",
                             where)
    if not held:
        raise Dstc2ConvError(f"no split's flists and calls are in {', '.join(p for p, _ in inputs.used)}")
    return tuple(held)
