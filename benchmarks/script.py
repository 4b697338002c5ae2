"""What the benchmark scripts share: on bad input, one line naming the file and exit 2
(every script); a training file read with each dialog's DSTC2 system (the transfer ones)."""
from __future__ import annotations

import sys


def run_main(main) -> None:
    """Call ``main()``; a Dstc2ConvError (a missing or bad input) is one line on stderr, exit 2."""
    from dstc2conv.errors import Dstc2ConvError

    try:
        code = main()
    except Dstc2ConvError as exc:
        print(f"{sys.argv[0]}: error: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(code or 0)


def read_by_system(path: str, manifest: str | None):
    """(dialogs, bot turns, each dialog's DSTC2 system: S0, the MDP one, or S1, a POMDP
    one) of the task-6 file at ``path``, the systems from the manifest of a build of the
    same split (``manifest``, else one beside the file); an error naming the file when no
    manifest lists it."""
    from dstc2conv.errors import Dstc2ConvError
    from dstc2conv.evaluate.sessions import read_sessions
    from dstc2conv.task6.turns import read_file

    dialogs, turns = read_file(path)
    sessions = read_sessions(path, len(dialogs), manifest)
    if sessions is None:
        raise Dstc2ConvError("no manifest.json beside the file lists it: give a build's with --manifest", path)
    return dialogs, turns, sessions.systems
