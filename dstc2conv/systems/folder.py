"""The one model folder, for every system: ``model.json`` (the format and its version,
the system's name and class, its settings, what it learned that is not an array, and
what it was trained on) and ``weights.npz`` (its arrays, read with
``allow_pickle=False``: loading runs no code).

A folder is written whole or not at all: into a hidden temporary folder beside it, then
renamed into place with SIGINT, SIGTERM and SIGHUP held, so a stop leaves the old model
or the new one; the temporary folders of a run that was killed are removed by the next
save. The folder's own members are replaced, never written through (a member that is a
link to a file elsewhere leaves that file alone). The same model gives the same bytes.

Reading checks everything before it trusts it: the members must be regular files; the
JSON is bounded; each array's header is read before its data, and the arrays together
may not claim more than ``MAX_WEIGHTS`` bytes (nor other shapes than the system expects,
nor a dtype that is not a plain number). ``registry.load`` builds the system a folder
holds.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import stat
import zipfile
from tokenize import TokenError

from ..errors import Dstc2ConvError
from ..files import parse_json, read_bytes
from ..limits import MB

FORMAT = "dstc2conv-model"
VERSION = 2          # 2: one format for every system (1: the learned models' own)
META, WEIGHTS = "model.json", "weights.npz"
MAX_META = 64 * MB           # model.json: settings, vocabulary, candidates
MAX_WEIGHTS = 512 * MB       # every array of weights.npz, unpacked, together
LEGACY = {"dstc2conv-learned-model": "a model of an earlier dstc2conv", "dstc2conv-chooser": "a chooser of an "
          "earlier dstc2conv"}


# ---------------------------------------------------------------- writing

def save(system, folder: str, about: dict) -> None:
    """Write ``system`` as a model folder at ``folder``: nothing there yet, an empty
    folder or a model folder, which is replaced."""
    folder = check_writable(folder)
    if not system.fitted():
        raise Dstc2ConvError(f"{system.label()}: not fitted: nothing to save (call fit(train, dev) first)")
    import hashlib

    facts, arrays = system.state()
    weights = npz_bytes(arrays)
    meta = {"format": FORMAT, "version": VERSION, "system": system_name(system), "class": class_path(type(system)),
            "settings": _jsonable(system.get_params(), "setting", system), "facts": facts, "about": about,
            "weights_sha256": hashlib.sha256(weights).hexdigest()}
    try:
        text = json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise Dstc2ConvError(f"{system.label()}: what it learned cannot be written as JSON: {exc}", folder) from None
    write_folder(folder, {META: text.encode("utf-8"), WEIGHTS: weights})


def system_name(system) -> str:
    """The name a model folder gives its system: the one it was built by (the registry's,
    an entry point's, or ``module:Class``), else its class's ``module:Class``."""
    return getattr(system, "built_as", None) or class_path(type(system))


def class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _jsonable(settings: dict, what: str, system) -> dict:
    out = {}
    for key, value in settings.items():
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        elif isinstance(value, tuple):
            value = list(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            raise Dstc2ConvError(f"{system.label()}: the {what} {key}={type(value).__name__} cannot be written to a "
                                 "model folder: give it as a path, a number, a string or a list") from None
        out[key] = value
    return out


def check_writable(folder: str | os.PathLike, inputs: tuple = ()) -> str:
    """``folder`` (normalised) if a model can be written there: nothing there yet, an
    empty folder or a model folder, in a folder that exists, holding none of ``inputs``
    (the new folder replaces it whole); else a Dstc2ConvError. A command checks this
    before it trains."""
    folder = os.path.normpath(os.fspath(folder))
    inside = os.path.realpath(folder) + os.sep
    for given in inputs:
        if given and os.path.realpath(os.fspath(given)).startswith(inside):
            raise Dstc2ConvError(f"cannot write the model: it holds the input {os.fspath(given)}, which the new "
                                 "model would replace", folder)
    if os.path.lexists(folder) and not (os.path.isdir(folder) and not os.path.islink(folder)
                                        and (_is_model(folder) or not os.listdir(folder))):
        raise Dstc2ConvError("cannot write the model: it exists and is not a model folder", folder)
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise Dstc2ConvError(f"cannot write the model: no folder {parent}", folder)
    return folder


def _is_model(folder: str) -> bool:
    return any(os.path.isfile(os.path.join(folder, name)) for name in (META, "chooser.json"))


def _temp(folder: str, kind: str, pid: int) -> str:
    head, tail = os.path.split(os.path.abspath(folder))
    return os.path.join(head, f".{tail}.{kind}-{pid}")


def _clean_stale(folder: str) -> None:
    """Remove the temporary folders beside ``folder`` of saves whose process is gone."""
    head, tail = os.path.split(os.path.abspath(folder))
    for name in os.listdir(head):
        for kind in ("tmp", "old"):
            prefix = f".{tail}.{kind}-"
            if name.startswith(prefix) and name[len(prefix):].isdigit() and not _alive(int(name[len(prefix):])):
                path = os.path.join(head, name)
                if kind == "old" and not os.path.lexists(folder):
                    os.rename(path, folder)        # a save killed between its two renames: the old model back
                else:
                    shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


@contextlib.contextmanager
def _signals_held():
    mask = getattr(signal, "pthread_sigmask", None)     # not on Windows
    held = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}
    before = mask(signal.SIG_BLOCK, held) if mask else None
    try:
        yield
    finally:
        if mask:
            mask(signal.SIG_SETMASK, before)


def write_folder(folder: str, members: dict[str, bytes]) -> None:
    """The folder's members, written as one: a new folder, renamed into place."""
    temp, old = _temp(folder, "tmp", os.getpid()), _temp(folder, "old", os.getpid())
    try:
        _clean_stale(folder)
        shutil.rmtree(temp, ignore_errors=True)
        os.mkdir(temp)
        for name, data in members.items():
            with open(os.path.join(temp, name), "xb") as fh:
                fh.write(data)
        with _signals_held():
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


def npz_bytes(arrays: dict) -> bytes:
    """The arrays as an .npz archive, the same bytes for the same arrays (fixed entry
    dates, names in order)."""
    import numpy as np

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            data = io.BytesIO()
            np.lib.format.write_array(data, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            archive.writestr(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), data.getvalue())
    return out.getvalue()


# ---------------------------------------------------------------- reading

def read_meta(folder: str | os.PathLike) -> dict:
    """The checked ``model.json`` of a model folder."""
    folder = os.fspath(folder)
    if not os.path.isdir(folder):
        raise Dstc2ConvError("no model folder there", folder)
    legacy = os.path.join(folder, "chooser.json")      # a chooser's folder of an earlier dstc2conv
    path = legacy if not os.path.lexists(os.path.join(folder, META)) and os.path.isfile(legacy) else \
        member(folder, META)
    meta = parse_json(read_bytes(path, "a model's settings", MAX_META), path, "JSON")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        found = meta.get("format") if isinstance(meta, dict) else None
        legacy = LEGACY.get(found) if isinstance(found, str) else None
        raise Dstc2ConvError(f"{legacy}, which this version does not read: train it again" if legacy else
                             f"not a dstc2conv model (format is not {FORMAT})", path)
    if meta.get("version") != VERSION:
        raise Dstc2ConvError(f"a model of format version {meta.get('version')!r}; this dstc2conv reads version "
                             f"{VERSION}: train it again", path)
    for key, kind in (("system", str), ("class", str), ("settings", dict), ("facts", dict), ("about", dict)):
        if not isinstance(meta.get(key), kind):
            raise Dstc2ConvError(f"a damaged model: {key!r} is not a {kind.__name__}", path)
    sha = meta.get("weights_sha256")        # absent from folders saved before it was recorded: read as before
    if sha is not None and not (isinstance(sha, str) and len(sha) == 64 and set(sha) <= set("0123456789abcdef")):
        raise Dstc2ConvError("a damaged model: 'weights_sha256' is not a SHA-256 in hex", path)
    return meta


def fingerprint(folder: str | os.PathLike) -> str:
    """The SHA-256 of a model folder: of its ``model.json`` SHA-256 and its
    ``weights.npz`` SHA-256, one after the other (what a score's signature names it by)."""
    import hashlib

    from ..files import sha256_file

    folder = os.fspath(folder)
    parts = [sha256_file(member(folder, name)) for name in (META, WEIGHTS)]
    return hashlib.sha256("".join(parts).encode("ascii")).hexdigest()


def member(folder: str, name: str) -> str:
    path = os.path.join(folder, name)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        raise Dstc2ConvError(f"not a model folder: no {name}", folder) from None
    if not stat.S_ISREG(mode):
        raise Dstc2ConvError(f"a model folder holds regular files, and {name} is not one", path)
    return path


def read_arrays(path: str, expected: dict | None, sha256: str | None = None) -> dict:
    """The arrays of a weights file; its bytes must have the SHA-256 ``sha256`` (what
    model.json records), when given; each header is checked (a plain number dtype, the
    expected shape and dtype where ``expected`` names them, ``MAX_WEIGHTS`` bytes in all)
    before any array's data is read."""
    import hashlib

    import numpy as np

    data = read_bytes(path, "a model's weights", MAX_WEIGHTS + 64 * MB)
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise Dstc2ConvError(f"{WEIGHTS} is not the one this model was saved with (its SHA-256 is not the one "
                             f"{META} records): train it again or restore the file", os.path.dirname(path) or ".")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = sorted(archive.namelist())
            if any(not n.endswith(".npy") for n in names):
                raise Dstc2ConvError("the weights hold a member that is not an array", path)
            headers = {n[:-4]: _header(archive, n, path) for n in names}
            _check_headers(headers, expected, path)
            arrays = {}
            for name in headers:
                with archive.open(f"{name}.npy") as fh:
                    array = np.lib.format.read_array(fh, allow_pickle=False)
                if array.dtype.kind == "f" and not np.isfinite(array).all():
                    raise Dstc2ConvError(f"weights {name} hold a value that is not a finite number", path)
                arrays[name] = array
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, RuntimeError, SyntaxError, TokenError) as exc:
        raise Dstc2ConvError(f"cannot read the weights: {type(exc).__name__}: {exc}", path) from None
    return arrays


