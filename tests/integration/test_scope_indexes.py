"""A big scope's own indexes — full-text on both lines, vector on Neo4j 5.26 (whose shared
index cannot filter): made when due, never leaving a memory out, asked by recall, and
gone with the scope."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.graph import scope_indexes
from graphmem.graph.schema import indexes
from graphmem.graph.store import SCOPE_LABEL, Store
from graphmem.read import candidates, keywords


def state(store: Store, scope: str) -> dict:
    rows = store.read("admin/scope_index_state", scope=scope)
    return rows[0] if rows else {}


def exists(store: Store, name: str) -> bool:
    return any(i.name == name for i in indexes(store))


def notes(prefix: str, n: int, start: int = 0) -> list[dict]:
    topics = ["the harbour ferry", "our build server", "the chess club", "a leaking roof"]
    return [{"id": f"{prefix}{i}", "text": f"Note {i} about {topics[i % 4]} and its costs"}
            for i in range(start, start + n)]


def test_writers_count_a_scopes_memories_on_its_node(mem: GraphMem, store: Store,
                                                     scope: str) -> None:
    mem.remember(notes("n", 5))
    mem.remember(notes("n", 3, start=5))
    found = state(store, scope)
    assert found["written"] == 8 and found["memories"] == 8
    assert found["label"] is None and found["vector_index"] is None


def test_a_write_that_makes_no_scope_due_asks_nothing_after_its_commit(
        mem: GraphMem, scope: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The create statement says whether the scope is due one (under the scope's lock), so
    # the read of admin/scope_due is left to the rare write that makes one due.
    asked: list[str] = []
    read = mem.ops.core.store.read
    monkeypatch.setattr(mem.ops.core.store, "read", lambda name, **params: (
        asked.append(name), read(name, **params))[1])
    mem.remember(notes("n", 3))
    mem.remember(notes("n", 2, start=3), scope=scope)
    assert "admin/scope_due" not in asked
    mem.recall("note", reinforce=False)
    assert asked  # the reads are seen (a write now reads nothing: its model is checked
    # under the scope's lock, graph/scope_model)


def test_a_due_scope_gets_its_own_index_and_writes_after_it_carry_the_label(
        mem: GraphMem, store: Store, scope: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scope_indexes, "OWN_INDEX_AT", 12)
    monkeypatch.setattr(candidates, "SCAN_BELOW", 0)  # the index's path, not a scan
    crowd = scope + "-crowd"
    # At this threshold other tests' scopes on the server would be due too: not here.
    for name in ("due", "due_text"):
        due = getattr(scope_indexes, name)
        monkeypatch.setattr(scope_indexes, name, lambda store, due=due: [
            s for s in due(store) if s.startswith(scope)])
    try:
        mem.remember(notes("c", 30), scope=crowd)  # another scope in the shared index
        mem.remember(notes("n", 10))  # not yet due: under OWN_INDEX_AT
        assert state(store, scope)["vector_index"] is None
        mem.remember(notes("n", 4, start=10))  # due; the write itself makes the index
        found = state(store, scope)
        assert found["text_index"] == scope_indexes.text_index_name(scope)  # both lines
        if store.variant == "search":  # Neo4j 2026 filters inside the shared index
            assert found["vector_index"] is None and scope not in scope_indexes.due(store)
            return
        assert found["vector_index"] == scope_indexes.index_name(scope)
        assert found["labelled"] == found["memories"] == 14
        assert scope not in scope_indexes.due(store)
        # Recall asks the own index: its first list is the scope's whole top 10, where the
        # shared one holds twice as many of the crowd's near-identical notes.
        asked = mem.recall("harbour ferry costs", mode="vector", hops=0, candidates=10,
                           turn_weight=0.0, reinforce=False)
        assert asked.profile.round_trips == 2 and len(asked.hits) == 10  # list, then hits
        # A memory written after the switch is in the own index, and recall finds it.
        mem.remember([{"id": "late", "text": "The lighthouse keeper retired in spring"}])
        assert state(store, scope)["labelled"] == 15
        hits = mem.recall("when did the lighthouse keeper retire", mode="vector", hops=0,
                          top_k=1, reinforce=False).hits
        assert [h.id for h in hits] == ["late"]
        # Another scope's memories never come from it.
        other = mem.recall("harbour ferry costs", mode="vector", hops=0, top_k=5,
                           reinforce=False, scope=crowd).hits
        assert other and all(h.id.startswith("c") for h in other)
    finally:
        mem.drop_scope(crowd)


def test_dropping_a_scope_drops_its_own_indexes(mem: GraphMem, store: Store,
                                                scope: str) -> None:
    mem.remember(notes("n", 6))
    names = [scope_indexes.make_text(store, scope)]
    if store.variant != "search":  # Neo4j 2026 makes no vector index of a scope's own
        names.append(scope_indexes.make(store, scope, mem.embedder.dimensions))
    assert all(exists(store, name) for name in names)
    assert state(store, scope)["labelled"] == 6
    assert mem.drop_scope(scope) == 6
    assert not any(exists(store, name) for name in names) and not state(store, scope)


def test_a_big_scopes_keyword_scores_are_its_own(
        mem: GraphMem, store: Store, scope: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A big scope (here: from 12 memories) is asked in its own full-text index, whose
    # statistics another scope's writes cannot move.
    monkeypatch.setattr(keywords, "SMALL_SCOPE", 12)
    mem.remember(notes("n", 20))
    scope_indexes.make_text(store, scope)
    fixed = mem.at(mem.now())

    def asked() -> list[tuple[str, float]]:
        hits = fixed.recall("harbour ferry chess costs", mode="keyword", hops=0,
                            reinforce=False).hits
        return [(h.id, h.score) for h in hits]

    before = asked()
    crowd = scope + "-crowd"
    try:
        mem.remember([{"id": f"c{i}", "text": f"The harbour ferry {i} and the harbour"}
                      for i in range(40)], scope=crowd)
        assert asked() == before and len(before) == 10
    finally:
        mem.drop_scope(crowd)
        fixed.close()


def test_a_member_still_building_a_scopes_own_indexes_answers_from_the_shared_ones(
        mem: GraphMem, store: Store, scope: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # In a cluster a scope's own indexes are made and awaited on the member that takes
    # writes; a reader may be building them still. Here the scope's node names indexes
    # this server does not have, as such a member would: recall answers, from the shared
    # indexes, what it answered before.
    monkeypatch.setattr(keywords, "SMALL_SCOPE", 5)
    monkeypatch.setattr(candidates, "SCAN_BELOW", 0)  # the index's path, not a scan
    mem.remember(notes("n", 12))

    def asked() -> list[str]:
        return [h.id for h in mem.recall("harbour ferry costs", hops=0, reinforce=False).hits]

    before = asked()
    names = {"v": scope_indexes.index_name(scope), "t": scope_indexes.text_index_name(scope)}
    assert not any(exists(store, name) for name in names.values())
    lagging = "MATCH (s:Scope {name: $scope}) SET s.vector_index = $v, s.text_index = $t"
    store.driver.execute_query(lagging, scope=scope, database_=store.database, **names)
    try:
        assert asked() == before and len(before) == 10
    finally:
        store.driver.execute_query("MATCH (s:Scope {name: $scope}) "
                                   "REMOVE s.vector_index, s.text_index", scope=scope,
                                   database_=store.database)


def test_making_an_index_again_resumes_and_changes_nothing(mem: GraphMem, store: Store,
                                                           scope: str) -> None:
    if store.variant == "search":
        pytest.skip("Neo4j 2026 makes no scope indexes")
    mem.remember(notes("n", 6))
    # As if a run stopped after naming the label: the memories were never labelled.
    store.write("admin/scope_label", scope=scope, label=scope_indexes.label(scope))
    assert state(store, scope)["labelled"] == 0
    first = scope_indexes.make(store, scope, mem.embedder.dimensions)
    assert scope_indexes.make(store, scope, mem.embedder.dimensions) == first
    assert state(store, scope)["labelled"] == 6


def test_labels_and_index_names_are_checked_before_they_reach_the_server() -> None:
    assert scope_indexes.label("a scope") == "Scope_" + scope_indexes.index_name(
        "a scope").removeprefix("memory_vector_")
    with pytest.raises(ValueError):
        scope_indexes._checked(SCOPE_LABEL, "Scope_x`) DETACH DELETE (n")


def test_a_label_is_checked_before_it_is_written_into_a_command(store: Store) -> None:
    with pytest.raises(ValueError):
        store.autocommit("admin/scope_text_index", own_label="Scope_x) DETACH DELETE (n",
                         index="memory_text_" + "0" * 24)
    with pytest.raises(ValueError):  # a query that names no label takes none
        store.autocommit("admin/drop_index", own_label=scope_indexes.label("a"), index="x")
