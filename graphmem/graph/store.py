"""The one door to Neo4j: a driver, named queries, managed transactions, and error mapping.

Driver errors are translated here, once, by error code: an unreachable server, bad
credentials or a missing database become `Neo4jUnavailable` (exit 2) with a hint.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, LiteralString, TypeVar, cast

import neo4j
from neo4j import GraphDatabase, ManagedTransaction
from neo4j import exceptions as nx

from graphmem.errors import (
    ConfigError,
    GraphmemError,
    InputError,
    Neo4jBusy,
    Neo4jRefused,
    Neo4jUnavailable,
)
from graphmem.graph import retry
from graphmem.graph.causal import BOOKMARK_CODES, BOOKMARK_HEADER, CAUSAL, note_made
from graphmem.graph.features import Features, features
from graphmem.graph.queries import query
from graphmem.graph.retry import CONFLICT_CODES, MEMORY_CODES
from graphmem.settings import Settings

#: A transaction graphmem runs named queries in: a retried transaction function's, or the
#: one explicit transaction a write batch holds open (`InputTransaction`).
Tx = ManagedTransaction | neo4j.Transaction

T = TypeVar("T")

START_HINT = "start it with `graphmem server start`, or set NEO4J_URI"
#: The only form of label a query text may be given (a scope's own: graph/scope_indexes).
SCOPE_LABEL = re.compile(r"Scope_[0-9a-f]{24}")

#: The server ended a transaction that ran past its timeout (while running, or while
#: waiting for a lock).
TIMEOUT_CODES = frozenset({"Neo.ClientError.Transaction.TransactionTimedOut",
                           "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
                           "Neo.ClientError.Transaction.LockClientStopped"})



_SCALARS = frozenset({str, int, float, bool, type(None)})


class _GraphValue(Exception):
    """A row holds a node, relationship or path: the driver's own export handles it."""


def _plain(value: Any) -> Any:
    t = type(value)
    if t in _SCALARS:
        return value
    if t is list:
        return [_plain(v) for v in value]
    if t is dict:
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, neo4j.graph.Entity | neo4j.graph.Path):
        raise _GraphValue
    return value  # temporal and spatial values, bytes: as they came


def row(record: neo4j.Record) -> dict[str, Any]:
    """`record.data()`, several times faster for rows of plain values (a recall reads ~40
    of them: the driver's generic export cost 3 ms of it)."""
    try:
        return {k: _plain(v) for k, v in zip(record.keys(), record.values(), strict=True)}
    except _GraphValue:
        return record.data()


@contextmanager
def translate_errors(settings: Settings) -> Iterator[None]:
    """Turn driver exceptions into graphmem errors with a one-line hint; never a traceback."""
    uri = settings.neo4j_uri
    try:
        yield
    except GraphmemError:
        raise
    except nx.AuthError as e:
        raise Neo4jUnavailable(
            f"Neo4j at {uri} refused the credentials of user {settings.neo4j_user!r}",
            "check NEO4J_USER and NEO4J_PASSWORD, and that this is the server you meant "
            "(another may answer on that port: NEO4J_URI and GRAPHMEM_SERVER_BOLT_PORT "
            "choose another)",
        ) from e
    except (nx.ServiceUnavailable, nx.SessionExpired, OSError) as e:
        raise Neo4jUnavailable(f"Neo4j is not reachable at {uri}", START_HINT) from e
    except nx.ConfigurationError as e:
        raise ConfigError(f"cannot use NEO4J_URI {uri!r}: {e}") from e
    except nx.Neo4jError as e:
        raise _translated(e, settings) from e
    except nx.DriverError as e:
        raise Neo4jUnavailable(f"the connection to Neo4j at {uri} failed: "
                               f"{type(e).__name__}", START_HINT) from e


def _translated(e: nx.Neo4jError, settings: Settings) -> GraphmemError:
    """The graphmem error, with its one-line hint, for an error the server reported."""
    uri, db = settings.neo4j_uri, settings.neo4j_database
    if e.code in MEMORY_CODES:
        return Neo4jBusy(f"Neo4j at {uri} ran out of memory for one transaction "
                         f"({(e.code or '').rsplit('.', 1)[-1]}); nothing of the input was "
                         "kept",
                         "write fewer records per transaction (GRAPHMEM_WRITE_CHUNK_ROWS, "
                         f"now {settings.write_chunk_rows}) or give the server more heap "
                         "(GRAPHMEM_SERVER_HEAP for `graphmem server start`, else "
                         "server.memory.heap.max_size)")
    if isinstance(e, nx.TransientError):  # e.g. a deadlock with a concurrent writer
        return Neo4jBusy(f"Neo4j at {uri} could not finish: {e.code}", "run it again")
    if not isinstance(e, nx.ClientError):  # a database error graphmem has no word for
        return Neo4jRefused(f"Neo4j at {uri} failed the request: {e.code}",
                            "see the server's log; `graphmem doctor` checks the setup")
    if e.code in BOOKMARK_CODES:
        return InputError("not a bookmark of this database", field=BOOKMARK_HEADER)
    if e.code == "Neo.ClientError.Database.DatabaseNotFound":
        return Neo4jUnavailable(
            f"database {db!r} does not exist on {uri}",
            "set NEO4J_DATABASE to an existing database (Community has only 'neo4j')")
    if e.code == "Neo.ClientError.Security.AuthenticationRateLimit":
        return Neo4jUnavailable(
            f"Neo4j at {uri} refuses logins for a while after too many failed ones",
            "check NEO4J_USER and NEO4J_PASSWORD, then wait a few seconds")
    # A procedure naming a missing index (5.26), or SEARCH naming one (2026).
    if e.code == "Neo.ClientError.Schema.IndexNotFound" or (
            e.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
            and "index" in str(e.message) and "already exists" not in str(e.message)):
        return Neo4jUnavailable(f"an index is missing on {uri}", "run `graphmem init`")
    if getattr(e, "gql_status", None) == "22ND3":  # a SEARCH filter the index lacks
        return Neo4jUnavailable(f"the vector index on {uri} was made without the "
                                "properties graphmem filters on", "run `graphmem init`")
    if e.code in TIMEOUT_CODES:
        return Neo4jBusy(f"Neo4j at {uri} did not finish within "
                         f"{settings.query_timeout:g} s",
                         "run it again, or raise GRAPHMEM_QUERY_TIMEOUT")
    if e.code in CONFLICT_CODES:
        return Neo4jBusy(f"Neo4j at {uri}: a concurrent writer kept conflicting "
                         "with this one", "run it again")
    return Neo4jRefused(f"Neo4j at {uri} refused the request: {e.code}",
                        "check the server's version (5.26 or later) and `graphmem doctor`")


