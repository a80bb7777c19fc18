"""Indexes of its own for a big scope: a full-text index (on both server lines), and a
vector index on servers whose vector index cannot filter.

A scope of at least OWN_INDEX_AT memories gets a full-text index over its own label, so
that Lucene's BM25 for it counts its own memories alone (a smaller scope is scored from
its own statistics in Python: docs/decisions.md, "A scope's keyword scores are its own").
On Neo4j 5.26 the shared vector index returns a scope's neighbours among every scope's
memories: a scope that is a tenth of the store is asked ten times deeper than its answer,
and that search is most of a recall's time there. A scope of at least OWN_INDEX_AT
memories that is at most MAX_SHARE of the store gets a label of its own (`Scope_<hex>`)
and a vector index on it, which recall and near-duplicate search ask instead
(docs/decisions.md, "A big scope gets a vector index of its own"). Neo4j 2026 filters
inside the shared index, so there it is never made.

The switches never leave a memory out: the scope's node names the label under the lock
every writer of the scope takes first (`fragments/scope_lock`), the memories written
before are labelled, the index is built, and only then does the node name the index.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.base.errors import Neo4jRefused
from graphmem.graph.keys import scope_key
from graphmem.graph.schema import indexes
from graphmem.graph.store import SCOPE_LABEL, Store

#: A scope (with its layers) of fewer memories is scanned exactly instead of asking the
#: vector index, by recall and by the write path's near-duplicate search: a scan of 500
#: costs about what the index costs at 100k, and its answer owes nothing to other scopes
#: (docs/decisions.md, "Small scopes are scanned").
SCAN_BELOW = 500
#: A scope with this many memories written gets its own full-text index, and its own
#: vector index where the server needs one: a smaller one is scored from its own
#: statistics and scanned exactly, or its neighbours are found at a modest depth.
OWN_INDEX_AT = 1000
#: ...unless it holds more than this share of all memories: the shared index's
#: neighbours are then mostly its own anyway, and a second index would double the work.
MAX_SHARE = 0.5
#: How long making an index may wait for the server to build it.
BUILD_SECONDS = 900
#: The only labels and index names this module passes to the server.
_NAME = re.compile(r"memory_(vector|text)_[0-9a-f]{24}")


def label(scope: str) -> str:
    """The label the memories of `scope` carry once it has indexes of its own."""
    return _checked(SCOPE_LABEL, "Scope_" + scope_key(scope)[1:])


def index_name(scope: str) -> str:
    """The name of the vector index of `scope`'s own."""
    return _checked(_NAME, "memory_vector_" + scope_key(scope)[1:])


def text_index_name(scope: str) -> str:
    """The name of the full-text index of `scope`'s own."""
    return _checked(_NAME, "memory_text_" + scope_key(scope)[1:])


def _checked(pattern: re.Pattern[str], value: str) -> str:
    if not pattern.fullmatch(value):
        raise ValueError(f"{value!r} is not a scope index label or name")
    return value


def own_vector_indexes(store: Store) -> bool:
    """Whether scopes on `store`'s server get vector indexes of their own: only where the
    shared index cannot filter by scope (5.26)."""
    return store.variant is None


def due(store: Store) -> list[str]:
    """The scopes that should have their own vector index and have none ready yet
    (none where the server's index filters by itself)."""
    if not own_vector_indexes(store):
        return []
    return [r["scope"] for r in
            store.read("admin/scopes_due_index", at=OWN_INDEX_AT, share=MAX_SHARE)]


def due_text(store: Store) -> list[str]:
    """The scopes that should have their own full-text index and have none ready yet."""
    return [r["scope"] for r in store.read("admin/scopes_due_text_index", at=OWN_INDEX_AT)]


def _label(store: Store, scope: str) -> str:
    """Give every memory of `scope`, and every one written from now on, its own label."""
    own = label(scope)
    store.write("admin/scope_label", scope=scope, label=own)
    store.autocommit("admin/label_scope", scope=scope, label=own)
    return own


