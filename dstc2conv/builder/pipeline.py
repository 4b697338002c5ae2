"""``dstc2conv build``: find the inputs, split the calls, convert them, write the files.

The build runs in named stages: read the inputs (``dstc2.inputs.gather``), deal the calls
into splits (``partition``), choose the KB, the ontology, check the output folder's other
files, convert the calls (each in the process that holds it), assemble the output set and
its manifest. Everything is converted in memory first; the files are then put in place as
one set (``output_set.OutputFolder``), so a failed or killed build leaves the old set as it was.
"""
from __future__ import annotations

import functools
import gc
import hashlib
import operator
import os
import random
from dataclasses import dataclass

from ..convert.dialogs import convert_call
from ..convert.kb import KB, format_kb, kb_file_text, kb_from_acts, parse_kb, read_kb
from ..convert.lexicon import kb_ontology, make_lexicon
from ..dstc2.calls import Call
from ..dstc2.inputs import DEFAULT_RAW_DIR, Inputs, default_sources, downloads_in, gather
from ..dstc2.ontology import Dstc2Ontology
from ..dstc2.workers import Calls
from ..errors import Dstc2ConvError
from ..exports.formats import EXPORTS, export_dialog, export_format
from ..files import sha256_file
from ..reporter import note, progress, stopwatch
from ..task6.candidates import format_candidates
from ..task6.format import Dialog, Exchange, dialog_problem, read, serialize_dialog
from ..version import __version__
from .manifest import MANIFEST, CandidatesEntry, ExportEntry, FileEntry, InputUse, KbUse, Manifest, Settings, SplitInput
from .output_set import OutputFolder
from .partition import Dealt, Partition, partition_named

PREFIX = "dialog-babi-task6-dstc2"
FILE_OF_SPLIT = {"train": f"{PREFIX}-trn.txt", "dev": f"{PREFIX}-dev.txt", "test": f"{PREFIX}-tst.txt"}
CANDIDATES = f"{PREFIX}-candidates.txt"
KB_FILE = f"{PREFIX}-kb.txt"
FLIST_ORDER = ("train", "dev", "test", "other")
USERS = ("transcription", "asr")


@dataclass(frozen=True)
class BuildOptions:
    split: str                       # train, dev, test or all
    raw: tuple[str, ...] = ()        # tarballs or folders; empty: look in data_raw/
    out: str = "outputs"
    seed: int = 0                    # seeds the ratings and the random partition
    kb: str | None = None            # a KB file, "shipped" (``shipped_kb``) or "logs" (built from the logs);
                                     # None: data_raw/<kb file> if present (and no raw), else the shipped KB
                                     # (but for the sample built without inputs: from the logs)
    partition: str = "published"     # published, dstc2 (DSTC2's own train/dev flists) or random
    user: str = "transcription"      # the user turns: the transcriptions, or what the live ASR heard (asr)
    raw_dir: str = DEFAULT_RAW_DIR
    jobs: int = 1                    # processes that parse the JSON in parallel
    replace: bool = False            # remove the folder's files of other builds instead of refusing
    exports: tuple[str, ...] = ()    # export formats (``exports.formats.EXPORTS``) to write beside the task-6 files


@dataclass(frozen=True)
class BuildResult:
    written: tuple[str, ...]
    manifest: Manifest


def wanted_splits(split: str) -> tuple[str, ...]:
    return ("train", "dev", "test") if split == "all" else (split,)


KB_FROM_LOGS = "logs"   # --kb logs: a KB built from the system's acts in the logs
KB_SHIPPED = "shipped"  # --kb shipped: the published KB file shipped with dstc2conv


def shipped_kb() -> str:
    """The published task-6 KB file shipped with dstc2conv (CC BY 3.0: see NOTICE)."""
    from importlib import resources  # (here: it takes a few milliseconds to import)

    return str(resources.files("dstc2conv") / "data" / KB_FILE)


