"""The one door to Neo4j: a driver, named queries, transactions, each retried within the
budget (`retry`), and driver errors translated once (`translate`): an unreachable server,
bad credentials or a missing database become `Neo4jUnavailable` (exit 2) with a hint.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import re
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, LiteralString, TypeVar, cast

import neo4j
from neo4j import GraphDatabase, ManagedTransaction
from neo4j import exceptions as nx

from graphmem.base.settings import Settings
from graphmem.graph import retry
from graphmem.graph.causal import CAUSAL, note_made
from graphmem.graph.features import Features, features
from graphmem.graph.kept import Kept
from graphmem.graph.queries import query
from graphmem.graph.translate import index_missing, translate_errors
from graphmem.graph.trips import trip

#: A transaction graphmem runs named queries in: a retried transaction function's, or the
#: one explicit transaction a write batch holds open (`InputTransaction`).
Tx = ManagedTransaction | neo4j.Transaction

T = TypeVar("T")

#: Seconds a receipt is kept (Store.commit, admin/receipt): a writer whose commit lost its
#: answer asks within its retry budget (`Settings.retry_s`, at most a few minutes),
#: however many writes land meanwhile; an hour is far past any budget.
RECEIPTS_KEPT_S = 3600
#: A process drops the expired receipts after every this many of its own, at most
#: PRUNE_LIMIT at a time: pruning keeps pace with writing, in a statement of its own.
PRUNE_EVERY = 128
PRUNE_LIMIT = 4 * PRUNE_EVERY
#: The only form of label a query text may be given (a scope's own: graph/scope_indexes).
SCOPE_LABEL = re.compile(r"Scope_[0-9a-f]{24}")

_SCALARS = frozenset({str, int, float, bool, type(None)})


class _GraphValue(Exception):
    """A row holds a node, relationship or path: the driver's own export handles it."""


def _plain(value: Any) -> Any:
    # Scalars, most of a row, are passed over without a call each (a recall's rows hold
    # ~10,000 values).
    t = type(value)
    if t is list:
        return [v if type(v) in _SCALARS else _plain(v) for v in value]
    if t is dict:
        return {k: v if type(v) in _SCALARS else _plain(v) for k, v in value.items()}
    if t in _SCALARS:
        return value
    if isinstance(value, neo4j.graph.Entity | neo4j.graph.Path):
        raise _GraphValue
    return value  # temporal and spatial values, bytes: as they came


def row(record: neo4j.Record) -> dict[str, Any]:
    """`record.data()`, several times faster for rows of plain values (a recall reads ~40
    of them: the driver's generic export cost 3 ms of it)."""
    try:
        return {k: v if type(v) in _SCALARS else _plain(v)
                for k, v in zip(record.keys(), record.values(), strict=True)}
    except _GraphValue:
        return record.data()


#: The servers (URI, database) this process has reached: a warm process or a service
#: that opens a store again waits for one of them, never for a server it never reached.
_REACHED: set[tuple[str, str]] = set()


