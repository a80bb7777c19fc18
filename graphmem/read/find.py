"""Finding memories of a scope by id or by one metadata value (`graphmem get`)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from graphmem.errors import InputError
from graphmem.graph.store import Store
from graphmem.read.rows import to_memory
from graphmem.types import META_KEY, MemoryOut
from graphmem.write.gates import shown


def find(store: Store, scope: str, ids: Sequence[str] | None, *,
         meta: tuple[str, Any] | None = None, limit: int = 100) -> list[MemoryOut]:
    """Memories of `scope` by id, or by one metadata value (`("dia_id", "D1:3")`); a value
    given as text also matches the number or boolean it spells ("3" finds 3)."""
    key, values = None, []
    if meta is not None:
        if not META_KEY.fullmatch(meta[0]):
            raise InputError(f"metadata key {shown(meta[0])} must be letters, digits or _",
                             field="--meta")
        key, values = f"meta.{meta[0]}", [meta[1]]
        if isinstance(meta[1], str):
            with contextlib.suppress(ValueError):  # plain text: only itself can match
                values.append(json.loads(meta[1]))
    rows = store.read("admin/find_memories", scope=scope,
                      ids=list(ids) if ids is not None else None, key=key, values=values,
                      limit=limit)
    return [to_memory(r) for r in rows]