def kb_file(options: BuildOptions, from_raw_dir: bool, is_sample: bool = False) -> str | None:
    """``--kb``; else, for the default inputs only, the KB file in ``data_raw/`` if there;
    else the shipped KB, but for the sample built when there are no inputs (its restaurants
    are made up). None for ``--kb logs`` and the sample: a KB built from the logs."""
    if options.kb == KB_FROM_LOGS:
        return None
    if options.kb == KB_SHIPPED:
        return shipped_kb()
    if options.kb:
        return options.kb
    if is_sample:
        return None
    default = os.path.join(options.raw_dir, KB_FILE)
    return default if from_raw_dir and os.path.isfile(default) else shipped_kb()


def choose_kb(options: BuildOptions, calls: Calls, from_raw_dir: bool, is_sample: bool = False,
              kb: KB | None = None) -> KB:
    """``kb`` if given (the KB file ``kb_file`` names, read), else the KB file, else a KB
    built from the logs of ``calls``."""
    if kb is not None:
        return kb
    path = kb_file(options, from_raw_dir, is_sample)
    if path is not None:
        return read_kb(path)
    offered: set[str] = set()
    informs: list[tuple[str, str, str]] = []
    for names, facts in calls.map(_offers):   # (the votes are counted: their order does not matter)
        offered |= names
        informs += facts
    return kb_from_acts(offered, informs)


def _offers(call: Call) -> tuple[set, list]:
    """The restaurants a call's system turns offer, and (name, slot, value) for each
    ``inform`` of an offer turn."""
    offered: set[str] = set()
    informs: list[tuple[str, str, str]] = []
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
    return format_candidates(every, CANDIDATES)


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


_SETTING = {"sample": "from the sample calls", "user": "user turns"}


def _show_setting(key: str, value) -> str:
    if key == "user":
        return value or "transcription"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _read_manifest(folder: OutputFolder) -> Manifest | None:
    text = folder.existing(MANIFEST)
    try:
        return None if text is None else Manifest.from_json(text, os.path.join(folder.path, MANIFEST))
    except Dstc2ConvError:
        return None


def files_to_keep(folder: OutputFolder, settings: Settings, kb_text: str | None, entries: dict[str, FileEntry],
                  pooled: tuple[str, ...], replace: bool) -> tuple[dict[str, FileEntry], tuple[InputUse, ...], tuple[str, ...]]:
    """The task-6 files of other splits already in the output folder, given the manifest
    ``entries`` of the files this build writes and the splits its partition draws from one
    pool of calls (``pooled``). Those of a build with the same settings and KB (and, for
    pooled splits, the same inputs) are kept in the set: returns their manifest entries,
    the old manifest's inputs, and the files to remove. Others are removed with
    ``replace``, and those built from the sample calls by a build from the corpus (saying
    so); else the build stops saying why.

    Before the inputs are read (``check_folder``), ``kb_text`` is None for a KB to be built
    from the logs (then any other kind of KB differs), and entries' ``inputs`` are None
    (not compared yet)."""
    others = [name for name in FILE_OF_SPLIT.values() if name not in entries]
    present = [name for name in others if os.path.isfile(os.path.join(folder.path, name))]
    if not present:
        return {}, (), ()
    manifest = _read_manifest(folder)
    pool = [e.inputs for e in entries.values() if e.split in pooled and e.inputs is not None]
    keep, stale = {}, []
    if manifest is not None and manifest.settings.sample is True and not settings.sample:
        note(f"removing the sample's {', '.join(present)} from {folder.path}: this build is of the corpus")
        return {}, (), tuple(present)
    for name in present:
        entry = None if manifest is None else manifest.files.get(name)
        text = folder.existing(name)
        if manifest is None:
            stale.append((name, "no manifest.json lists it"))
        elif entry is None or text is None or manifest.checksums.get(name) != _sha256_text(text):
            stale.append((name, "it is not the file its manifest.json lists"))
        elif differ := manifest.settings.differences(settings):
            stale.append((name, "it was built with other settings (" + ", ".join(
                f"{_SETTING.get(k, k)} {_show_setting(k, theirs)}, this build {_show_setting(k, mine)}"
                for k, theirs, mine in differ) + ")"))
        elif not _same_kb(folder, manifest, kb_text):
            stale.append((name, f"it was built with another KB ({_show_kb(manifest.kb)})"))
        elif entry.split in pooled and pool and entry.inputs != pool[0]:
            stale.append((name, f"it was built from other inputs ({', '.join(pooled[:-1])} and {pooled[-1]} "
                                "are split from one pool of calls)"))
        else:
            keep[name] = entry
    if stale and not replace:
        name, why = stale[0]
        raise Dstc2ConvError(
            f"it holds {name} and {why}; a folder holds one consistent set: build that split too "
            "from the same inputs, choose another --out, or pass --replace to remove such files", folder.path)
    old_inputs = manifest.inputs if keep else ()
    return keep, old_inputs, tuple(name for name, _ in stale)


