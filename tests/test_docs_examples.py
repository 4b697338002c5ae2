"""Every example in README.md and docs/*.md runs, and prints what the page shows.

The format (one pytest item per page; a page's blocks run in order, in one fresh
temporary folder, with the venv's ``dstc2conv`` first on PATH):

- ```` ```console ```` blocks: each line starting with ``$ `` is a bash command (a line
  ending with ``\\`` goes on to the next). The lines after it, up to the next ``$ `` line,
  are its expected stdout, compared exactly, except that a line ``...`` matches any
  number of lines. A command with no lines after it is only checked to exit 0; a
  command line ending with ``# exit N`` must exit with code N. A ``cd`` carries over to
  the page's later commands.
- ```` ```python ```` blocks run in one namespace per page, in the same folder; a
  ```` ```text ```` block right after one (nothing but blank lines between) is its
  expected stdout, with the same ``...`` rule.
- ``<!-- no-run -->`` on the line before a block: the block is not run.
- ``<!-- file: NAME -->`` on the line before a block: the block is written to the file
  NAME in the page's current folder (a module the page's commands then use), not run.
  Python blocks import from that folder, as a script or ``python`` started there would.
- ``<!-- setup: corpus -->`` anywhere in a page: the folder then holds
  ``data_raw/dstc2_traindev.tar.gz`` and ``published/dialog-babi-task6-dstc2-{trn,dev,kb}.txt``,
  linked from ../shared (the page is skipped when they are absent, and fails instead
  under DSTC2CONV_REQUIRE_DATA=1).
"""
from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REFERENCE, ROOT, TRAINDEV, need

