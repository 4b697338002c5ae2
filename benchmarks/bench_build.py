#!/usr/bin/env python3
"""Time `dstc2conv build --split all` against two floors, in one run.

    python benchmarks/bench_build.py [--raw ../shared/dstc2/dstc2_traindev.tar.gz] [--repeat 5] [--jobs N]
                                     [--baseline DIR] [--export FORMAT ...]

Runs, alternately and `--repeat` times each, after one untimed run (which compiles the
modules, as an installed package has them, and brings the tarball into the page cache):
- the JSON floor (../shared/tools/json_floor.py: read the tarball with tarfile and parse
  every JSON file with the standard library, nothing else);
- the decompression floor (read every member of the tarball through the fastest gzip
  reader installed, isal's igzip or zlib-ng, with a minimal tar reader; no parsing);
- the whole build command into a temporary folder (interpreter start-up included), its
  wall time and its CPU time (user + system, of all its processes: on a busy machine a
  steadier figure than the wall time);
- with ``--baseline DIR``, the same command run from the dstc2conv source tree in DIR
  (another version, e.g. ``git archive <commit> | tar -x -C DIR``), so that two versions
  are timed side by side in one run, on the same machine load (the versions from 948c6a8
  to 8430678 had a C extension, which a source tree lacks: give them as installed,
  ``pip install --no-deps --target DIR <source tree>``, whose DIR/dstc2conv holds it);
and prints the best wall time of each, the ratios to the JSON floor, and the build's peak
memory (the resident memory of all its processes together, sampled every 10 ms in a run
of its own, and of the largest one). Then builds tarballs holding a quarter and a half of
the calls (every 4th, every 2nd call, with their flists and the ontology) in a temporary
folder and times the build on each, to show how the time grows with the number of calls.
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from bench import _tree  # (the process tree from /proc, as bench.py samples it)

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

DECOMPRESS = r"""
import sys
try:
    from isal.igzip import open as gz; which = "isal igzip"
except ImportError:
    try:
        from zlib_ng.gzip_ng import open as gz; which = "zlib-ng"
    except ImportError:
        from gzip import open as gz; which = "gzip (standard library)"
total = 0
with gz(sys.argv[1], "rb") as fh:
    while True:
        header = fh.read(512)
        if len(header) < 512 or not header.strip(b"\0"):
            break
        size = int(header[124:136].strip(b" \0") or b"0", 8)
        total += len(fh.read(size))
        fh.read(-size % 512)
