"""The output folder of a build: one consistent set of files, replaced as a whole.

A build writes every file into a folder of its own inside the output folder
(``.dstc2conv-build-<pid>``). When all are written it writes a ``COMMIT`` list there,
then renames the files into place, ``manifest.json`` last, and removes its folder. The
next build into the same folder first finishes any build that has its ``COMMIT`` list
(so a build killed during the renames is completed) and removes any that has not (a
build killed earlier leaves the old set as it was). Two builds cannot write into one
folder at once: the folder is locked while a build uses it.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import stat

from ..errors import Dstc2ConvError
from ..files import parse_json, read_bytes, read_text, refuse_inputs
from .manifest import MANIFEST

try:  # POSIX: lock the output folder while a build uses it
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None

BUILD_PREFIX = ".dstc2conv-build-"
COMMIT = "COMMIT"


def _error(exc: OSError, path: str, doing: str) -> Dstc2ConvError:
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOTDIR or exc.errno == errno.EEXIST and not os.path.isdir(path):
        reason = "it is a file, not a folder"
    return Dstc2ConvError(f"{doing}: {reason}", path)


class OutputFolder:
    """``with OutputFolder(out) as folder: ... folder.commit(files, remove)``.

    Entering checks that the folder can be created and written (before any work is
    done), locks it, and clears what earlier builds left; leaving without a commit
    removes everything this build wrote (and the folder, if this build created it)."""

    def __init__(self, path: str):
        self.path = path
        self._created = False
        self._fd = None
        self._work = None

    def __enter__(self) -> "OutputFolder":
        out = self.path
        try:
            if not os.path.isdir(out):
                os.makedirs(out)
                self._created = True
            self._fd = os.open(out, os.O_RDONLY)
        except OSError as exc:
            raise _error(exc, out, "cannot create the output folder") from None
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise Dstc2ConvError("another dstc2conv build is writing into this folder", out) from None
            recover(out)
            self._work = os.path.join(out, f"{BUILD_PREFIX}{os.getpid()}")
            try:
                os.mkdir(self._work)
            except OSError as exc:
                raise _error(exc, out, "cannot write into the output folder") from None
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, *exc) -> None:
        if self._work is not None and os.path.isdir(self._work):
            if os.path.isfile(os.path.join(self._work, COMMIT)):
                try:  # stopped while putting files in place: finish, or leave it to the next build
                    _finish(self.path, self._work)
                except (OSError, Dstc2ConvError):
                    pass
            else:
                shutil.rmtree(self._work, ignore_errors=True)
        self._release()

    def _release(self) -> None:
        """Remove the folder if this build made it and left it empty; then unlock it."""
        if self._created:
            try:
                os.rmdir(self.path)
            except OSError:
                pass  # not empty: it holds the outputs
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def existing(self, name: str) -> str | None:
        """The text of a regular file of the current set, exactly as it is (no newline
        translation, so that its checksum is that of its bytes), or None."""
        path = os.path.join(self.path, name)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return None
        if not stat.S_ISREG(mode):   # a pipe would block the read; a folder is no output of ours
            raise Dstc2ConvError(f"{name} in the output folder is not a regular file: move it away", path)
        try:
            return read_text(path, "an output", is_input=False)
        except Dstc2ConvError:
            return None

    def commit(self, files: dict[str, str], remove: tuple[str, ...] = ()) -> list[str]:
        """Write ``files`` (name -> text; ``manifest.json`` is put in place last) and remove
        the files named in ``remove``; either all of it happens or none."""
        names = [n for n in files if n != MANIFEST] + [n for n in files if n == MANIFEST]
        for name in names:   # an input of this command (--kb in --out) is replaced only by itself
            if files[name] != self.existing(name):
                refuse_inputs(os.path.join(self.path, name))
        try:
            for name in names:
                with open(os.path.join(self._work, name), "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(files[name])
        except OSError as exc:
            shutil.rmtree(self._work, ignore_errors=True)
            raise Dstc2ConvError(f"cannot write the outputs: {exc.strerror}", self.path) from None
        return self.place(names, list(remove))

    def place(self, names: list[str], remove: list[str]) -> list[str]:
        """Put the files ``names``, written in the work folder, in place and remove
        ``remove``: the COMMIT list first, then ``_finish``; their paths."""
        try:
            plan = os.path.join(self._work, COMMIT)
            with open(plan + ".tmp", "w", encoding="utf-8") as fh:
                json.dump({"remove": remove, "move": names}, fh)
            os.replace(plan + ".tmp", plan)
        except OSError as exc:
            shutil.rmtree(self._work, ignore_errors=True)
            raise Dstc2ConvError(f"cannot write the outputs: {exc.strerror}", self.path) from None
        try:
            _finish(self.path, self._work)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot put the outputs in place ({exc.strerror}): the next run into "
                                 "this folder finishes it", self.path) from None
        return [os.path.join(self.path, name) for name in names]


def _plan(work: str) -> dict:
    """A build's COMMIT list: {"remove": [names], "move": [names]}, plain file names."""
    path = os.path.join(work, COMMIT)
    if os.path.islink(path):
        raise ValueError("it is a symbolic link")
    try:
        plan = parse_json(read_bytes(path, "a COMMIT list", is_input=False), path)
    except Dstc2ConvError as exc:
        raise ValueError(exc.message) from None
    if not (isinstance(plan, dict) and set(plan) == {"remove", "move"}
            and all(isinstance(names, list) and all(_plain(n) for n in names) for names in plan.values())):
        raise ValueError("not a list of file names to remove and move")
    return plan