def _same_kb(folder: OutputFolder, manifest: Manifest, kb_text: str | None) -> bool:
    if kb_text is None:
        return manifest.kb is not None and manifest.kb.source == KB_FROM_LOGS
    existing = folder.existing(KB_FILE)
    if existing is None or existing == kb_text:
        return existing is not None
    try:   # the same facts written otherwise (earlier builds wrote every KB sorted, format_kb)
        return format_kb(parse_kb(existing, KB_FILE)) == format_kb(parse_kb(kb_text, KB_FILE))
    except Dstc2ConvError:
        return False


def _show_kb(kb: KbUse | None) -> str:
    if kb is not None and kb.source == "file":
        return f"the KB file {kb.path}"
    return {"shipped": "the shipped KB", "logs": "a KB built from the logs"}.get(kb and kb.source, "an unknown KB")


def check_folder(folder: OutputFolder, settings: Settings, kb_text: str | None, splits: tuple[str, ...],
                 pooled: tuple[str, ...], replace: bool) -> None:
    """Before any work: stop if the output folder holds task-6 files of other splits that
    this build's settings or KB would refuse to stand beside (``files_to_keep``)."""
    entries = {FILE_OF_SPLIT[split]: FileEntry(split, (), None) for split in splits}
    files_to_keep(folder, settings, kb_text, entries, pooled, replace)


def build(options: BuildOptions) -> BuildResult:
    """Build the task-6 files. Notes for the user (what was read, chosen, derived) and a
    progress line per stage of the work go to the reporter (``dstc2conv.reporter``)."""
    # The calls are millions of small objects that form no cycles: the cyclic garbage
    # collector, which would walk them again and again as they are made, is off meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with stopwatch("build"):
            return _build(options)
    finally:
        if collecting:
            gc.enable()


def _check(options: BuildOptions) -> tuple[Partition, int]:
    """The options' partition and number of processes; an error for an option out of range."""
    if options.split not in ("train", "dev", "test", "all"):
        raise Dstc2ConvError(f"unknown split {options.split!r}: choose train, dev, test or all")
    partition = partition_named(options.partition, options.seed)
    if options.user not in USERS:
        raise Dstc2ConvError(f"unknown user turns {options.user!r}: choose {', '.join(USERS)}")
    if options.jobs < 1:
        raise Dstc2ConvError(f"--jobs {options.jobs}: give 1 or more processes")
    for name in options.exports:
        export_format(name)
    jobs = min(options.jobs, os.cpu_count() or 1)
    if jobs < options.jobs:
        note(f"--jobs {options.jobs}: this machine has {jobs} cores; using {jobs} processes")
    return partition, jobs


def _sources(options: BuildOptions) -> tuple[list[str], bool]:
    """The inputs: those given with --raw, else those in data_raw/, else the sample.
    Returns (paths, is_sample)."""
    if options.raw:
        return [p for given in options.raw for p in downloads_in(given)], False
    paths, is_sample = default_sources(options.raw_dir)
    if is_sample:
        note(f"no DSTC2 data in {options.raw_dir}/: building the small hand-written sample "
            f"({paths[0]}). Put dstc2_traindev.tar.gz / dstc2_test.tar.gz in {options.raw_dir}/ "
            "to convert the corpus. Its restaurants are made up: its KB is built from its logs.")
    return paths, is_sample


