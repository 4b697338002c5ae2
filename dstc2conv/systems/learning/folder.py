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
    folder = os.path.normpath(folder)
    if os.path.lexists(folder) and not (os.path.isdir(folder) and (os.path.isfile(os.path.join(folder, META))
                                                                   or not os.listdir(folder))):
        raise Dstc2ConvError("cannot write the model: it exists and is not a model folder", folder)
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise Dstc2ConvError(f"cannot write the model: no folder {parent}", folder)
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


def load(folder: str, system: str) -> tuple[dict, dict[str, np.ndarray]]:
    """The meta and weights of the model folder, which must hold a ``system`` model of
    this format version."""
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
    path = os.path.join(folder, WEIGHTS)
    try:
        with np.load(io.BytesIO(read_bytes(path, "a model's weights")), allow_pickle=False) as archive:
            weights = {name: archive[name] for name in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise Dstc2ConvError(f"cannot read the weights: {exc}", path) from None
    return meta, weights
