"""A turn's context vector: the embedding of the turn before it and itself, read together
(the text `fragments/turn_context` stores as `context`: the turn before, a newline, the
turn; embedded as any passage), which recall's context list compares with the query
(docs/decisions.md, "A turn is matched with the turn before it"). With e5 it finds more
than the mean of the two turns' vectors, which a turn written before keeps
(graphmem/read/fusion.py, `mean_cosine`) until `graphmem reembed` makes its own.

A write makes the vectors of the contexts it set or changed (its turns', and the next
turns') in its own transaction, after it placed them, so a context and its vector always
agree; a turn with no turn before it (a session's first) has no context and reads as
itself. Where the input holds the turn before (an importer's turns, with positions), the
context is foreseen and embedded with the texts, before the transaction and in one run of
the model (`foresee`, `embed_rows`); the transaction keeps the foreseen vector where the
context came out as foreseen and embeds only the rest."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from graphmem.embedding.embedders import Embeds, Given
from graphmem.graph.store import Tx, run
from graphmem.write.plan import Row


def foresee(rows: Sequence[Row]) -> None:
    """Set each row's `context` to what `fragments/turn_context` will make of it when the
    turn before it in its session is in the same input (rows with positions, ordered as
    `fragments/chain_turns` orders them); a session's first row of the input gets none."""
    chains: dict[str, list[Row]] = {}
    for r in rows:
        if r.session is not None and r.turn is not None:
            chains.setdefault(r.session, []).append(r)
    for chain in chains.values():
        chain.sort(key=lambda r: (r.turn, r.props["created_at"], r.id))
        for p, x in pairwise(chain):
            # a public turn never carries a private turn's text (fragments/context_text)
            if p.props["visibility"] == "public" or x.props["visibility"] == "private":
                x.context = p.props["text"] + "\n" + x.props["text"]


def embed_rows(embedder: Embeds, rows: Sequence[Row]) -> None:
    """Each row's vector, and its foreseen context's (`foresee`), in one run of the
    model; with given vectors, the contexts by the scope's model (none without it)."""
    texts = [r.props["text"] for r in rows]
    ahead = [r for r in rows if r.context is not None]
    contexts = [str(r.context) for r in ahead]
    if isinstance(embedder, Given):
        vectors = embedder.embed(texts)
        later = embedder.contexts.embed(contexts) if embedder.contexts and contexts else None
    else:
        both = embedder.embed(texts + contexts)
        vectors, later = both[:len(texts)], both[len(texts):]
    for r, v in zip(rows, vectors, strict=True):
        r.vector = v
    if later is not None:
        for r, v in zip(ahead, later, strict=True):
            r.context_vector = v


def embed_contexts(tx: Tx, embedder: Embeds, scope: str, placed: Sequence[Row],
                   unembedded: Sequence[dict]) -> int:
    """Give each context `ingest/place` found `unembedded` ({id, context}: the contexts
    the rows `placed` in `scope` set, theirs and their next turns') a vector, inside `tx`:
    the foreseen one where the context came out as foreseen, else made now (with given
    vectors, by the model they stand for; none without one); returns how many were
    stored."""
    if isinstance(embedder, Given):  # vectors a caller brought: the model makes these
        if embedder.contexts is None:
            return 0
        embedder = embedder.contexts
    foreseen = {r.id: (r.context, r.context_vector) for r in placed
                if r.context_vector is not None}
    return set_vectors(tx, embedder, scope, unembedded, foreseen)


def set_vectors(tx: Tx, embedder: Embeds, scope: str, rows: Sequence[dict],
                foreseen: dict[str, tuple[str | None, np.ndarray]] | None = None) -> int:
    """Store each row's context ({id, context}) vector as that turn's where the context
    is still the one embedded: `foreseen`'s for a turn whose context is the one it
    foresaw, else embedded now; returns how many were stored."""
    if not rows:
        return 0
    foreseen = foreseen or {}
    kept = {r["id"]: foreseen[r["id"]][1] for r in rows
            if r["id"] in foreseen and foreseen[r["id"]][0] == r["context"]}
    rest = [r for r in rows if r["id"] not in kept]
    if rest:
        kept.update(zip((r["id"] for r in rest),
                        embedder.embed([r["context"] for r in rest]), strict=True))
    n = 0
    for start in range(0, len(rows), BATCH):  # a big scope's reembed: in parts
        n += int(run(tx, "ingest/set_context_vectors", scope=scope, rows=[
            {"id": r["id"], "context": r["context"], "embedding": kept[r["id"]].tolist()}
            for r in rows[start:start + BATCH]])[0]["n"])
    return n


#: Vectors one statement stores at most (a context's here, a text's in `reembed`).
BATCH = 1_000