def _build(options: BuildOptions) -> BuildResult:
    partition, jobs = _check(options)
    splits = wanted_splits(options.split)
    paths, is_sample = _sources(options)
    from_raw_dir = not options.raw and not is_sample
    settings = Settings("dstc2conv", __version__, options.seed, partition.name, is_sample,
                        None if options.user == "transcription" else options.user)
    kb_path = kb_file(options, from_raw_dir, is_sample)
    file_kb = None if kb_path is None else read_kb(kb_path)
    exports = tuple(dict.fromkeys(options.exports))
    with OutputFolder(options.out) as folder:
        check_folder(folder, settings, None if file_kb is None else kb_file_text(file_kb), splits, partition.pooled,
                     options.replace)
        # A random partition deals out every call given; a KB built from the logs reads them all.
        # The exports read what the system heard too (the ASR hypotheses).
        inputs = gather(paths, splits, jobs, every_call=partition.every_call,
                        for_kb=file_kb is None, asr=options.user == "asr" or bool(exports))
        try:
            dealt = _deal(options, partition, inputs, splits)
            kb = _kb(options, inputs, from_raw_dir, is_sample, file_kb)
            ontology = _ontology(inputs, kb)
            checksum = {path: input_checksum(path) for path, taken in inputs.used if taken}
            entries = _entries(inputs, partition, dealt, checksum)
            written_kb = kb_file_text(kb)
            keep, old_inputs, remove = files_to_keep(folder, settings, written_kb, entries, partition.pooled,
                                                     options.replace)
            files, bots = _convert(inputs.calls, ontology, dealt, kb, options.seed,
                                   asr=options.user == "asr", exports=exports)
            remove += _old_exports(folder, files)
            manifest = _assemble(files, bots, folder, settings, kb, written_kb, inputs, checksum, entries, keep,
                                 old_inputs, _export_entries(files, dealt) if exports else None)
            progress("writing")
            written = folder.commit(files, remove)
        finally:
            inputs.close()
    progress("done")
    return BuildResult(tuple(written), manifest)


def _deal(options: BuildOptions, partition: Partition, inputs: Inputs, splits: tuple[str, ...]) -> Dealt:
    """The partition stage: which calls go into which split."""
    dealt = partition.deal(inputs, splits, every=options.split == "all")
    said = partition.note(inputs, dealt)
    if said:
        note(said)
    if options.split == "all":
        note(f"--split all: building {', '.join(dealt.splits)} (what the inputs hold)")
    for path, taken in inputs.used:
        if not taken:
            note(f"skipping {path}: not needed for --split {options.split}")
    return dealt


def _kb(options: BuildOptions, inputs: Inputs, from_raw_dir: bool, is_sample: bool,
        file_kb: KB | None = None) -> KB:
    """The KB stage: the KB file (``file_kb``, read before the inputs), or a KB built from
    the logs, and a note saying which."""
    kb = choose_kb(options, inputs.calls, from_raw_dir, is_sample, file_kb)
    kb_calls = _kb_calls(inputs) if kb.source == KB_FROM_LOGS else None
    note(_kb_note(kb) if kb_calls is None else
        f"result lines from a KB built from the logs of the {len(inputs.calls)} calls read "
        f"({len(kb.restaurants)} restaurants): " + "; ".join(_named_by_flists(inputs)))
    return kb


def _named_by_flists(inputs: Inputs) -> list[str]:
    """Per input, how many of its calls each DSTC2 flist names (``other``: none), saying
    how many are named by more than one (then counted in each, as the splits take them)."""
    named = {name: set(inputs.flists.get(name, ())) for name in FLIST_ORDER[:-1]}
    out = []
    for source in inputs.sources:
        if not source.calls:
            continue
        counts = {name: sum(1 for c in source.calls if c in sessions) for name, sessions in named.items()}
        counts["other"] = sum(1 for c in source.calls if not any(c in sessions for sessions in named.values()))
        shared = sum(1 for c in source.calls if sum(c in sessions for sessions in named.values()) > 1)
        text = f"{source.path}: " + ", ".join(f"{n} {name}" for name, n in counts.items() if n)
        out.append(text + (f" ({shared} {'call' if shared == 1 else 'calls'} in two flists or more, "
                           "counted in each)" if shared else ""))
    return out


