"""Plans made on an empty database read nothing whole for each row.

Neo4j keeps a query's plan until its statistics drift far enough, and the first plans of
a new database are made with none: a store's first recall (or `server start`'s planning
ahead) is planned while it holds no memory. A hop from a memory the query already holds
whose far end was labelled `:Memory` could then be planned as a seek of every memory of
the scope (or of every active memory) for each row, checked for the edge
(`Expand(Into)`): the first recalls after a conversation of 1,890 memories took 5.8 and
4.8 s in `recall/retrieve` instead of 0.1 (docs/results.md, "Plans made on an empty
database"). So no hop's far end names a label (NEXT, SUPERSEDES, ASSOCIATED and
CONSOLIDATED_FROM join memories only), and this test plans every named query, and a
default recall's queries with the parameters it passes, on an empty database.

It needs a database that holds no memory: `.ci/run` runs it on its new server before
the suite writes anything (GRAPHMEM_EMPTY_STORE=1: a store with memories fails; 0, an
earlier run's home: skipped); without GRAPHMEM_EMPTY_STORE (the suite's own run) it is
skipped, having run already.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.graph import queries
from graphmem.graph.store import Store

#: Parameters of the right types for planning a query (as tests/integration/test_queries).
SAMPLE = {
    "ids": ["x"], "id": "x", "scope": "s", "rows": [], "index": "vector_index_Memory_embedding",
    "fetch": 10, "k": 5, "vector": [0.1] * 384, "lifecycles": ["active"],
}

#: The seek an `Expand(Into)` may start from besides a unique one (a node by its key): a
#: session's own turns by the (session, position) index (a handful, never the scope).
NARROW = "NodeIndexSeek RANGE INDEX m:Memory(session, position)"


@pytest.fixture
def empty(store: Store) -> Store:
    """The store, when it holds no memory (else the test cannot see what it looks for)."""
    asked = os.environ.get("GRAPHMEM_EMPTY_STORE")
    if asked is None:  # the suite's own run: .ci/run has run it before anything was written
        pytest.skip("run on a new database by .ci/run (GRAPHMEM_EMPTY_STORE)")
    held = store.read("admin/count_memories", scope=None)[0]["memories"]
    if held:
        if asked == "1":
            pytest.fail(f"GRAPHMEM_EMPTY_STORE=1 but the database holds {held} memories")
        pytest.skip(f"the database holds {held} memories: plans made on it have statistics")
    return store


def _explain(store: Store, text: str, params: dict[str, Any]) -> Any:
    with store.driver.session(database=store.database) as session:
        return session.run("EXPLAIN " + text, params).consume().plan


def _leaves(plan: Any) -> list[str]:
    children = plan.get("children") or []
    if not children:
        kind = plan["operatorType"].split("@")[0]
        return [f"{kind} {(plan.get('args') or {}).get('Details', '')}"]
    return [leaf for c in children for leaf in _leaves(c)]


def _wide_into(plan: Any) -> list[str]:
    """Each `Expand(Into)` of the plan that starts from a scan or a seek of many nodes."""
    found = []
    kind = plan["operatorType"].split("@")[0]
    if "(Into)" in kind:
        wide = [leaf for leaf in _leaves(plan) if ("Scan" in leaf or "IndexSeek" in leaf)
                and not leaf.startswith(("NodeUniqueIndexSeek", NARROW))]
        if wide:
            details = (plan.get("args") or {}).get("Details", "")
            found.append(f"{kind} {details[:60]} over {wide[0][:80]}")
    for child in plan.get("children") or []:
        found += _wide_into(child)
    return found


def test_no_named_query_reads_an_index_whole_for_each_row(empty: Store) -> None:
    wide = {}
    for name in queries.all_names():
        text = queries.query(name)
        params = {k: v for k, v in SAMPLE.items() if f"${k}" in text}
        if name == "admin/filtered_vector_index":
            continue  # DDL: its index options are checked by test_queries with real values
        if found := _wide_into(_explain(empty, text, params)):
            wide[name] = found
    assert not wide


def test_a_default_recall_plans_each_hop_from_the_memory_it_holds(
        empty: Store, mem: GraphMem, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, dict[str, Any]] = {}
    for method in ("read", "submit"):
        original = getattr(empty, method)

        def record(name: str, _original=original, **params: Any) -> Any:
            asked.setdefault(name, params)
            return _original(name, **params)
        monkeypatch.setattr(empty, method, record)
    mem.recall("what did the team decide about the billing cron job")
    assert "recall/retrieve" in asked
    wide = {name: found for name, params in asked.items()
            if (found := _wide_into(_explain(empty, queries.query(name, empty.variant), params)))}
    assert not wide
