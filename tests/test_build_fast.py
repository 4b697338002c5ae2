"""The build's bytes, whatever the number of processes and the readers installed."""
from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import GOLDEN, SAMPLE

from dstc2conv import dstc2
from dstc2conv.build import BuildOptions, build


def _built(out) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(out.iterdir())}


def _golden(name: str) -> dict[str, bytes]:
    files = _built(GOLDEN / name)
    files["manifest.json"] = files["manifest.json"].replace(b"<sample>", str(SAMPLE).encode())
    return files


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("user, golden", [("transcription", "sample-all"), ("asr", "sample-all-asr")])
def test_sample_build_is_the_golden_bytes(tmp_path, jobs, user, golden):
    build(BuildOptions(split="all", raw=(str(SAMPLE),), out=str(tmp_path / "o"), user=user, jobs=jobs))
    assert _built(tmp_path / "o") == _golden(golden)


def _tarball(path, mode="w:gz", form=tarfile.PAX_FORMAT, top=""):
    with tarfile.open(path, mode, format=form) as tf:
        for part in ("data", "scripts"):
            tf.add(SAMPLE / part, arcname=top + part)
    return str(path)


@pytest.mark.parametrize("name, mode, form, top, plain", [
    ("pax.tar.gz", "w:gz", tarfile.PAX_FORMAT, "", True),
    ("gnu.tar.gz", "w:gz", tarfile.GNU_FORMAT, "", True),
    ("ustar.tar", "w", tarfile.USTAR_FORMAT, "", True),
    ("longnames.tar.gz", "w:gz", tarfile.PAX_FORMAT, "x" * 90 + "/", True),   # pax path records
    ("gnulong.tar.gz", "w:gz", tarfile.GNU_FORMAT, "x" * 90 + "/", False),    # GNU long-name headers
    ("bzip2.tar.bz2", "w:bz2", tarfile.PAX_FORMAT, "", False),
])
def test_every_tarball_reads_as_tarfile_reads_it(tmp_path, name, mode, form, top, plain):
    path = _tarball(tmp_path / name, mode, form, top)
    members = list(dstc2._tarfile_members(path))
    if plain:
        assert list(dstc2._plain_members(path)) == members
    else:
        with pytest.raises(dstc2._NotPlain):
            list(dstc2._plain_members(path))
    build(BuildOptions(split="all", raw=(path,), out=str(tmp_path / "o")))
    built, golden = _built(tmp_path / "o"), _golden("sample-all")
    del built["manifest.json"], golden["manifest.json"]
    assert built == golden


# Imports of the compiled readers fail, as where their wheels are not installed.
WITHOUT = """
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {absent!r}:
            raise ImportError(name)
sys.meta_path.insert(0, Absent())
from dstc2conv import cli, dstc2
print(dstc2._gunzip.__module__)
sys.argv = ["dstc2conv", "build", "--split", "all", "--quiet", "--raw", {raw!r}, "--out", {out!r}]
cli.main()
"""


def test_without_the_compiled_readers_the_bytes_are_the_same(tmp_path):
    raw = _tarball(tmp_path / "dstc2.tar.gz")
    outs = {}
    for absent in ((), ("isal",)):
        out = str(tmp_path / f"out-{len(absent)}")
        code = WITHOUT.format(absent=set(absent), raw=raw, out=out)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert done.stdout.split()[0] == ("gzip" if absent else "isal.igzip")
        outs[absent] = _built(Path(out))
    assert outs[()] == outs[("isal",)]
