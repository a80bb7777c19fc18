"""What recall's named queries return, typed (each as its file's header says), and rows
as public models: recall rows as Hits (the one mapping the read path's steps share) and
memory rows as MemoryOut (get, history, export)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypedDict

from graphmem.base.types import Hit, MemoryOut, PathStep

#: A memory's facts as recall's queries project them (cypher/fragments/rank_facts).
Facts = dict[str, Any]


class TextMatch(TypedDict):
    """A full-text match: its memory (null properties if a forget deleted it meanwhile),
    Lucene's score, and in a small scope the searched field's text."""

    id: str | None
    scope: str
    bm25: float
    text: str | None


class TextListRow(TypedDict):
    """`recall/text_lists`: one scope's search of one field (text or context)."""

    list: str
    scope: str
    small: bool
    returned: int
    found: list[TextMatch]
    docs: int | None
    chars: int | None


class ListPlace(TypedDict):
    """A candidate's place in one list: vector, text, context, next or exact."""

    list: str
    rank: int | None
    score: float | None


class CandidateRow(TypedDict, total=False):
    """A candidate of `recall/retrieve` (or a row of `recall/exact`)."""

    memory: Facts
    ranks: list[ListPlace]
    has_context: bool
    before: str | None
    after: str | None
    similarity: float | None
    context_similarity: float | None
    prev_query_similarity: float | None
    prev_similarity: float | None


class RetrieveRow(TypedDict):
    """`recall/retrieve`'s one row: how many vector candidates passed, how many the index
    returned (None after a scan), the candidates, and each scope's embedding model."""

    vector_found: int
    index_returned: int | None
    candidates: list[CandidateRow]
    models: list[dict[str, Any]]


#: An edge `recall/expand` walked ("from" is a keyword, hence this form).
Edge = TypedDict("Edge", {"from": str, "from_scope": str, "to": str, "to_scope": str,
                          "kind": str, "name": str | None, "weight": float | None,
                          "since": int | None, "degree": int | None})


class Named(TypedDict):
    """A memory that mentions or is about an entity the query names."""

    to: str
    to_scope: str
    entity: str
    name: str
    degree: int


class ReachedRow(TypedDict):
    """A memory association reached, with its facts and its similarity to the query."""

    memory: Facts
    about: list[str]
    before: str | None
    after: str | None
    similarity: float | None


class PoolRow(TypedDict):
    """A direct hit's neighbours in its session and what it is about of what is named."""

    id: str
    scope: str
    before: str | None
    after: str | None
    about: list[str]


class ExpandRow(TypedDict):
    """`recall/expand`'s one row."""

    edges: list[Edge]
    second: bool
    second_edges: list[Edge]
    named: list[Named]
    named_entities: int
    memories: list[ReachedRow]
    pool: list[PoolRow]


class ShowRow(TypedDict):
    """`recall/show`: what the answer shows of one memory (null if it is gone)."""

    id: str
    scope: str
    memory: Facts | None


def to_hit(row: Mapping[str, Any], via: str = "direct", activation: float | None = None,
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


def to_memories(rows: list[dict[str, Any]]) -> list[MemoryOut]:
    """Memory rows as MemoryOuts, passing over a memory a forget or delete removed while
    the query read it (its row comes back without properties): it is gone."""
    return [to_memory(r) for r in rows if r["memory"].get("id") is not None]


def placed(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row of `recall/retrieve`, `exact` or `expand` whose memory's facts hold its
    neighbours in its session (conversation order reads them there) and what it is
    about, where the row says."""
    extra = {k: row[k] for k in ("before", "after", "about") if k in row}
    return {**row, "memory": row["memory"] | extra}