def _create(store: Store, name: str, query: str, **params: Any) -> None:
    """Create index `name` with the named query unless it exists, and wait until it is
    online."""
    if all(i.name != name for i in indexes(store)):
        try:
            store.autocommit(query, index=name, **params)
        except Neo4jRefused:
            # Two writers that made the scope due at once both asked for its index: one
            # made it, and the other's request is refused as a duplicate. Only an index
            # that is still missing is a failure.
            if all(i.name != name for i in indexes(store)):
                raise
    store.autocommit("admin/await_index", index=name, seconds=BUILD_SECONDS)


def make(store: Store, scope: str, dimensions: int) -> str:
    """Give `scope` its own vector index (idempotent, and resumable if a run stopped
    half-way); returns the index's name once recall may use it."""
    own, name = _label(store, scope), index_name(scope)
    _create(store, name, "admin/scope_vector_index", label=own, dimensions=dimensions)
    store.write("admin/scope_index_ready", scope=scope, index=name)
    return name


def make_text(store: Store, scope: str) -> str:
    """Give `scope` its own full-text index (idempotent, resumable); returns its name once
    recall may use it."""
    name = text_index_name(scope)
    # The label goes into the command's text (checked by the store): CREATE FULLTEXT
    # INDEX cannot take it as a parameter.
    _create(store, name, "admin/scope_text_index", own_label=_label(store, scope))
    store.write("admin/scope_text_index_ready", scope=scope, index=name)
    return name


class Flagged:
    """Scopes a write found due an index of their own (`ingest/create_memories` asks
    `admin/scope_due`'s rule under the scope's lock), until `ensure` checks them: a
    write that makes no scope due skips that read after its commit."""

    def __init__(self) -> None:
        self._scopes: set[str] = set()
        self._lock = threading.Lock()

    def add(self, rows: Iterable[dict[str, Any]], *, vector: bool) -> None:
        """Note the scopes of `rows` (`ingest/create_memories`' answer) found due one;
        due a vector index only counts with `vector` (`own_vector_indexes`)."""
        due = {r["scope"] for r in rows if (vector and r["vector"]) or r["text"]}
        if due:
            with self._lock:
                self._scopes |= due

    def take(self, scopes: Sequence[str]) -> list[str]:
        """Of `scopes`, those flagged, no longer flagged."""
        with self._lock:
            taken = [s for s in dict.fromkeys(scopes) if s in self._scopes]
            self._scopes.difference_update(taken)
        return taken

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Flag none of `scopes` (None: none at all) any more: a dropped scope is due
        nothing. (A flag set by a transaction that then rolled back only costs a read.)"""
        with self._lock:
            if scopes is None:
                self._scopes.clear()
            else:
                self._scopes.difference_update(scopes)


def due_of(store: Store, scopes: Sequence[str]) -> tuple[list[str], list[str]]:
    """Of `scopes`, those due a vector index of their own (`due`'s rule) and those due a
    full-text index (`due_text`'s), in one read of their nodes alone."""
    rows = store.read("admin/scope_due", scopes=sorted(set(scopes)), at=OWN_INDEX_AT,
                      share=MAX_SHARE)
    return ([r["scope"] for r in rows if r["vector"] and own_vector_indexes(store)],
            [r["scope"] for r in rows if r["text"]])


def ensure(store: Store, dimensions: int, scopes: Sequence[str] | None = None) -> list[str]:
    """Give every scope that is due one (of `scopes`, if given: those just written, read
    only when a write flagged them) its own vector and full-text indexes; returns those
    scopes."""
    if scopes is None:
        vector, text = due(store), due_text(store)
    else:
        asked = store.kept.get(Flagged).take(scopes)
        vector, text = due_of(store, asked) if asked else ([], [])
    for scope in vector:
        make(store, scope, dimensions)
    for scope in text:
        make_text(store, scope)
    return list(dict.fromkeys(vector + text))


def forget(store: Store, scope: str) -> None:
    """Remove `scope`'s node, and its own indexes if it has any (when the scope is
    dropped)."""
    rows = store.write("admin/delete_scope_node", scope=scope)
    if rows and rows[0]["own"]:
        store.autocommit("admin/drop_index", index=index_name(scope))
        store.autocommit("admin/drop_index", index=text_index_name(scope))
