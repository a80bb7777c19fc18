"""GraphMemStore is a LangGraph store: the same operations give the same values,
namespaces and filter results as LangGraph's own InMemoryStore (ranking aside), a
compiled LangGraph graph reads and writes it from a node, and LangMem's memory tools
work on it — all on the real server."""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Iterator
from typing import Any, TypedDict

import langmem
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.config import get_store
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp
from langgraph.store.memory import InMemoryStore

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.integrations.langgraph import GraphMemStore, escape, unescape

NAMESPACES = [("users", "alice", "memories"), ("users", "bob", "memories"),
              ("users", "alice", "prefs"), ("teams", "a b/c@d", "ünï"), ("notes",)]
VALUES = [
    {"text": "Alice prefers green tea over coffee in the morning", "kind": "pref", "n": 1},
    {"text": "Bob is allergic to peanuts", "kind": "health", "n": 2},
    {"content": "The deploy freeze starts on Friday at noon", "kind": "ops", "n": 3,
     "tags": ["deploy", "ops"]},
    {"text": "Alice's cat is called Miso", "kind": "pet", "n": 4, "owner": {"name": "alice"}},
    {"facts": ["Lisbon trip in May"], "kind": "travel", "n": 5},
]


@pytest.fixture
def lg(mem: GraphMem) -> Iterator[GraphMemStore]:
    """A store on the real server under a root of this test's own, dropped afterwards."""
    store = GraphMemStore(mem, root=f"lgtest-{uuid.uuid4().hex[:10]}")
    yield store
    for scope in mem.scopes(store.root + "/"):
        mem.drop_scope(scope)


def _fill(*stores: BaseStore) -> None:
    for i, ns in enumerate(NAMESPACES):
        for j, value in enumerate(VALUES):
            if (i + j) % 2 == 0:
                for s in stores:
                    s.put(ns, f"key {j}/{i}", value)
    for s in stores:  # keys no memory id could be: empty, and longer than an id may be
        s.put(("odd",), "", {"text": "the empty key"})
        s.put(("odd",), "ü" * 150, {"text": "a very long key"})


def _plain(items: list[Any]) -> list[tuple[tuple[str, ...], str, dict[str, Any]]]:
    return sorted((tuple(i.namespace), i.key, i.value) for i in items)


def test_labels_and_keys_escape_reversibly() -> None:
    for label in ["users", "a b/c@d", "ünï", "x:y-z_1", "@", "日本", "tab\tnew\nline"]:
        assert unescape(escape(label)) == label
        assert "/" not in escape(label) and " " not in escape(label)
    assert escape("a/b") != escape("a") + "/" + escape("b")


def test_the_same_operations_give_the_same_answers_as_in_memory_store(
        lg: GraphMemStore) -> None:
    ref = InMemoryStore()
    _fill(lg, ref)
    for ns in NAMESPACES:
        for j in range(len(VALUES)):
            key = f"key {j}/{NAMESPACES.index(ns)}"
            ours, theirs = lg.get(ns, key), ref.get(ns, key)
            assert (ours is None) == (theirs is None), (ns, key)
            if theirs is not None:
                assert ours is not None
                assert (ours.value, ours.key, ours.namespace) == (
                    theirs.value, theirs.key, theirs.namespace)
                assert ours.created_at <= ours.updated_at
    for key in ["", "ü" * 150]:
        assert lg.get(("odd",), key).dict() | {"created_at": 0, "updated_at": 0} == \
            ref.get(("odd",), key).dict() | {"created_at": 0, "updated_at": 0}
    for kwargs in [{}, {"prefix": ("users",)}, {"suffix": ("memories",)},
                   {"prefix": ("users", "*", "memories")}, {"max_depth": 1},
                   {"max_depth": 2, "prefix": ("users",)}, {"limit": 2, "offset": 1},
                   {"prefix": ("teams", "a b/c@d")}, {"prefix": ("nobody",)}]:
        assert lg.list_namespaces(**kwargs) == ref.list_namespaces(**kwargs), kwargs
    for prefix, filt in [((), None), (("users",), None), (("users",), {"kind": "pref"}),
                         (("users",), {"n": {"$gte": 3}}), ((), {"owner": {"name": "alice"}}),
                         ((), {"tags": ["deploy", "ops"]}), (("users", "alice"), {"n": 4}),
                         (("teams",), {"kind": {"$ne": "ops"}})]:
        ours = lg.search(prefix, filter=filt, limit=100)
        theirs = ref.search(prefix, filter=filt, limit=100)
        assert _plain(ours) == _plain(theirs), (prefix, filt)
        # A query ranks them its own way, but finds the same items when it may return all.
        ours = lg.search(prefix, query="what does alice drink", filter=filt, limit=100)
        assert _plain(ours) == _plain(theirs), (prefix, filt)
        assert all(i.score is not None for i in ours)
    # InMemoryStore raises where a compared field is missing; here it matches nothing.
    assert {i.key for i in lg.search(("odd",), filter={"n": {"$gte": 0}})} == set()


