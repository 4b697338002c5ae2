#!/usr/bin/env python3
"""The build on calls whose system acts say how many restaurants match as numbers, as
those of DSTC2's test tarball do (``{"act": "inform", "slots": [["count", 3]]}``; the
train/dev tarball has none): this checkout beside a baseline, by ``bench.py``.

    python benchmarks/bench_counts.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz] [--every 5]
                                      [--out OUT] [--make-only] [bench.py's options: --baseline REF --repeat N ...]

Writes a copy of ``--raw`` in which four calls of five (``--every 5``: all but one in
five, chosen by a checksum of the session) have the act first in the system acts of
their first offer's turn (else of their second turn), N from 1 to 20; the act is put
into the JSON text as it is, every other byte of the calls and every other member is
copied. The conversion does not read inform(count): a build of the copy writes the
task-6 files of a build of the original. Then runs ``bench.py --raw COPY --only
floor,build-all,build-test`` and the other options given: ``build --split test`` reads
the copy's dev calls as a test tarball. The copy goes to a temporary folder, or to
``--out OUT`` (kept; ``--make-only``: write it and stop). It is made for measuring:
keep it out of the repository.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ACTS = b'"dialog-acts": ['


def counted(log: bytes, session: str) -> bytes:
    """The log.json ``log`` with an inform(count=N) first in the system acts of its first
    offer's turn (else its second turn)."""
    turns = json.loads(log)["turns"]
    starts, at = [], log.find(ACTS)
    while at >= 0:
        starts.append(at + len(ACTS))
        at = log.find(ACTS, at + 1)
    if len(starts) != len(turns):
        sys.exit(f"{session}/log.json: {len(starts)} '{ACTS.decode()}' for {len(turns)} turns")
    offers = [i for i, turn in enumerate(turns) if any(a["act"] == "offer" for a in turn["output"]["dialog-acts"])]
    turn = offers[0] if offers else min(1, len(turns) - 1)
    act = b'{"act": "inform", "slots": [["count", %d]]}' % (zlib.crc32(session.encode()) % 20 + 1)
    empty = log[starts[turn]:].lstrip().startswith(b"]")
    return log[:starts[turn]] + act + (b"" if empty else b", ") + log[starts[turn]:]


def write_copy(raw: str, out: str, every: int) -> str:
    """Write the copy of ``raw`` to ``out``; what it holds, in words."""
    calls = changed = 0
    with tarfile.open(raw, "r:*") as source, tarfile.open(out, "w:gz", compresslevel=6) as copy:
        for member in source:
            data = source.extractfile(member).read() if member.isfile() else None
            if data is not None and member.name.endswith("/log.json"):
                session = "/".join(member.name.split("/")[-3:-1])
                calls += 1
                if zlib.crc32(session.encode()) % every:
                    data, changed = counted(data, session), changed + 1
                    member.size = len(data)
            copy.addfile(member, None if data is None else io.BytesIO(data))
    return f"{out}: {changed} of {calls} calls with inform(count=N) in their system acts"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--every", type=int, default=5, help="leave one call in EVERY as it is (default: 5)")
    parser.add_argument("--out", help="write the copy here and keep it (default: a temporary folder)")
    parser.add_argument("--make-only", action="store_true", help="write the copy (--out) and stop")
    args, rest = parser.parse_known_args()
    if args.make_only and not args.out:
        parser.error("--make-only needs --out")
    if not os.path.isfile(args.raw):
        sys.exit(f"{args.raw}: not found")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or os.path.join(tmp, "dstc2_counts.tar.gz")
        print(write_copy(args.raw, out, args.every), file=sys.stderr, flush=True)
        if args.make_only:
            return 0
        only = [] if "--only" in rest or any(a.startswith("--only=") for a in rest) else [
            "--only", "floor,build-all,build-test"]
        return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--raw", out, *only, *rest]).returncode


if __name__ == "__main__":
    from script import run_main

    run_main(main)
