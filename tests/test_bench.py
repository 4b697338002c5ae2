"""benchmarks/bench.py in its cheapest form: one command on the sample calls, one round,
this checkout beside itself given as a source folder (installed by pip into a cache of
the test's own)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADER = ["command", "this s", "baseline s", "ratio", "this MB", "baseline MB", "ratio"]


def test_bench_table_of_one_command(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    page = tmp_path / "bench.md"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--only", "build-all", "--repeat", "1",
                           "--raw", str(ROOT / "tests" / "data" / "sample"), "--baseline", str(ROOT),
                           "--markdown", str(page)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("command "))
    assert [c.strip() for c in lines[start].split("|")] == HEADER
    assert set(lines[start + 1]) <= {"-", "+"}
    row = [c.strip() for c in lines[start + 2].split("|")]
    assert row[0] == "build --split all" and len(row) == len(HEADER)
    this, base, ratio, this_mb, base_mb, mb_ratio = (float(c) for c in row[1:])
    assert this > 0 and base > 0 and this_mb > 0 and base_mb > 0
    assert abs(ratio - this / base) < 0.02 + 0.01 * ratio
    assert lines[start + 3].startswith("total ")
    # the baseline really is the installed copy, not this checkout
    baseline = next(line for line in lines if line.startswith("baseline: "))
    assert str(tmp_path / "cache" / "dstc2conv" / "bench") in baseline
    table = [line for line in page.read_text().splitlines() if line.startswith("|")]
    assert [c.strip() for c in table[0].strip("|").split("|")] == HEADER
    assert len(table) == 3 and table[2].startswith("| build --split all |")