def test_search_ranks_by_meaning_within_the_namespace_and_below(lg: GraphMemStore) -> None:
    _fill(lg)
    lg.put(("users", "alice", "memories"), "tea", {"text": "Alice drinks oolong tea daily"})
    found = lg.search(("users", "alice"), query="which tea does Alice drink?", limit=3)
    assert found and "tea" in found[0].value.get("text", "")
    assert all(i.namespace[:2] == ("users", "alice") for i in found)
    assert all(i.namespace[:2] != ("users", "bob")
               for i in lg.search(("users", "alice"), query="peanuts", limit=50))
    newest = lg.search(("users", "alice", "memories"), limit=1)
    assert [i.key for i in newest] == ["tea"]  # no query: most recent first
    page = lg.search((), limit=2, offset=1)
    assert len(page) == 2 and page[0].key != newest[0].key


def test_put_again_updates_and_keeps_history_delete_forgets(lg: GraphMemStore,
                                                            mem: GraphMem) -> None:
    ns = ("users", "carol")
    lg.put(ns, "diet", {"text": "Carol is vegetarian"})
    first = lg.get(ns, "diet")
    lg.put(ns, "diet", {"text": "Carol is vegan since March"})
    second = lg.get(ns, "diet")
    assert first is not None and second is not None
    assert second.value == {"text": "Carol is vegan since March"}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    history = mem.history(escape("diet"), scope=lg.scope(ns))
    assert any(h.memory.text == "Carol is vegetarian" for h in history)
    lg.delete(ns, "diet")
    assert lg.get(ns, "diet") is None
    assert lg.search(ns, query="vegan vegetarian") == []
    gone = mem.recall("Carol vegan vegetarian", scope=lg.scope(ns), mode="keyword")
    assert gone.hits == []
    # A deleted key may be put again, as in any store: the caller decided.
    lg.put(ns, "diet", {"text": "Carol eats fish again"})
    again = lg.get(ns, "diet")
    assert again is not None and again.value == {"text": "Carol eats fish again"}
    lg.delete(ns, "never-there")  # no error, as InMemoryStore


def test_index_fields_and_index_false(lg: GraphMemStore, mem: GraphMem) -> None:
    ns = ("docs",)
    lg.put(ns, "a", {"title": "Quarterly numbers", "body": "Revenue grew in Lisbon"},
           index=["body"])
    lg.put(ns, "b", {"title": "Secret recipe", "body": "Pastel de nata"}, index=False)
    by_text = {m.id: m.text for m in mem.get(["a", "b"], scope=lg.scope(ns))}
    assert by_text["a"] == "Revenue grew in Lisbon"
    assert [i.key for i in lg.search(ns, query="pastel de nata recipe", limit=5)] == ["a"]
    assert {i.key for i in lg.search(ns, limit=5)} == {"a", "b"}


def test_bad_namespaces_and_values_are_refused_whole(lg: GraphMemStore) -> None:
    for ns in [("a.b",), ("ok", ""), ("x" * 300,), ("user\ud800",)]:  # a lone surrogate too
        with pytest.raises(InvalidNamespaceError):
            lg.put(ns, "k", {"text": "anything"})
    with pytest.raises(InputError, match="surrogate"):
        lg.put(("ok",), "key\udfff", {"text": "anything"})
    ops_before = lg.list_namespaces()
    with pytest.raises(InputError, match="key 'k2'"):
        lg.batch([PutOp(("s",), "k1", {"text": "a harmless note"}),
                  PutOp(("s",), "k2", {"text": "key AKIAIOSFODNN7EXAMPLE secret"})])
    assert lg.list_namespaces() == ops_before  # nothing of the batch was written


def test_async_methods(lg: GraphMemStore) -> None:
    async def run() -> tuple[Any, Any, Any]:
        await lg.aput(("a",), "k", {"text": "asynchronous note about rivers"})
        got = await lg.aget(("a",), "k")
        found = await lg.asearch(("a",), query="rivers")
        await lg.adelete(("a",), "k")
        return got, found, await lg.aget(("a",), "k")

    got, found, gone = asyncio.run(run())
    assert got.value["text"].startswith("asynchronous") and found[0].key == "k"
    assert gone is None


