"""Edits of single memories: feedback, update (with its version chain), history, manual
links and forgetting (soft, or hard with a tombstone).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel

from graphmem.base.errors import InputError, NotFoundError, whole_text
from graphmem.base.gates import shown
from graphmem.base.rows import to_memory
from graphmem.base.types import MemoryIn, MemoryOut, WriteReport
from graphmem.graph import scope_indexes
from graphmem.graph.kept import changes
from graphmem.graph.store import Store, Tx, run
from graphmem.write.forgotten import forget_key

#: Echo (used) importance +0.05, confidence +0.1; fizzle importance -0.1,
#: confidence -0.15.
ECHO = {"importance": 0.05, "confidence": 0.1}
FIZZLE = {"importance": -0.1, "confidence": -0.15}


class FeedbackResult(BaseModel):
    """A memory's scores after feedback."""

    id: str
    used: bool
    importance: float
    confidence: float
    used_count: int
    unused_count: int


class LinkResult(BaseModel):
    """A manual association as it now stands."""

    a: str
    b: str
    weight: float
    created: bool


class ForgetResult(BaseModel):
    """What forgetting did: `soft` archives, `hard` deletes and leaves a tombstone."""

    id: str
    mode: Literal["soft", "hard"]
    at: datetime
    versions_deleted: int = 0
    #: Memories made from this one (consolidation summaries, reflections naming what only
    #: it mentioned), forgotten with it so no copy of its text remains.
    derived_deleted: list[str] = []


class HistoryEntry(BaseModel):
    """One memory of a supersession chain, newest first."""

    relation: Literal["newer", "this", "older"]
    depth: int
    memory: MemoryOut


def check(store: Store, ids: list[str], scope: str, *, allow_stub: bool = True,
          allow_version: bool = True) -> None:
    """Raise NotFoundError unless every id is a memory of `scope` (naming a hard-forgotten
    one as such); InputError for a stub when `allow_stub` is False, and for a kept
    earlier version when `allow_version` is False."""
    whole_text(ids, "id")
    found = {r["id"]: r for r in store.read("edit/state", ids=ids, scope=scope)}
    for mid in ids:
        row = found.get(mid)
        if row is not None and row["scope"] is not None:
            if not allow_version and row["version_of"] is not None:
                raise InputError(f"memory {shown(mid)} is a kept version of "
                                 f"{shown(row['version_of'])}: versions are not edited; "
                                 "update the memory itself", field="id")
            if not allow_stub and row["tier"] == "stub":
                raise InputError(f"memory {shown(mid)} is a stub: recall it first to bring it "
                                 "back",
                                 field="id")
            continue
        if row is not None and row["tombstone"] and row["tombstone"]["scope"] == scope:
            t = row["tombstone"]
            raise NotFoundError(f"memory {shown(mid)} was forgotten for good at "
                                f"{t['forgotten_at'].to_native().isoformat()} by "
                                f"{t.get('forgotten_by') or 'unknown'}")
        raise NotFoundError(f"no memory with id {shown(mid)} in scope {shown(scope)}")


def feedback(store: Store, mid: str, *, used: bool, scope: str,
             now: datetime) -> FeedbackResult:
    """Echo (`used`) or fizzle a memory's importance and confidence."""
    check(store, [mid], scope, allow_stub=False)
    delta = ECHO if used else FIZZLE
    rows = store.write("edit/feedback", receipt=scope, id=mid, scope=scope, used=used,
                       now=now, **delta)
    if not rows:  # forgotten between the check and the write
        raise NotFoundError(f"no memory with id {shown(mid)} in scope {shown(scope)}")
    return FeedbackResult(used=used, **rows[0])


