"""Sweep (lifecycle, tiers, links, consolidation, reflection), edits and overview, on the
real server under a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import InputError, NotFoundError
from graphmem.graph.store import Store
from graphmem.lifecycle.maintenance import SweepOptions

T0 = datetime(2024, 1, 1, tzinfo=UTC)
QUIET = SweepOptions(consolidate=False, reflect=False)


def props(mem: GraphMem, store: Store, mid: str) -> dict:
    return store.read("admin/memory_by_id", id=mid, scope=mem.settings.scope)[0]["memory"]


def labels(mem: GraphMem, store: Store, mid: str) -> list[str]:
    return store.driver.execute_query(
        "MATCH (m:Memory {id: $id, scope: $scope}) RETURN labels(m) AS l", id=mid,
        scope=mem.settings.scope, database_=store.database).records[0]["l"]


def at(mem: GraphMem, days: float) -> GraphMem:
    mem.ops.core.fixed_now = T0 + timedelta(days=days)
    return mem


def ids(mem: GraphMem, query: str, **options) -> list[str]:
    return [h.id for h in mem.recall(query, reinforce=False, **options).hits]


def test_sweep_shadows_expires_and_is_idempotent(mem: GraphMem, scope: str, store: Store) -> None:
    at(mem, 0).remember([
        {"id": "old", "text": "The API rate limit is 100 requests per minute"},
        {"id": "guarded", "text": "The audit log retention is one year",
         "metadata": {"protected": True}},
        {"id": "promo", "text": "The spring discount code is valid until March",
         "valid_until": "2024-03-01T00:00:00Z"},
    ])
    at(mem, 10).remember([
        {"id": "new", "text": "The API rate limit is 500 requests per minute",
         "supersedes": "old"},
        {"id": "audit2", "text": "The audit log retention is two years",
         "supersedes": "guarded"},
    ])
    dry = at(mem, 90).sweep(dry_run=True, options=QUIET)
    assert (dry.counts["shadowed"], dry.counts["expired"]) == (1, 1)
    assert props(mem, store, "old")["lifecycle"] == "active"  # a dry run writes nothing

    report = mem.sweep(options=QUIET)
    assert (report.counts["shadowed"], report.counts["expired"]) == (1, 1)
    # What leaves the active lifecycle goes cold, and the expired one a stub, in the same
    # sweep: the dry run counted that cascade too.
    assert (report.counts["cold"], report.counts["stub"]) == (2, 1)
    assert dry.counts == report.counts
    assert props(mem, store, "old")["lifecycle"] == "shadowed"
    assert props(mem, store, "promo")["lifecycle"] == "archived"
    assert props(mem, store, "guarded")["lifecycle"] == "active"  # metadata.protected
    assert set(mem.sweep(options=QUIET).counts.values()) == {0}  # a rerun has nothing left
    assert "old" not in ids(mem, "API rate limit", mode="keyword", hops=0)
    assert "old" in ids(mem, "API rate limit", mode="keyword", hops=0, include_shadowed=True)
    assert mem.overview().last_sweep["shadowed"] == 0


def test_archiving_by_age_or_retention_is_opt_in_and_spares_core_and_procedural(
        mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([
        {"id": "old", "kind": "episodic", "text": "Lunch with the platform team at Noodle Bar"},
        {"id": "core", "kind": "core", "text": "I am the release assistant of the web team"},
        {"id": "proc", "kind": "procedural", "text": "To rotate logs, run logrotate -f"},
        {"id": "kept", "kind": "episodic", "text": "Kickoff of the search revamp",
         "metadata": {"protected": True}}])
    at(mem, 300).remember({"id": "new", "kind": "episodic",
                           "text": "Retro of the search revamp went well"})
    assert mem.sweep(options=QUIET).counts["archived"] == 0  # off by default
    by_age = SweepOptions(consolidate=False, reflect=False, archive_after_days=200)
    dry = mem.sweep(dry_run=True, options=by_age)
    report = mem.sweep(options=by_age)
    assert report.counts["archived"] == 1 and dry.counts == report.counts
    old = props(mem, store, "old")
    assert (old["lifecycle"], old["archive_reason"], old["tier"]) == ("archived", "age", "stub")
    assert [props(mem, store, i)["lifecycle"] for i in ("core", "proc", "kept", "new")] == [
        "active"] * 4
    assert "old" in ids(mem, "Noodle Bar", mode="exact", include_archived=True)
    assert "old" not in ids(mem, "Noodle Bar", mode="exact")

    by_retention = SweepOptions(consolidate=False, reflect=False, archive_below=0.5)
    report = at(mem, 400).sweep(options=by_retention)
    assert report.counts["archived"] == 1  # "new", 100 days on; core never: it is exempt
    assert props(mem, store, "new")["archive_reason"] == "retention"


def test_a_sweep_cut_short_is_finished_by_the_next_without_double_counting(
        mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([{"id": f"n{i}", "text": f"Standup note {i}: the {w} is done"}
                         for i, w in enumerate(["parser", "linter", "bundler", "tracer"])])
    from graphmem.base.decay import cypher_params
    at(mem, 400)
    # The first transactions of a sweep's cooling step ran, then it was cut short.
    store.autocommit("maintenance/cool", scope=mem.settings.scope, now=mem.now(),
                         decay=cypher_params(mem.settings.decay_table()), cold_below=0.1,
                         dry_run=False, batch=1, leaving=[])
    store.driver.execute_query(
        "MATCH (m:Memory {id: 'n3'}) SET m.tier = 'hot' "
        "WITH m CALL db.create.setNodeVectorProperty(m, 'embedding', [x IN range(1, 384) | 0.05])",
        database_=store.database)
    report = mem.sweep(options=QUIET)
    assert report.counts["cold"] == 1  # only what the cut-short run left
    assert report.counts["stub"] == 4


def test_cold_memories_leave_the_vector_index_and_come_back_when_recalled(
        mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([
        {"id": "ep", "text": "We moved the Grafana dashboards to the new Prometheus host"},
        {"id": "proc", "text": "To rotate the Grafana admin password use grafana-cli",
         "kind": "procedural"},
        {"id": "who", "text": "I am the observability assistant for the Grafana stack",
         "kind": "core"},
    ])
    report = at(mem, 400).sweep(options=QUIET)
    assert report.counts["cold"] == 1 and report.counts["stub"] == 1
    ep = props(mem, store, "ep")
    assert ep["tier"] == "stub" and store.driver.execute_query(
        "MATCH (m:Memory {id: 'ep'}) RETURN m.embedding IS NULL AS gone",
        database_=store.database).records[0]["gone"]
    assert ep["text"].startswith("We moved the Grafana") and ep["summary"]
    assert {props(mem, store, m)["tier"] for m in ("proc", "who")} == {"hot"}  # floors
    assert set(labels(mem, store, "ep")) == {"Memory", "Episodic", "Stub"}  # for Browser styling

    query = "Grafana dashboards Prometheus host"
    assert "ep" not in ids(mem, query, mode="vector", hops=0)
    assert "ep" in ids(mem, query, mode="keyword", hops=0)
    mem.recall(query, mode="keyword", hops=0)  # reinforcing recall: re-embedded, hot
    mem.flush()
    assert props(mem, store, "ep")["tier"] == "hot"
    assert set(labels(mem, store, "ep")) == {"Memory", "Episodic"}
    assert "ep" in ids(mem, query, mode="vector", hops=0)


def test_dead_links_are_pruned_and_manual_ones_kept(mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([
        {"id": "a", "text": "Kafka brokers run on three nodes in eu-west-1", "session": "s1"},
        {"id": "b", "text": "Kafka brokers in eu-west-1 use three availability zones",
         "session": "s1"},
        {"id": "c", "text": "The Kafka retention period is seven days"},
    ])
    mem.add_link("a", "c", weight=0.3)
    assert at(mem, 10).ops.prune() == 0  # young links live
    report = at(mem, 2000).sweep(options=QUIET)
    assert report.counts["links_pruned"] >= 1
    kinds = store.driver.execute_query(
        "MATCH (:Memory {id: 'a'})-[r:ASSOCIATED]-() RETURN collect(r.kind) AS k",
        database_=store.database).records[0]["k"]
    assert kinds == ["manual"]


def test_consolidation_makes_one_semantic_memory_and_is_not_repeated(mem: GraphMem,
                                                                     store: Store) -> None:
    at(mem, 0).remember([
        {"id": f"e{i}", "text": text, "kind": "episodic"} for i, text in enumerate([
            "Priya Raman reviewed the billing migration plan today",
            "Priya Raman asked for load tests before the billing cutover",
            "Priya Raman approved the billing migration after the load tests",
        ])])
    options = SweepOptions(reflect=False)
    report = at(mem, 30).sweep(options=options)
    assert report.counts["consolidated"] == 1
    rows = store.driver.execute_query(
        "MATCH (s:Memory)-[:CONSOLIDATED_FROM]->(m:Memory) WHERE s.scope = $scope "
        "RETURN s.id AS s, s.kind AS kind, s.text AS text, collect(m.id) AS members",
        scope=mem.settings.scope, database_=store.database).records
    assert len(rows) == 1 and rows[0]["kind"] == "semantic"
    assert sorted(rows[0]["members"]) == ["e0", "e1", "e2"]
    assert rows[0]["text"].startswith("Priya Raman: ")
    assert mem.sweep(options=options).counts["consolidated"] == 0


def test_memories_sharing_a_tag_are_consolidated_too(mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([
        {"id": f"t{i}", "text": text, "kind": "episodic", "tags": ["offsite"]}
        for i, text in enumerate(["booked the venue by the lake for the team trip",
                                  "ordered vegetarian lunches for everyone coming along",
                                  "sent the agenda with the hiking route to the group"])])
    done = at(mem, 30).ops.consolidate(options=SweepOptions(reflect=False))
    assert done.created == 1
    row = store.driver.execute_query(
        "MATCH (s:Memory)-[:CONSOLIDATED_FROM]->(m) WHERE s.scope = $scope "
        "RETURN s.text AS text, s.`meta.consolidated_entity` AS key, count(m) AS n",
        scope=mem.settings.scope, database_=store.database).records[0]
    assert (row["key"], row["n"]) == ("tag:offsite", 3) and row["text"].startswith("offsite: ")


PRIYA = ["Priya Raman reviewed the billing migration plan today",
         "Priya Raman asked for load tests before the billing cutover",
         "Priya Raman approved the billing migration after the load tests"]


def test_an_endpoint_writes_the_summary_and_a_failing_one_falls_back(
        mem: GraphMem, chat_endpoint, store: Store) -> None:
    from graphmem.lifecycle.summarize import ChatSummarizer

    mem.ops.core.summarizer = ChatSummarizer(chat_endpoint.url, "tiny-model")
    chat_endpoint.reply = "Priya Raman led the billing migration once load tests passed."
    at(mem, 0).remember([{"id": f"e{i}", "text": t, "kind": "episodic"}
                         for i, t in enumerate(PRIYA)])
    done = at(mem, 30).ops.consolidate(options=SweepOptions(reflect=False))
    assert (done.created, done.summarized_by, done.warnings) == (1, ["tiny-model"], [])
    assert all(t in chat_endpoint.requests[0][1]["messages"][-1]["content"] for t in PRIYA)
    rows = store.driver.execute_query(
        "MATCH (s:Memory)-[:CONSOLIDATED_FROM]->() WHERE s.scope = $scope "
        "RETURN DISTINCT s.text AS text, s.`meta.summarized_by` AS author",
        scope=mem.settings.scope, database_=store.database).records
    assert [(r["text"], r["author"]) for r in rows] == [(chat_endpoint.reply, "tiny-model")]

    chat_endpoint.status = 503  # the endpoint breaks: the sweep goes on, extractively
    mem.remember([{"id": f"f{i}", "kind": "episodic", "text": t.replace("Priya Raman",
                                                                        "Tomasz Wiśniewski")}
                  for i, t in enumerate(PRIYA)])
    report = at(mem, 60).sweep(options=SweepOptions(reflect=False))
    assert report.counts["consolidated"] == 1
    assert report.warnings == [f"summary endpoint {chat_endpoint.url}/chat/completions "
                               "answered HTTP 503; extractive summaries used instead"]
    texts = {r["text"] for r in store.driver.execute_query(
        "MATCH (s:Memory)-[:CONSOLIDATED_FROM]->() WHERE s.scope = $scope "
        "RETURN DISTINCT s.text AS text", scope=mem.settings.scope,
        database_=store.database).records}
    assert any(t.startswith("Tomasz Wiśniewski: ") for t in texts)


def test_a_covering_semantic_memory_is_confirmed_instead_of_duplicated(mem: GraphMem,
                                                                       store: Store) -> None:
    texts = ["Priya Raman reviewed the billing migration plan today",
             "Priya Raman asked for load tests before the billing cutover",
             "Priya Raman approved the billing migration after the load tests"]
    at(mem, 0).remember([{"id": f"e{i}", "text": t, "kind": "episodic"}
                         for i, t in enumerate(texts)])
    from graphmem.lifecycle.summarize import extractive as summary
    mem.remember({"id": "known", "kind": "semantic",
                  "text": summary("Priya Raman", texts).replace("·", ";")})
    report = at(mem, 30).sweep(options=SweepOptions(reflect=False))
    assert (report.counts["consolidated"], report.counts["consolidation_confirmed"]) == (0, 1)
    assert props(mem, store, "known")["confirmation_count"] == 1


def test_reflection_names_recurring_themes_once_enough_importance_accrued(
        mem: GraphMem) -> None:
    things = ["the payments API", "the search indexer", "the mobile backend", "the CDN",
              "the auth gateway", "the billing worker", "the data pipeline", "the web app",
              "the ML scorer", "the mail relay", "the admin console", "the cron runner"]
    at(mem, 0).remember([
        {"text": f"Orion release train shipped {thing} on day {i}", "importance": 0.9,
         "tags": ["deploys"]} for i, thing in enumerate(things)])
    options = SweepOptions(consolidate=False, reflect_after=10.0)
    assert at(mem, 1).sweep(options=options).counts["reflections"] == 1
    found = mem.recall("recurring themes", kinds=["reflection"], reinforce=False).hits
    assert found and "Orion" in found[0].text and "deploys (12)" in found[0].text
    assert mem.sweep(options=options).counts["reflections"] == 0  # nothing new since


def test_feedback_follows_the_spec_and_refuses_stubs(mem: GraphMem) -> None:
    at(mem, 0).remember({"id": "f", "text": "Staging deploys need a green nightly build",
                         "importance": 0.5, "confidence": 0.7})
    used = mem.feedback("f", used=True)
    assert (used.importance, used.confidence) == (pytest.approx(0.55), pytest.approx(0.8))
    unused = mem.feedback("f", used=False)
    assert (unused.importance, unused.confidence) == (pytest.approx(0.45),
                                                      pytest.approx(0.65))
    at(mem, 3000).sweep(options=QUIET)
    with pytest.raises(InputError, match="stub"):
        mem.feedback("f", used=True)
    with pytest.raises(NotFoundError, match="no memory"):
        mem.feedback("nope", used=True)


def test_update_keeps_the_old_version_in_the_chain(mem: GraphMem) -> None:
    at(mem, 0).remember({"id": "db", "text": "Staging runs PostgreSQL 14"})
    at(mem, 5).update("db", text="Staging runs PostgreSQL 16")
    at(mem, 9).update("db", text="Staging runs PostgreSQL 17", importance=0.9)
    chain = mem.history("db")
    assert [(e.relation, e.memory.text) for e in chain] == [
        ("this", "Staging runs PostgreSQL 17"),
        ("older", "Staging runs PostgreSQL 16"),
        ("older", "Staging runs PostgreSQL 14")]
    assert ids(mem, "PostgreSQL 17", mode="vector", hops=0, top_k=1) == ["db"]
    assert "db@v1" in ids(mem, "PostgreSQL 14", mode="exact", hops=0, include_shadowed=True)
    with pytest.raises(InputError, match="nothing to update"):
        mem.update("db")


def test_forget_soft_keeps_hard_leaves_only_a_tombstone(mem: GraphMem, scope: str,
                                                        store: Store) -> None:
    at(mem, 0).remember([{"id": "soft", "text": "The office wifi password rotates monthly"},
                         {"id": "hard", "text": "Jamie's home address is on file with HR"}])
    mem.update("hard", text="Jamie's home address is on file with HR and payroll")
    mem.forget("soft")
    assert mem.get(["soft"])[0].lifecycle == "archived"
    assert "soft" in ids(mem, "wifi password rotates", mode="exact", hops=0,
                         include_archived=True)
    assert "soft" not in ids(mem, "wifi password", mode="keyword", hops=0)

    result = mem.forget("hard", hard=True)
    assert result.versions_deleted == 1
    leftovers = store.driver.execute_query(
        "MATCH (n) WHERE n.id STARTS WITH 'hard' AND (n:Memory OR n:Tombstone) "
        "AND n.scope = $scope RETURN labels(n) AS l, properties(n) AS p",
        scope=scope, database_=store.database).records
    # One tombstone for the memory and one for its earlier version: neither keeps text.
    assert sorted(r["p"]["id"] for r in leftovers) == ["hard", "hard@v1"]
    assert all(r["l"] == ["Tombstone"] for r in leftovers)
    assert not any("address" in str(v) for r in leftovers for v in r["p"].values())
    with pytest.raises(NotFoundError, match="forgotten for good"):
        mem.feedback("hard", used=True)
    assert mem.overview().tombstones == 2


def test_links_need_two_memories_of_the_scope(mem: GraphMem) -> None:
    mem.remember([{"id": "x", "text": "The CDN caches images for a day"},
                  {"id": "y", "text": "Image uploads go to the media bucket"}])
    assert mem.add_link("x", "y", weight=0.8).created
    assert not mem.add_link("y", "x", weight=0.6).created
    with pytest.raises(NotFoundError):
        mem.add_link("x", "ghost")
    with pytest.raises(InputError):
        mem.add_link("x", "x")


def test_a_simulated_year(mem: GraphMem) -> None:
    """Twelve months of memories, swept monthly, recalled along the way."""
    stored: dict[str, str] = {}
    recalled: dict[str, int] = {}  # the last month each memory was a hit of the recall
    topics = ["invoices", "the mobile app", "the data warehouse", "on-call", "hiring",
              "the design system"]
    for month in range(12):
        at(mem, 30 * month)
        batch = [{"id": f"m{month}-{i}", "kind": "episodic",
                  "text": f"Month {month + 1} note {i}: progress on {topics[i]} "
                          f"(ticket GM-{month * 10 + i})"} for i in range(len(topics))]
        if month == 0:
            batch += [{"id": "core-1", "kind": "core",
                       "text": "I am the team's planning assistant"},
                      {"id": "proc-1", "kind": "procedural",
                       "text": "To cut a release, tag main and run the release workflow"},
                      # Twins: one is recalled every month, the other never.
                      {"id": "kept", "text": "Retro outcome for squad Heron: ship smaller PRs"},
                      {"id": "stale", "text": "Retro outcome for squad Ibis: ship smaller PRs"}]
        mem.remember(batch)
        stored.update({b["id"]: b["text"] for b in batch})
        for hit in mem.recall("progress on on-call", hops=0).hits:  # reinforces each month
            recalled[hit.id] = month
        mem.recall("squad Heron", mode="keyword", hops=0, top_k=1)
        mem.flush()
        mem.sweep(options=SweepOptions(reflect=False))
    mem.forget("m3-4", hard=True)
    stored.pop("m3-4")
    at(mem, 365)

    found = {m.id for m in mem.get(list(stored), limit=len(stored))}
    assert found == set(stored)  # every memory but the hard-forgotten one, by id
    for mid, text in stored.items():  # and by exact text, whatever its tier or lifecycle
        assert mid in ids(mem, text, mode="exact", hops=0, top_k=5, include_shadowed=True,
                          include_archived=True), mid
    tiers = {m.id: m.tier for m in mem.get(list(stored), limit=len(stored))}
    assert tiers["core-1"] == tiers["proc-1"] == "hot"
    # A year-old note the recall left longest ago (which one depends on the model's
    # ranking) went cold: out of the vector top 50, still found by its words.
    cold = min((m for m in stored if m.startswith("m0-") and m != "m0-3"),
               key=lambda m: recalled.get(m, -1))
    assert recalled.get(cold, -1) <= 5 and tiers[cold] != "hot", (cold, recalled)
    assert cold not in ids(mem, stored[cold], mode="vector", hops=0, top_k=50)
    i = int(cold.split("-")[1])
    assert cold in ids(mem, f"GM-{i} {topics[i]}", mode="keyword", hops=0)
    # Recent and reinforced memories outrank stale ones of the same shape.
    ranked = ids(mem, "progress on hiring", mode="keyword", hops=0, top_k=12)
    assert ranked.index("m11-4") < ranked.index("m1-4")
    ranked = ids(mem, "retro outcome ship smaller PRs", mode="keyword", hops=0, top_k=2)
    assert ranked == ["kept", "stale"]
    assert tiers["kept"] == "hot" and tiers["stale"] != "hot"
    assert mem.get(["m0-3"])[0].tier == "hot"  # reinforced every month: kept warm
    # Floors: a year on, core keeps 0.6 and procedural never decays.
    floors = {"core-1": 0.6, "proc-1": 1.0}
    for mid, floor in floors.items():
        hit = mem.recall(stored[mid], mode="exact", hops=0, reinforce=False).hits[0]
        assert hit.id == mid and hit.retention >= floor - 1e-9, (mid, hit.retention)


def test_the_exploration_queries_run_and_find_what_they_name(mem: GraphMem, store: Store) -> None:
    scope = mem.settings.scope
    at(mem, 0).remember([
        {"id": "p1", "text": "Zofia Nowak paired with me on the parser", "session": "s"},
        {"id": "p2", "text": "Zofia Nowak reviewed the parser tests", "session": "s"}])
    mem.add_link("p1", "p2", weight=0.9)
    at(mem, 3000).sweep(options=QUIET)
    run = store.read
    neighbours = run("explore/neighbourhood", id="p1")[0]
    assert neighbours["m"]["id"] == "p1" and neighbours["paths"]
    story = run("explore/session_story", session=f"{scope}#s")
    assert [r["m"]["id"] for r in story] == ["p1", "p2"]
    entity = run("explore/entity_memories", key="name:zofia nowak", scope=scope)
    assert {r["m"]["id"] for r in entity} == {"p1", "p2"}
    strongest = run("explore/strongest_associations", scope=scope)
    assert strongest[0]["weight"] == 0.9
    decayed = run("explore/decayed_since", scope=scope, since=T0)
    assert {r["change"] for r in decayed} == {"cold", "stub"}
