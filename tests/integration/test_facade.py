"""The facade's verbs that the CLI, benchmarks, notebooks and tests use instead of the
store: links, count, settle, at, server, remember_json, and writes with given vectors."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.base.settings import Settings
from graphmem.embedding.embedders import Embedder
from graphmem.write.records import Collector

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def test_links_show_the_graph_around_memories_of_one_scope(mem: GraphMem) -> None:
    mem.remember([{"id": "cache", "text": "The cache layer is Redis", "session": "kickoff"},
                  {"id": "oncall", "text": "Priya is on call for the cache cluster",
                   "links": [{"id": "cache", "weight": 0.8}]}])
    other = f"{mem.settings.scope}-x"
    mem.remember({"id": "cache", "text": "A memory of another tenant"}, scope=other)
    try:
        links = mem.links(["cache"])
        assert {(e.type, e.target_label) for e in links} >= {("ASSOCIATED", "Memory"),
                                                               ("IN_SESSION", "Session")}
        assocs = [e for e in links if e.type == "ASSOCIATED"]
        assert [(e.source, e.target, e.weight) for e in assocs] == [("cache", "oncall", 0.8)]
        assert all(e.source == "cache" for e in links)
        assert "oncall" not in {e.target for e in mem.links(["cache"], scope=other)}
        assert mem.links(["nope"]) == []
    finally:
        mem.drop_scope(other)


def test_count_and_given_vectors_write_without_the_model(mem: GraphMem) -> None:
    texts = ["The staging cluster runs in Frankfurt", "Backups are kept for ninety days"]
    collector = Collector()
    collector.extend(texts)
    vectors = {t: mem.embedder.embed([t])[0] * 3.0 for t in texts}  # not unit: normalised
    report = mem.ops.write(collector.records, mem.ops.write_options(), vectors=vectors)
    assert report.counts == {"created": 2}
    assert mem.count() == 2 and mem.count(all_scopes=True) >= 2
    mem.ops.settle(60)
    hit = mem.recall("where does staging run?", top_k=1, mode="vector").hits[0]
    assert hit.text == texts[0] and hit.cosine == pytest.approx(
        float(mem.embedder.embed_query("where does staging run?") @ vectors[texts[0]] / 3.0),
        abs=0.01)


@pytest.mark.parametrize("vectors, message", [
    ({}, "no vector given for 1 of 1 texts"),
    ({"A fine memory about the train timetable": np.ones(5)},
     "vectors have 5 dimensions, the model 384"),
])
def test_given_vectors_that_do_not_fit_write_nothing(mem: GraphMem, vectors, message) -> None:
    collector = Collector()
    collector.extend(["A fine memory about the train timetable"])
    with pytest.raises(InputError, match=f"field 'vectors': {message}"):
        mem.ops.write(collector.records, mem.ops.write_options(), vectors=vectors)
    assert mem.count() == 0


def test_at_shares_the_connection_with_its_own_clock(mem: GraphMem) -> None:
    with mem.at(T0) as then:
        assert then.now() == T0
        then.remember({"id": "old", "text": "The office moved to the fourth floor"})
    assert mem.get(["old"])[0].created_at == T0
    assert mem.count() == 1  # the shared connection is still open after `then` closed
    assert mem.ops.server.version and mem.ops.server.line in ("5.26", "2026")


def test_remember_json_names_the_source_and_line(mem: GraphMem) -> None:
    report = mem.ops.remember_json('{"text": "Standups are at ten"}\n{"text": "Retros on Fridays"}',
                               source="notes.ndjson", session="week")
    assert report.counts == {"created": 2}
    with pytest.raises(InputError, match=r"^notes.ndjson:2: field 'text': missing$"):
        mem.ops.remember_json('{"text": "Fine"}\n{"txt": "typo"}', source="notes.ndjson")
    assert mem.count() == 2
    skipped = mem.ops.remember_json('{"text": "Lunch is at noon on Thursdays"}\n[1]',
                                skip_invalid=True)
    assert skipped.counts.get("created") == 1 and skipped.counts.get("skipped") == 1


@pytest.mark.parametrize("flags, field", [
    ({"kind": "gossip"}, "kind"), ({"visibility": "secret"}, "visibility"),
    ({"session": "a#b"}, "session"), ({"scope": "no spaces"}, "scope"),
    ({"added_by": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"}, "added_by"),
])
def test_write_options_name_the_bad_field(mem: GraphMem, flags, field) -> None:
    with pytest.raises(InputError, match=f"^field '{field}': "):
        mem.remember("A fine memory about the train timetable", **flags)
    assert mem.count() == 0


def test_recall_options_keep_the_configured_decay(mem: GraphMem) -> None:
    """A recall given options decays by the configured preset, as one without does;
    only a decay table in the options replaces it."""
    from graphmem.base.decay import DEFAULT_CURVES
    from graphmem.base.options import RecallOptions

    steep = GraphMem(mem.settings.model_copy(update={"decay_preset": "seed-000"}),
                     embedder=mem.embedder, store=mem.ops.core.store)
    steep.remember({"text": "The boiler was serviced by Kessler & Sons",
                    "created_at": datetime(2026, 1, 5, tzinfo=UTC)})
    plain = steep.recall("boiler service", reinforce=False).hits[0].retention
    given = steep.recall("boiler service",
                         options=RecallOptions(top_k=3, reinforce=False)).hits[0].retention
    spec = steep.recall("boiler service", options=RecallOptions(
        reinforce=False, decay=dict(DEFAULT_CURVES))).hits[0].retention
    assert given == pytest.approx(plain)
    assert spec > plain  # the steeper preset really was the one in force


def test_a_long_lived_door_warms_up_in_one_call(mem: GraphMem, schema_ready: Settings,
                                                embedder: Embedder) -> None:
    # The service loaded the model and planned recall's queries before its first request;
    # the MCP server only planned. Both now call GraphMem.ops.warm_up.
    said: list[str] = []
    mem.ops.warm_up(said.append)
    assert said == []
    down = GraphMem(schema_ready.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1",
                                                    "connect_timeout": 1.0}),
                    embedder=embedder)
    down.ops.warm_up(said.append)  # never raises: the first call says it again
    assert len(said) == 1 and "not planned ahead" in said[0], said
