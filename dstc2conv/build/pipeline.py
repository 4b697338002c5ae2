"""``dstc2conv build``: find the inputs, split the calls, convert them, write the files.

Everything is converted in memory first; the files are then put in place as one set
(``outputs.OutputFolder``), so a failed or killed build leaves the old set as it was.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import json
import operator
import os
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from ..convert.dialogs import convert_call
from ..convert.kb import KB, format_kb, kb_from_acts, read_kb
from ..convert.lexicon import kb_ontology, make_lexicon
from ..dstc2.calls import Call, Calls
from ..dstc2.inputs import DEFAULT_RAW_DIR, Inputs, default_sources, downloads_in, gather, held_splits, needed_flists
from ..dstc2.ontology import Dstc2Ontology
from ..errors import Dstc2ConvError
from ..exports.formats import EXPORTS, export_dialog, export_format
from ..files import sha256_file
from ..task6.format import Dialog, Exchange, read, serialize_dialog
from ..version import __version__
from .output_set import MANIFEST, OutputFolder

PREFIX = "dialog-babi-task6-dstc2"
FILE_OF_SPLIT = {"train": f"{PREFIX}-trn.txt", "dev": f"{PREFIX}-dev.txt", "test": f"{PREFIX}-tst.txt"}
CANDIDATES = f"{PREFIX}-candidates.txt"
KB_FILE = f"{PREFIX}-kb.txt"
# The published task-6 dev set is the first 500 of DSTC2's train+dev calls in session order.
PUBLISHED_DEV_SIZE = 500
# The published files' sizes: a random partition deals the calls out in these proportions.
PUBLISHED_SIZES = {"train": 1618, "dev": 500, "test": 1117}
PARTITIONS = ("published", "dstc2", "random")
FLIST_ORDER = ("train", "dev", "test", "other")
USERS = ("transcription", "asr")
# What must be the same for files of two builds to stand in one output folder (the
# manifest's "split" is the partition; "user" is there only for --user asr).
SET_SETTINGS = ("tool", "version", "seed", "split", "sample", "user")


@dataclass(frozen=True)
class BuildOptions:
    split: str                       # train, dev, test or all
    raw: tuple[str, ...] = ()        # tarballs or folders; empty: look in data_raw/
    out: str = "outputs"
    seed: int = 0                    # seeds the ratings and the random partition
    kb: str | None = None            # a KB file, or "logs" (built from the logs); None: data_raw/<kb file>
                                     # if present (and no raw), else the shipped KB (``shipped_kb``)
    partition: str = "published"     # published, dstc2 (DSTC2's own train/dev flists) or random
    user: str = "transcription"      # the user turns: the transcriptions, or what the live ASR heard (asr)
    raw_dir: str = DEFAULT_RAW_DIR
    jobs: int = 1                    # processes that parse the JSON in parallel
    replace: bool = False            # remove the folder's files of other builds instead of refusing
    exports: tuple[str, ...] = ()    # export formats (``exports.formats.EXPORTS``) to write beside the task-6 files


@dataclass(frozen=True)
class BuildResult:
    written: tuple[str, ...]
    manifest: dict = field(repr=False)


def wanted_splits(split: str) -> tuple[str, ...]:
    return ("train", "dev", "test") if split == "all" else (split,)


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


KB_FROM_LOGS = "logs"   # --kb logs: a KB built from the system's acts in the logs


def shipped_kb() -> str:
    """The published task-6 KB file shipped with dstc2conv (CC BY 3.0: see NOTICE)."""
    from importlib import resources  # (here: it takes a few milliseconds to import)

    return str(resources.files("dstc2conv") / "data" / KB_FILE)


def kb_file(options: BuildOptions, from_raw_dir: bool) -> str | None:
    """``--kb``; else, for the default inputs only, the KB file in ``data_raw/`` if there;
    else the shipped KB. None for ``--kb logs`` (a KB built from the logs)."""
    if options.kb == KB_FROM_LOGS:
        return None
    if options.kb:
        return options.kb
    default = os.path.join(options.raw_dir, KB_FILE)
    return default if from_raw_dir and os.path.isfile(default) else shipped_kb()


def describe_kb(kb: KB) -> dict:
    """The manifest's ``kb``, but the calls of a KB built from the logs: where it comes from
    (``shipped``, ``file`` or ``logs``), its path (a file's) and SHA-256 (a file's or the shipped one's)."""
    if kb.source == KB_FROM_LOGS:
        return {"source": "logs", "path": None, "sha256": None, "restaurants": len(kb.restaurants)}
    shipped = kb.source == shipped_kb()
    return {"source": "shipped" if shipped else "file", "path": None if shipped else kb.source,
            "sha256": sha256_file(kb.source), "restaurants": len(kb.restaurants)}


def choose_kb(options: BuildOptions, calls: Calls | dict[str, Call], from_raw_dir: bool,
              kb: KB | None = None) -> KB:
    """``kb`` if given (the KB file ``kb_file`` names, read), else the KB file, else a KB
    built from the logs of ``calls``."""
    if kb is not None:
        return kb
    path = kb_file(options, from_raw_dir)
    if path is not None:
        return read_kb(path)
    offered: set[str] = set()
    informs: list[tuple[str, str, str]] = []
    shares = calls.run(_offers) if isinstance(calls, Calls) else [_offers(calls.values())]
    for names, facts in shares:   # (the votes are counted: their order does not matter)
        offered |= names
        informs += facts
    return kb_from_acts(offered, informs)


def _offers(calls: list[Call]) -> tuple[set, list]:
    """The restaurants the calls' system turns offer, and (name, slot, value) for each
    ``inform`` of an offer turn."""
    offered: set[str] = set()
    informs: list[tuple[str, str, str]] = []
    for call in calls:
        for turn in call.turns:
            name = turn.offered
            if name is None:
                continue
            offered.add(name)
            informs.extend((name, slot, value) for act in turn.system_acts if act.act == "inform"
                           for slot, value in act.slots)
    return offered, informs


def candidates(dialogs: list[Dialog], bots=()) -> str:
    """Every distinct bot utterance of ``dialogs`` and ``bots``, sorted, each line prefixed ``1 ``."""
    every = set(bots) | {line.bot for d in dialogs for line in d.lines if isinstance(line, Exchange)}
    return "".join(f"1 {bot}\n" for bot in sorted(every))


def _sha256_folder(path: str) -> str:
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if name.endswith((".json", ".flist")):
                full = os.path.join(root, name)
                digest.update(os.path.relpath(full, path).encode() + b"\0")
                digest.update(sha256_file(full).encode())
    return digest.hexdigest()


def input_checksum(path: str) -> str:
    return _sha256_folder(path) if os.path.isdir(path) else sha256_file(path)


def _sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_SETTING = {"sample": "from the sample calls", "split": "partition", "user": "user turns"}


def _show_setting(key: str, value) -> str:
    if key == "user":
        return value or "transcription"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def files_to_keep(folder: OutputFolder, settings: dict, kb_text: str | None, entries: dict,
                  replace: bool, log: Callable[[str], None] = lambda _msg: None) -> tuple[dict, list, tuple[str, ...]]:
    """The task-6 files of other splits already in the output folder, given the manifest
    ``entries`` of the files this build writes. Those of a build with the same settings
    and KB (and, for train and dev, which are one pool of calls, the same inputs) are kept
    in the set: returns their manifest entries, the old manifest's inputs, and the files
    to remove. Others are removed with ``replace``, and those built from the sample calls
    by a build from the corpus (saying so); else the build stops saying why.

    Before the inputs are read (``check_folder``), ``kb_text`` is None for a KB to be built
    from the logs (then any other kind of KB differs), and entries' ``inputs`` are None
    (not compared yet)."""
    others = [name for name in FILE_OF_SPLIT.values() if name not in entries]
    present = [name for name in others if os.path.isfile(os.path.join(folder.path, name))]
    if not present:
        return {}, [], ()
    try:
        manifest = json.loads(folder.existing(MANIFEST) or "null")
    except ValueError:
        manifest = None
    if not isinstance(manifest, dict):
        manifest = {}
    old_entries = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    checksums = manifest.get("checksums") if isinstance(manifest.get("checksums"), dict) else {}
    pooled = tuple(FILE_OF_SPLIT) if settings["split"] == "random" else ("train", "dev")
    pool = [e["inputs"] for e in entries.values() if e["split"] in pooled and e["inputs"] is not None]
    keep, stale = {}, []
    if manifest.get("sample") is True and not settings.get("sample"):
        log(f"removing the sample's {', '.join(present)} from {folder.path}: this build is of the corpus")
        return {}, [], tuple(present)
    for name in present:
        entry = old_entries.get(name)
        text = folder.existing(name)
        if not manifest:
            stale.append((name, "no manifest.json lists it"))
        elif not isinstance(entry, dict) or text is None or checksums.get(name) != _sha256_text(text):
            stale.append((name, "it is not the file its manifest.json lists"))
        elif any(manifest.get(k) != settings.get(k) for k in SET_SETTINGS):
            differ = [k for k in SET_SETTINGS if manifest.get(k) != settings.get(k)]
            stale.append((name, "it was built with other settings (" + ", ".join(
                f"{_SETTING.get(k, k)} {_show_setting(k, manifest.get(k))}, this build {_show_setting(k, settings.get(k))}"
                for k in differ) + ")"))
        elif not _same_kb(folder, manifest, kb_text):
            old = manifest.get("kb") if isinstance(manifest.get("kb"), dict) else {}
            stale.append((name, f"it was built with another KB ({_show_kb(old)})"))
        elif entry.get("split") in pooled and pool and entry.get("inputs") != pool[0]:
            stale.append((name, f"it was built from other inputs ({', '.join(pooled[:-1])} and {pooled[-1]} "
                                "are split from one pool of calls)"))
        else:
            keep[name] = entry
    if stale and not replace:
        name, why = stale[0]
        raise Dstc2ConvError(
            f"it holds {name} and {why}; a folder holds one consistent set: build that split too "
            "from the same inputs, choose another --out, or pass --replace to remove such files", folder.path)
    old_inputs = manifest.get("inputs") if keep and isinstance(manifest.get("inputs"), list) else []
    return keep, old_inputs, tuple(name for name, _ in stale)


def _same_kb(folder: OutputFolder, manifest: dict, kb_text: str | None) -> bool:
    if kb_text is None:
        return isinstance(manifest.get("kb"), dict) and manifest["kb"].get("source") == KB_FROM_LOGS
    return folder.existing(KB_FILE) == kb_text


def _show_kb(kb: dict) -> str:
    source = kb.get("source")
    if source == "file":
        return f"the KB file {kb.get('path')}"
    return {"shipped": "the shipped KB", "logs": "a KB built from the logs"}.get(source, "an unknown KB")


def check_folder(folder: OutputFolder, settings: dict, kb_text: str | None, splits: tuple[str, ...],
                 replace: bool) -> None:
    """Before any work: stop if the output folder holds task-6 files of other splits that
    this build's settings or KB would refuse to stand beside (``files_to_keep``)."""
    entries = {FILE_OF_SPLIT[split]: {"split": split, "inputs": None} for split in splits}
    files_to_keep(folder, settings, kb_text, entries, replace)


def build_settings(options: BuildOptions, is_sample: bool) -> dict:
    """What must be the same for files of two builds to stand in one output folder (``SET_SETTINGS``)."""
    settings = {"tool": "dstc2conv", "version": __version__, "seed": options.seed,
                "split": options.partition, "sample": is_sample}
    if options.user != "transcription":
        settings["user"] = options.user
    return settings


def build(options: BuildOptions, log: Callable[[str], None] = lambda _msg: None,
          progress: Callable[[str], None] = lambda _msg: None) -> BuildResult:
    """Build the task-6 files. ``log``: notes for the user (what was read, chosen,
    derived); ``progress``: one line per stage of the work."""
    # The calls are millions of small objects that form no cycles: the cyclic garbage
    # collector, which would walk them again and again as they are made, is off meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _build(options, log, progress)
    finally:
        if collecting:
            gc.enable()


def _build(options: BuildOptions, log: Callable[[str], None], progress: Callable[[str], None]) -> BuildResult:
    if options.split not in ("train", "dev", "test", "all"):
        raise Dstc2ConvError(f"unknown split {options.split!r}: choose train, dev, test or all")
    if options.partition not in PARTITIONS:
        raise Dstc2ConvError(f"unknown partition {options.partition!r}: choose {', '.join(PARTITIONS)}")
    if options.user not in USERS:
        raise Dstc2ConvError(f"unknown user turns {options.user!r}: choose {', '.join(USERS)}")
    if options.jobs < 1:
        raise Dstc2ConvError(f"--jobs {options.jobs}: give 1 or more processes")
    for name in options.exports:
        export_format(name)
    jobs = min(options.jobs, os.cpu_count() or 1)
    if jobs < options.jobs:
        log(f"--jobs {options.jobs}: this machine has {jobs} cores; using {jobs} processes")
    splits = wanted_splits(options.split)
    if options.raw:
        paths, is_sample = [p for given in options.raw for p in downloads_in(given)], False
    else:
        paths, is_sample = default_sources(options.raw_dir)
        if is_sample:
            log(f"no DSTC2 data in {options.raw_dir}/: building the small hand-written sample "
                f"({paths[0]}). Put dstc2_traindev.tar.gz / dstc2_test.tar.gz in {options.raw_dir}/ "
                "to convert the corpus.")
    started = time.perf_counter()

    def stage(message: str) -> None:
        progress(f"build: {message} ({time.perf_counter() - started:.1f} s)")

    from_raw_dir = not options.raw and not is_sample
    random_partition = options.partition == "random"
    kb_path = kb_file(options, from_raw_dir)
    file_kb = None if kb_path is None else read_kb(kb_path)
    with OutputFolder(options.out) as folder:
        check_folder(folder, build_settings(options, is_sample), None if file_kb is None else format_kb(file_kb),
                     splits, options.replace)
        # A random partition deals out every call given; a KB built from the logs reads them all.
        inputs = gather(paths, splits, jobs, log=log, progress=stage, every_call=random_partition,
                        for_kb=file_kb is None, asr=options.user == "asr" or bool(options.exports))
        try:
            written, manifest = _convert_inputs(options, inputs, folder, splits, random_partition, from_raw_dir,
                                                is_sample, log, stage, file_kb)
        finally:
            inputs.close()
    stage("done")
    return BuildResult(tuple(written), manifest)


def _convert_inputs(options: BuildOptions, inputs: Inputs, folder: OutputFolder, splits: tuple[str, ...],
                    random_partition: bool, from_raw_dir: bool, is_sample: bool,
                    log: Callable[[str], None], stage: Callable[[str], None],
                    file_kb: KB | None = None) -> tuple[list[str], dict]:
    """The build, once its inputs are read: the splits, the KB (``file_kb``, if the KB is a
    file), the files and the manifest."""
    if random_partition:
        sessions = random_sessions(inputs.calls, options.seed)
        held = _dealt_splits(sessions, splits, inputs)
        log(f"--partition random (seed {options.seed}): the {len(inputs.calls)} calls given dealt out "
            + ", ".join(f"{len(sessions[s])} {s}" for s in sessions))
    else:
        held = held_splits(inputs, splits)
        sessions = split_sessions(inputs.flists, held, options.partition == "dstc2")
    if options.split == "all":
        log(f"--split all: building {', '.join(held)} (what the inputs hold)")
    for path, taken in inputs.used:
        if not taken:
            log(f"skipping {path}: not needed for --split {options.split}")
    kb = choose_kb(options, inputs.calls, from_raw_dir, file_kb)
    kb_calls = _kb_calls(inputs) if kb.source == KB_FROM_LOGS else None
    kb_described = describe_kb(kb)
    log(_kb_note(kb_described) if kb_calls is None else
        f"result lines from a KB built from the logs of the {len(inputs.calls)} calls read "
        f"({len(kb.restaurants)} restaurants): " + "; ".join(
            f"{path}: " + ", ".join(f"{n} {flist}" for flist, n in counts.items())
            for path, counts in kb_calls.items()))
    ontology = inputs.ontology
    if ontology is None:
        shares = inputs.calls.run(Dstc2Ontology.from_calls)   # each process's calls' values
        ontology = functools.reduce(operator.or_, shares, kb_ontology(kb))
        log(f"no ontology_dstc2.json in the inputs: taking the foods, areas, price ranges and restaurant "
            f"names from the calls themselves ({len(inputs.calls)} calls) and the KB")
    checksum = {path: input_checksum(path) for path, taken in inputs.used if taken}
    entries = {FILE_OF_SPLIT[split]: {
        "split": split, "dialogs": sessions[split],
        "inputs": [{"path": path, "sha256": checksum[path]}   # of every call the split is drawn from
                   for path in sorted({inputs.source_of[s] for s in _pool(inputs, split, random_partition)})],
        "ontology": inputs.ontology_from or "derived from the calls and the KB"} for split in held}
    kb_text = format_kb(kb)
    settings = build_settings(options, is_sample)
    keep, old_inputs, remove = files_to_keep(folder, settings, kb_text, entries, options.replace, log)
    files, bots = _convert(inputs.calls, ontology, held, sessions, kb, options.seed, stage, log,
                           asr=options.user == "asr", exports=tuple(dict.fromkeys(options.exports)))
    remove += _old_exports(folder, files, log)
    kept_dialogs = [d for name in keep for d in read(os.path.join(folder.path, name))]
    files[CANDIDATES] = candidates(kept_dialogs, bots)
    files[KB_FILE] = kb_text
    every = {**files, **{name: folder.existing(name) for name in keep}}
    manifest = {
        **settings,
        "kb": {**kb_described, **({} if kb_calls is None else {"calls": kb_calls})},
        "inputs": _listed_inputs(inputs, checksum, keep, old_inputs),
        "files": {name: {**keep, **entries}[name] for name in sorted({**keep, **entries})},
        **({"exports": _export_entries(files, sessions)} if options.exports else {}),
        "checksums": {name: _sha256_text(every[name]) for name in sorted(every)},
    }
    files[MANIFEST] = json.dumps(manifest, indent=2) + "\n"
    stage("writing")
    return folder.commit(files, remove), manifest


def _export_entries(files: dict[str, str], sessions: dict[str, list[str]]) -> dict:
    """The manifest's ``exports``: each export file's format, split and number of dialogs."""
    return {name: {"format": export.name, "split": split, "dialogs": len(sessions[split])}
            for export in EXPORTS.values() for split, name in export.files.items() if name in files}


def _old_exports(folder: OutputFolder, files: dict[str, str], log: Callable[[str], None]) -> tuple[str, ...]:
    """The export files in the output folder that this build does not write: they are of
    an earlier build's task-6 files, and are removed (saying so)."""
    old = sorted(name for export in EXPORTS.values() for name in export.files.values()
                 if name not in files and os.path.isfile(os.path.join(folder.path, name)))
    if old:
        log(f"removing {', '.join(old)} from {folder.path}: an export is of the task-6 files built with it")
    return tuple(old)


def _kb_note(kb: dict) -> str:
    if kb["source"] == "shipped":
        return (f"result lines from the shipped KB (the published {KB_FILE}, SHA-256 {kb['sha256']}; "
                f"--kb logs builds one from the logs instead)")
    return f"result lines from the KB file {kb['path']}"


def _pool(inputs: Inputs, split: str, random_partition: bool):
    """The calls a split is taken from: every call given for a random partition, else the
    calls of its DSTC2 flists."""
    if random_partition:
        return inputs.calls
    return [s for name in needed_flists(split) for s in inputs.flists[name]]


def _dealt_splits(sessions: dict[str, list[str]], splits: tuple[str, ...], inputs: Inputs) -> tuple[str, ...]:
    """The splits asked for that a random partition gives calls to (with ``--split all``,
    a split too small to get one is left out); none is an error."""
    held = tuple(split for split in splits if sessions[split])
    if not held:
        where = ", ".join(path for path, _ in inputs.used)
        raise Dstc2ConvError(f"--partition random: the {len(inputs.calls)} calls in {where} give the "
                             f"{splits[0]} split none" if inputs.calls else f"--partition random: no calls in {where}")
    return held


def _kb_calls(inputs: Inputs) -> dict[str, dict[str, int]]:
    """How many calls of each input a KB built from the logs came from, by the DSTC2 flist
    that names them (the first of train, dev, test; ``other``: none)."""
    flist_of: dict[str, str] = {}
    for name in FLIST_ORDER[:-1]:
        for session in inputs.flists.get(name, ()):
            flist_of.setdefault(session, name)
    out = {}
    for source in inputs.sources:
        counts: dict[str, int] = {}
        for session in source.calls:
            flist = flist_of.get(session, "other")
            counts[flist] = counts.get(flist, 0) + 1
        if counts:
            out[source.path] = {k: counts[k] for k in FLIST_ORDER if k in counts}
    return out


def _listed_inputs(inputs: Inputs, checksum: dict, keep: dict, old_inputs: list) -> list[dict]:
    """The manifest's inputs: every input of this build, then those of the kept files."""
    listed = [{"path": path, "used_for": list(taken), "sha256": checksum.get(path),
               "calls": next((len(s.calls) for s in inputs.sources if s.path == path), 0)}
              for path, taken in inputs.used]
    have = {(i["path"], i["sha256"]) for i in listed}
    kept = {(i.get("path"), i.get("sha256")) for entry in keep.values() for i in entry.get("inputs") or []
            if isinstance(i, dict)}
    return listed + [i for i in old_inputs if isinstance(i, dict)
                     and (i.get("path"), i.get("sha256")) in kept - have]


def _convert(calls: Calls, ontology: Dstc2Ontology, splits: tuple[str, ...], sessions: dict[str, list[str]],
             kb: KB, seed: int, stage: Callable[[str], None], log: Callable[[str], None], asr: bool = False,
             exports: tuple[str, ...] = ()):
    """Convert every split's calls, each in the process that holds it (``Calls.run``), and
    export them in the formats ``exports``. Returns (file name -> text, the bot
    utterances). A call that cannot be converted stops the build: the first in the files' order."""
    lexicon = make_lexicon(ontology, kb)
    stage("converting " + ", ".join(f"{len(sessions[split])} calls into {FILE_OF_SPLIT[split]}" for split in splits))
    order = [session for split in splits for session in sessions[split]]
    # each dialog's splits and its number in each, for the exports' records (the sample's
    # calls may be in two splits)
    places: dict[str, list[tuple[str, int]]] = {}
    for split in splits if exports else ():
        for i, session in enumerate(sessions[split], 1):
            places.setdefault(session, []).append((split, i))
    converted: dict[str, tuple] = {}
    failed = []
    for done, error in calls.run(_convert_calls, kb, lexicon, seed, asr, exports, places, sessions=order):
        converted.update(done)
        if error is not None:
            failed.append(error)
    if failed:
        position = {session: i for i, session in enumerate(order)}
        raise min(failed, key=lambda error: position[error[0]])[1]
    files: dict[str, str] = {}
    bots: set[str] = set()
    for split in splits:
        name = FILE_OF_SPLIT[split]
        files[name] = "".join(converted[session][0] + "\n" for session in sessions[split])
        bots.update(bot for session in sessions[split] for bot in converted[session][1])
        log(f"{name}: {len(sessions[split])} dialogs")
        for export in exports:
            files[EXPORTS[export].files[split]] = "".join(converted[session][2][split][export]
                                                          for session in sessions[split])
    return files, bots


def _convert_calls(calls: list[Call], kb: KB, lexicon, seed: int, asr: bool, exports: tuple[str, ...] = (),
                   places: dict | None = None):
    """Each call's task-6 text, bot utterances and texts in the ``exports`` formats (by
    split and format; ``places``: session -> its splits and numbers there), by session, up to the first
    call that cannot be converted or exported; and that call's (session, error), or None."""
    done = {}
    for call in calls:
        rng = random.Random(f"{seed}:{call.session}")
        try:
            dialog = convert_call(call, kb, lexicon, rng, asr=asr)
            exported = {split: export_dialog(call, dialog, split, number, lexicon, asr, exports)
                        for split, number in places[call.session]} if exports else None
        except Dstc2ConvError as exc:
            return done, (call.session, exc)
        except Exception as exc:  # a call the converter cannot handle is reported, never dropped
            return done, (call.session, Dstc2ConvError(
                f"cannot convert call {call.session}: {type(exc).__name__}: {exc}", call.source))
        done[call.session] = serialize_dialog(dialog), [line.bot for line in dialog.lines
                                                         if isinstance(line, Exchange)], exported
    return done, None
