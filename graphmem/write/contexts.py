"""A turn's context vector: the embedding of the turn before it and itself, read together
(the text `fragments/turn_context` stores as `context`: the turn before, a newline, the
turn; embedded as any passage), which recall's context list compares with the query
(docs/decisions.md, "A turn is matched with the turn before it"). With e5 it finds more
than the mean of the two turns' vectors, which a turn written before keeps
(graphmem/read/fusion.py, `mean_cosine`) until `graphmem reembed` makes its own.

A write makes the vectors of the contexts it set or changed (its turns', and the next
turns') in its own transaction, after it placed them, so a context and its vector always
agree; a turn with no turn before it (a session's first) has no context and reads as
itself."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.embedding.embedders import Embeds, Given
from graphmem.graph.store import Tx, run


def embed_contexts(tx: Tx, embedder: Embeds, scope: str, placed: Sequence[str]) -> int:
    """Give every context the memories `placed` in `scope` set (theirs, and their next
    turns') a vector, inside `tx` (with given vectors, by the model they stand for;
    none without one); returns how many were made."""
    if isinstance(embedder, Given):  # vectors a caller brought: the model makes these
        if embedder.contexts is None:
            return 0
        embedder = embedder.contexts
    if not placed:
        return 0
    rows = run(tx, "ingest/unembedded_contexts", scope=scope, ids=list(placed))
    return set_vectors(tx, embedder, scope, rows)


def set_vectors(tx: Tx, embedder: Embeds, scope: str, rows: Sequence[dict]) -> int:
    """Embed each row's context ({id, context}) and store it as that turn's context vector
    where the context is still the one embedded; returns how many were stored."""
    if not rows:
        return 0
    vectors = embedder.embed([r["context"] for r in rows])
    return int(run(tx, "ingest/set_context_vectors", scope=scope, rows=[
        {"id": r["id"], "context": r["context"], "embedding": v.tolist()}
        for r, v in zip(rows, vectors, strict=True)])[0]["n"])
