"""The schema on the real server: idempotent install, ONLINE indexes, dimension check."""

from __future__ import annotations

import pytest

from graphmem import schema
from graphmem.api import GraphMem
from graphmem.errors import SchemaMismatch


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


def test_a_vector_index_of_another_dimension_is_a_clear_error(mem: GraphMem) -> None:
    found = schema.indexes(mem.store)
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
