"""The write path on the real server: confirmation, entities, sessions, synaptic tagging,
supersession, idempotent ingest, LoCoMo."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.base.types import WriteReport
from graphmem.graph.schema import VECTOR_INDEX
from graphmem.graph.store import Store
from graphmem.write import formats
from graphmem.write.links import SessionVectors

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026

REDIS = "The payments service caches sessions in Redis"
REDIS_PARAPHRASE = "The payments service caches its sessions in Redis."


def memory(mem: GraphMem, store: Store, mid: str) -> dict:
    return store.read("admin/memory_by_id", id=mid, scope=mem.settings.scope)[0]["memory"]


def graph_counts(store: Store, scope: str) -> dict[str, int]:
    rows = store.driver.execute_query(
        """MATCH (m:Memory {scope: $scope})
           RETURN count(m) AS memories,
                  sum(COUNT { (m)-[:MENTIONS]->() }) AS mentions,
                  sum(COUNT { (m)-[:IN_SESSION]->() }) AS in_session,
                  sum(COUNT { (m)-[:ASSOCIATED]->() }) AS associated,
                  sum(COUNT { (m)-[:SUPERSEDES]->() }) AS supersedes,
                  COUNT { MATCH (s:Session {scope: $scope}) } AS sessions""",
        scope=scope, database_=store.database)[0]
    return rows[0].data() if hasattr(rows[0], "data") else dict(rows[0])


def test_confirmation_arithmetic(mem: GraphMem, store: Store) -> None:
    first = mem.remember(REDIS, session="monday")
    mid = first.outcomes[0].id
    assert first.outcomes[0].status == "created"
    assert memory(mem, store, mid)["confidence"] == pytest.approx(0.7)

    again = mem.remember("the payments  service caches sessions in REDIS", session="tuesday")
    assert (again.outcomes[0].status, again.outcomes[0].id) == ("confirmed", mid)
    assert memory(mem, store, mid)["confidence"] == pytest.approx(0.8)  # another session: +0.1

    near = mem.remember(REDIS_PARAPHRASE, session="tuesday")
    assert (near.outcomes[0].status, near.outcomes[0].id) == ("confirmed", mid)
    m = memory(mem, store, mid)
    assert m["confidence"] == pytest.approx(0.85)  # the same session again: +0.05
    assert m["confirmation_count"] == 2
    assert m["text"] == REDIS  # the memory keeps its own words

    for day in ("wednesday", "thursday", "friday"):
        mem.remember(REDIS, session=day)
    assert memory(mem, store, mid)["confidence"] == pytest.approx(0.95)  # capped
    sessions = mem.get([mid])[0].sessions
    assert sorted(sessions) == ["friday", "monday", "thursday", "tuesday", "wednesday"]


def test_a_near_copy_of_another_kind_or_a_different_fact_is_created(mem: GraphMem) -> None:
    mem.remember(REDIS, kind="semantic")
    other_kind = mem.remember(REDIS_PARAPHRASE, kind="episodic")
    different = mem.remember("The payments service caches sessions in Memcached",
                             kind="semantic")
    assert other_kind.outcomes[0].status == "created"
    assert different.outcomes[0].status == "created"


def test_a_near_copy_is_judged_by_the_exact_similarity_not_the_indexs(
        mem: GraphMem, store: Store, scope: str) -> None:
    # The index's scores are quantized (~1e-3 off): a threshold read from them would
    # decide by how the index happened to be built.
    texts = [f"The {c} kayak club paddles to the lighthouse on {d}"
             for c in ("red", "blue", "green") for d in ("Mondays", "Fridays")]
    mem.remember(texts, kind="episodic", signal_gate=False)
    vectors = mem.embedder.embed(texts)
    query = mem.embedder.embed_query("the kayak club paddles to the lighthouse")
    found = store.read("ingest/existing", index=VECTOR_INDEX, fetch=50, scan_below=0,
                       scope=scope, min_score=0.0, lists={"ids": [], "hashes": [], "rows": [
                           {"i": 0, "kind": "episodic", "embedding": query.tolist()}]}
                       )[0]["near"]
    exact = {m["id"]: (1 + float(vectors[texts.index(m["text"])] @ query)) / 2
             for m in (memory(mem, store, f["id"]) for f in found)}
    assert found and [f["score"] for f in found] == pytest.approx(
        [exact[f["id"]] for f in found], abs=1e-6)


def test_duplicates_within_one_batch_confirm_the_first(mem: GraphMem, store: Store) -> None:
    report = mem.remember([REDIS, REDIS_PARAPHRASE, "Invoices are rendered with wkhtmltopdf"])
    assert [o.status for o in report.outcomes] == ["created", "confirmed", "created"]
    assert report.outcomes[0].id == report.outcomes[1].id
    assert memory(mem, store, report.outcomes[0].id)["confirmation_count"] == 1


def test_no_session_confirms_at_the_same_session_rate(mem: GraphMem, store: Store) -> None:
    mid = mem.remember(REDIS).outcomes[0].id
    mem.remember(REDIS)
    assert memory(mem, store, mid)["confidence"] == pytest.approx(0.75)


def test_entities_are_linked_and_replaced_when_text_changes(mem: GraphMem) -> None:
    mem.remember({"id": "e1", "text": "UserService in src/auth/handler.ts reads DATABASE_URL"})
    assert set(mem.get(["e1"])[0].entities) == {
        "symbol:UserService", "file:src/auth/handler.ts", "env:DATABASE_URL"}
    mem.remember({"id": "e1", "text": "UserService now reads REDIS_URL from the environment"})
    assert set(mem.get(["e1"])[0].entities) == {"symbol:UserService", "env:REDIS_URL"}


def test_synaptic_links_only_within_a_session(mem: GraphMem, store: Store) -> None:
    mem.remember(["Maria set up the payments webhook in Stripe",
                  "The Stripe webhook for payments retries failed events"], session="one")
    mem.remember(["Stripe payment webhooks are configured by Maria"], session="two")
    rows = store.driver.execute_query(
        """MATCH (a:Memory {scope: $scope})-[r:ASSOCIATED {kind: 'synaptic'}]-(b:Memory)
           RETURN a.id AS a, b.id AS b, r.weight AS weight,
                  COUNT { (a)-[:IN_SESSION]->(:Session)<-[:IN_SESSION]-(b) } AS shared""",
        scope=mem.settings.scope, database_=store.database)[0]
    assert rows, "two similar memories of one session must be linked"
    assert all(r["shared"] >= 1 for r in rows)
    assert all(0.5 <= r["weight"] <= 1.0 for r in rows)


def test_after_a_dropped_scope_a_new_session_links_to_nothing_dropped(
        mem: GraphMem, store: Store) -> None:
    # What this connection keeps of the session's recent vectors goes with the scope
    # (graph/kept.py): the session written again under the same name starts empty.
    scope = mem.settings.scope
    mem.remember(["Maria set up the payments webhook in Stripe"], session="one")
    mem.remember(["The Stripe webhook for payments retries failed events"], session="one")
    window = (scope, f"{scope}#one")  # a session's id is its scope's
    assert store.kept.get(SessionVectors).known(window)  # the first turn's vector
    mem.drop_scope(scope)
    assert not store.kept.get(SessionVectors).known(window)
    report = mem.remember(["Stripe payment webhooks are configured by Maria"], session="one")
    assert report.synaptic_links == 0
    rows = store.driver.execute_query(
        "MATCH (a:Memory {scope: $scope})-[r:ASSOCIATED]-(b) RETURN b.id AS b",
        scope=scope, database_=store.database).records
    assert rows == []


@pytest.mark.parametrize("member_at, new_at", [
    ("2031-05-06T07:08:09.123456+00:00", "2024-01-02T00:00:00+00:00"),
    # Before 1970, with a fraction: the stored time travels as a number of microseconds.
    ("1969-12-31T23:59:59.500001+00:00", "1969-06-01T12:00:00+00:00")])
def test_a_synaptic_links_time_is_the_later_of_its_two_memories_exactly(
        mem: GraphMem, store: Store, member_at: str, new_at: str) -> None:
    mem.remember([{"text": "Maria set up the payments webhook in Stripe",
                   "created_at": member_at}], session="one")
    mem.remember([{"text": "The Stripe webhook for payments retries failed events",
                   "created_at": new_at}], session="one")
    rows = store.driver.execute_query(
        """MATCH (:Memory {scope: $scope})-[r:ASSOCIATED {kind: 'synaptic'}]->(:Memory)
           RETURN r.created_at AS at""", scope=mem.settings.scope,
        database_=store.database)[0]
    assert [r["at"].to_native() for r in rows] == [datetime.fromisoformat(member_at)]


def test_supersession_sets_valid_until_and_keeps_the_chain(mem: GraphMem, scope: str,
                                                           store: Store) -> None:
    now = datetime(2024, 1, 2, tzinfo=UTC)
    old = mem.remember({"id": "v1", "text": "Deploys go through the staging cluster first"})
    assert old.outcomes[0].status == "created"
    mem.remember({"id": "v2", "text": "Deploys go straight to production behind canaries",
                  "supersedes": "v1", "created_at": now.isoformat()})
    assert memory(mem, store, "v1")["valid_until"].to_native() == now
    assert mem.get(["v2"])[0].supersedes == ["v1"]
    assert memory(mem, store, "v1")["text"] == "Deploys go through the staging cluster first"

    other = scope + "-other"
    try:
        mem.remember({"id": "o1", "text": "A memory that lives in another scope"}, scope=other)
        with pytest.raises(InputError, match="field 'supersedes': no memory has id 'o1'"):
            mem.remember({"text": "Tries to supersede across scopes", "supersedes": "o1"})
        with pytest.raises(InputError, match=r"field 'links\.0': no memory has id 'nope'"):
            mem.remember({"text": "Links to a memory that does not exist", "links": ["nope"]})
    finally:
        mem.drop_scope(other)


def test_manual_links(mem: GraphMem, store: Store) -> None:
    mem.remember({"id": "a1", "text": "The billing cron job runs at midnight UTC"})
    report = mem.remember({"id": "a2", "text": "Invoices are emailed after the billing job",
                           "links": [{"id": "a1", "weight": 0.9}]})
    assert report.outcomes[0].status == "created"
    rows = store.driver.execute_query(
        "MATCH (:Memory {id: 'a2'})-[r:ASSOCIATED]-(:Memory {id: 'a1'}) RETURN r.kind AS k, "
        "r.weight AS w", database_=store.database)[0]
    assert [(r["k"], r["w"]) for r in rows] == [("manual", 0.9)]


def test_rejected_records_leave_no_trace(mem: GraphMem, store: Store) -> None:
    report = mem.remember(["ghp_0123456789abcdefghijABCDEFGHIJ012345 is the bot token",
                           "The release train leaves every second Tuesday"])
    assert [o.status for o in report.outcomes] == ["rejected", "created"]
    found = store.driver.execute_query(
        "MATCH (m:Memory) WHERE m.text CONTAINS 'ghp_0123456789' RETURN count(m) AS n",
        database_=store.database)[0][0]["n"]
    assert found == 0


def test_ingesting_the_same_files_twice_leaves_the_same_graph(mem: GraphMem,
                                                              tmp_path: Path, store: Store) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("# Ops\n\nRedis caches sessions for the payments service.\n\n"
                     "## Deploy\n\nPush to main, wait for CI, then tag the release.\n",
                     encoding="utf-8")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"sessions": [{"id": "standup", "date": "2024-05-01T09:00:00",
                                              "turns": [
        {"speaker": "alice", "text": "The payments deploy is blocked on CI."},
        {"speaker": "bob", "text": "CI for payments fails on the Redis integration test."},
        {"speaker": "alice", "text": "Thanks!"}]}]}), encoding="utf-8")
    records = tmp_path / "facts.jsonl"
    records.write_text('{"text": "The on-call rotation changes every Monday"}\n'
                       '{"id": "f2", "text": "Staging runs on a single node", '
                       '"supersedes": null}\n', encoding="utf-8")
    first = mem.ingest([notes, chat, records])
    counts = graph_counts(store, mem.settings.scope)
    second = mem.ingest([notes, chat, records])
    assert graph_counts(store, mem.settings.scope) == counts
    assert first.counts == {"created": 7}
    assert second.counts == {"updated": 6, "confirmed": 1}  # the id-less fact confirms
    assert counts["in_session"] == 3 and counts["sessions"] == 1


def test_a_locomo_conversation_ingests_with_dia_ids_and_session_dates(
        mem: GraphMem, shared_data: Path, store: Store) -> None:
    path = sorted((shared_data / "locomo").glob("conv-*.json"))[0]
    conversation = json.loads(path.read_text(encoding="utf-8"))
    report = mem.ingest([path])
    turns = {
        t["dia_id"]: formats.locomo_date(conversation[f"session_{n}_date_time"], "", "")
        for n in formats.locomo_sessions(conversation) for t in conversation[f"session_{n}"]
    }
    assert report.counts == {"created": len(turns)}
    for dia_id, date in turns.items():
        found = mem.get(meta=("dia_id", dia_id))
        assert len(found) == 1, dia_id
        assert found[0].created_at == date
        assert found[0].metadata["dia_id"] == dia_id
    sessions = store.driver.execute_query(
        "MATCH (s:Session {scope: $scope}) RETURN s.name AS name, s.started_at AS at",
        scope=mem.settings.scope, database_=store.database)[0]
    assert len(sessions) == len(formats.locomo_sessions(conversation))
    first = next(s for s in sessions if s["name"].endswith("/session_1"))
    assert first["at"].to_native() == turns["D1:1"]
    assert [m.metadata["turn"] for m in mem.get(meta=("turn", "0"))] == [0] * len(sessions)


def test_many_small_batches_in_overlapping_windows(mem: GraphMem,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   store: Store) -> None:
    from graphmem.write import ingest

    monkeypatch.setattr(ingest, "EMBED_WINDOW", 4)  # two batches of two per window
    mem.ops.core.settings = mem.settings.model_copy(update={"write_batch_size": 2})
    texts = ["Kafka carries the order events", "The ledger is reconciled nightly",
             "Grafana shows the checkout latency", "PagerDuty wakes the on-call engineer",
             "Terraform manages the VPC", "Vault stores the database credentials",
             "The ledger is reconciled nightly", "Sentry collects frontend errors",
             "Old: the VPC was managed by hand"]
    records = [{"text": t} for t in texts]
    records[0] |= {"id": "first", "supersedes": "last"}  # a memory of the last batch
    records[2] |= {"id": "third", "links": ["eighth"]}
    records[7] |= {"id": "eighth"}
    records[8] |= {"id": "last"}
    report = mem.remember(records)
    assert [o.status for o in report.outcomes] == ["created"] * 6 + ["confirmed"] + [
        "created"] * 2
    assert report.outcomes[6].id == report.outcomes[1].id
    assert mem.get(["first"])[0].supersedes == ["last"]
    assert memory(mem, store, "last")["valid_until"] is not None
    linked = store.driver.execute_query(
        "MATCH (:Memory {id: 'third'})-[r:ASSOCIATED {kind: 'manual'}]-(:Memory {id: 'eighth'}) "
        "RETURN count(r) AS n", database_=store.database)[0][0]["n"]
    assert linked == 1


def test_entity_degrees_stay_what_a_recount_says(mem: GraphMem, store: Store) -> None:
    """Degrees grow by one per new mention (no recount of a hub at each write): after
    new memories, an update that changes mentions and visibility, repeated subjects and
    a hard forget, every entity's degrees equal a count of its memories."""
    scope = mem.settings.scope
    mem.remember([{"id": f"t{i}", "text": f"Caroline told Melanie about Paris, note {i}",
                   "session": "s", "metadata": {"speaker": "Caroline"}} for i in range(6)])
    mem.remember([{"id": "p", "text": "Melanie keeps a private diary about Paris",
                   "visibility": "private"}])
    mem.remember([{"id": "t1", "text": "Caroline went to Lisbon alone",
                   "visibility": "private"}])  # an update by id
    mem.remember([{"id": "t2", "text": "Caroline told Melanie about Paris, note 2",
                   "session": "s", "metadata": {"speaker": "Caroline"}}])  # unchanged
    mem.forget("t3", hard=True)
    rows = store.driver.execute_query(
        """MATCH (e:Entity {scope: $scope})
           RETURN e.name AS name, e.degree AS degree, e.public_degree AS public,
                  COUNT { MATCH (e)<-[:MENTIONS|ABOUT]-(m:Memory) RETURN DISTINCT m }
                    AS counted,
                  COUNT { MATCH (e)<-[:MENTIONS|ABOUT]-(m:Memory {visibility: 'public'})
                          RETURN DISTINCT m } AS counted_public""",
        scope=scope, database_=store.database).records
    assert rows and any(r["degree"] >= 4 for r in rows)
    for r in rows:
        assert (r["degree"], r["public"]) == (r["counted"], r["counted_public"]), r.data()


