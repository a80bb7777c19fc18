"""The statements that store a batch's decided rows in the input's transaction: new
memories, rewritten ones, and the confirmations of existing ones (`ingest.write_batch`
decides, links and places them)."""

from __future__ import annotations

from typing import Any

from graphmem.base.options import WriteOptions
from graphmem.graph import scope_indexes, scope_model
from graphmem.graph.store import Store, Tx, run
from graphmem.write import runs
from graphmem.write.dedup import Confirmations
from graphmem.write.plan import Row


def store_rows(tx: Tx, store: Store, written: list[Row], conf: Confirmations,
               opts: WriteOptions, chunk_of: runs.Run | None, due: bool = True) -> None:
    """Create and update the `written` rows and count the confirmations. Each statement
    that stores vectors, or confirms what vectors matched, returns the scope's model from
    under the scope's lock: a scope of another model is refused, whatever another process
    did since this one last looked (graph/scope_model). With `due` (a transaction's last
    batch), whether the scope is now due an index of its own is asked too."""
    def stored(status: str) -> list[dict[str, Any]]:
        return [{**r.props, "embedding": r.embedded.tolist(),
                 "import_run": chunk_of.id if chunk_of else None} for r in written
                if r.status == status]

    model = {"model": opts.model, "legacy": scope_model.LEGACY}
    if created := stored("created"):
        scopes = run(tx, "ingest/create_memories", rows=created, due=due,
                     at=scope_indexes.OWN_INDEX_AT, share=scope_indexes.MAX_SHARE, **model)
        scope_model.refuse_other(scopes, opts.model)
        store.kept.get(scope_indexes.Flagged).add(
            scopes, vector=scope_indexes.own_vector_indexes(store))
    if updated := stored("updated"):
        scope_model.refuse_other(run(tx, "ingest/update_memories", rows=updated, **model),
                                 opts.model)
    if conf.rows:
        confirmed = run(tx, "ingest/confirm_memories", scope=opts.scope,
                        rows=list(conf.rows.values()), legacy=scope_model.LEGACY)
        scope_model.refuse_other(confirmed[:1], opts.model)
