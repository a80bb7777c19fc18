"""The one door to Neo4j: a driver, named queries, managed transactions, and error mapping.

Driver errors are translated here, once, by error code: an unreachable server, bad
credentials or a missing database become `Neo4jUnavailable` (exit 2) with a hint.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import GraphDatabase, ManagedTransaction
from neo4j import exceptions as nx

from graphmem.errors import ConfigError, GraphmemError, Neo4jBusy, Neo4jUnavailable
from graphmem.queries import query
from graphmem.settings import Settings

T = TypeVar("T")

START_HINT = "start it with `graphmem server start`, or set NEO4J_URI"
AUTOCOMMIT_ATTEMPTS = 3


@contextmanager
def translate_errors(settings: Settings) -> Iterator[None]:
    """Turn driver exceptions into graphmem errors with a one-line hint; never a traceback."""
    uri, db = settings.neo4j_uri, settings.neo4j_database
    try:
        yield
    except GraphmemError:
        raise
    except nx.AuthError as e:
        raise Neo4jUnavailable(
            f"Neo4j at {uri} refused the credentials of user {settings.neo4j_user!r}",
            "check NEO4J_USER and NEO4J_PASSWORD",
        ) from e
    except (nx.ServiceUnavailable, nx.SessionExpired, OSError) as e:
        raise Neo4jUnavailable(f"Neo4j is not reachable at {uri}", START_HINT) from e
    except nx.TransientError as e:  # e.g. a deadlock with a concurrent writer, retries spent
        raise Neo4jBusy(f"Neo4j at {uri} could not finish: {e.code}",
                        "run it again") from e
    except nx.ConfigurationError as e:
        raise ConfigError(f"cannot use NEO4J_URI {uri!r}: {e}") from e
    except nx.ClientError as e:
        if e.code == "Neo.ClientError.Database.DatabaseNotFound":
            raise Neo4jUnavailable(
                f"database {db!r} does not exist on {uri}",
                "set NEO4J_DATABASE to an existing database (Community has only 'neo4j')",
            ) from e
        if e.code == "Neo.ClientError.Procedure.ProcedureCallFailed" and "index" in str(
            e.message
        ):
            raise Neo4jUnavailable(f"an index is missing on {uri}", "run `graphmem init`") from e
        raise


class Store:
    """A Neo4j driver bound to one database, running named queries."""

    def __init__(self, driver: neo4j.Driver, settings: Settings) -> None:
        self.driver = driver
        self.settings = settings
        self.database = settings.neo4j_database
        #: How deep recall had to ask the vector index last time, and how often that
        #: depth was reused, per scope and filters (`retrieval._vector_candidates`):
        #: other scopes crowd a scope's neighbours, and asking deep at once saves a trip.
        self.vector_depth: dict[tuple[Any, ...], tuple[int, int]] = {}

    @classmethod
    def connect(cls, settings: Settings) -> Store:
        """Open a driver and check that the server answers and accepts the credentials."""
        with translate_errors(settings):
            driver = GraphDatabase.driver(
                settings.neo4j_uri,
                auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
                connection_timeout=settings.connect_timeout,
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
                    session.run("RETURN 1").consume()
            except BaseException:
                driver.close()
                raise
        return cls(driver, settings)

    def close(self) -> None:
        """Close the driver and its connection pool."""
        self.driver.close()

    def read(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named read query (routed to a reader in a cluster) and return its rows.

        Auto-commit, not a managed transaction: one round trip instead of three, which is
        a third of a small recall's time; a read has nothing to retry half-done.
        """
        with translate_errors(self.settings):  # noqa: SIM117 - the session needs the guard too
            with self.driver.session(database=self.database,
                                     default_access_mode=neo4j.READ_ACCESS) as session:
                return [r.data() for r in session.run(query(name), params)]

    def stream(self, name: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Run a named read query and yield its rows as they arrive (for exports that
        should not hold a whole scope in memory)."""
        with translate_errors(self.settings):  # noqa: SIM117
            with self.driver.session(database=self.database,
                                     default_access_mode=neo4j.READ_ACCESS) as session:
                for record in session.run(query(name), params):
                    yield record.data()

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named write query in its own managed transaction and return its rows."""
        return self.write_tx(lambda tx: run(tx, name, **params))

    def write_tx(self, work: Callable[[ManagedTransaction], T]) -> T:
        """Run `work(tx)` in one managed write transaction: all of it commits, or none.

        The driver may retry `work` on transient errors, so it must be idempotent.
        """
        with translate_errors(self.settings):  # noqa: SIM117 - the session needs the guard too
            with self.driver.session(database=self.database) as session:
                return session.execute_write(work)

    def autocommit(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """Run a named query in an auto-commit transaction (needed for CALL … IN
        TRANSACTIONS). Every such query is idempotent (it selects only what still needs
        its change), so a transient failure, such as a deadlock with a concurrent writer,
        is retried: what the failed attempt committed is then not in the returned count."""
        with translate_errors(self.settings):
            for attempt in range(AUTOCOMMIT_ATTEMPTS):
                try:
                    with self.driver.session(database=self.database) as session:
                        return [r.data() for r in session.run(query(name), params)]
                except nx.TransientError as e:
                    if not e.is_retryable() or attempt == AUTOCOMMIT_ATTEMPTS - 1:
                        raise
                    time.sleep(0.2 * 2 ** attempt)
        raise AssertionError("unreachable")


def run(tx: ManagedTransaction, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run a named query inside a transaction function and return its rows as dicts."""
    return [r.data() for r in tx.run(query(name), params)]
