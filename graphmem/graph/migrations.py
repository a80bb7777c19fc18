"""Numbered migrations (`cypher/migrations/NNN_name.cypher`): what brings a store written
by an earlier version up to this one, each run once per database and recorded in it as a
`(:Migration {id, at})` node, so `init` does not scan the store again on every start.
Each is idempotent too: two `init`s at once, or a migration cut short, run it again
harmlessly. A new one takes the next number; none is ever renumbered."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple

from graphmem.graph.keys import scope_key
from graphmem.graph.store import Store

#: The names of the scopes' own full-text indexes (graph/scope_indexes.py), the only ones
#: a migration drops by a name it read from the store.
OWN_TEXT_INDEX = re.compile(r"memory_text_[0-9a-f]{24}")


class Migration(NamedTuple):
    """One migration: its id (its file's name), whether it runs before the schema is
    installed (a constraint or index it retires would be in the way), and what it does."""

    id: str
    before_schema: bool
    run: Callable[[Store], object]


def _query(name: str) -> Callable[[Store], object]:
    return lambda store: store.autocommit(f"migrations/{name}")


def _scope_keys(store: Store) -> None:
    """Give memories written before scope_key existed their scope's key."""
    scopes = [r["scope"] for r in store.read("migrations/006_scopes_without_key")]
    if scopes:
        store.write("migrations/006_scope_keys",
                    keys=[{"scope": s, "key": scope_key(s)} for s in scopes])


def _stemmed_words(store: Store) -> None:
    """Retire the unstemmed full-text indexes: the shared one, and each scope's own (built
    again stemmed by `GraphMem.init` after the schema, as for any scope due one)."""
    store.autocommit("migrations/012_unstemmed_words")
    for row in store.write("migrations/012_scope_words"):
        if OWN_TEXT_INDEX.fullmatch(row["index"]):
            store.autocommit("admin/drop_index", index=row["index"])


#: Every migration, in the order they run.
MIGRATIONS = (
    Migration("001_ids_unique_per_scope", True, _query("001_ids_unique_per_scope")),
    Migration("002_retire_text_fulltext_index", True,
              _query("002_retire_text_fulltext_index")),
    Migration("003_retire_text_scope_fulltext_index", True,
              _query("003_retire_text_scope_fulltext_index")),
    Migration("004_scope_nodes", False, _query("004_scope_nodes")),
    Migration("005_turn_contexts", False, _query("005_turn_contexts")),
    Migration("006_scope_keys", False, _scope_keys),
    Migration("007_scope_entities", False, _query("007_scope_entities")),  # needs 006
    Migration("008_display_labels", False, _query("008_display_labels")),
    Migration("009_positions", False, _query("009_positions")),
    Migration("010_session_ends", False, _query("010_session_ends")),  # needs 009
    Migration("011_receipts_by_key", False, _query("011_receipts_by_key")),
    Migration("012_stemmed_words", True, _stemmed_words),
)


def run(store: Store, *, before_schema: bool) -> list[str]:
    """Run the migrations of one phase this database has not had, in order, recording
    each; returns their ids."""
    done = {r["id"] for r in store.read("admin/migrations_applied")}
    ran = []
    for m in MIGRATIONS:
        if m.before_schema == before_schema and m.id not in done:
            m.run(store)
            store.write("admin/migration_applied", id=m.id, at=datetime.now(UTC))
            ran.append(m.id)
    return ran
