"""Move a scope's vectors to another embedding model (`graphmem reembed`, docs/decisions.md
"A scope knows its model"): every memory that holds a vector is embedded again from its
text, and each turn's context from its context (graphmem/write/contexts.py), and the
vectors and the scope's model are replaced in one transaction per scope, so a reader sees
the old vectors or the new ones, never a mix, and a run stopped midway left its scope as
it was. Running it again skips the scopes already moved; in a scope of the model already,
it makes the context vectors its turns lack (written before contexts had them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel

from graphmem.embedding.embedders import Embedder
from graphmem.graph import scope_model
from graphmem.graph.kept import changes
from graphmem.graph.store import Store, Tx, run
from graphmem.write.contexts import BATCH
from graphmem.write.contexts import set_vectors as contexts_of


class Reembedded(BaseModel):
    """What `reembed` did to one scope."""

    scope: str
    was: str | None
    model: str
    memories: int
    contexts: int = 0
    skipped: bool = False


def scopes(store: Store, only: Sequence[str] | None) -> list[tuple[str, str | None]]:
    """The scopes to consider with their models: `only`, else every scope holding one."""
    if only is not None:
        return list(scope_model.of(store, only).items())
    return [(r["scope"], r["model"] or scope_model.LEGACY)
            for r in store.read("admin/scopes_with_models")]


@changes("only")  # its model, its depths, its sessions' vectors
def reembed(store: Store, embedder: Embedder, only: Sequence[str] | None = None, *,
            advance: Callable[[int], None] | None = None) -> list[Reembedded]:
    """Re-embed each scope whose vectors another model made (or `only` these) with
    `embedder`, one transaction a scope; scopes already of its model are skipped."""
    model = embedder.recorded
    done = []
    for scope, was in scopes(store, only):
        if was == model or was is None:
            filled = _contexts(store, embedder, scope) if was == model else 0
            done.append(Reembedded(scope=scope, was=was, model=model, memories=0,
                                   contexts=filled, skipped=not filled))
            continue
        rows = store.read("admin/embedded_texts", scope=scope)
        vectors = embedder.embed([r["text"] for r in rows], advance)
        made = {r["id"]: (r["text"], v) for r, v in zip(rows, vectors, strict=True)}
        read = [r for r in rows if r["context"] is not None]
        contexts = dict(zip([r["id"] for r in read], embedder.embed(
            [r["context"] for r in read]), strict=True))
        with store.transactions() as holder:  # no time limit: a big scope takes minutes
            tx = holder.current()
            written = _write(tx, scope, made)  # its first statement takes the scope's lock
            # What was written or changed meanwhile (before the lock) is embedded now.
            now = run(tx, "admin/embedded_texts", scope=scope)
            late = [r for r in now if made.get(r["id"], ("",))[0] != r["text"]]
            if late:
                again = embedder.embed([r["text"] for r in late])
                written += _write(tx, scope, {r["id"]: (r["text"], v)
                                              for r, v in zip(late, again, strict=True)})
            # The contexts read before the lock keep their vectors; what changed is
            # embedded now.
            n = contexts_of(tx, embedder, scope, [r for r in now if r["context"] is not None],
                            {r["id"]: (r["context"], contexts[r["id"]]) for r in read})
            run(tx, "admin/set_scope_model", scope=scope, model=model)
            holder.commit()
        done.append(Reembedded(scope=scope, was=was, model=model, memories=written,
                               contexts=n))
    return done


def _contexts(store: Store, embedder: Embedder, scope: str) -> int:
    """Make the context vectors a scope of this model lacks; how many were made."""
    rows = store.read("admin/unembedded_contexts", scope=scope)
    if not rows:
        return 0
    with store.transactions() as holder:
        n = contexts_of(holder.current(), embedder, scope, rows)
        holder.commit()
    return n


def _write(tx: Tx, scope: str, made: dict[str, tuple[str, np.ndarray]]) -> int:
    """Replace the vectors of `made` (id → (text, vector)); how many were replaced."""
    items = list(made.items())
    n = 0
    for start in range(0, len(items), BATCH):
        part = [{"id": mid, "embedding": vector.tolist()}
                for mid, (_text, vector) in items[start:start + BATCH]]
        n += int(run(tx, "admin/set_embeddings", scope=scope, rows=part)[0]["n"])
    return n