@pytest.mark.parametrize("rewrite", ["update", "remember by id"])
def test_an_entity_only_the_old_text_named_goes_with_the_rewrite(
        mem: GraphMem, store: Store, rewrite: str) -> None:
    """A rewrite that stops naming an entity leaves it nowhere (it kept degree 0 and its
    name, and a hard forget of the memory never reached it); one another memory still
    names stays."""
    scope = mem.settings.scope
    mem.remember([{"id": "a", "text": "Deploys are approved by Zbigniew Kowalczyk in Gdansk"},
                  {"id": "b", "text": "The Gdansk office closes at six on Fridays"}])

    def names() -> set[str]:
        return {r["name"] for r in store.driver.execute_query(
            "MATCH (e:Entity {scope: $scope}) RETURN e.name AS name", scope=scope,
            database_=store.database).records}

    assert any("Zbigniew" in n for n in names()) and any("Gdansk" in n for n in names())
    if rewrite == "update":
        mem.update("a", text="Deploys are approved by the release manager")
    else:
        mem.remember([{"id": "a", "text": "Deploys are approved by the release manager"}])
    assert not any("Zbigniew" in n for n in names())
    assert any("Gdansk" in n for n in names())  # still named by b
    mem.forget("a", hard=True)
    left = [r["p"] for r in store.driver.execute_query(
        "MATCH (x {scope: $scope}) RETURN properties(x) AS p", scope=scope,
        database_=store.database).records]
    assert left and not [p for p in left if "Zbigniew" in str(p)]