def _header(archive: zipfile.ZipFile, member: str, path: str) -> tuple:
    import numpy as np

    with archive.open(member) as fh:
        version = np.lib.format.read_magic(fh)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read(fh)
    if fortran or dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
        raise Dstc2ConvError(f"weights {member[:-4]} are {dtype}{' (Fortran order)' if fortran else ''}, not an "
                             "array of plain numbers", path)
    return tuple(shape), dtype


def _check_headers(headers: dict, expected: dict | None, path: str) -> None:
    import numpy as np

    total = 0
    for name, (shape, dtype) in headers.items():
        size = dtype.itemsize
        for n in shape:
            size *= n
        total += size
    if total > MAX_WEIGHTS:
        raise Dstc2ConvError(f"the weights claim {total // MB} MB unpacked, more than the {MAX_WEIGHTS // MB} MB "
                             "a model may hold", path)
    if expected is None:
        return
    if sorted(headers) != sorted(expected):
        raise Dstc2ConvError(f"the weights hold {', '.join(sorted(headers)) or 'nothing'}, not "
                             f"{', '.join(sorted(expected)) or 'nothing'}", path)
    for name, (shape, dtype) in expected.items():
        found, kind = headers[name]
        if tuple(found) != tuple(shape) or kind != np.dtype(dtype):
            raise Dstc2ConvError(f"weights {name} are {kind} of shape {tuple(found)}, not {np.dtype(dtype)} of "
                                 f"shape {tuple(shape)}", path)


__all__ = ["FORMAT", "VERSION", "META", "WEIGHTS", "MAX_WEIGHTS", "save", "read_meta", "member", "check_writable",
           "write_folder", "npz_bytes", "read_arrays", "class_path"]
