"""The checks on what a DSTC2 tarball holds, made as its members are read: a tarball is
a regular file; a member the build uses is a regular file under ``limits.MAX_MEMBER``,
named in UTF-8, and there once; every header's checksum is right, and what a header
holds beyond its 512 bytes (a long name, pax records) is under ``limits.MAX_MEMBER``
before it is read; the archive ends with two zero blocks and nothing but zeros after
them (one archive per stream); the whole compressed stream is read to its end, so that
its checksum and length are verified before anything read from it is used.
"""
from __future__ import annotations

import os
import stat
import tarfile

from ..errors import Dstc2ConvError, shown
from ..files import remember_input
from ..limits import MAX_MEMBER, MAX_PENDING, MB

LARGEST = "the largest of the train/dev corpus is 1.2 MB"


def check_tarball(path: str) -> None:
    """Dstc2ConvError unless ``path`` is a regular file (a device or a pipe is never
    read: a tarball is read more than once, and ``/dev/zero`` has no end)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise Dstc2ConvError(f"cannot read: {exc.strerror or exc}", path) from None
    remember_input(path)    # (a build never writes over it)
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


def decompressed(path: str, use) -> None:
    """``use(read)`` on the tar stream of the tarball at ``path`` (decompressed as
    ``tar_mode`` says)."""
    import bz2
    import gzip
    import lzma

    opener = {"r:gz": gzip.open, "r:bz2": bz2.open, "r:xz": lzma.open}.get(tar_mode(path), open)
    with opener(path, "rb") as fh:
        use(fh.read)


class TarDamage(Exception):
    """A tar stream that is corrupt or not one archive (raised inside tarfile, whose
    reading it stops; the caller names the tarball)."""


def end_of_archive(read, at: int) -> None:
    """After the zero block at byte ``at`` of the tar stream: the second zero block that
    ends an archive, then zeros only (the padding of the last record), to the end of the
    stream (its CRC checked). TarDamage for anything else: a tarball holds one archive."""
    block = read(BLOCKSIZE)
    if len(block) < BLOCKSIZE or block.count(0) != BLOCKSIZE:
        drain(read)
        raise TarDamage(f"a lone zero block at byte {at} of the tar stream, not the two that end an archive "
                        "(corrupt, or two archives in one stream?)")
    at += 2 * BLOCKSIZE
    while True:
        chunk = read(MB)
        if not chunk:
            return
        if chunk.count(0) != len(chunk):
            where = at + len(chunk) - len(chunk.lstrip(b"\0"))
            drain(read)
            raise TarDamage(f"data after the end of the archive, at byte {where} of the tar stream: two "
                            "archives in one stream (cat a.tar b.tar, or two gzip members)? dstc2conv reads "
                            "one archive per tarball: give each as a tarball of its own")
        at += len(chunk)


# The header kinds whose data tarfile reads whole, as part of the header: GNU long names and
# links, pax extended and global headers (Solaris's too).
METADATA = {tarfile.GNUTYPE_LONGNAME: "GNU long-name", tarfile.GNUTYPE_LONGLINK: "GNU long-link",
            tarfile.XHDTYPE: "pax extended", tarfile.SOLARIS_XHDTYPE: "pax extended", tarfile.XGLTYPE: "pax global"}
MAX_CHAIN = 8   # metadata headers before one member (GNU tar writes at most 3: K, L, x)
BLOCKSIZE = tarfile.BLOCKSIZE


# A member's claimed size past which the header is taken as corrupt (1 TiB): members that
# are read are bounded by MAX_MEMBER; one that is skipped could otherwise send the reader
# to an offset no file has.
MAX_CLAIM = 1 << 40


class CheckedHeader(tarfile.TarInfo):
    """tarfile's header, read with DSTC2's bounds (``tarfile.open(..., tarinfo=CheckedHeader)``):
    a bad checksum or a cut header is TarDamage, not the end of the archive as tarfile
    takes it; a metadata header (``METADATA``) whose data is past ``MAX_MEMBER``, with
    those before the same member or with every pax global header so far, is TarDamage
    before its data is read; and GNU sparse members, whose maps tarfile reads block by
    block without bound, are refused (DSTC2 has none). A zero block ends the archive, as
    before: the caller then checks ``end_of_archive``."""

    @classmethod
    def fromtarfile(cls, tar):
        at = tar.fileobj.tell()
        buf = tar.fileobj.read(BLOCKSIZE)
        try:
            obj = cls.frombuf(buf, tar.encoding, tar.errors)
        except tarfile.EOFHeaderError:
            raise
        except tarfile.InvalidHeaderError as exc:
            name = buf[:100].split(b"\0", 1)[0].decode("utf-8", "backslashreplace")
            raise TarDamage(f"the tar header at byte {at} ({shown(name, 60) if name else 'no name'}) is damaged ({exc}): "
                            "a corrupt tarball, not the end of one (two zero blocks)") from None
        except tarfile.HeaderError:       # (empty or truncated)
            raise TarDamage(f"the tar stream ends at byte {at + len(buf)}, inside a header or without the "
                            "two zero blocks that end an archive: truncated?") from None
        obj.offset = at
        if obj.size > MAX_CLAIM:
            raise TarDamage(f"the tar header at byte {at} ({shown(obj.name, 60) if obj.name else 'no name'}) claims "
                            f"{obj.size:,} bytes, more than any tarball holds: a corrupt header")
        if obj.type in METADATA:
            _charge(tar, obj, at)
        elif obj.type == tarfile.GNUTYPE_SPARSE:
            raise TarDamage(f"a GNU sparse member at byte {at} ({shown(obj.name, 60)}): a DSTC2 tarball holds none")
        try:
            return obj._proc_member(tar)
        finally:
            tar.dstc2conv_chain = (0, 0)   # (a member is read: its metadata no longer counts)

    def _proc_gnusparse_00(self, *args):
        raise TarDamage(f"a pax sparse member at byte {self.offset} ({shown(self.name, 60)}): a DSTC2 tarball holds none")

    _proc_gnusparse_01 = _proc_gnusparse_10 = _proc_gnusparse_00


def _charge(tar, header, at: int) -> None:
    """Count a metadata header's data against the bounds, before tarfile reads it."""
    headers, size = getattr(tar, "dstc2conv_chain", (0, 0))
    headers, size = headers + 1, size + header.size
    total = getattr(tar, "dstc2conv_global", 0) + (header.size if header.type == tarfile.XGLTYPE else 0)
    kind = METADATA[header.type]
    if header.size > MAX_MEMBER or size > MAX_MEMBER or total > MAX_MEMBER:
        whose = "" if header.size > MAX_MEMBER else \
            " with the pax global headers before it" if total > MAX_MEMBER else " with the headers before it"
        raise TarDamage(f"the {kind} header at byte {at} claims {header.size:,} bytes{whose}, more than the "
                        f"{MAX_MEMBER // MB} MB a DSTC2 file may be ({LARGEST})")
    if headers > MAX_CHAIN:
        raise TarDamage(f"the {kind} header at byte {at} is the {headers}th before one member (at most {MAX_CHAIN})")
    tar.dstc2conv_chain = (headers, size)
    tar.dstc2conv_global = total


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
            raw = name.encode("utf-8", "surrogateescape")[:80]
            raise Dstc2ConvError(f"{what} that is not UTF-8: {raw!r}", self.path) from None

    def size(self, name: str, size: int) -> None:
        if size > MAX_MEMBER:
            raise Dstc2ConvError(f"{shown(name)} is {size / MB:.0f} MB, more than the {MAX_MEMBER // MB} MB a DSTC2 "
                                 f"file may be ({LARGEST})", self.path)

    def not_a_file(self, member) -> None:
        """A used member (a ``tarfile.TarInfo``) that is not a regular file: a link, a device."""
        if member.islnk() or member.issym():
            raise Dstc2ConvError(f"{shown(member.name)} is a {'hard' if member.islnk() else 'symbolic'} link (to "
                                 f"{shown(member.linkname)}), not a file: a DSTC2 tarball holds its files "
                                 "themselves", self.path)
        raise Dstc2ConvError(f"{shown(member.name)} is not a regular file", self.path)

    def once(self, what, name: str, what_is: str) -> None:
        """``what`` (a key: the same for two members that stand for the same file) must
        come once; ``what_is``: what it is, for the message."""
        if what in self._seen:
            raise Dstc2ConvError(f"{shown(what_is)} twice: {shown(self._seen[what])} and {shown(name)}", self.path)
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
