"""The read path: from a query to ranked memories.

vector mode: the vector index's approximate neighbours, filtered to the caller's scope;
when the index's list holds too few of them, an exact scan of the scope, so no memory
is missed because other scopes crowded the index.
"""

from __future__ import annotations

import time
from typing import Any

from graphmem.embed import Embedder
from graphmem.errors import InputError
from graphmem.schema import VECTOR_INDEX
from graphmem.store import Store
from graphmem.types import Hit, RecallResult

MAX_TOP_K = 1000
MODES = ("vector",)
#: How many index neighbours to fetch per wanted hit before filtering.
OVERFETCH = 10


def check_request(query: str, top_k: int, mode: str) -> None:
    """Reject an empty query, an unknown mode, or a top-k outside 1..MAX_TOP_K."""
    if not query.strip():
        raise InputError("the query is empty", field="query")
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r} (one of {', '.join(MODES)})", field="mode")
    if not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top-k must be between 1 and {MAX_TOP_K}, got {top_k}", field="top_k")


def to_hit(memory: dict[str, Any], relevance: float) -> Hit:
    """Build a Hit from a `m {.*}` map; `meta.<key>` properties become its metadata."""
    metadata = {k[5:]: v for k, v in memory.items() if k.startswith("meta.")}
    created = memory.get("created_at")
    return Hit(
        id=memory["id"],
        text=memory["text"],
        kind=memory.get("kind") or "episodic",
        scope=memory["scope"],
        score=relevance,
        relevance=relevance,
        created_at=created.to_native() if hasattr(created, "to_native") else created,
        tags=memory.get("tags") or [],
        metadata=metadata,
    )


def recall(
    store: Store,
    embedder: Embedder,
    query: str,
    *,
    scope: str,
    top_k: int = 10,
    mode: str = "vector",
    lifecycles: tuple[str, ...] = ("active",),
) -> RecallResult:
    """Find the memories of `scope` nearest in meaning to `query`, best first."""
    check_request(query, top_k, mode)
    embedder.warm()
    started = time.perf_counter()
    vector = embedder.embed_query(query).tolist()
    params = {"vector": vector, "scope": scope, "lifecycles": list(lifecycles), "k": top_k}
    rows = store.read("recall/vector", index=VECTOR_INDEX, fetch=top_k * OVERFETCH, **params)
    if len(rows) < top_k:
        rows = store.read("recall/vector_scan", **params)
    hits = [to_hit(r["memory"], r["relevance"]) for r in rows]
    took = (time.perf_counter() - started) * 1000
    return RecallResult(query=query, mode=mode, scope=scope, hits=hits, took_ms=round(took, 2))
