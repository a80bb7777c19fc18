"""`python -m graphmem` runs the CLI (the same as the `graphmem` command)."""

from graphmem.launch import main

main()