def test_concurrent_writes_of_one_scope_each_get_their_own_outcome(
        mem: GraphMem, store: Store) -> None:
    """Writes that arrive together share a transaction (write/group): each caller still
    hears of its own records, a copy said at once is stored once, and the links the
    reports count are the links stored."""
    texts = ["The Stripe webhook for payments retries failed events",
             "Maria set up the payments webhook in Stripe last spring",
             "Invoices are rendered with wkhtmltopdf on the billing host",
             "The staging database is restored from backups every night",
             "Our on-call rotation changes every Monday at nine",
             "The mobile app caches images for a week",
             "Kafka topics for orders keep seven days of events",
             "Grafana alerts page the on-call engineer after five minutes",
             "The search service uses Elasticsearch 8 with two replicas",
             "Customer emails are sent through Postmark templates"]
    start = threading.Barrier(14)
    reports: dict[str, WriteReport] = {}
    failed: list[BaseException] = []

    def write(name: str, text: str) -> None:
        start.wait(10)
        try:
            reports[name] = mem.remember(text, session="deploy")
        except BaseException as e:
            failed.append(e)

    threads = [threading.Thread(target=write, args=(f"t{i}", t)) for i, t in enumerate(texts)]
    threads += [threading.Thread(target=write, args=(f"same{i}", REDIS)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failed
    own = [reports[f"t{i}"].outcomes[0] for i in range(10)]
    assert [o.status for o in own] == ["created"] * 10
    assert len({o.id for o in own}) == 10
    same = [reports[f"same{i}"].outcomes[0] for i in range(4)]
    assert sorted(o.status for o in same) == ["confirmed"] * 3 + ["created"]
    assert len({o.id for o in same}) == 1
    counts = graph_counts(store, mem.settings.scope)
    assert counts["memories"] == 11 and counts["in_session"] == 11
    assert counts["associated"] == sum(r.synaptic_links for r in reports.values()) > 0
    # The session's order is an order: every memory has its own place.
    places = store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) RETURN collect(m.position) AS p",
        scope=mem.settings.scope, database_=store.database)[0][0]["p"]
    assert sorted(places) == list(range(11))