def _kb_note(kb: KB) -> str:
    if kb.source == shipped_kb():
        return (f"result lines from the shipped KB (the published {KB_FILE}, SHA-256 {sha256_file(kb.source)}; "
                f"--kb logs builds one from the logs instead)")
    return f"result lines from the KB file {kb.source}"


def _kb_use(kb: KB, inputs: Inputs) -> KbUse:
    """The manifest's ``kb``: where the KB comes from (``shipped``, ``file`` or ``logs``),
    its path (a file's) and SHA-256 (a file's, the shipped one's), the calls of one built from the logs."""
    if kb.source == KB_FROM_LOGS:
        return KbUse("logs", None, None, len(kb.restaurants), _kb_calls(inputs))
    shipped = kb.source == shipped_kb()
    return KbUse("shipped" if shipped else "file", None if shipped else kb.source, sha256_file(kb.source),
                 len(kb.restaurants))


def _export_entries(files: dict[str, str], dealt: Dealt) -> dict[str, ExportEntry]:
    """The manifest's ``exports``: each export file's format, split and number of dialogs."""
    return {name: ExportEntry(export.name, split, len(dealt.sessions[split]))
            for export in EXPORTS.values() for split, name in export.files.items() if name in files}


def _old_exports(folder: OutputFolder, files: dict[str, str]) -> tuple[str, ...]:
    """The export files in the output folder that this build does not write: they are of
    an earlier build's task-6 files, and are removed (saying so)."""
    old = sorted(name for export in EXPORTS.values() for name in export.files.values()
                 if name not in files and os.path.isfile(os.path.join(folder.path, name)))
    if old:
        note(f"removing {', '.join(old)} from {folder.path}: an export is of the task-6 files built with it")
    return tuple(old)


def _ontology(inputs: Inputs, kb: KB) -> Dstc2Ontology:
    """The ontology stage: the inputs' ``ontology_dstc2.json``, else the values the calls
    and the KB show."""
    if inputs.ontology is not None:
        return inputs.ontology
    ontology = functools.reduce(operator.or_, inputs.calls.map(_values), kb_ontology(kb))
    note(f"no ontology_dstc2.json in the inputs: taking the foods, areas, price ranges and restaurant "
         f"names from the calls themselves ({len(inputs.calls)} calls) and the KB")
    return ontology


def _entries(inputs: Inputs, partition: Partition, dealt: Dealt, checksum: dict) -> dict[str, FileEntry]:
    """The manifest's entry of each file this build writes."""
    return {FILE_OF_SPLIT[split]: FileEntry(
        split, tuple(dealt.sessions[split]),
        tuple(SplitInput(path, checksum[path])   # of every call the split is drawn from
              for path in sorted({inputs.source_of[s] for s in partition.pool(inputs, split)})),
        inputs.ontology_from or "derived from the calls and the KB") for split in dealt.splits}


def _assemble(files: dict[str, str], bots: set[str], folder: OutputFolder, settings: Settings, kb: KB, kb_text: str,
              inputs: Inputs, checksum: dict, entries: dict[str, FileEntry], keep: dict[str, FileEntry],
              old_inputs: tuple[InputUse, ...], exports: dict[str, ExportEntry] | None = None) -> Manifest:
    """The output set stage: adds the candidates, the KB and the manifest to ``files``
    (the converted task-6 files), counting the kept files in; returns the manifest."""
    kept_dialogs = [d for name in keep for d in read(os.path.join(folder.path, name))]
    files[CANDIDATES] = candidates(kept_dialogs, bots)
    files[KB_FILE] = kb_text
    every = {**files, **{name: folder.existing(name) for name in keep}}
    listed = {**keep, **entries}
    held = CandidatesEntry(CANDIDATES, tuple(s for s in FILE_OF_SPLIT if any(e.split == s for e in listed.values())),
                           files[CANDIDATES].count("\n"))
    note(f"{CANDIDATES}: the {held.utterances} distinct bot utterances of {', '.join(held.splits) or 'no split'}"
         + ("" if "train" in held.splits else " (not of the training split: the paper's candidates, every bot "
                                               "utterance of train, dev and test, come of dstc2conv build --split all)"))
    manifest = Manifest(
        settings,
        _kb_use(kb, inputs),
        _listed_inputs(inputs, checksum, keep, old_inputs),
        {name: listed[name] for name in sorted(listed)},
        {name: _sha256_text(every[name]) for name in sorted(every)},
        exports,
        held,
    )
    files[MANIFEST] = manifest.to_json()
    return manifest


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


