"""Other projects' own reading and scoring code, run on dstc2conv's output: read at run
time from ../shared/official (never copied here); the tests that use it skip when it is
absent, and fail with DSTC2CONV_REQUIRE_DATA=1."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path

from conftest import SHARED, need

OFFICIAL = SHARED / "official"
DEEPPAVLOV_READER = OFFICIAL / "deeppavlov" / "dstc2_reader.py"
DSTC6 = OFFICIAL / "dstc6" / "py3"


def deeppavlov_reader():
    """DeepPavlov's ``DSTC2DatasetReader``, its framework imports stubbed (they are only a
    decorator, a registry, a base class and download helpers), its code unchanged."""
    path = need(DEEPPAVLOV_READER)
    stubs = {"overrides": {"overrides": lambda f: f},
             "deeppavlov": {}, "deeppavlov.core": {}, "deeppavlov.core.common": {}, "deeppavlov.core.data": {},
             "deeppavlov.core.common.registry": {"register": lambda name: (lambda cls: cls)},
             "deeppavlov.core.data.dataset_reader": {"DatasetReader": object},
             "deeppavlov.core.data.utils": {"download_decompress": None, "mark_done": None}}
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        for name, attributes in stubs.items():
            module = types.ModuleType(name)
            module.__dict__.update(attributes)
            sys.modules[name] = module
        spec = importlib.util.spec_from_file_location("official_dstc2_reader", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, module_before in saved.items():
            if module_before is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module_before
    return module.DSTC2DatasetReader


def dstc6(script: str, *args: str, cwd: Path | None = None) -> str:
    """Runs the DSTC6 track's py3 ``script`` (``score.py``, ...) with ``args``; its stdout."""
    path = need(DSTC6 / script)
    done = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout
