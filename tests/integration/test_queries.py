"""Every named query in cypher/ is valid Cypher for the real server (planned, not run)."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.base import models
from graphmem.base.clock import utcnow
from graphmem.base.options import RecallOptions
from graphmem.graph import queries
from graphmem.graph.store import Store
from graphmem.read import candidates
from graphmem.read.plan import EARLIEST, LATEST, RecallPlan

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026

# Parameters of the right types for planning each query; EXPLAIN executes nothing.
SAMPLE = {
    "ids": ["x"], "id": "x", "scope": "s", "rows": [], "index": "vector_index_Memory_embedding",
    "fetch": 10, "k": 5, "vector": [0.1] * 384, "lifecycles": ["active"],
}


CASES = [(n, None) for n in queries.all_names()] + [
    (n, "search") for n in queries.all_names("search")]


@pytest.mark.parametrize(("name", "variant"), CASES)
def test_named_query_plans_on_the_server(mem: GraphMem, name: str, variant: str | None,
                                         store: Store) -> None:
    text = queries.query(name, variant)
    features = store.features
    if variant == "search" and not features.vector_search_filters:
        pytest.skip(f"Neo4j {features.version} has no vector SEARCH with filters")
    if "CYPHER 25" in text and not features.cypher_25:
        pytest.skip(f"Neo4j {features.version} has no Cypher 25")
    params = {k: v for k, v in SAMPLE.items() if f"${k}" in text}
    # Auto-commit, as CALL … IN TRANSACTIONS needs.
    with store.driver.session(database=store.database) as session:
        session.run("EXPLAIN " + text, params).consume()


@pytest.mark.parametrize("name", [n for n in queries.all_names() if n.startswith("recall/")])
def test_recall_queries_plan_cold_and_print_their_times(mem: GraphMem, name: str, store: Store,
                                                        plan_times: dict[str, float]) -> None:
    """Each recall query plans afresh (a comment no cached plan has seen makes it a new
    text), and its time is printed at the end of the run, not asserted (a loaded machine
    plans slower): planning is what the first recall after a server start pays."""
    text = queries.query(name, store.variant)
    params = {k: v for k, v in SAMPLE.items() if f"${k}" in text}
    with store.driver.session(database=store.database) as session:
        started = time.perf_counter()
        session.run(f"EXPLAIN {text}\n// {uuid.uuid4().hex}", params).consume()
        took = (time.perf_counter() - started) * 1000
    variant = store.variant if text != queries.query(name) else None
    plan_times[f"{name}@{variant}" if variant else name] = took


def _operators(plan: Any) -> list[tuple[str, str]]:
    found = [(plan["operatorType"], (plan.get("args") or {}).get("Details", ""))]
    for child in plan.get("children", []):
        found += _operators(child)
    return found


def test_association_reads_a_memorys_own_edges(mem: GraphMem, store: Store) -> None:
    """recall/expand walks each source's ASSOCIATED edges: with the visibility filters
    beside the pattern the planner read every memory of the scope and asked each for an
    edge to the source (Expand(Into)), 180 ms at 1,200 memories against 18."""
    text = queries.query("recall/expand", store.variant)
    params = {"lists": {"sources": [{"id": "x", "scope": "s"}], "entities": [], "named": [],
                        "pool": []},
              "two_hops": True, "width": 30, "vector": [0.1] * 384, "hub_limit": 50,
              "turns": True, "scope": "s", "layers": [], "lifecycles": ["active"],
              "kinds": ["semantic"], "filters": [], "since": EARLIEST, "until": LATEST}
    with store.driver.session(database=store.database) as session:
        plan = session.run("EXPLAIN " + text, params).consume().plan
    walks = [d for op, d in _operators(plan) if "ASSOCIATED" in d]
    assert walks, "the plan reads ASSOCIATED edges"
    assert not [d for op, d in _operators(plan) if op.startswith("Expand(Into)")
                and "ASSOCIATED" in d]


def test_a_hard_forget_reads_as_much_in_a_big_scope_as_in_a_small_one(
        mem: GraphMem, store: Store) -> None:
    """edit/forget_hard looked for the scope's reflections naming a deleted entity on
    every forget, reading every memory of the scope even when no entity went (250 of the
    280 database hits in a scope of 250); then the lookup of its versions was planned on
    the scope's index (629 hits against 59 on 5.26 in one CI run, 645 against 75 on
    2026). The forget of a memory whose entity goes (so the scope's reflections are
    looked for too) costs the same in a scope of 10 and of 200."""
    from graphmem.base.clock import utcnow

    def hits(scope: str, n: int) -> int:
        # Only k1 names someone: its entity goes with it, so the scope's reflections are
        # looked for. No entity shared: a forget recounts each entity it leaves.
        mem.remember([{"id": f"k{i}", "text": f"the value of key {i} is bar {i}"
                       + (", says Priya Raman" if i == 1 else "")}
                      for i in range(n)], scope=scope)
        with store.driver.session(database=store.database) as session:
            tx = session.begin_transaction()
            try:  # profiled, then rolled back: the memory stays
                plan = tx.run("PROFILE " + queries.query("edit/forget_hard", store.variant),
                              id="k1", scope=scope, now=utcnow(), by="test").consume().profile
            finally:
                tx.rollback()
        return _db_hits(plan)

    small, big, other = (f"{mem.settings.scope}-{n}" for n in (10, 200, "other"))
    try:
        alone = hits(small, 10)
        # Another scope's reflections are not this forget's to read either.
        mem.remember([{"text": f"reflection {i}: Priya Raman likes key {i}",
                       "kind": "reflection"} for i in range(50)], scope=other)
        assert hits(big, 200) == alone
    finally:
        for s in (small, big, other):
            mem.drop_scope(s)


def _db_hits(plan: Any) -> int:
    return int(plan.get("dbHits", 0)) + sum(_db_hits(c) for c in plan.get("children", []))


def test_one_plan_serves_every_batch_size(store: Store, local_server: None) -> None:
    """The local server caches a plan per parameter type, not per size class of a list
    (`internal.cypher.use_parameter_size=false`, docs/decisions.md): batches of 1, 5 and
    50 ids share one plan. Neo4j's query statistics (`db.stats`) count the plans a text
    was given; on its default they were two."""
    text = "MATCH (m:Memory) WHERE m.id IN $ids RETURN count(m) AS n"
    plans = _stats(store, text, [{"ids": [f"x{i}" for i in range(size)]}
                                 for size in (1, 5, 50, 1, 5, 50)])
    assert [p["invocationSummary"]["invocationCount"] for p in plans] == [6]


def _stats(store: Store, text: str, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Run `text` (tagged anew, so never planned before) once with each of `runs`'
    parameters and return what Neo4j's query statistics (`db.stats`) hold of it: a row
    per plan shape, with each call's compile and execution times."""
    tag = uuid.uuid4().hex
    with store.driver.session(database=store.database) as session:
        session.run("CALL db.stats.collect('QUERIES')").consume()
        for params in runs:
            session.run(f"// {tag}\n{text}", params).consume()
        return [r["data"] for r in session.run(
            "CALL db.stats.retrieve('QUERIES') YIELD data WHERE data.query CONTAINS $tag "
            "RETURN data", tag=tag).data()]


def _compile_ms(store: Store, runs: list[dict[str, Any]], name: str) -> list[float]:
    """How long the server took to compile query `name` (never planned before: `_stats`)
    for each of `runs`' parameters, in order: a plan made takes hundreds of ms for a
    recall query, one found in the cache a few."""
    calls = sorted((i for r in _stats(store, queries.query(name, store.variant), runs)
                    for i in r["invocations"]), key=lambda i: i["startTimestampMillis"])
    assert len(calls) == len(runs)
    return [c["elapsedCompileTimeInUs"] / 1000 for c in calls]


def _planned_again(compiled: list[float]) -> bool:
    """Whether the last call of `_compile_ms` was planned as the first was (not a tenth of
    its compile time: a cache hit is ~100 times faster)."""
    return compiled[-1] > compiled[0] / 10


def _served_from_cache(store: Store, name: str, first: dict[str, Any],
                       then: dict[str, Any]) -> bool:
    """Whether query `name` run with `first`'s parameters, then `then`'s, found the plan
    for `then` in the cache: in any of three tries, since a busy server can make one
    cache hit slow (a 57 ms one was seen against 1.2-3 ms), never a plan fast."""
    return any(not _planned_again(_compile_ms(store, [first, then], name)) for _ in range(3))


def _plan(opts: RecallOptions) -> RecallPlan:
    return RecallPlan.of(opts, "the ferry", scope="s", now=utcnow(), model=models.MINILM)


def _retrieve(opts: RecallOptions, vector: list[float] | None) -> dict[str, Any]:
    """`recall/retrieve`'s parameters for a recall with `opts` and the query's `vector`."""
    plan = _plan(opts)
    texts = [{"id": "x", "scope": "s", "bm25": 1.0}]
    return candidates.retrieve_params(plan, vector, candidates.TextLists(
        text=texts, context=texts if "context" in plan.fields else None))


def test_a_filtered_recall_is_served_by_a_plain_recalls_plan(store: Store,
                                                             local_server: None) -> None:
    """A recall with kinds and a time window passes them with the types a plain recall
    passes (every kind, the widest window: fragments/visible), so the plan the server
    made for the plain one serves it. With null for "no filter", as before, a first
    filtered recall was planned again (1.6-5.1 s after a start)."""
    def exact(opts: RecallOptions) -> dict[str, Any]:
        plan = _plan(opts)
        return {**plan.finding(), "text": plan.query, "case_sensitive": False,
                "k": plan.exact_k}

    plain = exact(RecallOptions())
    filtered = exact(RecallOptions(kinds=["semantic"], since=datetime(2024, 1, 1, tzinfo=UTC),
                                   until=datetime(2025, 1, 1, tzinfo=UTC)))
    assert _served_from_cache(store, "recall/exact", plain, filtered)
    # The old way, null for no window (null `kinds` can fail on 2026: where the planner
    # seeks an index for `IN $kinds`, a null there is a type error).
    nulls = {**plain, "since": None, "until": None}
    assert not _served_from_cache(store, "recall/exact", nulls, filtered)


def test_a_keyword_recall_is_served_by_a_hybrid_recalls_plan(store: Store,
                                                             local_server: None) -> None:
    """Keyword recall reads no query vector and passes a placeholder list of floats with
    `semantic` false (graphmem/read/plan.py NO_VECTOR), so the plans of a default (hybrid)
    recall serve it. With null, as before, the first keyword recall after a start planned
    `recall/retrieve` (1.4 s) and `recall/expand` (1.7 s) again."""
    hybrid = _retrieve(RecallOptions(), [0.1] * 384)
    keyword = _retrieve(RecallOptions(mode="keyword"), None)
    assert keyword["semantic"] is False and hybrid["semantic"] is True
    assert _served_from_cache(store, "recall/retrieve", hybrid, keyword)
    assert not _served_from_cache(store, "recall/retrieve", hybrid, {**keyword, "vector": None})


def test_a_scan_of_a_scope_reads_that_scope_alone(store: Store) -> None:
    """A small scope's exact vector scan, exact recall and the keyword statistics read the
    scope's memories by the scope index: on a development server holding two scopes the
    planner read every scope's memories by the widest time window instead (the range
    index on created_at), which on a shared store costs what the whole store holds."""
    plan = _plan(RecallOptions())
    params = {
        "recall/retrieve": {**_retrieve(RecallOptions(), [0.1] * 384), "scan": True},
        "recall/exact": {**plan.finding(), "text": plan.query, "case_sensitive": False,
                         "k": plan.exact_k},
        "recall/text_lists": {**plan.common(), "text_index": "memory_words", "fetch": 10,
                              "small": 1000, "own_indexes": True, "searches": [
                                  {"list": "text", "scope": "s", "q": "ferry", "limit": 10}]},
    }
    for name, given in params.items():
        with store.driver.session(database=store.database) as session:
            found = _operators(session.run("EXPLAIN " + queries.query(name, store.variant),
                                           given).consume().plan)
        by_time = [d for op, d in found if "created_at" in d and op.startswith("NodeIndex")]
        assert not by_time, f"{name} reads memories by time: {by_time}"
        assert [d for op, d in found if op.startswith("NodeIndexSeek")
                and "Memory(scope)" in d], f"{name} does not seek the scope's memories"
