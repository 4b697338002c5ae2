"""benchmarks/bench.py in its cheapest form: one command on the sample calls, one round,
this checkout beside itself given as a source folder (installed by pip into a cache of
the test's own)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert _could_be_the_ratio(*row[1:4]) and _could_be_the_ratio(*row[4:7])
    assert lines[start + 3].startswith("total ")
    # the baseline really is the installed copy, not this checkout
    baseline = next(line for line in lines if line.startswith("baseline: "))
    assert str(tmp_path / "cache" / "dstc2conv" / "bench") in baseline
    table = [line for line in page.read_text().splitlines() if line.startswith("|")]
    assert [c.strip() for c in table[0].strip("|").split("|")] == HEADER
    assert len(table) == 3 and table[2].startswith("| build --split all |")


def _half_unit(cell: str) -> float:
    """Half the last printed digit's unit: how far the printed figure may be from the figure."""
    return 0.5 * 10 ** -len(cell.partition(".")[2])


def _could_be_the_ratio(this: str, base: str, ratio: str) -> bool:
    """Whether the printed ratio is this / base for some figures that print as ``this`` and
    ``base``: the table rounds each, and the ratio is of the figures before rounding,
    whatever the timing."""
    (t, h), (b, g), (r, q) = ((float(c), _half_unit(c)) for c in (this, base, ratio))
    low, high = (t - h) / (b + g), (t + h) / max(b - g, 1e-12)
    return low - q - 1e-9 <= r <= high + q + 1e-9


@pytest.mark.parametrize("this, base, ratio, could", [
    ("0.15", "0.15", "0.96", True),     # 0.1460 / 0.1521: each rounds to 0.15
    ("0.15", "0.15", "1.07", True),
    ("0.15", "0.15", "0.90", False),    # no figures that print 0.15 and 0.15 are that far apart
    ("2.00", "1.00", "2.00", True),
    ("2.00", "1.00", "1.90", False),
    ("120", "100", "1.20", True),
])
def test_the_ratio_check_allows_the_rounding_and_no_more(this, base, ratio, could):
    assert _could_be_the_ratio(this, base, ratio) is could


def _all():
    """benchmarks/all.py as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_all", ROOT / "benchmarks" / "all.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def test_all_names_every_benchmark_script_and_each_has_help():
    benchmarks = _all().BENCHMARKS
    scripts = {b.script for b in benchmarks}
    helpers = {"all.py", "script.py", "babi_standin.py"}     # (babi_standin: the OOV stand-in the others write)
    assert scripts == {p.name for p in (ROOT / "benchmarks").glob("*.py")} - helpers
    assert len({b.name for b in benchmarks}) == len(benchmarks)
    for bench in benchmarks:
        assert all((ROOT / "docs" / page).is_file() for page in bench.docs), bench.name
    running = {s: subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / s), "--help"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for s in sorted(scripts)}
    for script, proc in running.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, (script, err)
        assert out.startswith("usage: "), script


def test_all_lists_and_refuses_an_unknown_name():
    script = [sys.executable, str(ROOT / "benchmarks" / "all.py")]
    done = subprocess.run([*script, "--dry-run", "--only", "rules,transfer"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["rules              python benchmarks/bench_rules.py",
                                        "transfer           python benchmarks/transfer.py --manifest {manifest}"]
    listed = subprocess.run([*script, "--list"], capture_output=True, text=True, cwd=ROOT, timeout=60).stdout
    assert "a fit from Python against the command line" in listed and "bench_api.py" in listed
    done = subprocess.run([*script, "--only", "nothing"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode != 0 and "no benchmark named nothing" in done.stderr
