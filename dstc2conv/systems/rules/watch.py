"""``rules score --watch``: call back on every save of the rule file or its ontology.

Polls the files' modification time, size and inode every ``INTERVAL`` seconds (no
dependency, and an editor that saves by renaming a new file over the old one is seen
too). A rule file that stays missing for ``GRACE`` polls in a row (longer than an editor
takes to replace it) is an error: the watch ends. Ctrl-C (KeyboardInterrupt) goes
through to the caller."""
from __future__ import annotations

import os
import time
from collections.abc import Callable

from ...errors import Dstc2ConvError

INTERVAL = 0.2     # seconds between two polls
GRACE = 5          # polls the rule file may be missing before it counts as deleted


def stamp(path: str) -> tuple | None:
    """What tells a save of ``path``: (modification time, size, inode); None if it is not there."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def pause(seconds: float) -> None:
    """The wait between two polls (the tests replace it with saves made at once)."""
    time.sleep(seconds)


def watch(rules: str, rescore: Callable[[], None], watched: Callable[[], list[str]],
          interval: float = INTERVAL, polls: int | None = None) -> None:
    """Call ``rescore()`` after every change of the files ``watched()`` names (the rule
    file ``rules`` first), polling every ``interval`` seconds (``pause``), ``polls`` times
    (None: until interrupted). Raise Dstc2ConvError when ``rules`` is missing ``GRACE``
    polls in a row."""
    seen = {path: stamp(path) for path in watched()}
    missing = 0
    done = 0
    while polls is None or done < polls:
        pause(interval)
        done += 1
        now = {path: stamp(path) for path in watched()}
        if now.get(rules) is None:
            missing += 1
            if missing >= GRACE:
                raise Dstc2ConvError("the rule file was deleted while watched: watch stopped", rules)
            continue
        missing = 0
        if now != {path: seen.get(path) for path in now}:
            rescore()
            # the files rescore() read: an ontology named anew is watched from now on
            now = {path: stamp(path) for path in watched()}
        seen = now
