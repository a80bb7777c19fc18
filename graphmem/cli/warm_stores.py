"""The warm process's connections to Neo4j, one per configuration that makes one
(server, credentials, database, timeouts): its calls reuse them, and with them what a
connection keeps between calls (a session's recent vectors, index depths: graph/kept.py).
Used only while the warm process answers a call (`sharing`)."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
from collections.abc import Iterator
from typing import Any

from graphmem.base import registry

#: Whether this call is one the warm process answers (set by `sharing`).
_SHARING: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "graphmem_warm_sharing", default=False)
#: The settings a connection is made from: calls that differ in any of them get their own.
STORE_SETTINGS = ("neo4j_uri", "neo4j_user", "neo4j_password", "neo4j_database",
                  "connect_timeout", "retry_s", "query_timeout", "max_connections",
                  "run_lease_s")


@contextlib.contextmanager
def sharing() -> Iterator[None]:
    """While the block runs (a call the warm process answers), `shared_store` shares."""
    token = _SHARING.set(True)
    try:
        yield
    finally:
        _SHARING.reset(token)


def shared_store(settings: Any) -> Any:
    """During a call the warm process answers (`sharing`), its connection for `settings`,
    made on first use (undoing abandoned runs, as any first connection does) under its
    own lock (base/registry): a server that does not answer holds up no call to another.
    None elsewhere (a command in its own process opens its own)."""
    if not _SHARING.get():
        return None
    values = [getattr(settings, name) for name in STORE_SETTINGS]
    key = hashlib.sha256(json.dumps([
        v.get_secret_value() if hasattr(v, "get_secret_value") else str(v)
        for v in values]).encode()).hexdigest()

    def connect() -> Any:
        from graphmem.graph.store import Store
        from graphmem.write import runs

        store = Store.connect(settings)
        runs.recover(store, None)
        return store

    return registry.made(("store", key), connect)


def close_all() -> None:
    """Close every connection (the warm process is stopping)."""
    for store in registry.take("store"):
        with contextlib.suppress(Exception):
            store.close()
