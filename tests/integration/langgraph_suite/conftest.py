"""The harness that runs LangGraph's own store tests (kept beside it, from
langchain-ai/langgraph, MIT licence) against GraphMemStore on the real server.

Upstream builds a SqliteStore with a character-frequency embedding; here the same
fixtures open GraphMemStores, each under a root of its own dropped afterwards, and
the embedding is graphmem's own model (`fake_embeddings` is the opener)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from graphmem.api import GraphMem
from graphmem.base.settings import Settings
from graphmem.embedding.embedders import Embedder
from graphmem.integrations.langgraph import GraphMemStore


class Stores:
    """Opens GraphMemStores on one GraphMem, each under a fresh root."""

    def __init__(self, mem: GraphMem) -> None:
        self.mem = mem
        self.roots: list[str] = []

    @contextmanager
    def open(self, text_fields: list[str] | None = None) -> Iterator[GraphMemStore]:
        """A store whose `index.fields` are `text_fields` (None: the whole value)."""
        root = f"lgsuite-{uuid.uuid4().hex[:10]}"
        self.roots.append(root)
        yield GraphMemStore(self.mem, root=root,
                            index={"fields": text_fields} if text_fields else None)

    def drop(self) -> None:
        """Drop every scope the stores wrote."""
        for root in self.roots:
            for scope in self.mem.scopes(root + "/"):
                self.mem.drop_scope(scope)


@pytest.fixture
def fake_embeddings(schema_ready: Settings, embedder: Embedder) -> Iterator[Stores]:
    """Upstream's embedding fixture; here the opener of stores on graphmem's model
    (upstream's `store` fixture hides the suite's own, so this opens its GraphMem)."""
    with GraphMem(schema_ready, embedder=embedder) as mem:
        stores = Stores(mem)
        yield stores
        stores.drop()


@pytest.fixture
def store(fake_embeddings: Stores) -> Iterator[GraphMemStore]:
    """Upstream's plain store fixture."""
    with fake_embeddings.open() as opened:
        yield opened


@pytest.fixture
def conn_string() -> str:
    """Upstream's SQLite connection string, which the stores here do not use."""
    return ":memory:"


@pytest.fixture
def anyio_backend() -> str:
    """The async tests run on asyncio, as upstream's do."""
    return "asyncio"
