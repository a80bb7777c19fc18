"""The `graphmem` command's entry point: hand the call to the warm process when it can
(`graphmem.handoff`), else run it here (`graphmem.cli`). Nothing heavy is imported before
that choice."""

from __future__ import annotations

import sys


def main() -> None:
    """Console-script entry point."""
    from graphmem import handoff

    code = handoff.call(sys.argv[1:])
    if code is None:
        from graphmem.cli import main as here

        here()
    sys.exit(code)
