"""Runs: an input too big for one transaction, written in chunks that each commit, with
one outcome all the same (docs/decisions.md, "One input, one outcome").

A run creates its new memories chunk by chunk, each tagged `import_run`; whatever it
would change of memories stored before it (updates, confirmations, links, supersedes)
waits for its last transaction, which also marks it done. If any part fails, what it
wrote is taken out (`undo`) before the error reaches the caller. Its writer holds a
lease on the run in the graph, renewed by a heartbeat and by each chunk it commits: a
writer that dies (killed, its machine gone) stops renewing, and once the lease lapses the
next process to connect, the next run in the scope, or a sweep undoes the run
(`recover`). A lease, not a sign of life one server keeps (an open transaction), because
on a cluster another process may ask another member (docs/decisions.md, "A large input
is its writer's while its lease lasts").
"""

from __future__ import annotations

import contextlib
import sys
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from graphmem.base.errors import GraphmemError, Neo4jBusy
from graphmem.graph.store import Store, Tx
from graphmem.graph.store import run as run_query
from graphmem.write.dedup import Confirmations
from graphmem.write.plan import Row


@dataclass
class Run:
    """A run being written: its id, the memories its committed chunks created, and the
    rows that touch memories stored before it (written by its last transaction)."""

    id: str
    mine: set[str] = field(default_factory=set)
    deferred: list[Row] = field(default_factory=list)
    #: What the chunk being written adds to the two above, once it commits.
    _made: set[str] = field(default_factory=set)
    _held: list[Row] = field(default_factory=list)

    def keep(self, rows: list[Row], conf: Confirmations) -> list[Row]:
        """The decided rows a chunk writes now: those creating a memory, or updating or
        confirming one this run created. The others are held for the last transaction,
        and their confirmations taken out of `conf`."""
        made = {r.id for r in rows if r.status == "created"}
        own = self.mine | self._made | made
        kept: list[Row] = []
        for r in rows:
            touched = (r.target if r.status == "confirmed"
                       else r.id if r.status == "updated" else None)
            (kept if touched is None or touched in own else self._held).append(r)
        for target in [t for t in conf.rows if t not in own]:
            del conf.rows[target]
        self._made |= made
        return kept

    def begin_chunk(self) -> None:
        """Forget what an attempt at the chunk decided (it was rolled back)."""
        self._made, self._held = set(), []

    def commit_chunk(self) -> None:
        """The chunk committed: its memories are the run's, its held rows wait."""
        self.mine |= self._made
        self.deferred += self._held
        self.begin_chunk()


@contextlib.contextmanager
def started(store: Store, scope: str, records: int) -> Iterator[Run]:
    """Record a run for `scope` and renew its lease while the block writes it; if the
    block fails, undo what the run wrote, then let the error go on. The block renews the
    lease in each chunk's transaction (`renew`) and marks the run done (`runs/done`) in
    its last."""
    run = Run(id=uuid.uuid4().hex)
    lease = store.settings.run_lease
    store.autocommit("runs/begin", run=run.id, scope=scope, now=datetime.now(UTC),
                     records=records, lease=lease)
    with _heartbeat(store, run.id, lease):
        try:
            yield run
        except BaseException:
            try:
                undo(store, scope, run.id)
            except GraphmemError as e:  # the server went away: the next write recovers it
                print(f"graphmem: run {run.id} is left for recovery: {e.one_line()}",
                      file=sys.stderr)
            raise
    store.autocommit("runs/end", run=run.id)


@contextlib.contextmanager
def _heartbeat(store: Store, run: str, lease: float) -> Iterator[None]:
    """Renew run `run`'s lease every quarter lease while the block runs: a chunk that
    takes long to embed or write does not let it lapse."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(lease / 4):
            with contextlib.suppress(GraphmemError):  # the next beat, or the chunk, tells
                store.autocommit("runs/renew", run=run, lease=lease)

    thread = threading.Thread(target=beat, name=f"graphmem-run-{run[:8]}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def renew(tx: Tx, store: Store, run: str) -> None:
    """Renew run `run`'s lease inside a chunk's transaction: the chunk commits only into
    a run that is still its writer's (not undone meanwhile as abandoned)."""
    if not run_query(tx, "runs/renew", run=run, lease=store.settings.run_lease):
        raise Neo4jBusy(f"run {run} was undone by another process while it was written",
                        "run it again")


def undo(store: Store, scope: str, run: str, *, lapsed_only: bool = False) -> int | None:
    """Take out what run `run` wrote in `scope`: its memories and their edges, entities
    and sessions only it used; the counts of those left are settled. Returns the number
    of memories deleted, or None when the run was not taken (`runs/fence`: with
    `lapsed_only`, a run whose writer renewed its lease meanwhile; one done, or gone).
    The run is fenced first, so its writer, stalled past its lease and back, commits no
    more of it and is not told it landed. Idempotent: an interrupted undo is finished by
    another."""
    if not store.autocommit("runs/fence", run=run, lease=store.settings.run_lease,
                            lapsed_only=lapsed_only):
        return None
    deleted = int(store.autocommit("runs/undo_memories", run=run, scope=scope)[0]["deleted"])
    store.autocommit("runs/undo_entities", run=run, scope=scope)
    store.autocommit("runs/undo_sessions", run=run, scope=scope)
    store.autocommit("runs/end", run=run)
    return deleted


def recover(store: Store, scope: str | None) -> list[str]:
    """Settle the runs of `scope` (None: every scope) whose leases have lapsed: a run
    marked done is kept, any other is undone. Returns the runs undone."""
    undone = []
    # On the member that takes writes: a reader may not have the writer's latest renewal.
    for r in store.read_current("runs/list", scope=scope, lease=store.settings.run_lease):
        if not r["lapsed"]:
            continue
        if r["state"] == "done":
            store.autocommit("runs/end", run=r["run"])
        elif undo(store, r["scope"], r["run"], lapsed_only=True) is not None:
            undone.append(r["run"])
    return undone
