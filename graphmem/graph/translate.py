"""Driver errors translated once, by error code, into graphmem's: an unreachable server,
bad credentials or a missing database become `Neo4jUnavailable` (exit 2) with a hint;
never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from neo4j import exceptions as nx

from graphmem.base.errors import (
    ConfigError,
    GraphmemError,
    InputError,
    Neo4jBusy,
    Neo4jRefused,
    Neo4jUnavailable,
)
from graphmem.base.settings import Settings
from graphmem.graph.causal import BOOKMARK_CODES, BOOKMARK_HEADER
from graphmem.graph.retry import CONFLICT_CODES, MEMORY_CODES

START_HINT = "start it with `graphmem server start`, or set NEO4J_URI"

#: The server ended a transaction that ran past its timeout (while running, or while
#: waiting for a lock).
TIMEOUT_CODES = frozenset({"Neo.ClientError.Transaction.TransactionTimedOut",
                           "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
                           "Neo.ClientError.Transaction.LockClientStopped"})




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


def index_missing(e: nx.Neo4jError) -> bool:
    """Whether `e` says a query named an index this server does not have online: a
    procedure naming one (5.26), or SEARCH naming one (2026)."""
    return e.code == "Neo.ClientError.Schema.IndexNotFound" or (
        e.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
        and "index" in str(e.message) and "already exists" not in str(e.message))


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
    if index_missing(e):
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


