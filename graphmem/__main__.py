"""`python -m graphmem` runs the CLI (the same as the `graphmem` command)."""

from graphmem.cli import main

main()
