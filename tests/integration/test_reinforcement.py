"""What recall writes (read/reinforcement.py) on the real server: two-tier boosting,
promotion, feedback, co-retrieval links, nothing lost on close."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from test_recall import ids

from graphmem.api import GraphMem
from graphmem.graph.store import Store

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026


def test_two_tier_boosting_follows_the_spec_under_a_fixed_clock(mem: GraphMem,
                                                                store: Store) -> None:
    mem.remember([
        {"id": "incident", "text": "The March outage started when the billing cron job hung",
         "created_at": "2024-01-01T00:00:00Z"},
        {"id": "fix", "text": "A watchdog now restarts stuck schedulers after five minutes",
         "links": [{"id": "incident", "weight": 0.9}], "created_at": "2024-01-01T00:00:00Z"},
    ])

    def props(mid: str) -> dict:
        return store.read("admin/memory_by_id", id=mid, scope=mem.settings.scope)[0]["memory"]

    mem.ops.core.fixed_now = datetime(2024, 1, 31, tzinfo=UTC)  # 30 days later: spacing = 2
    mem.recall("billing cron outage", mode="keyword", hops=1)
    mem.flush()  # reinforcement is otherwise written in the background
    assert props("incident")["stability"] == pytest.approx(1.0 + 0.1 * 2)
    assert props("fix")["stability"] == pytest.approx(1.0 + 0.03 * 2)
    assert props("incident")["access_count"] == 1
    assert props("incident")["last_accessed"].to_native() == mem.now()

    mem.recall("billing cron outage", mode="keyword", hops=1)  # no gap: spacing = 1
    mem.flush()
    assert props("incident")["stability"] == pytest.approx(1.2 + 0.1)
    link = store.driver.execute_query(
        "MATCH (:Memory {id: 'incident'})-[r:ASSOCIATED]-(:Memory {id: 'fix'}) "
        "RETURN r.weight AS w, r.count AS n", database_=store.database)[0][0]
    assert (link["w"], link["n"]) == (pytest.approx(0.9 + 2 * 0.05), 3)

    before = props("incident")
    mem.recall("billing cron outage", mode="keyword", hops=1, reinforce=False)
    mem.flush()
    assert props("incident") == before


def test_often_recalled_memories_become_core(mem: GraphMem) -> None:
    mem.remember({"id": "fact", "text": "The release train leaves every second Tuesday",
                  "kind": "fact"})
    for _ in range(9):
        mem.recall("release train", mode="keyword", hops=0)
    mem.flush()
    assert mem.get(["fact"])[0].kind == "semantic"
    mem.recall("release train", mode="keyword", hops=0)
    mem.flush()
    assert mem.get(["fact"])[0].kind == "core"


def test_feedback_lifts_a_used_memory_over_an_equally_similar_unused_one(
        mem: GraphMem) -> None:
    mem.remember([
        {"id": "twin-a", "text": "Rollback steps for deploys: revert the release tag"},
        {"id": "twin-b", "text": "Rollback steps for deploys: revert the release tag!"},
        {"id": "other", "text": "Lunch is served at noon on Fridays"},
    ])
    query = "how do I roll back a deploy?"
    before = ids(mem, query, reinforce=False)[:2]
    assert set(before) == {"twin-a", "twin-b"}
    first, second = before
    mem.feedback(second, used=True)
    mem.feedback(first, used=False)
    assert ids(mem, query, reinforce=False)[:2] == [second, first]
    # Without feedback in the score, the order is what it was.
    assert ids(mem, query, reinforce=False, use_weight=0.0)[:2] == before


def test_exact_recall_weighs_feedback_as_every_mode_does(mem: GraphMem) -> None:
    mem.remember([{"id": "a", "text": "Rollback: revert the release tag"},
                  {"id": "b", "text": "Rollback: revert the release tag, then redeploy"}])
    before = ids(mem, "revert the release tag", mode="exact", reinforce=False)
    assert set(before) == {"a", "b"}
    first, second = before
    mem.feedback(second, used=True)
    mem.feedback(first, used=False)
    assert ids(mem, "revert the release tag", mode="exact",
               reinforce=False) == [second, first]


def test_filtered_records_do_not_shorten_the_keyword_list(mem: GraphMem) -> None:
    """Lucene ranks before the filters apply: memories of other kinds (or archived, or
    private in a layer) at the top of its list must not crowd out the ones that pass."""
    mem.remember([{"id": f"s{i}", "kind": "semantic",
                   "text": f"Orchid orchid orchid: greenhouse note {i}"} for i in range(40)]
                 + [{"id": "e1", "kind": "episodic",
                     "text": "On Monday the team repotted one orchid near the window"}],
                 signal_gate=False)
    found = ids(mem, "orchid", mode="keyword", kinds=["episodic"], candidates=10,
                reinforce=False)
    assert found == ["e1"]


def test_heavy_use_of_one_topic_leaves_another_topics_answer_alone(mem: GraphMem) -> None:
    mem.remember([
        {"id": "redis", "text": "The cache layer is Redis; keys expire after an hour"},
        {"id": "cache-size", "text": "The cache holds about two gigabytes of sessions"},
        {"id": "vault", "text": "Secrets live in Vault under the platform namespace"},
        {"id": "rotate", "text": "Vault tokens for services are rotated every thirty days"},
    ])
    query = "which key-value store is the cache?"
    before = ids(mem, query, reinforce=False)
    assert set(before[:2]) == {"redis", "cache-size"}
    for _ in range(20):  # another topic, used over and over
        mem.feedback("vault", used=True)
        mem.feedback("rotate", used=True)
    assert ids(mem, query, reinforce=False)[:2] == before[:2]


def test_memories_returned_together_get_a_co_retrieval_link(mem: GraphMem, store: Store) -> None:
    mem.remember([{"id": "x", "text": "Kafka topic orders.v2 carries order events"},
                  {"id": "y", "text": "Kafka retention for orders.v2 is seven days"}])
    mem.recall("kafka orders", mode="keyword", hops=0)
    mem.flush()
    rows = store.driver.execute_query(
        "MATCH (:Memory {id: 'x'})-[r:ASSOCIATED]-(:Memory {id: 'y'}) RETURN r.kind AS k, "
        "r.weight AS w", database_=store.database)[0]
    assert [(r["k"], r["w"]) for r in rows] == [("co_retrieval", 0.1)]


def test_reinforcement_is_written_on_close_and_concurrent_recalls_lose_nothing(
        mem: GraphMem, embedder, store: Store) -> None:
    mem.remember({"id": "hot", "text": "The deploy freeze starts on December 20th"})
    others = [GraphMem(mem.settings, embedder=embedder) for _ in range(3)]

    def ask(other: GraphMem) -> None:
        for _ in range(5):
            other.recall("deploy freeze", mode="keyword", hops=0)
        other.close()  # a clean exit: whatever is still queued is written now

    threads = [threading.Thread(target=ask, args=(o,)) for o in others]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = store.read("admin/memory_by_id", id="hot", scope=mem.settings.scope)[0]
    assert row["memory"]["access_count"] == 15


def test_a_memory_used_again_after_close_still_writes_its_reinforcement(
        mem: GraphMem, embedder, store: Store) -> None:
    mem.remember({"id": "again", "text": "The standup moved to half past nine"})
    other = GraphMem(mem.settings, embedder=embedder, reinforce_every=60)
    other.recall("standup time", mode="keyword", hops=0)
    other.close()
    other.recall("standup time", mode="keyword", hops=0)  # reconnects, writer starts again
    other.close()
    row = store.read("admin/memory_by_id", id="again", scope=mem.settings.scope)[0]
    assert row["memory"]["access_count"] == 2


def test_feedback_does_not_wait_for_the_scopes_writers(mem: GraphMem, store: Store) -> None:
    """Feedback locks its one memory, not the scope: a writer holding the scope's lock
    (here, an open transaction that took it as fragments/lock_scope does) does not
    hold it up."""
    mid = mem.remember("The night train to Vienna leaves from platform 4").outcomes[0].id
    done = threading.Event()
    said: list[int] = []
    with store.driver.session(database=store.database) as session:
        tx = session.begin_transaction()
        try:
            tx.run("MATCH (s:Scope {name: $scope}) SET s.locked_at = datetime()",
                   scope=mem.settings.scope).consume()
            worker = threading.Thread(target=lambda: (
                said.append(mem.feedback(mid, used=True).used_count), done.set()))
            worker.start()
            assert done.wait(20), "feedback waited for the scope's lock"
        finally:
            tx.rollback()
    worker.join(20)
    assert said == [1]