class _State(TypedDict):
    user: str
    said: str
    recalled: list[str]


def _graph(store: BaseStore) -> Any:
    def remember_and_recall(state: _State) -> dict[str, Any]:
        s = get_store()
        ns = ("memories", state["user"])
        recalled = [i.value["text"] for i in s.search(ns, query=state["said"], limit=3)]
        s.put(ns, uuid.uuid4().hex, {"text": state["said"]})
        return {"recalled": recalled}

    builder = StateGraph(_State)
    builder.add_node("remember_and_recall", remember_and_recall)
    builder.add_edge(START, "remember_and_recall")
    builder.add_edge("remember_and_recall", END)
    return builder.compile(store=store)


def test_a_compiled_graph_runs_unchanged_on_either_store(lg: GraphMemStore) -> None:
    for store in (InMemoryStore(), lg):
        graph = _graph(store)
        graph.invoke({"user": "dana", "said": "My sister Eva lives in Porto", "recalled": []})
        out = graph.invoke({"user": "dana", "said": "Where does my sister live?",
                            "recalled": []})
        assert out["recalled"] == ["My sister Eva lives in Porto"], type(store)
        other = graph.invoke({"user": "erin", "said": "Where does my sister live?",
                              "recalled": []})
        assert other["recalled"] == []


def test_langmem_tools_on_the_store(lg: GraphMemStore) -> None:
    manage = langmem.create_manage_memory_tool(namespace=("agent", "memories"), store=lg)
    search = langmem.create_search_memory_tool(namespace=("agent", "memories"), store=lg)
    said = manage.invoke({"content": "The user's favourite editor is Helix",
                          "action": "create"})
    assert "created memory" in said
    found = search.invoke({"query": "which editor does the user like"})
    assert "Helix" in found


_NS = st.sampled_from([("a",), ("a", "b"), ("a", "b c"), ("z", "ü/@")])
_KEY = st.sampled_from(["k1", "k 2", "", "k/3"])
_VALUE = st.fixed_dictionaries(
    {"text": st.sampled_from(["red apples", "blue boats at sea", "green tea at noon"]),
     "n": st.integers(0, 3)},
    optional={"tag": st.sampled_from(["x", "y"])})
_OP = st.one_of(
    st.tuples(st.just("put"), _NS, _KEY, _VALUE),
    st.tuples(st.just("delete"), _NS, _KEY),
    st.tuples(st.just("get"), _NS, _KEY),
    st.tuples(st.just("search"), st.sampled_from([(), ("a",), ("a", "b"), ("z",)]),
              st.one_of(st.none(), st.fixed_dictionaries({"n": st.integers(0, 3)}),
                        st.fixed_dictionaries({"tag": st.just("x")})),
              st.sampled_from([None, "apples", "tea at sea"])),
    st.tuples(st.just("list"), st.sampled_from([None, 1]),
              st.sampled_from([None, ("a",), ("*", "b")])))


def _run(store: BaseStore, op: tuple[Any, ...]) -> Any:
    if op[0] == "put":
        return store.put(op[1], op[2], op[3])
    if op[0] == "delete":
        return store.delete(op[1], op[2])
    if op[0] == "get":
        item = store.get(op[1], op[2])
        return None if item is None else (tuple(item.namespace), item.key, item.value)
    if op[0] == "search":  # everything matching, so ranking aside
        return _plain(store.search(op[1], filter=op[2], query=op[3], limit=100))
    if not isinstance(store, InMemoryStore):
        return store.list_namespaces(max_depth=op[1], prefix=op[2])
    # InMemoryStore also lists a namespace whose items were all deleted; a namespace
    # here is listed while it holds an item, as in LangGraph's PostgresStore.
    held = [ns for ns in store.list_namespaces(prefix=op[2], limit=1000)
            if any(tuple(i.namespace) == ns for i in store.search(ns, limit=1000))]
    return sorted({ns[:op[1]] for ns in held} if op[1] else held)


@settings(max_examples=int(os.environ.get("LG_EXAMPLES", "25")), deadline=None, database=None,
          derandomize=os.environ.get("LG_RANDOM") is None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(_OP, min_size=4, max_size=12))
def test_any_sequence_of_operations_matches_in_memory_store(
        mem: GraphMem, ops: list[tuple[Any, ...]]) -> None:
    ours = GraphMemStore(mem, root=f"lgprop-{uuid.uuid4().hex[:10]}")
    ref = InMemoryStore()
    try:
        for op in ops:
            assert _run(ours, op) == _run(ref, op), op
    finally:
        for scope in mem.scopes(ours.root + "/"):
            mem.drop_scope(scope)


