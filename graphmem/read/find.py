"""Finding memories of a scope by id or by one metadata value (`graphmem get`), the newest
of some scopes, and the scopes under a prefix (what a framework store lists)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

from graphmem.base.errors import InputError, whole_text
from graphmem.base.gates import shown
from graphmem.base.rows import to_memories
from graphmem.base.types import META_KEY, SESSION_NAME, EntityOut, Link, MemoryOut
from graphmem.graph.store import Store


def find(store: Store, scope: str, ids: Sequence[str] | None, *,
         meta: tuple[str, Any] | None = None, limit: int = 100) -> list[MemoryOut]:
    """Memories of `scope` by id, or by one metadata value (`("dia_id", "D1:3")`); a value
    given as text also matches the number or boolean it spells ("3" finds 3)."""
    whole_text(ids or [], "id")
    key, values = None, []
    if meta is not None:
        whole_text([meta[0], *([meta[1]] if isinstance(meta[1], str) else [])], "--meta")
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
    return to_memories(rows)


def recent(store: Store, scope: str, layers: Sequence[str] = (), *,
           order: str | None = None, offset: int = 0, limit: int = 100) -> list[MemoryOut]:
    """The live memories of `scope` and the public ones of `layers`, newest first (by the
    ISO-8601 time in metadata `order`, else by when they were written), `limit` of them
    after `offset`."""
    if offset < 0 or not 0 <= limit <= 10_000:
        raise InputError("offset must be >= 0 and limit 0-10000", field="limit")
    if order is not None and not META_KEY.fullmatch(order):
        raise InputError(f"metadata key {shown(order)} must be letters, digits or _",
                         field="order")
    rows = store.read("explore/recent", scope=scope, layers=[s for s in layers if s != scope],
                      order=None if order is None else f"meta.{order}",
                      offset=offset, limit=limit)
    return to_memories(rows)


def scopes_under(store: Store, prefix: str) -> list[str]:
    """The scopes whose names start with `prefix` and hold a live memory, sorted."""
    return [r["scope"] for r in store.read("explore/scopes_under", prefix=prefix)]


def session_turns(store: Store, scope: str, session: str, last: int, *,
                  every: bool = False) -> list[MemoryOut]:
    """The last `last` live turns of a session of `scope` (with `every`, archived and
    shadowed ones too), oldest of them first."""
    whole_text(session, "session")
    if not session or not SESSION_NAME.fullmatch(session):
        raise InputError("name the session (up to 200 characters, no # or line break)",
                         field="session")
    rows = store.read("explore/session_turns", scope=scope, session=f"{scope}#{session}",
                      last=last, every=every)
    return to_memories(rows)


def entities(store: Store, scope: str, limit: int) -> list[EntityOut]:
    """What `scope`'s memories name, those named by most memories first."""
    return [EntityOut(**r) for r in store.read("explore/entities", scope=scope, limit=limit)]


def count(store: Store, scope: str | None) -> int:
    """How many memories `scope` holds (every lifecycle), or the whole graph for None."""
    return int(store.read("admin/count_memories", scope=scope)[0]["memories"])


def links(store: Store, scope: str, ids: Sequence[str]) -> list[Link]:
    """Every edge from one of `ids` to a memory, entity or session (at most 500)."""
    whole_text(ids, "id")
    return [Link(**r) for r in store.read("explore/links", scope=scope, ids=list(ids))]
