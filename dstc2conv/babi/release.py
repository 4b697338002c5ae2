"""The published bAbI dialog release (Bordes & Weston 2017): FAIR's archive
(``dialog-bAbI-tasks_1_.tgz``, ParlAI's ``dialog_babi.tar.gz``: a tar.gz holding
``dialog-bAbI-tasks/``) or its unpacked folder, and which of its files are each task's.

``open_release(path)`` yields a ``Release``: per task (``T1``..``T6``) its train, dev,
test and OOV test files, its candidates and its KB, each a path or None where the release
lacks it. Tasks 1-5 share ``dialog-babi-candidates.txt`` and ``dialog-babi-kb-all.txt``;
task 6 has its own. Files are known by their published names (``dialog-babi-task1-API-
calls-trn.txt``, ...); from an archive only those members are extracted, to a temporary
folder removed when the block ends, and a member that could write elsewhere or is not a
plain file of a sane size is refused, naming the archive and the member."""
from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import stat
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from ..dstc2.members import check_tarball, tar_mode
from ..errors import Dstc2ConvError, shown
from ..limits import MAX_MEMBER

FOLDER = "dialog-bAbI-tasks"       # the folder the archive holds
STEMS = {"T1": "dialog-babi-task1-API-calls", "T2": "dialog-babi-task2-API-refine",
         "T3": "dialog-babi-task3-options", "T4": "dialog-babi-task4-phone-address",
         "T5": "dialog-babi-task5-full-dialogs", "T6": "dialog-babi-task6-dstc2"}
SPLITS = {"train": "trn", "dev": "dev", "test": "tst", "oov_test": "tst-OOV"}   # TaskFiles field -> name suffix
CANDIDATES = "dialog-babi-candidates.txt"     # tasks 1-5's
KB = "dialog-babi-kb-all.txt"                 # tasks 1-5's, both halves (the standard and the OOV one)


@dataclass(frozen=True)
class TaskFiles:
    """One task's files in a release (paths; None where the release lacks one)."""
    task: str                  # "T1".."T6"
    train: str | None
    dev: str | None
    test: str | None
    oov_test: str | None       # tasks 1-5 only
    candidates: str | None
    kb: str | None


@dataclass(frozen=True)
class Release:
    source: str                       # the archive or folder given
    tasks: dict[str, TaskFiles]       # T1..T6 in order, only the tasks with a file of their own


def names(task: str) -> dict[str, str]:
    """TaskFiles field -> the published file name, for ``task`` (T1..T6)."""
    stem = STEMS[task]
    out = {field: f"{stem}-{suffix}.txt" for field, suffix in SPLITS.items() if not (task == "T6" and field == "oov_test")}
    if task == "T6":
        out.update(candidates=f"{stem}-candidates.txt", kb=f"{stem}-kb.txt")
    return out


# every file name of the release, and the ones of one task alone (not the shared candidates and KB)
OWN = {task: names(task) for task in STEMS}
PUBLISHED_NAMES = frozenset(name for files in OWN.values() for name in files.values()) | {CANDIDATES, KB}


@contextlib.contextmanager
def open_release(path: str | os.PathLike) -> Iterator[Release]:
    """The release at ``path``: the archive, the unpacked ``dialog-bAbI-tasks/`` folder, or
    a folder holding it. An archive's files are extracted to a temporary folder, removed
    when the block ends. Dstc2ConvError for anything else, or a release without any file."""
    path = os.fspath(path)
    if os.path.isdir(path):
        yield _release(path, _folder_files(path))
        return
    if not os.path.exists(path):
        raise Dstc2ConvError("no such file or folder: give the bAbI dialog archive or its dialog-bAbI-tasks/ "
                             "folder", path)
    check_tarball(path)
    with tempfile.TemporaryDirectory(prefix="dstc2conv-babi-") as folder:
        yield _release(path, _extract(path, folder))


def _folder_files(path: str) -> dict[str, str]:
    """Published name -> path, in ``path`` or its ``dialog-bAbI-tasks/`` folder."""
    for where in (path, os.path.join(path, FOLDER)):
        try:
            found = {name: os.path.join(where, name) for name in sorted(os.listdir(where))
                     if name in PUBLISHED_NAMES and os.path.isfile(os.path.join(where, name))}
        except OSError:
            continue
        if found:
            return found
    raise Dstc2ConvError(f"no published bAbI dialog file here nor in a {FOLDER}/ folder in it: give the bAbI "
                         f"dialog archive or its {FOLDER}/ folder", path)


def _extract(path: str, folder: str) -> dict[str, str]:
    """The archive's members named as published files, written to ``folder``: published
    name -> path. A member with an absolute path or ``..``, a link or other non-file named
    as a published file, one larger than ``limits.MAX_MEMBER``, or a name there twice is
    refused, naming the archive and the member."""
    found: dict[str, str] = {}
    try:
        with tarfile.open(path, tar_mode(path)) as tar:
            for member in tar:
                name = member.name
                parts = name.replace("\\", "/").split("/")
                if name.startswith(("/", "\\")) or ".." in parts or (len(name) > 1 and name[1] == ":"):
                    raise _unsafe(path, name, "a path outside the archive's folder (absolute, or with '..')")
                base = parts[-1]
                if base not in PUBLISHED_NAMES:
                    continue
                if not member.isreg():
                    kind = "a link" if member.issym() or member.islnk() else "not a plain file"
                    raise _unsafe(path, name, f"{kind}, where the release has a file")
                if member.size > MAX_MEMBER:
                    raise _unsafe(path, name, f"{member.size:,} bytes, more than the {MAX_MEMBER:,} a file of the "
                                              "release may have (the largest has under 5 MB)")
                if base in found:
                    raise _unsafe(path, name, "a second member of this name")
                source = tar.extractfile(member)
                target = os.path.join(folder, base)
                with source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
                os.chmod(target, stat.S_IRUSR | stat.S_IWUSR)
                found[base] = target
    except (tarfile.TarError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise Dstc2ConvError(f"not a readable tar archive ({exc}): give the bAbI dialog archive or its {FOLDER}/ "
                             "folder", path) from None
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    if not found:
        raise Dstc2ConvError(f"no published bAbI dialog file in this archive (expected {FOLDER}/ and its files)", path)
    return found


def _unsafe(path: str, member: str, why: str) -> Dstc2ConvError:
    return Dstc2ConvError(f"the member {shown(member)} is refused: {why}", path)


def _release(source: str, found: dict[str, str]) -> Release:
    tasks = {}
    for task, own in OWN.items():
        files = {field: found.get(name) for field, name in own.items()}
        if not any(files.values()):
            continue
        if task != "T6":
            files.update(candidates=found.get(CANDIDATES), kb=found.get(KB))
        tasks[task] = TaskFiles(task, **{field: files.get(field) for field in
                                         ("train", "dev", "test", "oov_test", "candidates", "kb")})
    return Release(source, tasks)


__all__ = ["TaskFiles", "Release", "open_release", "names", "PUBLISHED_NAMES", "FOLDER", "CANDIDATES", "KB"]
