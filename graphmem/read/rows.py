"""Rows as public models: recall rows as Hits (the one mapping the read path's steps
share) and memory rows as MemoryOut (get, history, export)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.types import Hit, MemoryOut, PathStep


def to_hit(row: dict[str, Any], via: str = "direct", activation: float | None = None,
           path: list[PathStep] | None = None) -> Hit:
    """Build a Hit from a recall row; `meta.<key>` properties become its metadata."""
    memory = row["memory"]
    # Recall queries project metadata as [key, value] pairs (fragments/hit.cypher).
    pairs = memory["meta"] if "meta" in memory else memory.items()
    metadata = {k[5:]: v for k, v in pairs if k.startswith("meta.") and v is not None}
    created = memory.get("created_at")
    if created is None and memory.get("created") is not None:  # epoch ms (fragments/facts)
        created = datetime.fromtimestamp(memory["created"] / 1000, UTC)
    return Hit(
        id=memory["id"],
        text=memory["text"],
        kind=memory.get("kind") or "episodic",
        scope=memory["scope"],
        score=row["score"],
        relevance=row["relevance"] if row["relevance"] is not None else 0.0,
        cosine=row.get("cosine"),
        bm25=row.get("bm25"),
        vector_rank=row.get("vector_rank"),
        text_rank=row.get("text_rank"),
        retention=row["retention"],
        layer=row["layer"],
        activation=activation,
        via=via,
        path=path or [],
        tier=memory.get("tier") or "hot",
        created_at=created.to_native() if hasattr(created, "to_native") else created,
        tags=memory.get("tags") or [],
        metadata=metadata,
        position=memory.get("position"),
    )


def to_memory(row: dict[str, Any]) -> MemoryOut:
    """A `find_memories` row as a MemoryOut (`meta.<key>` properties become metadata)."""
    props = {k: (v.to_native() if hasattr(v, "to_native") else v)
             for k, v in row["memory"].items() if v is not None}
    metadata = {k[5:]: props.pop(k) for k in list(props) if k.startswith("meta.")}
    if "session" in props:  # stored as the Session's id, "<scope>#<name>"
        props["session"] = props["session"].partition("#")[2]
    return MemoryOut(**props, metadata=metadata, sessions=row["sessions"],
                     entities=row["entities"], supersedes=row["supersedes"])


def placed(row: dict[str, Any]) -> dict[str, Any]:
    """A row of `recall/retrieve`, `exact` or `expand` whose memory's facts hold its
    neighbours in its session (conversation order reads them there) and what it is
    about, where the row says."""
    extra = {k: row[k] for k in ("before", "after", "about") if k in row}
    return {**row, "memory": row["memory"] | extra}
