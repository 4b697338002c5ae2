"""A build's ``manifest.json``: what was built, from what, and how; one definition to
write it and to read it back (the next build into the folder, ``evaluate.sessions``).

Every field but ``files`` may be absent from a manifest that is read (a hand-written one
listing the sessions of a file); the build writes them all. Version 0.1.0 named the
partition ``split``: such a manifest is read too.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import Dstc2ConvError
from ..files import read_text

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Settings:
    """What must be the same for the files of two builds to stand in one folder."""
    tool: str | None = "dstc2conv"
    version: str | None = None
    seed: int | None = None
    partition: str | None = None      # published, dstc2 or random
    sample: bool | None = None        # built from the shipped sample calls
    user: str | None = None           # written only when not the transcriptions (asr)

    def differences(self, other: Settings) -> list[tuple[str, object, object]]:
        """(name, mine, other's) of each setting that differs."""
        return [(name, getattr(self, name), getattr(other, name)) for name in SETTINGS
                if getattr(self, name) != getattr(other, name)]


SETTINGS = ("tool", "version", "seed", "partition", "sample", "user")


@dataclass(frozen=True)
class SplitInput:
    """An input a file's calls are drawn from, with its checksum."""
    path: str | None
    sha256: str | None


@dataclass(frozen=True)
class FileEntry:
    """A task-6 file of the set: its split and its dialogs' sessions, in file order."""
    split: str | None
    dialogs: tuple[str, ...]
    inputs: tuple[SplitInput, ...] = ()
    ontology: str | None = None


@dataclass(frozen=True)
class InputUse:
    """An input of the build, what was taken from it and how many calls it held."""
    path: str | None
    used_for: tuple[str, ...]
    sha256: str | None
    calls: int | None


@dataclass(frozen=True)
class KbUse:
    """Where the result lines came from: the shipped KB, a KB file, or the logs of the calls read."""
    source: str | None          # "shipped", "file" or "logs" (absent from a hand-written manifest)
    path: str | None
    sha256: str | None
    restaurants: int | None
    calls: dict[str, dict[str, int]] | None = None   # logs: input -> DSTC2 flist -> calls


@dataclass(frozen=True)
class ExportEntry:
    """An export file of the set (``build --export``): its format, split and number of dialogs."""
    format: str
    split: str
    dialogs: int


@dataclass(frozen=True)
class CandidatesEntry:
    """The candidates file of the set: the splits whose bot utterances it holds, and how many."""
    file: str
    splits: tuple[str, ...]
    utterances: int


@dataclass(frozen=True)
class Manifest:
    settings: Settings = field(default_factory=Settings)
    kb: KbUse | None = None
    inputs: tuple[InputUse, ...] = ()
    files: dict[str, FileEntry] = field(default_factory=dict)       # file name -> entry, sorted
    checksums: dict[str, str] = field(default_factory=dict)         # file name -> SHA-256 of its text
    exports: dict[str, ExportEntry] | None = None                   # export file name -> entry; None: no --export
    candidates: CandidatesEntry | None = None                       # absent from manifests before 0.2

    def to_json(self) -> str:
        s = self.settings
        data: dict = {"tool": s.tool, "version": s.version, "seed": s.seed, "partition": s.partition,
                      "sample": s.sample}
        if s.user is not None:
            data["user"] = s.user
        if self.kb is not None:
            data["kb"] = {"source": self.kb.source, "path": self.kb.path, "sha256": self.kb.sha256,
                          "restaurants": self.kb.restaurants,
                          **({} if self.kb.calls is None else {"calls": self.kb.calls})}
        data["inputs"] = [{"path": i.path, "used_for": list(i.used_for), "sha256": i.sha256, "calls": i.calls}
                          for i in self.inputs]
        data["files"] = {name: {"split": e.split, "dialogs": list(e.dialogs),
                                "inputs": [{"path": i.path, "sha256": i.sha256} for i in e.inputs],
                                "ontology": e.ontology} for name, e in self.files.items()}
        if self.exports is not None:
            data["exports"] = {name: {"format": e.format, "split": e.split, "dialogs": e.dialogs}
                               for name, e in self.exports.items()}
        if self.candidates is not None:
            c = self.candidates
            data["candidates"] = {"file": c.file, "splits": list(c.splits), "utterances": c.utterances}
        data["checksums"] = dict(self.checksums)
        return json.dumps(data, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str, path: str) -> Manifest:
        """The manifest in ``text`` (read from ``path``); Dstc2ConvError saying what is wrong."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise Dstc2ConvError(f"the manifest is not valid JSON ({exc})", path) from None
        except RecursionError:
            raise Dstc2ConvError("the manifest is not valid JSON (nested too deeply)", path) from None
        if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
            raise Dstc2ConvError("not a dstc2conv manifest (no 'files')", path)
        read = _Reader(path)
        partition = data["partition"] if "partition" in data else data.get("split")   # 0.1.0: "split"
        settings = Settings(read.of(data, "tool", str), read.of(data, "version", str), read.of(data, "seed", int),
                            read.value("partition", partition, str), read.of(data, "sample", bool),
                            read.of(data, "user", str))
        kb = data.get("kb")
        if kb is not None:
            read.check("kb", kb, dict)
            calls = read.of(kb, "calls", dict)
            if calls is not None and not all(isinstance(c, dict) and all(
                    isinstance(k, str) and type(v) is int for k, v in c.items()) for c in calls.values()):
                raise read.error("kb.calls", "input -> flist -> number of calls")
            kb = KbUse(read.of(kb, "source", str), read.of(kb, "path", str), read.of(kb, "sha256", str),
                       read.of(kb, "restaurants", int), calls)
        inputs = tuple(InputUse(read.of(i, "path", str), tuple(read.strings(i, "used_for")), read.of(i, "sha256", str),
                                read.of(i, "calls", int)) for i in read.items(data, "inputs"))
        files = {}
        for name, entry in data["files"].items():
            dialogs = entry.get("dialogs") if isinstance(entry, dict) else None
            if not isinstance(dialogs, list) or not all(isinstance(d, str) for d in dialogs):
                raise Dstc2ConvError(f"the manifest's entry for {name} is malformed: its 'dialogs' must be a list "
                                     "of session names (strings)", path)
            files[name] = FileEntry(read.of(entry, "split", str), tuple(dialogs),
                                    tuple(SplitInput(read.of(i, "path", str), read.of(i, "sha256", str))
                                          for i in read.items(entry, "inputs")),
                                    read.of(entry, "ontology", str))
        checksums = read.of(data, "checksums", dict) or {}
        if not all(isinstance(v, str) for v in checksums.values()):
            raise read.error("checksums", "file name -> SHA-256")
        exports = read.of(data, "exports", dict)
        if exports is not None:
            try:
                exports = {name: ExportEntry(e["format"], e["split"], e["dialogs"]) for name, e in exports.items()}
            except (KeyError, TypeError):
                raise read.error("exports", "file name -> format, split and dialogs") from None
        candidates = read.of(data, "candidates", dict)
        if candidates is not None:
            candidates = CandidatesEntry(read.of(candidates, "file", str), tuple(read.strings(candidates, "splits")),
                                         read.of(candidates, "utterances", int))
        return cls(settings, kb, inputs, files, dict(checksums), exports, candidates)

    @classmethod
    def read(cls, path: str) -> Manifest:
        try:
            text = read_text(path, "a manifest")
        except Dstc2ConvError as exc:
            raise Dstc2ConvError(exc.message.replace("cannot read:", "cannot read the manifest:"), path) from None
        return cls.from_json(text, path)


_TYPES = {str: "text", int: "a whole number", bool: "true or false", dict: "an object", list: "a list"}


class _Reader:
    """Typed fields of a manifest's JSON, each absent one None; a wrong type an error."""

    def __init__(self, path: str):
        self.path = path

    def error(self, key: str, what: str) -> Dstc2ConvError:
        return Dstc2ConvError(f"the manifest's {key!r} must be {what}", self.path)

    def check(self, key: str, value, kind: type) -> None:
        if not isinstance(value, kind) or kind is int and isinstance(value, bool):
            raise self.error(key, _TYPES[kind])

    def value(self, key: str, value, kind: type):
        if value is not None:
            self.check(key, value, kind)
        return value

    def of(self, data: dict, key: str, kind: type):
        return self.value(key, data.get(key), kind)

    def items(self, data: dict, key: str) -> list[dict]:
        items = self.of(data, key, list) or []
        if not all(isinstance(item, dict) for item in items):
            raise self.error(key, "a list of objects")
        return items

    def strings(self, data: dict, key: str) -> list[str]:
        items = self.of(data, key, list) or []
        if not all(isinstance(item, str) for item in items):
            raise self.error(key, "a list of text")
        return items
