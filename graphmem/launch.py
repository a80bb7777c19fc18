"""The `graphmem` command's entry point: hand the call to the warm process when it can
(`graphmem.base.handoff`), else run it here (`graphmem.cli`). Nothing heavy is imported before
that choice."""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point. Ctrl-C anywhere (while graphmem loads, too) ends the
    call with one line and exit code 130, never a traceback."""
    try:
        from graphmem.base import handoff

        code = handoff.call(sys.argv[1:])
        if code is None:
            from graphmem.cli import main as here

            here()
    except KeyboardInterrupt:
        from graphmem.base.handoff import INTERRUPTED, INTERRUPTED_CODE  # standard library only

        sys.stderr.write(INTERRUPTED)
        code = INTERRUPTED_CODE
    sys.exit(code)
