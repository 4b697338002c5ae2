"""The package's layout: one package per stage of the pipeline, imports only running down.

A package may import the foundation (``errors``, ``files``, ``limits``), itself, and the packages of
the stages before it; never one after it. No two modules import each other, directly or
through others. Each package says its purpose in one line at its top. No function is longer
than 60 lines.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "dstc2conv"

# The pipeline, first to last: each entry may import those before it.
LAYERS = (
    ("arguments", "errors", "files", "limits", "reporter", "version"),
    ("task6",),
    ("dstc2",),
    ("babi",),
    ("convert",),
    ("exports",),
    ("builder",),
    ("evaluate",),
    ("systems",),
    ("simulate",),        # after the systems: play drives one against the simulated user
    ("report",),
    ("api", "cli", "__init__", "__main__"),
)
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}
PACKAGES = sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name not in ("rulefiles", "sample"))


def _modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    """The dstc2conv modules ``module`` imports, anywhere in it (in functions too)."""
    is_package = path.name == "__init__.py"
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = [f"{stem}.{alias.name}" for alias in node.names] + [stem]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("dstc2conv") and name != module:
                found.add(name)
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_package_and_top_module_has_a_place_in_the_pipeline():
    stages = {_stage(m) for m in MODULES if not m.startswith(("dstc2conv.rulefiles", "dstc2conv.sample"))}
    assert stages <= set(LAYER), sorted(stages - set(LAYER))


def test_no_import_runs_back_up_the_pipeline():
    wrong = []
    for module, imported in GRAPH.items():
        if module.startswith(("dstc2conv.rulefiles", "dstc2conv.sample")):
            continue
        for other in imported:
            if LAYER[_stage(other)] > LAYER[_stage(module)]:
                wrong.append(f"{module} imports {other}")
    assert not wrong


def test_no_two_modules_import_each_other():
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(module: str, path: list[str]) -> bool:
        state[module] = 1
        for other in sorted(GRAPH.get(module, ())):
            if state.get(other) == 1:
                cycle.extend(path[path.index(other):] + [module, other] if other in path else [module, other])
                return True
            if other not in state and visit(other, path + [module]):
                return True
        state[module] = 2
        return False

    for module in sorted(GRAPH):
        if module not in state and visit(module, []):
            break
    assert not cycle, " -> ".join(cycle)


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_says_its_purpose_in_one_line(package):
    doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "\n" not in doc.strip(), f"{package}/__init__.py: give its purpose in one line"


MAX_FUNCTION_LINES = 60     # from the def line to the last, decorators not counted


def _long_functions() -> list[tuple[str, int, str, int]]:
    """(path under dstc2conv/, line, name, lines) of every function or method over the limit."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append((path.relative_to(ROOT).as_posix(), node.lineno, node.name, lines))
    return found


def test_no_function_is_over_60_lines():
    wrong = [f"dstc2conv/{path}:{line} {name} ({lines} lines)" for path, line, name, lines in _long_functions()]
    assert not wrong, f"split these functions (at most {MAX_FUNCTION_LINES} lines each):\n" + "\n".join(wrong)


def _room(module: str) -> str | None:
    """The room of a module inside dstc2conv.systems: its subpackage, or the module itself."""
    parts = module.split(".")
    if parts[:2] != ["dstc2conv", "systems"] or len(parts) < 3:
        return None
    return parts[2]


def test_no_import_runs_back_up_inside_the_systems():
    """The rooms of ``dstc2conv.systems`` (its subpackages and modules) import each other
    one way only: no two rooms reach each other, directly or through others."""
    rooms: dict[str, set[str]] = {}
    for module, imported in GRAPH.items():
        room = _room(module)
        if room is None:
            continue
        rooms.setdefault(room, set()).update(r for r in map(_room, imported) if r is not None and r != room)

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for other in rooms.get(todo.pop(), ()):
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    both_ways = sorted({tuple(sorted((a, b))) for a in rooms for b in reach(a) if a != b and a in reach(b)})
    assert not both_ways, ", ".join(f"{a} <-> {b}" for a, b in both_ways)


def test_every_package_is_installed():
    """A wheel holds the packages pyproject.toml lists: every folder of dstc2conv/ with an
    __init__.py must be among them, or a plain install would lack it."""
    import tomllib

    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT.parent).parts) for p in ROOT.rglob("__init__.py")}
    assert found - listed == set()