class Store:
    """A Neo4j driver bound to one database, running named queries."""

    def __init__(self, driver: neo4j.Driver, settings: Settings) -> None:
        self.driver = driver
        self.settings = settings
        self.database = settings.neo4j_database
        #: What the server's line offers, read when connecting.
        self.features = Features()
        #: The bookmarks of this process's writes, which its sessions wait for (`session`).
        self.bookmarks = GraphDatabase.bookmark_manager()
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
                # An unreachable server should fail in seconds, not after 30 s of retries.
                max_transaction_retry_time=10.0,
                user_agent="graphmem",
                # Planner notices (e.g. "property last_accessed does not exist yet" before
                # the first recall reinforces anything) are for Cypher authors, not users.
                notifications_min_severity="OFF",
            )
            try:
                # An auto-commit query, not a managed one: it fails at once instead of
                # retrying for seconds, and unlike verify_connectivity() it proves the
                # database exists.
                with driver.session(database=settings.neo4j_database,
                                    default_access_mode=neo4j.READ_ACCESS) as session:
                    agent = session.run("RETURN 1").consume().server.agent
            except BaseException:
                driver.close()
                raise
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
        """Run a named read query (routed to a reader in a cluster) and return its rows.

        Auto-commit, not a managed transaction: one round trip instead of three, which is
        a third of a small recall's time; a read has nothing to retry half-done.
        """
        with translate_errors(self.settings):  # noqa: SIM117 - the session needs the guard too
            with self.session(default_access_mode=neo4j.READ_ACCESS) as session:
                return [row(r) for r in session.run(self._bounded(name), params)]

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
        try:
            self.read("admin/ping")
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

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named write query in its own managed transaction and return its rows."""
        return self.write_tx(lambda tx: run(tx, name, variant=self.variant, **params))

    def write_tx(self, work: Callable[[Tx], T]) -> T:
        """Run `work(tx)` in one write transaction: all of it commits, or none; the server
        gives up after `query_timeout` seconds (an input's transaction, which may rightly
        run long, is `transactions()`).

        A retryable failure runs `work` again in a fresh transaction (`retry.retried`, the
        one policy of every write), so it must be idempotent.
        """
        def once() -> T:
            with self.session() as session:
                tx = session.begin_transaction(timeout=self.settings.query_timeout)
                try:
                    result = work(tx)
                    tx.commit()
                    note_made(session)
                    return result
                finally:
                    tx.close()  # rolls back what was not committed

        with translate_errors(self.settings):
            return retry.retried(once)

    @contextmanager
    def transactions(self) -> Iterator[InputTransaction]:
        """An InputTransaction for one input; driver errors become graphmem errors, and
        whatever was not committed is rolled back on the way out."""
        holder = InputTransaction(self)
        with translate_errors(self.settings):
            try:
                yield holder
            finally:
                holder.close()

    @contextmanager
    def held(self, name: str, metadata: dict[str, str], **params: Any) -> Iterator[None]:
        """Keep a transaction open while the block runs, tagged with `metadata` (which
        `SHOW TRANSACTIONS` lists), after running the named query in it; rolled back on
        the way out. The server rolls it back by itself when this process dies: a sign of
        life other processes can read (graphmem.write.runs)."""
        with translate_errors(self.settings), \
                self.session() as session:
            tx = session.begin_transaction(metadata=metadata)
            try:
                tx.run(query(name), params).consume()
                yield
            finally:
                with contextlib.suppress(Exception):  # a dead connection rolled it back
                    tx.close()

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
            return retry.retried(once)


class InputTransaction:
    """One explicit write transaction for a whole input, opened on first use. Used from
    one thread at a time (the ingest's writer thread, or the caller after it is idle)."""

    def __init__(self, store: Store) -> None:
        self.store = store
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
        if tx is not None:
            tx.commit()
            if self._session is not None:
                note_made(self._session)

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
    return [row(r) for r in tx.run(query(name, variant), params)]
