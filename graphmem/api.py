"""The Python API: one facade over the store, the embedder and the read and write paths.

    from graphmem import GraphMem
    with GraphMem() as mem:
        mem.remember("The cache layer is Redis")
        print(mem.recall("which key-value store do we use?").hits[0].text)
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graphmem import ingest, retrieval, schema
from graphmem.embed import Embedder
from graphmem.errors import GraphmemError, InputError
from graphmem.schema import IndexInfo
from graphmem.settings import Settings, check_scope, load_settings
from graphmem.store import Store
from graphmem.types import (
    DoctorReport,
    EmbedderInfo,
    MemoryIn,
    RecallResult,
    ServerInfo,
    WriteReport,
    as_utc,
    utcnow,
)


def valid_scope(scope: str | None, field: str = "scope") -> str | None:
    """`scope` if it is None or a valid scope name; an InputError (exit 1) otherwise."""
    if scope is None:
        return None
    try:
        return check_scope(scope)
    except ValueError as e:
        raise InputError(str(e), field=field) from None


class GraphMem:
    """A memory graph on Neo4j. Connects on first use; close it (or use `with`) when done."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        now: datetime | None = None,
    ) -> None:
        self.settings = settings or load_settings()
        self.embedder = embedder or Embedder(
            self.settings.embedding_model,
            device=self.settings.embedding_device,
            batch_size=self.settings.embedding_batch_size,
        )
        self._now = as_utc(now) if now else None
        self._store: Store | None = None

    def __enter__(self) -> GraphMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def store(self) -> Store:
        """The connected Store (connects on first access)."""
        if self._store is None:
            self._store = Store.connect(self.settings)
        return self._store

    def now(self) -> datetime:
        """The clock every time-dependent rule reads: fixed if given, else the wall clock."""
        return self._now or utcnow()

    def close(self) -> None:
        """Release the connection pool."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def init(self) -> list[IndexInfo]:
        """Install the schema (idempotent) and return the indexes, all ONLINE."""
        return schema.install(self.store, self.embedder.dimensions)

    def remember(
        self,
        records: str | MemoryIn | dict[str, Any] | Iterable[MemoryIn | dict[str, Any]],
        *,
        scope: str | None = None,
        added_by: str | None = None,
    ) -> WriteReport:
        """Store one text, one record or many records as one all-or-nothing batch."""
        if isinstance(records, str | MemoryIn | dict):
            records = [records]
        numbered = []
        for i, r in enumerate(records, start=1):
            if isinstance(r, str):
                r = {"text": r}
            rec = r if isinstance(r, MemoryIn) else ingest.validate(r, "<api>", i)
            numbered.append(ingest.Numbered(i, rec))
        return self.remember_parsed(numbered, scope=scope, added_by=added_by, source="<api>")

    def remember_parsed(
        self,
        records: list[ingest.Numbered],
        *,
        scope: str | None = None,
        added_by: str | None = None,
        source: str = "<stdin>",
        progress: bool = False,
    ) -> WriteReport:
        """Store records already parsed by `ingest.parse_records` (keeps their line numbers).

        `progress` shows an embedding progress bar on stderr.
        """
        return ingest.write(
            self.store,
            self.embedder,
            records,
            scope=valid_scope(scope) or self.settings.scope,
            now=self.now(),
            added_by=added_by or self.settings.added_by,
            source=source,
            progress=progress,
        )

    def recall(
        self, query: str, *, top_k: int = 10, scope: str | None = None, mode: str = "vector"
    ) -> RecallResult:
        """The memories of a scope that best answer `query`, best first."""
        return retrieval.recall(
            self.store, self.embedder, query,
            scope=valid_scope(scope) or self.settings.scope, top_k=top_k, mode=mode,
        )

    def doctor(self) -> DoctorReport:
        """Check the server, the indexes and the embedder; never raises for a sick server."""
        s = self.settings
        server = ServerInfo(uri=s.neo4j_uri, database=s.neo4j_database, user=s.neo4j_user)
        embedder = EmbedderInfo(
            model=self.embedder.name, path=self.embedder.path, dimensions=self.embedder.dimensions
        )
        try:
            info = self.store.read("admin/server_info")[0]
            server.version, server.edition = info["versions"][0], info["edition"]
            found = schema.indexes(self.store)
            memories = self.store.read("admin/count_memories", scope=None)[0]["memories"]
        except GraphmemError as e:
            return DoctorReport(ok=False, server=server, reachable=False, problem=e.one_line(),
                                embedder=embedder)
        problem = None
        try:
            schema.check_dimensions(found, embedder.dimensions)
            offline = [i.name for i in found if i.state != "ONLINE"]
            if offline:
                problem = f"indexes not ONLINE: {', '.join(offline)}"
        except GraphmemError as e:
            problem = e.one_line()
        return DoctorReport(
            ok=problem is None, server=server, reachable=True, problem=problem,
            indexes=[i.model_dump() for i in found], embedder=embedder, memories=memories,
        )