NO_RUN = "<!-- no-run -->"
FILE = re.compile(r"^<!-- file: (?P<name>[\w.-]+) -->$")
SETUP_CORPUS = "<!-- setup: corpus -->"
PUBLISHED = ("dialog-babi-task6-dstc2-trn.txt", "dialog-babi-task6-dstc2-dev.txt", "dialog-babi-task6-dstc2-kb.txt")
WILDCARD = "..."
TIMEOUT = 600  # seconds, for one command
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<lang>[\w+-]*)[^`]*$")
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, the line its fence opens on (1-based),
    its lines (the fence's indentation removed), whether it runs, and the text between
    the end of the block before it and its opening fence."""
    lang: str
    line: int
    lines: tuple[str, ...]
    run: bool
    before: str
    file: str | None = None     # the file the block is written to, instead of running it


@dataclass(frozen=True)
class Command:
    """One ``$ `` command of a console block, its expected stdout lines (None: only the
    exit code is checked) and exit code."""
    line: int
    command: str
    expected: tuple[str, ...] | None
    exit_code: int


def blocks_of(text: str) -> list[Block]:
    """The fenced blocks of a markdown text, in order."""
    lines = text.split("\n")
    out: list[Block] = []
    i, last_end = 0, 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        body = tuple(line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:j])
        previous = lines[i - 1].strip() if i > 0 else ""
        named = FILE.match(previous)
        out.append(Block(opening["lang"].lower(), i + 1, body, previous != NO_RUN, "\n".join(lines[last_end:i]),
                         named and named["name"]))
        i = last_end = j + 1
    return out


def commands_of(block: Block) -> list[Command]:
    """The commands of a console block, with their expected output."""
    commands: list[Command] = []
    i = 0
    lines = block.lines
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if lines[i].strip():
                raise ValueError(f"{block.line + 1 + i}: output before any `$ ` command: {lines[i]!r}")
            i += 1
            continue
        start = i
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < len(lines):
            i += 1
            command = command + "\n" + lines[i]
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        while expected and not expected[-1].strip():
            expected.pop()
        code = EXIT.search(command)
        commands.append(Command(block.line + 1 + start, command, tuple(expected) or None, int(code[1]) if code else 0))
    return commands


def matches(expected: list[str] | tuple[str, ...], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected``, a ``...`` line standing for any number of lines."""
    expected, actual = list(expected), list(actual)
    # reachable[j]: the expected lines so far can account for actual[:j]
    reachable = [True] + [False] * len(actual)
    for want in expected:
        if want == WILDCARD:
            for j in range(1, len(actual) + 1):
                reachable[j] = reachable[j] or reachable[j - 1]
        else:
            reachable = [False] + [reachable[j - 1] and actual[j - 1] == want for j in range(1, len(actual) + 1)]
    return reachable[-1]


def _diff(expected, actual) -> str:
    return "\n".join(difflib.unified_diff(list(expected), list(actual), "shown in the page", "printed", lineterm=""))


def _output_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    return env


def run_command(command: Command, folder: Path, env: dict[str, str], page: str) -> Path:
    """Runs one command in ``folder``; fails the test (with a diff) when its exit code or
    stdout is not the page's. Returns the folder the command ended in (a ``cd`` carries over)."""
    where = folder / ".cwd-after"
    script = f"{command.command}\n__status=$?\npwd > '{where}'\nexit $__status\n"
    header = f"{page}:{command.line}: $ {command.command}"
    try:
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{header}\nstill running after {TIMEOUT} s", pytrace=False)
    after = Path(where.read_text().strip()) if where.exists() else folder
    where.unlink(missing_ok=True)
    if done.returncode != command.exit_code:
        pytest.fail(f"{header}\nexited {done.returncode}, the page expects {command.exit_code}\n"
                    f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}", pytrace=False)
    if command.expected is not None:
        actual = _output_lines(done.stdout)
        if not matches(command.expected, actual):
            pytest.fail(f"{header}\nstdout differs from the page:\n{_diff(command.expected, actual)}\n"
                        f"stderr:\n{done.stderr[-2000:]}", pytrace=False)
    return after


def run_python(block: Block, expected: Block | None, namespace: dict, page: str) -> None:
    out = io.StringIO()
    try:
        code = compile("\n".join(block.lines) + "\n", f"{page}:{block.line}", "exec")
        with contextlib.redirect_stdout(out):
            exec(code, namespace)
    except Exception:
        pytest.fail(f"{page}:{block.line}: the python block raised\n{traceback.format_exc()}", pytrace=False)
    if expected is not None:
        want = list(expected.lines)
        while want and not want[-1].strip():
            want.pop()
        actual = _output_lines(out.getvalue())
        if not matches(want, actual):
            pytest.fail(f"{page}:{block.line}: the python block printed other than the text block below it:\n"
                        f"{_diff(want, actual)}", pytrace=False)


def set_up_corpus(folder: Path) -> None:
    (folder / "data_raw").mkdir()
    (folder / "data_raw" / TRAINDEV.name).symlink_to(need(TRAINDEV))
    (folder / "published").mkdir()
    for name in PUBLISHED:
        (folder / "published" / name).symlink_to(need(REFERENCE / name))


def run_page(text: str, page: str, folder: Path, monkeypatch) -> int:
    """Runs every example of a page in ``folder``; returns how many blocks ran."""
    if SETUP_CORPUS in text:
        set_up_corpus(folder)
    env = _environment()
    monkeypatch.setenv("PATH", env["PATH"])
    monkeypatch.chdir(folder)
    blocks = blocks_of(text)
    namespace: dict = {"__name__": "__docs__"}
    cwd, ran = folder, 0
    monkeypatch.syspath_prepend(str(folder))
    before = set(sys.modules)
    try:
        for k, block in enumerate(blocks):
            if block.run and (block.file or block.lang in ("console", "python")):
                cwd, ran = _run_block(blocks, k, cwd, env, namespace, page, monkeypatch), ran + 1
    finally:
        for name in set(sys.modules) - before:      # the page's own modules go with its folder
            if str(getattr(sys.modules[name], "__file__", None) or "").startswith(str(folder)):
                del sys.modules[name]
    return ran


def _run_block(blocks: list[Block], k: int, cwd: Path, env: dict[str, str], namespace: dict, page: str,
               monkeypatch) -> Path:
    """Runs the page's ``k``-th block (a console or python block), or writes it (a file);
    returns the folder it ended in."""
    block = blocks[k]
    if block.file:
        (cwd / block.file).write_text("\n".join(block.lines) + "\n")
        monkeypatch.syspath_prepend(str(cwd))
    elif block.lang == "console":
        try:
            commands = commands_of(block)
        except ValueError as err:
            pytest.fail(f"{page}:{err}", pytrace=False)
        for command in commands:
            cwd = run_command(command, cwd, env, page)
    elif block.lang == "python":
        following = blocks[k + 1] if k + 1 < len(blocks) else None
        expected = following if following and following.lang == "text" and not following.before.strip() else None
        monkeypatch.chdir(cwd)
        run_python(block, expected, namespace, page)
    return cwd


def _pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [p for p in pages if p.exists()]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples(page, tmp_path, monkeypatch):
    folder = tmp_path / "work"
    folder.mkdir()
    run_page(page.read_text(), str(page.relative_to(ROOT)), folder, monkeypatch)


# ---------------------------------------------------------------- the runner itself

def test_wildcard_matches_any_number_of_lines():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert matches(["a", "...", "b"], ["a", "b"])
    assert matches(["..."], [])
    assert matches([], [])
    assert not matches(["a", "...", "d"], ["a", "b", "c"])
    assert not matches(["a"], ["a", "b"])
    assert not matches(["a", "b"], ["b", "a"])
    assert matches(["...", "x", "..."], ["p", "x", "q"])
    assert not matches(["...", "x", "..."], ["p", "q"])


PAGE = """\
# A page

<!-- no-run -->
```console
$ false
```

```console
$ printf 'one\\ntwo\\nthree\\n'
one
...
three
$ mkdir sub && cd sub
$ pwd | sed 's|.*/||'
sub
$ exit 3  # exit 3
$ echo a \\
  b
a b
```

```sh
$ false
```

```python
import os
print(os.path.basename(os.getcwd()))
x = 41
```

```text
sub
```

```python
print(x + 1)
```

Not the output of the block above:

```text
nothing
```
"""


def test_the_parser_reads_blocks_and_commands():
    blocks = blocks_of(PAGE)
    assert [(b.lang, b.line, b.run) for b in blocks] == [
        ("console", 4, False), ("console", 8, True), ("sh", 22, True), ("python", 26, True),
        ("text", 32, True), ("python", 36, True), ("text", 42, True)]
    commands = commands_of(blocks[1])
    assert [(c.line, c.expected, c.exit_code) for c in commands] == [
        (9, ("one", "...", "three"), 0), (13, None, 0), (14, ("sub",), 0), (16, None, 3), (17, ("a b",), 0)]
    assert commands[-1].command == "echo a \\\n  b"


def test_a_page_runs(tmp_path, monkeypatch):
    assert run_page(PAGE, "page.md", tmp_path, monkeypatch) == 3  # one console, two python blocks


@pytest.mark.parametrize("change, message", [
    ("one\n...\nthree", "stdout differs from the page"),
    ("$ exit 3  # exit 3", "exited 3, the page expects 0"),
    ("sub\n```\n\n```python\nprint(x + 1)", "printed other than the text block"),
])
def test_a_wrong_page_fails_with_a_diff(tmp_path, monkeypatch, change, message):
    wrong = {"one\n...\nthree": "one\n...\nfour",
             "$ exit 3  # exit 3": "$ exit 3",
             "sub\n```\n\n```python\nprint(x + 1)": "sub\n```\n\n```python\nprint(x + 1)\n```\n\n```text\n41"}[change]
    page = PAGE.replace(change, wrong, 1)
    assert page != PAGE
    with pytest.raises(pytest.fail.Exception) as failed:
        run_page(page, "page.md", tmp_path, monkeypatch)
    assert message in str(failed.value)
    if "differs" in message:
        assert "-four" in str(failed.value) and "+three" in str(failed.value)


def test_the_venvs_dstc2conv_is_on_path(tmp_path, monkeypatch):
    page = "```console\n$ command -v dstc2conv\n...\n```\n"
    run_page(page, "page.md", tmp_path, monkeypatch)
    found = subprocess.run(["bash", "-c", "command -v dstc2conv"], env=_environment(), capture_output=True, text=True)
    assert found.stdout.strip() == str(Path(sys.executable).parent / "dstc2conv")


def test_the_corpus_setup_links_the_shared_files(tmp_path, monkeypatch):
    page = ("<!-- setup: corpus -->\n```console\n$ ls data_raw published\ndata_raw:\ndstc2_traindev.tar.gz\n\n"
            "published:\ndialog-babi-task6-dstc2-dev.txt\ndialog-babi-task6-dstc2-kb.txt\ndialog-babi-task6-dstc2-trn.txt\n```\n")
    run_page(page, "page.md", tmp_path, monkeypatch)
    assert (tmp_path / "data_raw" / TRAINDEV.name).resolve() == TRAINDEV.resolve()


def test_without_the_setup_the_folder_is_empty(tmp_path, monkeypatch):
    run_page("```console\n$ ls -A | wc -l\n0\n```\n", "page.md", tmp_path, monkeypatch)


def test_output_before_any_command_is_an_error_naming_the_line(tmp_path, monkeypatch):
    with pytest.raises(pytest.fail.Exception) as failed:
        run_page("Text.\n\n```console\nhello\n$ true\n```\n", "page.md", tmp_path, monkeypatch)
    assert str(failed.value) == "page.md:4: output before any `$ ` command: 'hello'"
