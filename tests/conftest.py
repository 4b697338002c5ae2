"""Shared paths. The DSTC2 corpus and the published task-6 files are read at run time
from ../shared beside the checkout; tests that need them skip when it is absent, and
fail instead when DSTC2CONV_REQUIRE_DATA=1 (as in CI)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
TRAINDEV = SHARED / "dstc2" / "dstc2_traindev.tar.gz"
REFERENCE = SHARED / "reference"
SAMPLE = ROOT / "tests" / "data" / "sample"
GOLDEN = ROOT / "tests" / "golden"


# the ontology of the rule baseline tests' tiny rule files
ONTOLOGY = """\
food: [thai, noodles]
area: [north, south]
price: [cheap, expensive]
served: [thai]
"""

# a tiny rule file over it: a greeting, a goodbye, then ask for the food, then the area
TWO_ASKS_RULES = """\
ontology: ontology.yaml
patterns:
  hello: Welcome .
  ask_food: Which food?
  ask_area: Which area?
  bye: you are welcome
rules:
  - id: greet
    priority: 100
    when: {first_turn: true}
    say: hello
  - id: bye
    priority: 90
    when: {user_words: bye}
    say: bye
  - id: ask-food
    priority: 20
    when: {missing: food}
    say: ask_food
  - id: ask-area
    priority: 10
    when: {missing: area}
    say: ask_area
"""


def write_rule_files(folder: Path, rules: str, ontology: str, data: str, data_folder: str = ".") -> tuple[str, str]:
    """A rule file (rules.yaml, naming ontology.yaml) in ``folder`` and a task-6 file
    data.txt in ``folder/data_folder``; returns their paths."""
    where = folder / data_folder
    where.mkdir(exist_ok=True)
    (folder / "ontology.yaml").write_text(ontology)
    (folder / "rules.yaml").write_text(rules)
    (where / "data.txt").write_text(data)
    return str(folder / "rules.yaml"), str(where / "data.txt")


def need(path: Path) -> Path:
    if not path.exists():
        if os.environ.get("DSTC2CONV_REQUIRE_DATA") == "1":
            pytest.fail(f"{path} is absent and DSTC2CONV_REQUIRE_DATA=1: put the DSTC2 corpus and the "
                        "published task-6 files in ../shared")
        pytest.skip(f"{path} is absent: this test reads the DSTC2 corpus / published task-6 files from ../shared")
    return path


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path, monkeypatch):
    """The score history goes to the user's cache: in tests, a temporary one."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def run_fresh(argv: list[str], cwd: Path, modules: tuple[str, ...]) -> tuple[int, dict[str, bool], str]:
    """The command line ``argv`` run in a fresh interpreter in ``cwd``: its exit code,
    which of ``modules`` it loaded, and its stdout (the loading is what a test of
    start-up costs asks about)."""
    import json
    import subprocess
    import sys
    code = ("import json, sys; from dstc2conv.cli import run; "
            f"code = run({argv!r}); "
            f"print(json.dumps([code, {{m: m in sys.modules for m in {list(modules)!r}}}]), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd)
    exit_code, loaded = json.loads(done.stderr.splitlines()[-1])
    return exit_code, loaded, done.stdout