print(which, total)
"""


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


# Every command runs with its modules compiled once, as an installed package has them
# (a tree whose Python writes no bytecode would compile them at every start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(cmd: list[str], memory: bool = False, source: str | None = None,
        cpu: list[float] | None = None) -> tuple[float, int, int, str]:
    """Wall seconds of one child process; with ``memory``, the peak of the summed RSS of
    its process tree and of its largest process (MB), sampled. Also its stdout.
    ``source``: a dstc2conv source tree to run instead of the installed one. ``cpu``: a
    list to append the CPU seconds (user + system) of the process and its workers to."""
    env = ENV if source is None else {**ENV, "PYTHONPATH": source,
                                      "PYTHONPYCACHEPREFIX": ENV.get("PYTHONPYCACHEPREFIX", "") + "-baseline"}
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    total = largest = 0
    while memory and proc.poll() is None:
        sizes = [_rss(p) for p in _tree(proc.pid)]
        total, largest = max(total, sum(sizes)), max([largest] + sizes)
        time.sleep(0.01)
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    if cpu is not None:
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return seconds, total >> 20, largest >> 20, out


EXPORTS: list[str] = []   # --export FORMAT, given to every build


def build_cmd(raw: str, out: str, jobs: int | None) -> list[str]:
    cmd = [sys.executable, "-m", "dstc2conv", "build", "--split", "all", "--raw", raw, "--out", out]
    return cmd + (["--jobs", str(jobs)] if jobs else []) + [a for name in EXPORTS for a in ("--export", name)]


def subset(members: list, sessions: list[str], every: int, path: str) -> int:
    """A tarball at ``path`` holding every ``every``-th of ``sessions`` (the calls of the
    tarball whose ``members`` are given), its flists cut to those calls, and the ontology.
    Returns the number of calls."""
    kept = set(sessions[::every])
    with tarfile.open(path, "w:gz", compresslevel=6) as out:
        for member, data in members:
            parts = member.name.split("/")
            if member.name.endswith(".json") and "data" in parts:
                if f"{parts[-3]}/{parts[-2]}" not in kept:
                    continue
            elif member.name.endswith(".flist"):
                data = "".join(line + "\n" for line in data.decode().split()
                               if line.strip().rstrip("/") in kept).encode()
            member.size = len(data)
            out.addfile(member, io.BytesIO(data))
    return len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--raw", default=str(SHARED / "dstc2" / "dstc2_traindev.tar.gz"))
    parser.add_argument("--floor", default=str(SHARED / "tools" / "json_floor.py"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, help="--jobs for the build (default: the build's own)")
    parser.add_argument("--no-scaling", action="store_true", help="leave out the quarter and half builds")
    parser.add_argument("--export", action="append", default=[], metavar="FORMAT",
                        help="build with --export FORMAT too (repeatable): the cost of the exports")
    parser.add_argument("--baseline", metavar="DIR",
                        help="a dstc2conv source tree (another version) whose build is timed alternately with this one")
    args = parser.parse_args()
    if args.baseline and not os.path.isfile(os.path.join(args.baseline, "dstc2conv", "cli.py")):
        sys.exit(f"{args.baseline}: not a dstc2conv source tree")
    EXPORTS.extend(args.export)
    for path in (args.raw, args.floor):
        if not os.path.exists(path):
            sys.exit(f"{path}: not found")
    times: dict[str, list[float]] = {"json": [], "decompress": [], "build": [], "baseline": []}
    cpu: dict[str, list[float]] = {"build": [], "baseline": []}   # (less moved by other work on the machine)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        for cmd in ([sys.executable, args.floor, args.raw], build_cmd(args.raw, out, args.jobs)):
            run(cmd)   # compiles the modules, and brings the tarball into the page cache
        if args.baseline:
            run(build_cmd(args.raw, f"{out}-baseline", args.jobs), source=args.baseline)
        for i in range(args.repeat):
            times["json"].append(run([sys.executable, args.floor, args.raw])[0])
            seconds, _, _, reader = run([sys.executable, "-c", DECOMPRESS, args.raw])
            times["decompress"].append(seconds)
            builds = [("build", None), ("baseline", args.baseline)] if args.baseline else [("build", None)]
            for name, source in builds[::-1] if i % 2 else builds:   # each first in every other round
                folder = out if source is None else f"{out}-baseline"
                times[name].append(run(build_cmd(args.raw, folder, args.jobs), source=source,
                                       cpu=cpu[name])[0])
        _, peak, largest, _ = run(build_cmd(args.raw, out, args.jobs), memory=True)   # not timed
        floor = min(times["json"])
        print(f"input              {args.raw}")
        print(f"json floor         {floor:.2f} s   (best of {args.repeat}: tarfile + json.loads, one process)")
        best = min(times["decompress"])
        print(f"decompress floor   {best:.2f} s   {best / floor:.2f} x the json floor "
              f"({reader.rsplit(' ', 1)[0]} + a minimal tar reader, no parsing)")
        best = min(times["build"])
        print(f"build --split all  {best:.2f} s   {best / floor:.2f} x the json floor "
              f"(whole command, interpreter start-up included)")
        print(f"build CPU          {min(cpu['build']):.2f} s   best of {args.repeat}, mean "
              f"{sum(cpu['build']) / len(cpu['build']):.2f} s (user + system, all its processes)")
        print(f"build peak RSS     {peak} MB all processes together, {largest} MB the largest")
        if args.baseline:
            base = min(times["baseline"])
            _, base_peak, base_largest, _ = run(build_cmd(args.raw, f"{out}-baseline", args.jobs), memory=True,
                                                source=args.baseline)
            print(f"baseline build     {base:.2f} s   {base / floor:.2f} x the json floor ({args.baseline}); "
                  f"this build / baseline {min(times['build']) / base:.3f}")
            print(f"baseline CPU       {min(cpu['baseline']):.2f} s   best of {args.repeat}, mean "
                  f"{sum(cpu['baseline']) / len(cpu['baseline']):.2f} s; this build / baseline (means) "
                  f"{sum(cpu['build']) / sum(cpu['baseline']):.3f}")
            print(f"baseline peak RSS  {base_peak} MB all processes together, {base_largest} MB the largest")
            print("runs (s)           build " + " ".join(f"{t:.2f}" for t in times["build"])
                  + " | baseline " + " ".join(f"{t:.2f}" for t in times["baseline"]))
        if args.no_scaling:
            return
        with tarfile.open(args.raw, "r:*") as tf:
            members = [(m, tf.extractfile(m).read()) for m in tf if m.isfile()]
        sessions = sorted({"/".join(m.name.split("/")[-3:-1]) for m, _ in members if m.name.endswith("/log.json")})
        rows = []
        for every in (4, 2):
            path = os.path.join(tmp, f"dstc2_traindev_1of{every}.tar.gz")
            calls = subset(members, sessions, every, path)
            best = min(run(build_cmd(path, out, args.jobs))[0] for _ in range(args.repeat))
            rows.append((f"1/{every}", calls, best))
        del members
        rows.append(("all", len(sessions), min(times["build"])))
        print(f"share  calls  build (best of {args.repeat})")
        for share, calls, seconds in rows:
            print(f"{share:5s} {calls:6d}  {seconds:.2f} s")


if __name__ == "__main__":
    from script import run_main

    run_main(main)