def _listed_inputs(inputs: Inputs, checksum: dict, keep: dict[str, FileEntry],
                   old_inputs: tuple[InputUse, ...]) -> tuple[InputUse, ...]:
    """The manifest's inputs: every input of this build, then those of the kept files."""
    listed = tuple(InputUse(path, tuple(taken), checksum.get(path),
                            next((len(s.calls) for s in inputs.sources if s.path == path), 0))
                   for path, taken in inputs.used)
    have = {(i.path, i.sha256) for i in listed}
    kept = {(i.path, i.sha256) for entry in keep.values() for i in entry.inputs}
    return listed + tuple(i for i in old_inputs if (i.path, i.sha256) in kept - have)


def _convert(calls: Calls, ontology: Dstc2Ontology, dealt: Dealt, kb: KB, seed: int,
             asr: bool = False,
             exports: tuple[str, ...] = ()):
    """The conversion stage: every split's calls, each converted in the process that holds
    it (``Calls.map``), and exported in the formats ``exports``. Returns (file name -> text,
    the bot utterances). A call that cannot be converted stops the build: the first in the
    files' order."""
    splits, sessions = dealt.splits, dealt.sessions
    lexicon = make_lexicon(ontology, kb)
    progress("converting " + ", ".join(f"{len(sessions[split])} calls into {FILE_OF_SPLIT[split]}" for split in splits))
    order = [session for split in splits for session in sessions[split]]
    # each dialog's splits and its number in each, for the exports' records (the sample's
    # calls may be in two splits)
    places: dict[str, list[tuple[str, int]]] = {}
    for split in splits if exports else ():
        for i, session in enumerate(sessions[split], 1):
            places.setdefault(session, []).append((split, i))
    converted = dict(zip(order, calls.map(_convert_call, kb, lexicon, seed, asr, exports, places, sessions=order)))
    files: dict[str, str] = {}
    bots: set[str] = set()
    for split in splits:
        name = FILE_OF_SPLIT[split]
        files[name] = "".join(converted[session][0] + "\n" for session in sessions[split])
        bots.update(bot for session in sessions[split] for bot in converted[session][1])
        note(f"{name}: {len(sessions[split])} dialogs")
        for export in exports:
            files[EXPORTS[export].files[split]] = "".join(converted[session][2][split][export]
                                                          for session in sessions[split])
    return files, bots


def _convert_call(call: Call, kb: KB, lexicon, seed: int, asr: bool, exports: tuple[str, ...] = (),
                  places: dict | None = None) -> tuple[str, list[str], dict | None]:
    """A call's task-6 text, bot utterances and texts in the ``exports`` formats (split ->
    format -> text; ``places``: session -> its splits and numbers there, or None without
    exports); a call the converter cannot handle is reported, never dropped."""
    rng = random.Random(f"{seed}:{call.session}")
    try:
        dialog = convert_call(call, kb, lexicon, rng, asr=asr)
        exported = {split: export_dialog(call, dialog, split, number, lexicon, asr, exports)
                    for split, number in places[call.session]} if exports else None
    except Dstc2ConvError:
        raise
    except Exception as exc:
        raise Dstc2ConvError(f"cannot convert call {call.session}: {type(exc).__name__}: {exc}", call.source) from None
    text = serialize_dialog(dialog)
    bad = dialog_problem(dialog, text)   # what the task-6 reader would refuse (the converter cleans the texts)
    if bad is not None:
        raise Dstc2ConvError(f"cannot convert call {call.session!r}: line {bad[0] + 1} of its dialog: {bad[1]}",
                             call.source)
    return text, [line.bot for line in dialog.lines if isinstance(line, Exchange)], exported


def _values(call: Call) -> Dstc2Ontology:
    """The ontology values a call shows (``Dstc2Ontology.from_calls``)."""
    return Dstc2Ontology.from_calls((call,))
