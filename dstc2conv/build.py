"""``dstc2conv build``: find the inputs, split the calls, convert them, write the files.

Everything is converted in memory first; the files are then written to temporary names
and renamed, so a failed build leaves no partly written output.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import __version__
from .convert import Ontology, convert_call, make_lexicon
from .dstc2 import Call, Source, read_source
from .errors import Dstc2ConvError
from .files import sha256_file
from .kb import KB, format_kb, kb_from_acts, read_kb
from .task6 import Dialog, Exchange, serialize

PREFIX = "dialog-babi-task6-dstc2"
FILE_OF_SPLIT = {"train": f"{PREFIX}-trn.txt", "dev": f"{PREFIX}-dev.txt", "test": f"{PREFIX}-tst.txt"}
CANDIDATES = f"{PREFIX}-candidates.txt"
KB_FILE = f"{PREFIX}-kb.txt"
MANIFEST = "manifest.json"
DEFAULT_RAW_DIR = "data_raw"
# The published task-6 dev set is the first 500 of DSTC2's train+dev calls in session order.
PUBLISHED_DEV_SIZE = 500
# The small hand-written DSTC2-format sample in the repository, used when data_raw/ is empty.
SAMPLE_DIR = Path(__file__).resolve().parent.parent / "tests" / "data" / "sample"


@dataclass(frozen=True)
class BuildOptions:
    split: str                       # train, dev, test or all
    raw: tuple[str, ...] = ()        # tarballs or folders; empty: look in data_raw/
    out: str = "outputs"
    seed: int = 0
    kb: str | None = None            # a KB file; None: data_raw/<kb file> if present, else from the logs
    dstc2_split: bool = False        # DSTC2's own train/dev flists instead of the published re-split
    raw_dir: str = DEFAULT_RAW_DIR
    jobs: int = 1                    # processes that parse the JSON in parallel


@dataclass(frozen=True)
class BuildResult:
    written: tuple[str, ...]
    manifest: dict = field(repr=False)


def wanted_splits(split: str) -> tuple[str, ...]:
    return ("train", "dev", "test") if split == "all" else (split,)


def default_sources(raw_dir: str) -> tuple[list[str], bool]:
    """The DSTC2 tarballs and unpacked folders in ``raw_dir``; else the shipped sample.
    Returns (paths, is_sample)."""
    found = []
    if os.path.isdir(os.path.join(raw_dir, "scripts", "config")):  # a release unpacked in place
        found.append(raw_dir)
    if os.path.isdir(raw_dir):
        for name in sorted(os.listdir(raw_dir)):
            path = os.path.join(raw_dir, name)
            if name.endswith((".tar.gz", ".tgz", ".tar")) and os.path.isfile(path):
                found.append(path)
            elif os.path.isdir(os.path.join(path, "scripts", "config")):
                found.append(path)
    if found:
        return found, False
    if SAMPLE_DIR.is_dir():
        return [str(SAMPLE_DIR)], True
    raise Dstc2ConvError(
        "no DSTC2 data: put dstc2_traindev.tar.gz and/or dstc2_test.tar.gz in it, or pass --raw", raw_dir)


def _needed_flists(splits: tuple[str, ...]) -> set[str]:
    needed = set()
    for split in splits:
        needed |= {"test"} if split == "test" else {"train", "dev"}
    return needed


def load_sources(paths: list[str], splits: tuple[str, ...], log: Callable[[str], None],
                 jobs: int = 1) -> list[Source]:
    """Read the sources that hold the flists the splits need; skip the others.
    With several sources and not every split asked for, each is first peeked for its flists."""
    needed = _needed_flists(splits)
    if len(paths) > 1 and needed != {"train", "dev", "test"}:
        chosen = []
        for path in paths:
            flists = read_source(path, wanted=frozenset()).flists
            if needed & set(flists):
                chosen.append(path)
            else:
                log(f"skipping {path}: it holds no {'/'.join(sorted(needed))} flist")
        paths = chosen
    sources = [read_source(path, workers=jobs) for path in paths]
    have = {name for s in sources for name in s.flists}
    missing = sorted(needed - have)
    if len(splits) == 3 and have:  # --split all builds the splits the inputs hold
        missing = []
    if missing:
        hint = "dstc2_test.tar.gz" if "test" in missing else "dstc2_traindev.tar.gz"
        raise Dstc2ConvError(
            f"no {', '.join(f'dstc2_{m}.flist' for m in missing)} in {', '.join(paths) or 'the inputs'}: "
            f"--split {'/'.join(splits)} needs {hint}")
    return sources


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


def _ontology(sources: list[Source]) -> Ontology:
    for source in sources:
        if source.ontology is not None:
            try:
                return Ontology.from_json(source.ontology)
            except (KeyError, TypeError):
                raise Dstc2ConvError("malformed ontology: no informable food/area/pricerange/name lists",
                                     f"{source.path}:scripts/config/ontology_dstc2.json") from None
    raise Dstc2ConvError("no scripts/config/ontology_dstc2.json in " + ", ".join(s.path for s in sources))


def choose_kb(options: BuildOptions, calls: dict[str, Call], ontology: Ontology) -> KB:
    if options.kb:
        return read_kb(options.kb)
    default = os.path.join(options.raw_dir, KB_FILE)
    if os.path.isfile(default):
        return read_kb(default)
    return kb_from_acts(ontology.names, _informs_about_offers(calls[s] for s in sorted(calls)))


def _informs_about_offers(calls):
    for call in calls:
        for turn in call.turns:
            name = turn.offered
            if name is None:
                continue
            for act in turn.system_acts:
                if act.act == "inform":
                    for slot, value in act.slots:
                        yield name, slot, value


def candidates(dialogs: list[Dialog]) -> str:
    """Every distinct bot utterance, sorted, each line prefixed ``1 ``."""
    bots = {line.bot for d in dialogs for line in d.lines if isinstance(line, Exchange)}
    return "".join(f"1 {bot}\n" for bot in sorted(bots))


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


def write_atomically(files: dict[str, str], out: str) -> list[str]:
    """Write every file to a temporary name first, then rename them all."""
    os.makedirs(out, exist_ok=True)
    temps = []
    try:
        for name, text in files.items():
            final = os.path.join(out, name)
            temp = f"{final}.tmp-{os.getpid()}"
            with open(temp, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            temps.append((temp, final))
    except OSError as exc:
        for temp, _ in temps:
            os.unlink(temp)
        raise Dstc2ConvError(f"cannot write the outputs: {exc.strerror}", out) from None
    for temp, final in temps:
        os.replace(temp, final)
    return [final for _, final in temps]


def build(options: BuildOptions, log: Callable[[str], None] = lambda _msg: None) -> BuildResult:
    if options.split not in ("train", "dev", "test", "all"):
        raise Dstc2ConvError(f"unknown split {options.split!r}: choose train, dev, test or all")
    splits = wanted_splits(options.split)
    if options.raw:
        paths, is_sample = list(options.raw), False
    else:
        paths, is_sample = default_sources(options.raw_dir)
        if is_sample:
            log(f"no DSTC2 data in {options.raw_dir}/: building the small hand-written sample "
                f"({paths[0]}). Put dstc2_traindev.tar.gz / dstc2_test.tar.gz in {options.raw_dir}/ "
                "to convert the corpus.")
    sources = load_sources(paths, splits, log, options.jobs)
    calls: dict[str, Call] = {}
    flists: dict[str, tuple[str, ...]] = {}
    for source in sources:
        calls.update(source.calls)
        for name, sessions in source.flists.items():
            flists[name] = flists.get(name, ()) + sessions
            for session in sessions:
                if session not in source.calls:
                    raise Dstc2ConvError(f"the flist dstc2_{name}.flist names call {session}, "
                                         "which is not in the data", source.path)
    if options.split == "all":
        splits = tuple(s for s in splits if _needed_flists((s,)) <= set(flists))
        log(f"--split all: building {', '.join(splits)} (what the inputs hold)")
    sessions = split_sessions(flists, splits, options.dstc2_split)
    ontology = _ontology(sources)
    kb = choose_kb(options, calls, ontology)
    lexicon = make_lexicon(ontology, kb)

    files: dict[str, str] = {}
    manifest_files = {}
    built: list[Dialog] = []
    for split in splits:
        dialogs = []
        for session in sessions[split]:
            rng = random.Random(f"{options.seed}:{session}")
            try:
                dialogs.append(convert_call(calls[session], kb, lexicon, rng))
            except Dstc2ConvError:
                raise
            except Exception as exc:  # a call the converter cannot handle is reported, never dropped
                raise Dstc2ConvError(f"cannot convert call {session}: {type(exc).__name__}: {exc}",
                                     calls[session].source) from exc
        name = FILE_OF_SPLIT[split]
        files[name] = serialize(dialogs)
        manifest_files[name] = {"split": split, "dialogs": sessions[split]}
        built.extend(dialogs)
        log(f"{name}: {len(dialogs)} dialogs")
    files[CANDIDATES] = candidates(built)
    files[KB_FILE] = format_kb(kb)
    manifest = {
        "tool": "dstc2conv",
        "version": __version__,
        "seed": options.seed,
        "split": "dstc2" if options.dstc2_split else "published",
        "sample": is_sample,
        "kb": {"source": "logs" if kb.source == "logs" else "file",
               "path": None if kb.source == "logs" else kb.source,
               "sha256": None if kb.source == "logs" else sha256_file(kb.source),
               "restaurants": len(kb.restaurants)},
        "inputs": [{"path": s.path, "sha256": input_checksum(s.path), "calls": len(s.calls)} for s in sources],
        "files": manifest_files,
    }
    files[MANIFEST] = json.dumps(manifest, indent=2) + "\n"
    return BuildResult(tuple(write_atomically(files, options.out)), manifest)
