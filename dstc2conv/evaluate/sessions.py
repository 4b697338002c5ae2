"""Which DSTC2 call, and so which dialog system, each dialog of a task-6 file came from.

A build's ``manifest.json`` lists, per task-6 file, the session of each dialog in file
order (``Mar13_S1A0/voip-...``). The folder names the dialog manager: ``S0`` (the MDP
system of the train/dev calls), ``S1`` (a POMDP system, train), ``S2`` (the POMDP
system whose policy was learnt, test only). A published file has the same dialogs in
the same order as our build of the same split, so our manifest serves it too.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..builder.manifest import MANIFEST, Manifest
from ..errors import Dstc2ConvError

_SYSTEM = re.compile(r"_(S\d+)A\d+(?:/|$)")


@dataclass(frozen=True)
class Sessions:
    manifest: str                  # the manifest read
    entry: str                     # the file it lists them for
    split: str | None              # that file's split, as the manifest says
    sessions: tuple[str, ...]      # one per dialog, in file order

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(system_of(s) for s in self.sessions)


def system_of(session: str) -> str:
    """``S0`` for ``Mar13_S0A1/voip-...``; ``?`` for a session path that names no system."""
    found = _SYSTEM.search(session)
    return found.group(1) if found else "?"


def _entry(manifest: Manifest, name: str) -> tuple[str | None, tuple[str, ...]] | None:
    """(split, sessions) of the file ``name``, None when the manifest does not list it."""
    entry = manifest.files.get(name)
    return None if entry is None else (entry.split, entry.dialogs)


def _dialogs(n: int) -> str:
    return f"{n} dialog" if n == 1 else f"{n} dialogs"


def read_sessions(data_path: str | os.PathLike, dialogs: int, manifest: str | os.PathLike | None = None,
                  ) -> Sessions | None:
    """The sessions of the ``dialogs`` dialogs of a task-6 file.

    With ``manifest`` given, it must list them: under the file's name, or else under the
    only file it lists with that many dialogs (a published file, or a renamed copy);
    otherwise an error. Without, ``manifest.json`` beside the file is used when it lists
    the file by name; None when there is none. A count that differs is an error either way.
    """
    data_path = os.fspath(data_path)
    name = os.path.basename(data_path)
    if manifest is None:
        beside = os.path.join(os.path.dirname(data_path), MANIFEST)
        if not os.path.isfile(beside):
            return None
        path, listing = beside, Manifest.read(beside)
        found = _entry(listing, name)
        if found is None:
            return None
    else:
        path = os.fspath(manifest)
        listing = Manifest.read(path)
        found, entry_name = _entry(listing, name), name
        if found is None:
            files = sorted(listing.files)
            same = [(n, e) for n in files if (e := _entry(listing, n)) and len(e[1]) == dialogs]
            if len(same) != 1:
                listed = ", ".join(f"{n} ({len(e[1])})" for n in files if (e := _entry(listing, n))) or "none"
                raise Dstc2ConvError(f"the manifest does not list {name}, nor exactly one file of "
                                     f"{_dialogs(dialogs)} (it lists: {listed})", path)
            entry_name, found = same[0]
        name = entry_name
    split, sessions = found
    if len(sessions) != dialogs:
        raise Dstc2ConvError(f"the manifest lists {_dialogs(len(sessions))} for {name}, "
                             f"the data file has {dialogs}: not the same dialogs", path)
    return Sessions(path, name, split, sessions)
