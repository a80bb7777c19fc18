"""Conversation order as graph, on the real server: NEXT edges within a session, in order,
unchanged by re-ingest; recall lifts the turn after the one that matches, with its path;
no turn of another scope comes through; a transcript that is no order is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.graph.store import Store

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026


def chain(store: Store, scope: str) -> list[tuple[str, str, str]]:
    return [(r["a"], r["b"], r["session"]) for r in store.driver.execute_query(
        "MATCH (a:Memory {scope: $scope})-[r:NEXT]->(b:Memory) "
        "RETURN a.`meta.turn_id` AS a, b.`meta.turn_id` AS b, r.session AS session "
        "ORDER BY session, a", scope=scope,
        database_=store.database).records]


def transcript(tmp_path: Path, sessions: list[tuple[str, list[str]]]) -> Path:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"sessions": [
        {"id": name, "date": "2024-05-01T09:00:00Z",
         "turns": [{"speaker": "alice" if i % 2 == 0 else "bob", "text": t, "id": f"{name}-{i}"}
                   for i, t in enumerate(turns)]} for name, turns in sessions]}))
    return path


MIGRATION = [
    "Did you see the Helsinki office finally got its new coffee machine?",
    "Yes, the espresso is much better than in the old place.",
    "Who is leading the Helsinki data-centre migration?",
    "Priya, starting next week.",
    "Great, she ran the last one in Tallinn too.",
]
OTHER = [
    "The Helsinki migration window is the first weekend of June.",
    "Lunch at the new Thai place was great today.",
    "I am off on Friday for my cousin's wedding.",
    "The quarterly numbers look better than expected.",
]


def test_turns_are_chained_in_order_within_each_session(mem: GraphMem, tmp_path: Path,
                                                        store: Store) -> None:
    path = transcript(tmp_path, [("s1", MIGRATION[:4]), ("s2", OTHER)])
    mem.ingest([path])
    expected = [("s1-0", "s1-1", f"{mem.settings.scope}#s1"),
                ("s1-1", "s1-2", f"{mem.settings.scope}#s1"),
                ("s1-2", "s1-3", f"{mem.settings.scope}#s1"),
                ("s2-0", "s2-1", f"{mem.settings.scope}#s2"),
                ("s2-1", "s2-2", f"{mem.settings.scope}#s2"),
                ("s2-2", "s2-3", f"{mem.settings.scope}#s2")]
    assert chain(store, mem.settings.scope) == expected
    mem.ingest([path])  # again: the same chain, no duplicate edge
    assert chain(store, mem.settings.scope) == expected


def test_a_locomo_conversation_keeps_its_order(mem: GraphMem, shared_data: Path,
                                               store: Store) -> None:
    mem.ingest([shared_data / "locomo" / "conv-26.json"])
    rows = store.driver.execute_query(
        "MATCH (a:Memory {scope: $scope})-[:NEXT]->(b:Memory) "
        "RETURN count(*) AS n, sum(CASE WHEN b.`meta.turn` = a.`meta.turn` + 1 "
        "AND b.`meta.conversation` = a.`meta.conversation` THEN 1 ELSE 0 END) AS ordered, "
        "COUNT { MATCH (s:Session {scope: $scope}) } AS sessions, "
        "COUNT { MATCH (m:Memory {scope: $scope}) } AS turns",
        scope=mem.settings.scope, database_=store.database).records[0]
    assert rows["n"] == rows["ordered"] == rows["turns"] - rows["sessions"]


def test_the_turn_after_the_matching_one_is_recalled_with_its_path(mem: GraphMem,
                                                                   tmp_path: Path) -> None:
    mem.ingest([transcript(tmp_path, [("s1", MIGRATION), ("s2", OTHER)])])
    query = "Who is leading the Helsinki data-centre migration?"

    def top(**options) -> list:
        return mem.recall(query, top_k=5, reinforce=False, **options).hits

    assert "Priya" not in " ".join(h.text for h in top(turn_weight=0.0, context=False))
    assert "Priya" in " ".join(h.text for h in top())
    # Lifted from inside the pool by the turn before it.
    assert "Priya" in " ".join(h.text for h in top(context=False, turn_weight=0.5))
    # A pool of five: the answer is not in it, and comes in as the turn after.
    hits = top(pool_factor=1, context=False, turn_weight=0.5)
    answer = next(h for h in hits if "Priya" in h.text)
    step = answer.path[-1]
    assert answer.via == "association"
    assert (step.kind, step.name) == ("turn", "the turn after")
    assert step.source == next(h.id for h in hits if h.text.endswith(query))


def test_a_turn_is_matched_together_with_the_turn_before_it(mem: GraphMem,
                                                             tmp_path: Path) -> None:
    mem.ingest([transcript(tmp_path, [("s1", MIGRATION), ("s2", OTHER)])])
    query = "Who is leading the Helsinki data-centre migration?"
    answer = mem.get(meta=("turn_id", "s1-3"))[0]
    assert answer.text.endswith("Priya, starting next week.")

    def top(**options) -> list:
        return mem.recall(query, top_k=4, hops=0, turn_weight=0.0, reinforce=False,
                          **options).hits

    assert answer.id not in {h.id for h in top(context=False)}
    # Found itself, a direct hit, though its own words are not the question's.
    assert [h.via for h in top() if h.id == answer.id] == ["direct"]


def test_a_turns_context_follows_its_chain_and_keeps_no_private_or_forgotten_text(
        mem: GraphMem, store: Store) -> None:
    def contexts() -> dict[str, str | None]:
        return {r["id"]: r["context"] for r in store.driver.execute_query(
            "MATCH (m:Memory {scope: $scope}) RETURN m.id AS id, m.context AS context",
            scope=mem.settings.scope, database_=store.database).records}

    first, third = "alice: the first thing said today", "alice: the third thing said today"
    remark = "bob: a private remark in between"

    def turn(i: int, text: str, **kw) -> dict:
        return {"id": f"t{i}", "text": text, "session": "s", "metadata": {"turn": i}, **kw}

    mem.remember([turn(0, first), turn(2, third)])
    assert contexts() == {"t0": None, "t2": f"{first}\n{third}"}
    mem.remember([turn(1, remark, visibility="private")])
    # A public turn never carries a private one's text.
    assert contexts() == {"t0": None, "t1": f"{first}\n{remark}", "t2": None}
    mem.update("t0", text="alice: the first thing, said again")
    assert contexts()["t1"].startswith("alice: the first thing, said again\n")
    mem.forget("t0", hard=True)
    assert contexts()["t1"] is None


def test_no_turn_of_another_scope_comes_through(mem: GraphMem, scope: str,
                                                tmp_path: Path, store: Store) -> None:
    other = scope + "-other"
    try:
        mem.ingest([transcript(tmp_path, [("s1", MIGRATION[:3])])])
        mem.remember({"id": "private", "text": "bob: Priya, starting next week.",
                      "visibility": "private"}, scope=other)
        mem.remember({"id": "public", "text": "bob: The Helsinki lead is on holiday."},
                     scope=other)
        store.driver.execute_query(  # hostile edges across scopes
            "MATCH (a:Memory {scope: $scope}), (b:Memory {scope: $other}) "
            "CREATE (a)-[:NEXT {session: 'x'}]->(b), (b)-[:NEXT {session: 'x'}]->(a)",
            scope=scope, other=other, database_=store.database)
        for layers in ([], [other]):
            hits = mem.recall("Who is leading the Helsinki migration?", layers=layers,
                              reinforce=False).hits
            assert "private" not in {h.id for h in hits if h.scope == other}
            assert all(h.scope == scope or h.scope in layers for h in hits)
    finally:
        mem.drop_scope(other)


@pytest.mark.parametrize(("records", "message"), [
    ([{"text": "alice: one thing to say here", "session": "s", "metadata": {"turn": 1}},
      {"text": "bob: another thing to say here", "session": "s", "metadata": {"turn": 1}}],
     r"<api>:2: field 'metadata.turn': session 's' already has turn 1 \(<api>:1\)"),
    ([{"id": "t", "text": "alice: one thing to say here", "session": "a",
       "metadata": {"turn": 0}},
      {"id": "t", "text": "alice: one thing to say here", "session": "b",
       "metadata": {"turn": 0}}], "field 'session': this turn is also in session 'a'"),
    ([{"text": "alice: one thing to say here", "session": "s", "metadata": {"turn": -1}}],
     "field 'metadata.turn': a turn's position is a whole number"),
])
def test_a_transcript_that_is_no_order_is_refused(mem: GraphMem, records, message,
                                                  store: Store) -> None:
    with pytest.raises(InputError, match=message):
        mem.remember(records)
    assert store.read("admin/count_memories", scope=mem.settings.scope)[0]["memories"] == 0
