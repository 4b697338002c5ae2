"""The model folder: ``model.json`` (format, version, system, settings, vocabulary,
candidates, dev curve, training facts) and ``weights.npz`` (one array per parameter, read
with ``allow_pickle=False``: loading runs no code). A folder is written whole or not at
all: into a temporary folder beside it, then renamed into place."""
from __future__ import annotations

import io
import json
import os
import shutil
import zipfile

import numpy as np

from ...errors import Dstc2ConvError
from ...files import read_bytes, read_json

FORMAT = "dstc2conv-learned-model"
VERSION = 1
META, WEIGHTS = "model.json", "weights.npz"


def save(folder: str, meta: dict, weights: dict[str, np.ndarray]) -> None:
    """Write ``meta`` (plus format and version) and ``weights`` as a model folder; an
    existing model folder there is replaced, anything else refused."""
    folder = check_writable(folder)
    temp = f"{folder}.tmp-{os.getpid()}"
    old = f"{folder}.old-{os.getpid()}"
    try:
        shutil.rmtree(temp, ignore_errors=True)
        os.mkdir(temp)
        text = json.dumps({"format": FORMAT, "version": VERSION, **meta}, indent=1, ensure_ascii=False) + "\n"
        with open(os.path.join(temp, META), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        with open(os.path.join(temp, WEIGHTS), "wb") as fh:
            fh.write(npz_bytes(weights))
        if os.path.isdir(folder):
            os.rename(folder, old)
        os.rename(temp, folder)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise Dstc2ConvError(f"cannot write the model: {exc.strerror or exc}", folder) from None
    finally:
        shutil.rmtree(temp, ignore_errors=True)
        if os.path.isdir(old) and not os.path.exists(folder):
            os.rename(old, folder)


def check_writable(folder: str) -> str:
    """``folder`` (normalised) if a model can be written there: nothing there yet, an
    empty folder or a model folder, in a folder that exists; else a Dstc2ConvError. A
    command checks this before it trains."""
    folder = os.path.normpath(folder)
    if os.path.lexists(folder) and not (os.path.isdir(folder) and (os.path.isfile(os.path.join(folder, META))
                                                                   or not os.listdir(folder))):
        raise Dstc2ConvError("cannot write the model: it exists and is not a model folder", folder)
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise Dstc2ConvError(f"cannot write the model: no folder {parent}", folder)
    return folder


def npz_bytes(weights: dict[str, np.ndarray]) -> bytes:
    """The arrays as an .npz archive, the same bytes for the same arrays (fixed entry
    dates, names in order)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(weights):
            data = io.BytesIO()
            np.lib.format.write_array(data, np.ascontiguousarray(weights[name]), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), data.getvalue())
    return out.getvalue()


def load(folder: str, system: str, shapes) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta and weights of the model folder, which must hold a ``system`` model of
    this format version, and exactly the weights ``shapes(meta)`` names (name -> shape),
    float32 and finite. Each array's header is checked before its data is read, so a
    weights file claims no more memory than the model's shapes."""
    if not os.path.isdir(folder):
        raise Dstc2ConvError("no model folder there", folder)
    path = os.path.join(folder, META)
    if not os.path.isfile(path):
        raise Dstc2ConvError(f"not a model folder: no {META}", folder)
    meta = read_json(path, "a model's settings")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise Dstc2ConvError(f"not a dstc2conv model (format is not {FORMAT})", path)
    if meta.get("version") != VERSION:
        raise Dstc2ConvError(f"a model of format version {meta.get('version')}; this dstc2conv reads version "
                             f"{VERSION}: train it again", path)
    if meta.get("system") != system:
        raise Dstc2ConvError(f"a model of {meta.get('system')}, not of {system}", path)
    expected = shapes(meta)
    path = os.path.join(folder, WEIGHTS)
    weights = {}
    try:
        with zipfile.ZipFile(io.BytesIO(read_bytes(path, "a model's weights"))) as archive:
            names = sorted(archive.namelist())
            if names != sorted(f"{name}.npy" for name in expected):
                raise Dstc2ConvError(f"the weights hold {', '.join(names) or 'nothing'}, not "
                                     f"{', '.join(sorted(expected))}", path)
            for name, shape in expected.items():
                with archive.open(f"{name}.npy") as fh:
                    version = np.lib.format.read_magic(fh)
                    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                   else np.lib.format.read_array_header_2_0)
                    found, fortran, dtype = read_header(fh)
                    if tuple(found) != tuple(shape) or dtype != np.float32 or fortran:
                        raise Dstc2ConvError(f"weights {name} are {dtype} of shape {tuple(found)}, not float32 of "
                                             f"shape {tuple(shape)}", path)
                with archive.open(f"{name}.npy") as fh:
                    array = np.lib.format.read_array(fh, allow_pickle=False)
                if not np.isfinite(array).all():
                    raise Dstc2ConvError(f"weights {name} hold a value that is not a finite number", path)
                weights[name] = array
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise Dstc2ConvError(f"cannot read the weights: {exc}", path) from None
    return meta, weights
