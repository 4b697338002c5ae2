"""A chooser's model folder: ``chooser.json`` (the format, its version, the settings, the
vocabularies, what it was trained on, the SHA-256 of the weights) and ``weights.npz`` (the
arrays ``W`` and ``u``, read with ``allow_pickle=False``). Both are written as one
(``files.write_files_atomic``): a stop leaves both or neither; the same model gives the
same bytes."""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import asdict, fields

import numpy as np

from ...errors import Dstc2ConvError
from ...files import output_folder, read_bytes, write_files_atomic
from ..folder import npz_bytes
from .actions import Action
from .encode import Vocabulary
from .learned import Model
from .settings import Settings

FORMAT = "dstc2conv-chooser"
VERSION = 2          # 2: trained by L-BFGS (settings: iterations, not epochs, batch, rate)
SETTINGS_FILE = "chooser.json"
WEIGHTS_FILE = "weights.npz"
def check_folder(folder: str) -> None:
    """Raise now, before any work, if the model folder cannot be made or written."""
    output_folder(folder, "the model")


def save(model: Model, folder: str) -> list[str]:
    """Write the model into ``folder`` (made if missing); the paths written."""
    check_folder(folder)
    weights = npz_bytes({"W": model.W.astype(np.float64), "u": model.u.astype(np.float64)})
    settings = {
        "format": FORMAT,
        "version": VERSION,
        "settings": asdict(model.settings),
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
        "trained": {k: v for k, v in model.info.items() if k != "weights"},   # "weights": set by load
        "actions": [a.key for a in model.vocab.actions],
        "features": list(model.vocab.features),
        "columns": list(model.vocab.columns),
    }
    paths = [os.path.join(folder, WEIGHTS_FILE), os.path.join(folder, SETTINGS_FILE)]
    text = json.dumps(settings, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    write_files_atomic([(paths[0], weights), (paths[1], text.encode())])
    return paths


def load(folder: str) -> Model:
    """The model of a folder ``save`` wrote; anything else is one clear error."""
    if not os.path.isdir(folder):
        raise Dstc2ConvError("no such model folder (dstc2conv rules learn writes one)", folder)
    path = os.path.join(folder, SETTINGS_FILE)
    if not os.path.isfile(path):
        raise Dstc2ConvError(f"not a chooser's model folder: no {SETTINGS_FILE}", folder)
    raw = read_bytes(path, "a chooser's settings")
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Dstc2ConvError(f"not JSON: {exc}", path) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise Dstc2ConvError(f"not a chooser's settings (format is not {FORMAT!r})", path)
    if meta.get("version") != VERSION:
        raise Dstc2ConvError(f"a chooser of format version {meta.get('version')!r}; this dstc2conv reads "
                             f"version {VERSION}: train it again", path)
    try:
        known = {f.name for f in fields(Settings)}
        settings = Settings(**{k: v for k, v in meta["settings"].items() if k in known})
        actions = tuple(Action.from_key(k) for k in meta["actions"])
        features = tuple(str(f) for f in meta["features"])
        columns = tuple(str(f) for f in meta["columns"])
        expected = str(meta["weights_sha256"])
        info = dict(meta.get("trained") or {})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Dstc2ConvError(f"a chooser's settings with a missing or bad entry: {exc}", path) from None
    if not features or features[0] != "bias":
        raise Dstc2ConvError("a chooser's settings whose first feature is not 'bias'", path)
    wpath = os.path.join(folder, WEIGHTS_FILE)
    if not os.path.isfile(wpath):
        raise Dstc2ConvError(f"not a chooser's model folder: no {WEIGHTS_FILE}", folder)
    data = read_bytes(wpath, "a chooser's weights")
    if hashlib.sha256(data).hexdigest() != expected:
        raise Dstc2ConvError(f"the weights are not those {SETTINGS_FILE} names (another training's, or damaged)",
                             wpath)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            W, u = np.array(arrays["W"], dtype=np.float64), np.array(arrays["u"], dtype=np.float64)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise Dstc2ConvError(f"not a chooser's weights: {exc}", wpath) from None
    if W.shape != (len(features), len(actions) + 1) or u.shape != (len(columns),):
        raise Dstc2ConvError(f"weights of shapes {W.shape} and {u.shape} do not fit the settings' "
                             f"{len(features)} features, {len(actions)} actions and {len(columns)} column "
                             "features", wpath)
    if not (np.isfinite(W).all() and np.isfinite(u).all()):
        raise Dstc2ConvError("weights that are not finite numbers", wpath)
    info["weights"] = expected
    return Model(Vocabulary(actions, features, columns), W, u, settings, info)


__all__ = ["FORMAT", "VERSION", "SETTINGS_FILE", "WEIGHTS_FILE", "check_folder", "save", "load"]
