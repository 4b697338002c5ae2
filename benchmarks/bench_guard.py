#!/usr/bin/env python3
"""Time the typed decoder's guard (``dstc2conv.dstc2.calls._unvouched``) and its parts on
every JSON file of a DSTC2 tarball, held in memory, in one process (best of --repeat):

    python benchmarks/bench_guard.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz] [--repeat 5]

The guard must look at every byte; the typed decoding it guards is printed beside it."""
from __future__ import annotations

import argparse
import tarfile
import time
from pathlib import Path

from dstc2conv.dstc2 import calls

SHARED = Path(__file__).resolve().parents[2] / "shared"


def _typed(data: bytes) -> None:
    try:
        calls._DECODE_LOG(data)
    except Exception:
        calls._DECODE_LABEL(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tarfile.open(args.raw) as tar:
        files = [tar.extractfile(m).read() for m in tar if m.isfile() and m.name.endswith(("/log.json", "/label.json"))]
    print(f"{len(files):,} log.json and label.json files, {sum(map(len, files)) / 1e6:.0f} MB")
    parts = {
        "isascii": bytes.isascii,
        "every 64th byte, for 200 digits": lambda d: b"000" in d[::calls._STRIDE].translate(calls._SAMPLED_DIGIT),
        "exponents, C (_guard.exponent)": calls._exponent,
        "exponents, regexes (the fallback)": calls._exponent_by_regex,
        "the whole guard (_unvouched)": calls._unvouched,
        "for scale: msgspec's typed decoding": _typed,
    }
    for name, function in parts.items():
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            for data in files:
                function(data)
            best = min(best, time.perf_counter() - start)
        print(f"{name:40s} {best:6.3f} s")


if __name__ == "__main__":
    main()
