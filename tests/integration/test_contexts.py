"""A turn's context vector and stemmed words, on the real server: a write embeds each
context it sets (the turn before and the turn, as words), an insert or update makes the
next turn's again, a hard forget leaves no vector made from the forgotten text, `reembed`
makes what a scope written before lacks, and recall reads it; a keyword finds its
inflections, in a small scope (scored in Python) and a big one (Lucene), and a store
indexed unstemmed by an earlier version is moved by migration 012."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.api import GraphMem
from graphmem.embedding.embedders import Embedder
from graphmem.graph import migrations, scope_indexes
from graphmem.graph.schema import indexes
from graphmem.graph.store import Store

#: Also run on Neo4j 2026 by .ci/run.
pytestmark = pytest.mark.line2026

TURNS = ["I adopted a beagle puppy last spring.", "What did you name the puppy?",
         "We called him Biscuit, after my grandmother's recipe."]


def contexts(store: Store, scope: str) -> dict[str, tuple[str | None, list[float] | None]]:
    return {r["id"]: (r["context"], r["vector"]) for r in store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) RETURN m.id AS id, m.context AS context, "
        "m.context_embedding AS vector", scope=scope, database_=store.database).records}


def cos(a: list[float], b: np.ndarray) -> float:
    return float(np.dot(np.asarray(a, dtype=np.float32), b))


def test_a_write_embeds_each_context_it_sets_as_words(mem: GraphMem, store: Store,
                                                      embedder: Embedder, scope: str) -> None:
    for i, text in enumerate(TURNS):
        mem.remember({"id": f"t{i}", "text": text}, session="chat")
    found = contexts(store, scope)
    assert found["t0"] == (None, None)  # a session's first turn reads as itself
    for i in (1, 2):
        context, vector = found[f"t{i}"]
        assert context == TURNS[i - 1] + "\n" + TURNS[i]
        assert vector is not None and cos(vector, embedder.embed([context])[0]) > 0.9999
    # An update of the middle turn makes its context's vector and the next turn's again.
    mem.update("t1", text="What name did you give him?")
    again = contexts(store, scope)
    for i in (1, 2):
        context, vector = again[f"t{i}"]
        assert "What name did you give him?" in (context or "")
        assert vector is not None and cos(vector, embedder.embed([context])[0]) > 0.9999


def test_a_hard_forget_leaves_no_vector_made_from_the_forgotten_text(
        mem: GraphMem, store: Store, embedder: Embedder, scope: str) -> None:
    for i, text in enumerate(TURNS):
        mem.remember({"id": f"t{i}", "text": text}, session="chat")
    mem.forget("t1", hard=True)
    context, vector = contexts(store, scope)["t2"]
    assert context == TURNS[0] + "\n" + TURNS[2] and vector is None
    # Recall still reads it in context (the two turns' mean), and reembed makes its own.
    assert mem.recall("Biscuit the beagle", top_k=2, reinforce=False).hits
    (done,) = mem.ops.reembed(scope)
    assert (done.contexts, done.skipped) == (1, False)
    vector = contexts(store, scope)["t2"][1]
    assert vector is not None and cos(vector, embedder.embed([context])[0]) > 0.9999
    assert mem.ops.reembed(scope)[0].skipped  # nothing left to make


def test_recall_reads_the_context_vector(mem: GraphMem, store: Store, scope: str) -> None:
    for i, text in enumerate(TURNS):
        mem.remember({"id": f"t{i}", "text": text}, session="chat")
    query = "What is the name of the dog that was adopted?"
    with_vectors = mem.recall(query, top_k=3, hops=0, turn_weight=0, reinforce=False).hits
    store.driver.execute_query("MATCH (m:Memory {scope: $scope}) REMOVE m.context_embedding",
                               scope=scope, database_=store.database)
    without = mem.recall(query, top_k=3, hops=0, turn_weight=0, reinforce=False).hits
    # The same hits; the answer's relevance read from its context's own vector differs
    # from the two turns' mean that stands in without one.
    assert {h.id for h in with_vectors} == {h.id for h in without}
    by = {h.id: h.score for h in with_vectors}
    assert any(abs(by[h.id] - h.score) > 1e-6 for h in without)


def test_a_keyword_finds_its_inflections(mem: GraphMem) -> None:
    mem.remember([{"id": "a", "text": "The adoption papers were signed on Friday."},
                  {"id": "b", "text": "Painting is how she relaxes."}])
    assert [h.id for h in mem.recall("adopted", mode="keyword").hits] == ["a"]
    assert [h.id for h in mem.recall("paintings", mode="keyword").hits] == ["b"]


def test_a_big_scope_finds_inflections_in_its_own_stemmed_index(
        mem: GraphMem, store: Store, scope: str) -> None:
    # With ids: each is created, none confirms a near copy.
    many = [{"id": f"n{i}", "text": f"Ticket {i} about the printer queue on floor {i % 7}"}
            for i in range(scope_indexes.OWN_INDEX_AT)]
    mem.remember([*many, {"id": "needle", "text": "The adoption papers were signed."}],
                 signal_gate=False)
    own = store.driver.execute_query("MATCH (s:Scope {name: $scope}) RETURN s.text_index AS i",
                                     scope=scope, database_=store.database).records
    assert own[0]["i"] == scope_indexes.text_index_name(scope)  # the write made it
    assert [h.id for h in mem.recall("adopted", mode="keyword").hits] == ["needle"]


def test_migration_012_moves_an_unstemmed_store(mem: GraphMem, store: Store,
                                                scope: str) -> None:
    if mem.settings.server_line != "2026":
        pytest.skip("it un-names every scope's own index: run where tests run one at a time "
                    "(the 2026 line in .ci/run)")
    mem.remember([{"id": "a", "text": "The adoption papers were signed on Friday."}])
    name = scope_indexes.text_index_name(scope)
    # The scope's own index as an earlier version made it: no analyzer named.
    own = scope_indexes.label(scope)
    store.write("admin/scope_label", scope=scope, label=own)
    store.autocommit("admin/label_scope", scope=scope, label=own)
    store.driver.execute_query(f"CREATE FULLTEXT INDEX {name} FOR (m:{own}) "
                               "ON EACH [m.text, m.context, m.scope_key]",
                               database_=store.database)
    store.autocommit("admin/await_index", index=name, seconds=60)
    store.write("admin/scope_text_index_ready", scope=scope, index=name)
    next(m for m in migrations.MIGRATIONS if m.id == "012_stemmed_words").run(store)
    assert all(i.name != name for i in indexes(store))
    assert [h.id for h in mem.recall("adopted", mode="keyword").hits] == ["a"]


class Counting:
    """The real embedder, counting its calls and the texts each was asked."""

    def __init__(self, real: Embedder) -> None:
        self.real, self.calls = real, []  # type: list[list[str]]

    def __getattr__(self, name: str):
        return getattr(self.real, name)

    def embed(self, texts, advance=None):
        self.calls.append(list(texts))
        return self.real.embed(texts, advance)


def test_an_import_embeds_its_contexts_with_its_texts(mem: GraphMem, store: Store,
                                                      embedder: Embedder, scope: str) -> None:
    # Turn 1 is stored first; the import brings 0, 2 and 3: the context it foresees for
    # turn 2 (after 0) is not the one the chain makes (after 1), which is embedded then.
    mem.remember({"id": "t1", "text": TURNS[1], "metadata": {"turn": 1}}, session="chat")
    counting = Counting(embedder)
    importer = GraphMem(mem.settings, embedder=counting, store=store)
    fourth = "Biscuit loves the beach."
    importer.remember([{"id": "t0", "text": TURNS[0], "metadata": {"turn": 0}},
                       {"id": "t2", "text": TURNS[2], "metadata": {"turn": 2}},
                       {"id": "t3", "text": fourth, "metadata": {"turn": 3}}], session="chat")
    texts = [TURNS[0], TURNS[2], fourth]
    # One run of the model: the texts, and the contexts the input foresaw (2 after 0,
    # 3 after 2); then the ones that came out otherwise (1 after 0, 2 after 1).
    assert counting.calls[0] == [*texts, TURNS[0] + "\n" + TURNS[2], TURNS[2] + "\n" + fourth]
    assert sorted(counting.calls[1]) == sorted([TURNS[0] + "\n" + TURNS[1],
                                                TURNS[1] + "\n" + TURNS[2]])
    assert len(counting.calls) == 2
    found = contexts(store, scope)
    assert found["t0"] == (None, None)
    for mid, before, text in (("t1", TURNS[0], TURNS[1]), ("t2", TURNS[1], TURNS[2]),
                              ("t3", TURNS[2], fourth)):
        context, vector = found[mid]
        assert context == before + "\n" + text
        assert vector is not None and cos(vector, embedder.embed([context])[0]) > 0.9999