def _plain(name) -> bool:
    return isinstance(name, str) and name not in ("", ".", "..") and os.path.basename(name) == name


def _finish(out: str, work: str) -> None:
    """Carry out a build's COMMIT list: remove, then rename into place, then drop ``work``."""
    try:
        plan = _plan(work)
    except (OSError, ValueError) as exc:
        raise Dstc2ConvError(f"a build's COMMIT list cannot be read ({exc}): remove the folder", work) from None
    sources = [os.path.join(work, name) for name in plan["move"]]
    for source in sources:   # absent: moved before an earlier build was stopped
        if os.path.lexists(source) and not stat.S_ISREG(os.lstat(source).st_mode):
            raise Dstc2ConvError("an earlier build's file to put in place is not a regular file "
                                 "(a link?): not followed; remove the folder", source)
    for name in plan["remove"]:
        try:
            os.unlink(os.path.join(out, name))
        except FileNotFoundError:
            pass
    for name, source in zip(plan["move"], sources):
        if os.path.lexists(source):
            os.replace(source, os.path.join(out, name))
    shutil.rmtree(work, ignore_errors=True)


def _stale_temporary(name: str) -> bool:
    """A ``<output>.tmp-<pid>`` file of an older version's build."""
    stem, sep, pid = name.rpartition(".tmp-")
    return bool(sep) and pid.isdigit() and (stem.startswith("dialog-babi-task6") or stem == MANIFEST)


def recover(out: str) -> None:
    """Finish the builds into ``out`` that were stopped after writing their COMMIT list;
    remove what the others left (their own folders, and ``*.tmp-<pid>`` files)."""
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        try:
            mode = os.lstat(path).st_mode
            if name.startswith(BUILD_PREFIX) and not stat.S_ISDIR(mode):
                # never followed: a link to a folder elsewhere would move its files into the outputs
                raise Dstc2ConvError(f"{name} in the output folder looks like an earlier build's folder but is "
                                     f"{'a symbolic link' if stat.S_ISLNK(mode) else 'not a folder'}: "
                                     "not followed; remove it", path)
            if name.startswith(BUILD_PREFIX):
                if os.path.lexists(os.path.join(path, COMMIT)):
                    _finish(out, path)
                else:
                    shutil.rmtree(path)
            elif _stale_temporary(name) and stat.S_ISREG(mode):
                os.unlink(path)
        except OSError as exc:
            raise Dstc2ConvError(f"cannot clear what an earlier build left: {exc.strerror or exc}",
                                 path) from None
