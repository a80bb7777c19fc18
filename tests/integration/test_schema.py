"""The schema on the real server: idempotent install, ONLINE indexes, dimension check."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import Neo4jUnavailable, SchemaMismatch
from graphmem.graph import schema
from graphmem.graph.store import Store

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026


def test_schema_installs_twice_and_every_index_is_online(mem: GraphMem) -> None:
    first = {i.name for i in mem.init()}
    second = mem.init()
    assert {i.name for i in second} == first
    assert all(i.state == "ONLINE" for i in second)
    by_name = {i.name: i for i in second}
    assert by_name[schema.VECTOR_INDEX].dimensions == 384
    assert by_name[schema.FULLTEXT_INDEX].type == "FULLTEXT"
    assert by_name["memory_scope_id"].properties == ["scope", "id"]  # ids name within a scope
    assert "constraint_unique_Memory_id" not in by_name
    for name in ("index_Memory_id", "constraint_unique_Entity_key",
                 "constraint_unique_Session_id", "index_Memory_scope",
                 "index_Memory_lifecycle", "index_Memory_kind"):
        assert name in by_name, name


def test_the_vector_index_filters_inside_itself_where_the_server_can(mem: GraphMem,
                                                                     store: Store) -> None:
    def vector_index() -> schema.IndexInfo:
        return {i.name: i for i in schema.indexes(store)}[schema.VECTOR_INDEX]

    if not store.features.vector_search_filters:
        assert vector_index().properties == ["embedding"]  # 5.26: neomodel's own
        return
    assert vector_index().properties == ["embedding", *schema.VECTOR_FILTERS]
    mem.remember(["The ferry leaves at nine from the north pier"])
    # A store whose index was made without filters (as neomodel makes it) gets them at init.
    store.autocommit("admin/drop_vector_index")
    with store.driver.session(database=store.database) as session:
        session.run("CREATE VECTOR INDEX vector_index_Memory_embedding FOR (m:Memory) "
                    "ON m.embedding OPTIONS {indexConfig: {`vector.dimensions`: 384}}").consume()
    assert vector_index().properties == ["embedding"]
    with pytest.raises(Neo4jUnavailable, match="made without the properties") as refused:
        mem.recall("when does the ferry leave", reinforce=False)
    assert refused.value.hint == "run `graphmem init`"
    mem.init()
    assert vector_index().properties == ["embedding", *schema.VECTOR_FILTERS]
    assert vector_index().state == "ONLINE"
    assert [h.id for h in mem.recall("when does the ferry leave", reinforce=False).hits]


def test_a_vector_index_of_another_dimension_is_a_clear_error(mem: GraphMem, store: Store) -> None:
    found = schema.indexes(store)
    with pytest.raises(SchemaMismatch, match="holds 384-d vectors but the embedder makes 768-d"):
        schema.check_dimensions(found, 768)


def test_doctor_reports_server_indexes_and_embedder(mem: GraphMem) -> None:
    report = mem.doctor()
    assert report.ok, report.problem
    line = mem.settings.server_line  # the line this run's server was started on
    assert report.server.line == line and report.server.version.startswith(line)
    assert ("vector SEARCH with in-index filters" in report.server.enables) == (line != "5.26")
    assert report.server.edition in ("community", "enterprise")
    assert report.embedder.dimensions == 384
    assert all(i["state"] == "ONLINE" for i in report.indexes)
    assert mem.settings.neo4j_password.get_secret_value() not in report.model_dump_json()


def test_each_migration_runs_once_and_is_recorded(mem: GraphMem, store: Store) -> None:
    # Every init scanned the whole store again for what earlier versions left.
    from graphmem.graph import migrations

    mem.init()
    applied = {r["id"] for r in store.read("admin/migrations_applied")}
    assert applied >= {m.id for m in migrations.MIGRATIONS}
    assert migrations.run(store, before_schema=True) == []
    assert migrations.run(store, before_schema=False) == []
    store.driver.execute_query("MATCH (g:Migration {id: '008_display_labels'}) DELETE g",
                               database_=store.database)
    assert migrations.run(store, before_schema=False) == ["008_display_labels"]
    ids = [m.id for m in migrations.MIGRATIONS]
    assert ids == sorted(ids) and len({i[:3] for i in ids}) == len(ids)  # numbered, once