class Store:
    """A Neo4j driver bound to one database, running named queries."""

    def __init__(self, driver: neo4j.Driver, settings: Settings) -> None:
        self.driver = driver
        self.settings = settings
        self.database = settings.neo4j_database
        #: What the server's line offers, read when connecting.
        self.features = Features()
        #: What this process keeps between calls for this connection (graph/kept.py).
        self.kept = Kept()
        #: The bookmarks of this process's writes, which its sessions wait for (`session`).
        self.bookmarks = GraphDatabase.bookmark_manager()
        #: Receipts this process has written (`commit`): every PRUNE_EVERY, expired ones go.
        self._receipts = itertools.count(1)
        #: Reads that run while the caller works on (`submit`); threads start on first use.
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="graphmem-read")

    @classmethod
    def connect(cls, settings: Settings) -> Store:
        """Open a driver and check that the server answers and accepts the credentials."""
        with translate_errors(settings):
            driver = GraphDatabase.driver(
                settings.neo4j_uri,
                auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
                connection_timeout=settings.connect_timeout,
                # Bounds the Bolt handshake too: a port that accepts and never answers
                # fails in seconds, not after the driver's default minute.
                connection_acquisition_timeout=2 * settings.connect_timeout,
                max_connection_pool_size=settings.max_connections,
                user_agent="graphmem",
                # Planner notices (e.g. "property last_accessed does not exist yet" before
                # the first recall reinforces anything) are for Cypher authors, not users.
                notifications_min_severity="OFF",
            )
            # A server this process reached before and lost (a leader change, a restart)
            # is waited for within the retry budget; one never reached fails at once.
            where = (settings.neo4j_uri, settings.neo4j_database)
            budget = settings.retry_s if where in _REACHED else 0.0

            def probe() -> str:
                # An auto-commit query, not a managed one: unlike verify_connectivity()
                # it proves the database exists.
                with driver.session(database=settings.neo4j_database,
                                    default_access_mode=neo4j.READ_ACCESS) as session:
                    return str(session.run("RETURN 1").consume().server.agent)

            try:
                agent = retry.retried(probe, budget=budget)
            except BaseException:
                driver.close()
                raise
            _REACHED.add(where)
        store = cls(driver, settings)
        store.features = features(agent)
        return store

    @property
    def variant(self) -> str | None:
        """The query variant this server runs (`queries.VARIANTS`): "search" where the
        vector index filters inside itself, else the plain queries."""
        return "search" if self.features.vector_search_filters else None

    def close(self) -> None:
        """Close the driver and its connection pool."""
        self._pool.shutdown(wait=True)
        self.driver.close()

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named read query (routed to a reader in a cluster) and return its rows,
        tried again for up to `retry_s` seconds while the server is away.

        Auto-commit, not a managed transaction: one round trip instead of three, which is
        a third of a small recall's time; a read has nothing half-done to undo.
        """
        with translate_errors(self.settings):
            return retry.retried(lambda: self._read_once(name, params),
                                 budget=self.settings.retry_s)

    def read_current(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """`read` on the member that takes writes: it has every committed write, whoever
        made it, where a reader in a cluster may lag behind other processes' (a forget
        another process just made). For the checks a write decides by, which are small."""
        with translate_errors(self.settings):
            return retry.retried(lambda: self._read_once(name, params, neo4j.WRITE_ACCESS),
                                 budget=self.settings.retry_s)

    def read_once(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """`read`, tried once: for what must answer now (`doctor`, a readiness probe, a
        client's bookmark), not once the server is back."""
        with translate_errors(self.settings):
            return self._read_once(name, params)

    def _read_once(self, name: str, params: dict[str, Any],
                   mode: str = neo4j.READ_ACCESS) -> list[dict[str, Any]]:
        with self.session(default_access_mode=mode) as session, trip(name):
            try:
                return [row(r) for r in session.run(self._bounded(name), params)]
            except nx.ClientError as e:
                # A scope's own index is made and awaited on the member that takes
                # writes; a reader may still be building it: the shared ones answer.
                if not (params.get("own_indexes") and index_missing(e)):
                    raise
            return [row(r) for r in session.run(self._bounded(name),
                                                {**params, "own_indexes": False})]

    def submit(self, name: str, **params: Any) -> Future[list[dict[str, Any]]]:
        """`read` on a background thread: the server answers while the caller works on
        (recall embeds its query meanwhile); `result()` gives the rows or raises."""
        # In the caller's context: a request's bookmarks (CAUSAL) hold for its reads too.
        context = contextvars.copy_context()
        return self._pool.submit(lambda: context.run(self.read, name, **params))

    def session(self, **config: Any) -> neo4j.Session:
        """A session of this store's database that sees every write this process made (its
        bookmark manager: in a cluster, a read may go to a follower that has not seen
        them yet) and those named by the request's bookmarks (`CAUSAL`)."""
        given = CAUSAL.get()
        return self.driver.session(
            database=self.database, bookmark_manager=self.bookmarks,
            bookmarks=neo4j.Bookmarks.from_raw_values(given) if given else None, **config)

    def await_bookmarks(self, given: tuple[str, ...]) -> None:
        """Return once the server holds the writes `given` names (its own wait, up to
        its db.transaction.bookmark_ready_timeout; a caller bounds its own); an
        InputError for bookmarks that are none of this database's."""
        token = CAUSAL.set(given)
        try:  # tried once: a forged bookmark must not hold a waiter for the retry budget
            self.read_once("admin/ping")
        finally:
            CAUSAL.reset(token)

    def bookmark(self) -> str:
        """What a client sends back (`CAUSAL`) to see, on any replica, every write this
        process has made so far: its bookmarks, joined by commas."""
        return ",".join(sorted(self.bookmarks.get_bookmarks()))

    def _bounded(self, name: str) -> neo4j.Query:
        """A named query the server gives up on after `query_timeout` seconds."""
        return neo4j.Query(query(name, self.variant), timeout=self.settings.query_timeout)

    def stream(self, name: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Run a named read query and yield its rows as they arrive (for exports that
        should not hold a whole scope in memory)."""
        with translate_errors(self.settings):  # noqa: SIM117
            with self.session(default_access_mode=neo4j.READ_ACCESS) as session:
                for record in session.run(query(name, self.variant), params):
                    yield record.data()

    def write(self, name: str, *, receipt: str | None = None,
              **params: Any) -> list[dict[str, Any]]:
        """Run a named write query in its own managed transaction and return its rows
        (`receipt`: as in `write_tx`)."""
        return self.write_tx(lambda tx: run(tx, name, variant=self.variant, **params),
                             receipt=receipt)

    def write_tx(self, work: Callable[[Tx], T], *, receipt: str | None = None) -> T:
        """Run `work(tx)` in one write transaction: all of it commits, or none; the server
        gives up after `query_timeout` seconds (an input's transaction, which may rightly
        run long, is `transactions()`).

        A retryable failure runs `work` again in a fresh transaction (`retry.retried`, the
        one policy of every write), so it must be idempotent, or name the scope it counts
        in as `receipt`: a commit whose answer was lost is then not run again if it landed
        (`commit`).
        """
        def once() -> T:
            with self.session() as session:
                tx = session.begin_transaction(timeout=self.settings.query_timeout)
                try:
                    result = work(tx)
                    self.commit(tx, session, receipt)
                    return result
                finally:
                    tx.close()  # rolls back what was not committed

        with translate_errors(self.settings):
            return retry.retried(once, budget=self.settings.retry_s)

    def commit(self, tx: neo4j.Transaction, session: neo4j.Session,
               receipt: str | None) -> None:
        """Commit `tx` of `session`. With `receipt` (a scope), a receipt written in `tx`
        first says, if the answer to the commit is lost with the connection, whether it
        landed: then this returns as if answered, instead of raising IncompleteCommit for
        a retry that would count the write twice."""
        if receipt is None:
            with trip("commit"):
                tx.commit()
            note_made(session)
            return
        key = uuid.uuid4().hex
        run(tx, "admin/receipt", scope=receipt, key=key)
        try:
            with trip("commit"):
                tx.commit()
            note_made(session)
        except nx.IncompleteCommit:
            if not self._landed(receipt, key):
                raise
        if next(self._receipts) % PRUNE_EVERY == 0:
            self.prune_receipts()

    def prune_receipts(self) -> int:
        """Drop receipts older than RECEIPTS_KEPT_S (up to PRUNE_LIMIT); how many. Tried
        once, and a failure is no write's: another process pruning the same ones wins,
        and the rest wait for the next turn (a write never waits out a retry budget for
        housekeeping)."""
        try:
            with self.session() as session:
                found = session.run(query("admin/prune_receipts"), kept_s=RECEIPTS_KEPT_S,
                                    limit=PRUNE_LIMIT).single()
                note_made(session)
        except Exception:  # housekeeping: the write it follows has landed
            return 0
        return int(found["deleted"]) if found else 0

    def _landed(self, scope: str, key: str) -> bool:
        """Whether receipt `key` of `scope` committed, asked of the member that takes
        writes once the server answers again (within the retry budget)."""
        def once() -> bool:
            with self.session() as session:
                found = session.run(query("admin/receipt_landed"), scope=scope, key=key)
                landed = bool(found.single(strict=True)["landed"])
                note_made(session)
                return landed

        return retry.retried(once, budget=self.settings.retry_s)

    @contextmanager
    def transactions(self, receipt: str | None = None) -> Iterator[InputTransaction]:
        """An InputTransaction for one input (`receipt`: the scope it counts in, as in
        `write_tx`); driver errors become graphmem errors, and whatever was not committed
        is rolled back on the way out."""
        holder = InputTransaction(self, receipt)
        with translate_errors(self.settings):
            try:
                yield holder
            finally:
                holder.close()

    def autocommit(self, name: str, *, own_label: str | None = None,
                   **params: Any) -> list[dict[str, Any]]:
        """Run a named query in an auto-commit transaction (needed for CALL … IN
        TRANSACTIONS). Every such query is idempotent (it selects only what still needs
        its change), so a transient failure, such as a deadlock with a concurrent writer,
        is retried: what the failed attempt committed is then not in the returned count.
        `own_label` is a scope's own label for a command that cannot take it as a
        parameter (CREATE FULLTEXT INDEX): checked, then written where the query says
        Scope_LABEL."""
        text = query(name, self.variant)
        if own_label is not None:
            if not SCOPE_LABEL.fullmatch(own_label) or "Scope_LABEL" not in text:
                raise ValueError(f"{own_label!r} is not a scope label, or {name} takes none")
            text = cast(LiteralString, text.replace("Scope_LABEL", own_label))
        def once() -> list[dict[str, Any]]:
            with self.session() as session:
                rows = [r.data() for r in session.run(text, params)]
                note_made(session)
                return rows

        with translate_errors(self.settings):
            return retry.retried(once, budget=self.settings.retry_s)


class InputTransaction:
    """One explicit write transaction for a whole input, opened on first use. Used from
    one thread at a time (the ingest's writer thread, or the caller after it is idle)."""

    def __init__(self, store: Store, receipt: str | None = None) -> None:
        self.store, self.receipt = store, receipt
        self._session: neo4j.Session | None = None
        self._tx: neo4j.Transaction | None = None

    def current(self) -> neo4j.Transaction:
        """The open transaction, begun now if there is none."""
        if self._tx is None:
            if self._session is None:
                self._session = self.store.session()
            self._tx = self._session.begin_transaction()
        return self._tx

    def commit(self) -> None:
        """Commit what was written (nothing to do if nothing was)."""
        tx, self._tx = self._tx, None
        if tx is not None and self._session is not None:
            self.store.commit(tx, self._session, self.receipt)

    def rollback(self) -> None:
        """Drop what was written; never raises (the connection may be gone)."""
        tx, self._tx = self._tx, None
        if tx is not None:
            with contextlib.suppress(Exception):  # a dead connection rolls back by itself
                tx.close()
        if self._session is not None:  # a fresh session for a retry: the old may be broken
            self._close_session()

    def _close_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(Exception):
                session.close()

    def close(self) -> None:
        """Roll back anything uncommitted and release the session."""
        self.rollback()
        self._close_session()


def run(tx: Tx, name: str, *, variant: str | None = None,
        **params: Any) -> list[dict[str, Any]]:
    """Run a named query (in the server's `variant`, `Store.variant`) inside a transaction
    function and return its rows as dicts."""
    with trip(name):
        return [row(r) for r in tx.run(query(name, variant), params)]