@changes()  # the text it had lives on as a version, not in what the process keeps
def update(store: Store, mid: str, *, scope: str,
           current: Callable[[], MemoryOut], write: Callable[[MemoryIn], WriteReport],
           text: str | None = None, kind: str | None = None, importance: float | None = None,
           tags: list[str] | None = None, metadata: dict[str, Any] | None = None) -> WriteReport:
    """Change a memory in place: `current()` reads it as it stands, `write` writes the
    new version through the write path (a new text is re-embedded and re-linked), and the
    old version is kept in the chain (`history`). A kept version is not edited: its
    text is what the memory said once, and a forget of the memory takes it along."""
    check(store, [mid], scope, allow_version=False)
    if text is None and kind is None and importance is None and tags is None \
            and metadata is None:
        raise InputError("nothing to update: give a text, kind, importance, tags or metadata")
    was = current()
    record = MemoryIn.model_validate({
        "id": mid, "text": text if text is not None else was.text,
        "kind": kind or was.kind, "source": was.source or "user",
        "importance": importance if importance is not None else was.importance,
        "confidence": was.confidence, "tags": tags if tags is not None else was.tags,
        "metadata": {**was.metadata, **(metadata or {})},
        "created_at": was.created_at, "added_by": was.added_by,
        "visibility": was.visibility,
    })
    return write(record)  # a changed text keeps the old one as a version (ingest/snapshot)


def history(store: Store, mid: str, *, scope: str) -> list[HistoryEntry]:
    """The memory's supersession chain: newer versions, itself, older ones."""
    check(store, [mid], scope)
    rows = store.read("edit/history", id=mid, scope=scope)
    return [HistoryEntry(relation=r["relation"], depth=r["depth"],
                         memory=to_memory({"memory": r["memory"], "sessions": [], "entities": [],
                                           "supersedes": []}))
            for r in rows if r["memory"].get("id") is not None]  # one forgotten meanwhile


def link(store: Store, a: str, b: str, *, weight: float, scope: str,
         now: datetime) -> LinkResult:
    """Link two memories of one scope by hand (manual links are never pruned)."""
    if a == b:
        raise InputError("a memory cannot be linked to itself", field="id")
    if not 0.0 < weight <= 1.0:
        raise InputError(f"weight must be in (0, 1], got {weight}", field="--weight")
    check(store, [a, b], scope)
    row = store.write("edit/link", a=a, b=b, scope=scope, weight=weight, now=now)[0]
    return LinkResult(**row)


@changes()  # no word or vector of it stays in the process
def forget(store: Store, mid: str, *, scope: str, now: datetime, by: str | None,
           hard: bool = False) -> ForgetResult:
    """Soft: archive the memory (still findable by id and exact text). Hard: delete it and
    its versions, leaving a tombstone without the text; `by` is who forgets."""
    check(store, [mid], scope)
    if hard:
        def forget_hard(tx: Tx) -> dict[str, Any]:
            rows = run(tx, "edit/forget_hard", variant=store.variant, id=mid, scope=scope,
                       now=now, by=by)
            if not rows:  # another forget took it between the check and this transaction
                check(store, [mid], scope)  # names the tombstone it left
                raise NotFoundError(f"no memory with id {shown(mid)} in this scope")
            row = rows[0]
            keys = [{"id": t["id"], "key": forget_key(t["text"] or "")} for t in row["texts"]]
            run(tx, "edit/stamp_tombstones", variant=store.variant, scope=scope, now=now,
                keys=keys)
            return row

        # With a receipt: a forget that committed, its answer lost with the connection,
        # answers as it would have, not "forgotten for good" by its own retry.
        row = store.write_tx(forget_hard, receipt=scope)
        return ForgetResult(id=mid, mode="hard", at=now, versions_deleted=row["versions"],
                            derived_deleted=row["derived"])
    store.write("edit/forget_soft", id=mid, scope=scope, now=now, by=by)
    return ForgetResult(id=mid, mode="soft", at=now)


@changes()
def drop(store: Store, *, scope: str) -> int:
    """Delete a whole scope with its own indexes; returns how many memories it held."""
    scope_indexes.forget(store, scope)
    rows = store.autocommit("admin/delete_scope", scope=scope)
    return int(rows[0]["deleted"]) if rows else 0
