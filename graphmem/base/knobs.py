"""The write path's knobs (each with its default and bounds, defined once) and the rule a
scope name keeps: Settings reads the knobs from the environment, WriteOptions
(graphmem.base.options) carries them into one write. Apart from graphmem.base.settings so that what
only checks values (the CLI's declared options, say) does not load the settings
machinery."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from graphmem.base import models
from graphmem.base.gates import credential_reason, shown

#: Cosine at or above which a new text confirms an existing memory.
#: Each model has its own (graphmem.base.models), which the write path takes unless these are
#: set; these constants are MiniLM's, for a model the registry does not know.
DedupThreshold = Annotated[float, Field(gt=0.0, le=1.0)]
DEDUP_THRESHOLD = models.MINILM.dedup_threshold
#: Cosine at or above which memories of one session are linked.
SynapticThreshold = Annotated[float, Field(gt=0.0, le=1.0)]
SYNAPTIC_THRESHOLD = models.MINILM.synaptic_threshold
#: At most this many synaptic links per new memory.
SynapticLinks = Annotated[int, Field(ge=0, le=100)]
SYNAPTIC_MAX_LINKS = 5
#: Records per write statement.
BatchSize = Annotated[int, Field(ge=1, le=10_000)]
WRITE_BATCH_SIZE = 500
#: Records one transaction writes at most: a bigger input is a run of chunks of this many
#: with one outcome (graphmem.write.runs). At about 34 KB of transaction memory per record
#: (docs/results.md, "One input, one outcome"), 10,000 take ~340 MB of the default
#: 1.4 GiB pool, leaving room for concurrent writers.
ChunkRows = Annotated[int, Field(ge=1)]
CHUNK_ROWS = 10_000

#: The longest scope name.
MAX_SCOPE_CHARS = 200
_SCOPE = re.compile(rf"^[A-Za-z0-9_.:/@-]{{1,{MAX_SCOPE_CHARS}}}$")


def check_scope(value: str) -> str:
    """Return `value` if it is a valid scope name, else raise ValueError (which never
    quotes a value the secret scanner objects to: a scope names a tenant in messages).
    A scope holding a known kind of credential is refused; a random-looking id is not
    (user ids are: docs/decisions.md, "The secret scanner is a function")."""
    if not _SCOPE.fullmatch(value):
        raise ValueError(
            f"scope {shown(value)} may only hold letters, digits and _ . : / @ - (1-200 chars)"
        )
    if reason := credential_reason(value):
        raise ValueError(f"a scope must not be a secret: it {reason} (the value is not shown)")
    return value
