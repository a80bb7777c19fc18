"""The base every part of graphmem stands on: settings, the vocabulary and the public
types, errors, the rules a write is checked by (gates), the model registry, decay curves,
a memory's row as the types read it, and the HTTP and token rules the doors share. It
imports nothing above it (the layers contract in pyproject.toml)."""
