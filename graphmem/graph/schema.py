"""Install and check the graph's schema: neomodel installs what `graphmem.graph.model` declares."""

from __future__ import annotations

import io
import time

from pydantic import BaseModel

from graphmem.base.errors import GraphmemError, SchemaMismatch
from graphmem.base.types import DoctorReport, EmbedderInfo, ServerInfo
from graphmem.graph import migrations, model, retry
from graphmem.graph.store import Store
from graphmem.graph.translate import translate_errors

VECTOR_INDEX = "vector_index_Memory_embedding"
#: What Neo4j 2026's SEARCH filters on inside the vector index (`admin/filtered_vector_index`
#: declares them): recall's scope, visibility, lifecycle, kind and time.
VECTOR_FILTERS = ("scope", "lifecycle", "visibility", "kind", "created_at")
#: How long `install` waits for a vector index it rebuilt over existing memories.
REBUILD_SECONDS = 900.0
#: Created by `cypher/admin/fulltext_index.cypher` over text, context and scope_key, its
#: words stemmed (the name is written there too: Cypher takes no parameter for an index
#: name). Migration 012 retires the unstemmed one it replaces.
FULLTEXT_INDEX = "memory_words"


class IndexInfo(BaseModel):
    """One index as the server reports it."""

    name: str
    type: str
    state: str
    entity: str
    properties: list[str]
    dimensions: int | None = None


def install(store: Store, dimensions: int, wait_seconds: float = 60.0) -> list[IndexInfo]:
    """Create constraints and indexes (idempotent), wait until ONLINE, and check dimensions."""
    from neomodel import db, get_config

    embedding = model.Memory.defined_properties()["embedding"]
    declared = embedding.vector_index
    declared.dimensions = dimensions
    get_config().database_name = store.database
    with translate_errors(store.settings):
        # neomodel borrows the Store's driver for this one job; it does not own or close it.
        db.set_connection(driver=store.driver)
        migrations.run(store, before_schema=True)
        if store.features.vector_search_filters:
            # The same index with filter properties, which neomodel cannot declare.
            if install_filtered_vector_index(store, dimensions):
                wait_seconds = max(wait_seconds, REBUILD_SECONDS)
            embedding.vector_index = None
        def declared_labels() -> None:  # idempotent: what exists is left as it is
            for cls in model.SCHEMA_CLASSES:
                db.install_labels(cls, quiet=True, stdout=io.StringIO())

        try:  # neomodel's sessions are its own: the one retry policy still holds for them
            retry.retried(declared_labels, budget=store.settings.retry_s)
        finally:
            embedding.vector_index = declared
        store.autocommit("admin/memory_key")
        store.autocommit("admin/session_position_index")
        store.autocommit("admin/memory_scope_kind_index")
        store.autocommit("admin/token_id")
        store.autocommit("admin/fulltext_index")
        migrations.run(store, before_schema=False)
    indexes = wait_online(store, wait_seconds)
    check_dimensions(indexes, dimensions)
    return indexes


def install_filtered_vector_index(store: Store, dimensions: int) -> bool:
    """On a server with in-index vector filters, make the vector index with VECTOR_FILTERS,
    dropping one without them (building it again takes a while on a big store, once). One
    sized for another model stays, for `check_dimensions` to refuse. Returns whether an
    existing index is being rebuilt."""
    found = next((i for i in indexes(store) if i.name == VECTOR_INDEX), None)
    rebuilt = (found is not None and found.dimensions == dimensions
               and found.properties != ["embedding", *VECTOR_FILTERS])
    if rebuilt:
        store.autocommit("admin/drop_vector_index")
    store.autocommit("admin/filtered_vector_index", dimensions=dimensions)
    return rebuilt


def indexes(store: Store, *, writer: bool = False) -> list[IndexInfo]:
    """The indexes of the database, with vector dimensions where they apply; `writer`:
    as the member that takes writes has them (in a cluster a reader may not have an
    index just made: neomodel's sessions carry no bookmarks of ours)."""
    rows = store.autocommit("admin/indexes") if writer else store.read("admin/indexes")
    return [IndexInfo(**row) for row in rows]


def wait_online(store: Store, wait_seconds: float) -> list[IndexInfo]:
    """Poll the member that takes writes until every index is ONLINE or `wait_seconds`
    pass; return the last listing."""
    deadline = time.monotonic() + wait_seconds
    while True:
        found = indexes(store, writer=True)
        if all(i.state == "ONLINE" for i in found) or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def check_dimensions(found: list[IndexInfo], dimensions: int) -> None:
    """Raise SchemaMismatch if the vector index is missing or sized for another model."""
    vector = next((i for i in found if i.name == VECTOR_INDEX), None)
    if vector is None:
        raise SchemaMismatch(f"vector index {VECTOR_INDEX} is missing", "run `graphmem init`")
    if vector.dimensions != dimensions:
        raise SchemaMismatch(
            f"vector index {VECTOR_INDEX} holds {vector.dimensions}-d vectors "
            f"but the embedder makes {dimensions}-d ones",
            "use the model the graph was built with, or re-embed into a new database",
        )


def doctor(store: Store, embedder: EmbedderInfo) -> DoctorReport:
    """The server (version, edition, release line), its indexes ONLINE and sized for
    `embedder`, and the memories it holds; never raises for a sick server."""
    s = store.settings
    server = ServerInfo(uri=s.neo4j_uri, database=s.neo4j_database, user=s.neo4j_user)
    try:
        info = store.read_once("admin/server_info")[0]  # a server away is said at once
        server.version, server.edition = info["versions"][0], info["edition"]
        server.line, server.enables = store.features.line, store.features.enables
        found = indexes(store)
        memories = store.read("admin/count_memories", scope=None)[0]["memories"]
    except GraphmemError as e:
        return DoctorReport(ok=False, server=server, reachable=False, problem=e.one_line(),
                            embedder=embedder)
    problem = None
    try:
        check_dimensions(found, embedder.dimensions)
        offline = [i.name for i in found if i.state != "ONLINE"]
        if offline:
            problem = f"indexes not ONLINE: {', '.join(offline)}"
    except GraphmemError as e:
        problem = e.one_line()
    return DoctorReport(
        ok=problem is None, server=server, reachable=True, problem=problem,
        indexes=[i.model_dump() for i in found], embedder=embedder, memories=memories,
    )
