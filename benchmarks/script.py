"""What every benchmark script does on bad input: one line naming the file, exit 2."""
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