def test_search_below_a_namespace_shows_no_private_memory_of_another(
        lg: GraphMemStore, mem: GraphMem) -> None:
    # A private memory written into a child namespace by another door (an agent's remember
    # into that scope) is that scope's alone: a search from above reads the namespaces
    # below as layers, with a query or without one.
    lg.put(("users", "alice"), "tea", {"text": "Alice drinks oolong tea daily"})
    child = lg.scope(("users", "alice", "diary"))
    mem.remember({"text": "Alice's private diary: oolong tea makes her anxious",
                  "visibility": "private"}, scope=child)
    mem.remember({"text": "Alice's public note: oolong tea is shared at the office"},
                 scope=child)
    for query in (None, "oolong tea"):
        texts = [i.value.get("text", "") for i in lg.search(("users",), query=query,
                                                            limit=50)]
        assert not [t for t in texts if "private diary" in t], (query, texts)
        assert [t for t in texts if "public note" in t], (query, texts)
    own = lg.search(("users", "alice", "diary"), limit=50)
    assert any("private diary" in i.value.get("text", "") for i in own)


def test_namespaces_holding_random_looking_ids_are_kept(lg: GraphMemStore) -> None:
    for user in ("user_2NNEqL2nrIRdJ194ndJqAHwEfxC", "9f1c2b7e-4d3a-4b8e-9c1f-2a6d5e8b7c40"):
        for depth in ((user,), ("users", user), ("users", user, "memories", "episodic")):
            lg.put(depth, "pref", {"text": f"prefers dark mode at depth {len(depth)}"})
            got = lg.get(depth, "pref")
            assert got is not None and got.value["text"].endswith(str(len(depth)))
    assert ("users", "user_2NNEqL2nrIRdJ194ndJqAHwEfxC") in lg.list_namespaces(max_depth=2)
    assert ("user_2NNEqL2nrIRdJ194ndJqAHwEfxC",) in lg.list_namespaces(max_depth=1)


def test_deletes_of_one_key_at_once_and_searches_racing_them_do_not_fail(
        lg: GraphMemStore) -> None:
    # LangGraph's own test_large_batches met both: two deletes of one key (an IndexError
    # between the existence check and the delete) and a search that read a memory as it
    # was deleted (an empty record).
    keys = [f"k{i}" for i in range(12)]

    def delete_all(start: threading.Barrier) -> None:
        start.wait()
        for key in keys:
            lg.delete(("race",), key)

    def search_all(start: threading.Barrier) -> None:
        start.wait()
        for _ in range(6):
            lg.search(("race",), limit=50)
            lg.search(("race",), query="the cache", limit=50)

    def get_all(start: threading.Barrier) -> None:  # and a get (put's own read) as well
        start.wait()
        for _ in range(4):
            for key in keys:
                lg.get(("race",), key)

    for round_ in range(3):
        for key in keys:
            lg.put(("race",), key, {"text": f"note {key} of round {round_} about the cache"})
        errors: list[BaseException] = []
        start = threading.Barrier(5)
        threads = [threading.Thread(target=_keep, args=(errors, work, start))
                   for work in (delete_all, delete_all, search_all, search_all, get_all)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert errors == [], errors
        assert lg.search(("race",), limit=50) == []


def _keep(errors: list[BaseException], work: Any, *args: Any) -> None:
    try:
        work(*args)
    except BaseException as e:  # the test reports what any thread raised
        errors.append(e)


def test_a_query_search_past_what_recall_ranks_says_so(lg: GraphMemStore) -> None:
    lg.put(("deep",), "one", {"text": "a note about the cache"})
    assert lg.search(("deep",), query="the cache", offset=990, limit=10) == []
    with pytest.raises(InputError, match="at most 1000 items; offset \\+ limit is 1010"):
        lg.search(("deep",), query="the cache", offset=1000, limit=10)


def test_a_scope_under_the_root_that_is_no_namespace_is_passed_over(
        lg: GraphMemStore, mem: GraphMem) -> None:
    lg.put(("users", "alice"), "tea", {"text": "Alice drinks oolong tea daily"})
    for odd in ("@FF", "users/@C3", "users/a.b"):  # no label escapes to these
        mem.remember({"text": "written under the root by another door"},
                     scope=f"{lg.root}/{odd}")
    assert lg.list_namespaces() == [("users", "alice")]
    assert [i.key for i in lg.search((), limit=50)] == ["tea"]
    assert [i.key for i in lg.search((), query="oolong tea", limit=50)] == ["tea"]
