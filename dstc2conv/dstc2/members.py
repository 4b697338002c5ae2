"""The checks on what a DSTC2 tarball holds, made as its members are read: a tarball is
a regular file; a member the build uses is a regular file under ``limits.MAX_MEMBER``,
named in UTF-8, and there once; the whole compressed stream is read to its end, so that
its checksum and length are verified before anything read from it is used.
"""
from __future__ import annotations

import os
import stat
import tarfile

from ..errors import Dstc2ConvError
from ..limits import MAX_MEMBER, MAX_PENDING, MB

LARGEST = "the largest of the train/dev corpus is 1.2 MB"


def check_tarball(path: str) -> None:
    """Dstc2ConvError unless ``path`` is a regular file (a device or a pipe is never
    read: a tarball is read more than once, and ``/dev/zero`` has no end)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    if not stat.S_ISREG(mode):
        kind = "a character device" if stat.S_ISCHR(mode) else "a pipe" if stat.S_ISFIFO(mode) else \
            "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file"
        raise Dstc2ConvError(f"{kind}, not a DSTC2 tarball or folder", path)


MAGIC = ((b"\x1f\x8b", "r:gz"), (b"BZh", "r:bz2"), (b"\xfd7zXZ\x00", "r:xz"))


def tar_mode(path: str) -> str:
    """tarfile's mode for the tarball at ``path``, known from its first bytes (gzip, bzip2,
    xz, or else plain tar, whose header says ``ustar`` at byte 257): the kinds are never
    tried one after the other, as ``r:*`` does, which reads a file of zeros to its end as
    xz stream padding. tarfile.ReadError, as ``r:*`` says it, for none of them."""
    with open(path, "rb") as fh:
        head = fh.read(512)
    for magic, mode in MAGIC:
        if head.startswith(magic):
            return mode
    if head[257:262] != b"ustar":
        raise tarfile.ReadError("file could not be opened successfully")
    return "r:"


def drain(read) -> None:
    """Read a stream to its end, holding nothing: the gzip (or xz, bzip2) reader checks
    the stream's CRC and length there, and raises if they are wrong."""
    while read(MB):
        pass


def skip(read, size: int) -> bool:
    """Read ``size`` bytes and forget them, a megabyte at a time; False if the stream ends first."""
    while size > 0:
        got = len(read(min(size, MB)))
        if got == 0:
            return False
        size -= got
    return True


class MemberCheck:
    """The members of one tarball, checked as they are read (names that are used only)."""

    def __init__(self, path: str):
        self.path = path
        self._seen: dict = {}      # what a member is (a session's file, a flist) -> its name
        self._waiting: dict = {}   # session -> bytes of its file read so far, the other awaited
        self.pending = 0           # their sum

    def name(self, name: str, what: str = "a member name") -> None:
        """A used member's name must be UTF-8 (the sessions are named by it)."""
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            shown = name.encode("utf-8", "surrogateescape")[:80]
            raise Dstc2ConvError(f"{what} that is not UTF-8: {shown!r}", self.path) from None

    def size(self, name: str, size: int) -> None:
        if size > MAX_MEMBER:
            raise Dstc2ConvError(f"{name} is {size / MB:.0f} MB, more than the {MAX_MEMBER // MB} MB a DSTC2 "
                                 f"file may be ({LARGEST})", self.path)

    def not_a_file(self, member) -> None:
        """A used member (a ``tarfile.TarInfo``) that is not a regular file: a link, a device."""
        if member.islnk() or member.issym():
            raise Dstc2ConvError(f"{member.name} is a {'hard' if member.islnk() else 'symbolic'} link (to "
                                 f"{member.linkname[:80]}), not a file: a DSTC2 tarball holds its files "
                                 "themselves", self.path)
        raise Dstc2ConvError(f"{member.name} is not a regular file", self.path)

    def once(self, what, name: str, shown: str) -> None:
        """``what`` (a key: the same for two members that stand for the same file) must
        come once; ``shown``: what it is, for the message."""
        if what in self._seen:
            raise Dstc2ConvError(f"{shown} twice: {self._seen[what]} and {name}", self.path)
        self._seen[what] = name

    def wait(self, session: str, size: int) -> None:
        """A file of ``session``, of ``size`` bytes, is read: it waits for the call's other
        file, or ends the wait. (Counted for every call, whichever process holds it, so
        that --jobs changes nothing.)"""
        if session in self._waiting:
            self.pending -= self._waiting.pop(session)
            return
        self._waiting[session] = size
        self.pending += size
        if self.pending > MAX_PENDING:
            raise Dstc2ConvError(f"more than {MAX_PENDING // MB} MB of call files wait for their other half "
                                 "(a call's log.json and label.json are side by side in a DSTC2 tarball)",
                                 self.path)
