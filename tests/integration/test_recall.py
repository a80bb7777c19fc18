"""Recall modes, filters, lifecycles, layers, temporal scoring and association, on the
real server."""

from __future__ import annotations

import math
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np
import pytest

from graphmem.api import GraphMem
from graphmem.errors import InputError
from graphmem.graph import scope_indexes
from graphmem.graph.store import Store
from graphmem.read import candidates
from graphmem.types import QUERY

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026

NOW = datetime(2024, 6, 1, tzinfo=UTC)
NOTES = [
    {"id": "pdf", "text": "Invoices are rendered to PDF with wkhtmltopdf on the worker"},
    {"id": "redis", "text": "The cache layer is Redis; every cache key uses the user: prefix"},
    {"id": "k8s", "text": "We deploy with Kubernetes on GKE through Argo CD",
     "metadata": {"team": "platform"}},
    {"id": "tabs", "text": "Alice prefers tabs over spaces in the Go services",
     "metadata": {"team": "backend"}, "kind": "heuristic"},
]


@pytest.fixture
def notes(mem: GraphMem) -> GraphMem:
    mem._now = NOW
    mem.remember([n | {"created_at": "2024-05-01T00:00:00Z"} for n in NOTES])
    return mem


def ids(mem: GraphMem, query: str, **options) -> list[str]:
    return [h.id for h in mem.recall(query, **options).hits]


def test_each_mode_finds_what_it_should(notes: GraphMem) -> None:
    assert ids(notes, "wkhtmltopdf", mode="keyword", hops=0) == ["pdf"]
    assert ids(notes, "which key-value store holds our cache?", mode="vector", top_k=1,
               hops=0) == ["redis"]
    assert ids(notes, "USER: PREFIX", mode="exact", hops=0) == ["redis"]
    assert ids(notes, "USER: PREFIX", mode="exact", hops=0, case_sensitive=True) == []
    hybrid = notes.recall("how do we deploy to kubernetes?", top_k=2, hops=0).hits
    assert hybrid[0].id == "k8s"
    assert hybrid[0].vector_rank == 1 and hybrid[0].text_rank == 1


def test_alpha_blend_works_when_no_word_matches(notes: GraphMem) -> None:
    hits = notes.recall("key-value storage", alpha=0.7, hops=0).hits
    assert hits and all(h.score is not None for h in hits)
    assert ids(notes, "zzzz qqqq", alpha=0.5, hops=0)  # no keyword hit at all: cosine only


def test_keyword_mode_ignores_lucene_and_cypher_syntax(notes: GraphMem) -> None:
    assert ids(notes, 'wkhtmltopdf AND "} OR *:* ) MATCH (n) DETACH DELETE n',
               mode="keyword", hops=0)[0] == "pdf"
    assert len(notes.recall("anything", mode="vector", hops=0).hits) == len(NOTES)


def test_kind_and_metadata_filters(notes: GraphMem) -> None:
    assert ids(notes, "team practices", mode="vector", hops=0,
               filters={"team": ["backend"]}) == ["tabs"]
    assert ids(notes, "team practices", mode="vector", hops=0, kinds=["rule"]) == ["tabs"]
    with pytest.raises(InputError, match="filter key"):
        notes.recall("x", filters={"bad key": ["1"]})


def test_shadowed_and_archived_need_asking(notes: GraphMem, store: Store) -> None:
    store.driver.execute_query("MATCH (m:Memory {id: 'pdf'}) SET m.lifecycle = 'shadowed'",
                                     database_=store.database)
    assert "pdf" not in ids(notes, "wkhtmltopdf", mode="keyword", hops=0)
    assert ids(notes, "wkhtmltopdf", mode="keyword", hops=0, include_shadowed=True) == ["pdf"]


def test_recent_wins_among_equals_but_old_is_not_buried(mem: GraphMem) -> None:
    mem._now = NOW
    mem.remember([
        {"id": "old", "text": "The payments service caches sessions in Redis",
         "created_at": "2022-01-01T00:00:00Z"},
        {"id": "new", "text": "The payments service caches sessions in Redis!",
         "created_at": "2024-05-30T00:00:00Z"},
        {"id": "old-answer", "text": "Grafana dashboards live in the observability folder",
         "created_at": "2021-01-01T00:00:00Z"},
        {"id": "new-noise", "text": "The observability budget was approved in May",
         "created_at": "2024-05-31T00:00:00Z"},
    ])
    hits = mem.recall("payments sessions Redis", mode="vector", hops=0).hits
    assert [h.id for h in hits[:2]] == ["new", "old"]
    assert hits[0].retention > hits[1].retention
    assert ids(mem, "where are the grafana dashboards?", mode="vector", hops=0)[0] == \
        "old-answer"


def test_association_reaches_a_linked_memory_and_shows_the_path(mem: GraphMem) -> None:
    mem.remember([
        {"id": "incident", "text": "The March outage started when the billing cron job hung"},
        {"id": "fix", "text": "A watchdog now restarts stuck schedulers after five minutes",
         "links": [{"id": "incident", "weight": 0.9}]},
        {"id": "other", "text": "Lunch is served at noon on Fridays"},
    ])
    direct_only = ids(mem, "billing cron outage", mode="keyword", hops=0)
    assert direct_only == ["incident"]
    hits = mem.recall("billing cron outage", mode="keyword", hops=2).hits
    assert [h.id for h in hits] == ["incident", "fix"]
    fix = hits[1]
    assert fix.via == "association" and fix.activation is not None
    assert [(p.source, p.target, p.kind, p.name) for p in fix.path] == [
        ("incident", "fix", "link", "manual")]


def test_a_two_hop_association_shows_both_steps(mem: GraphMem) -> None:
    mem.remember([
        {"id": "incident", "text": "The March outage started when the billing cron job hung"},
        {"id": "watchdog", "text": "A watchdog now restarts stuck schedulers",
         "links": [{"id": "incident", "weight": 0.9}]},
        {"id": "pager", "text": "The watchdog pages the on-call engineer when it restarts",
         "links": [{"id": "watchdog", "weight": 0.9}]},
    ])
    hits = mem.recall("billing cron outage", mode="keyword", hops=2).hits
    pager = next(h for h in hits if h.id == "pager")
    assert pager.via == "association"
    assert [(p.source, p.target) for p in pager.path] == [
        ("incident", "watchdog"), ("watchdog", "pager")]
    assert "pager" not in ids(mem, "billing cron outage", mode="keyword", hops=1)


def test_both_hops_come_in_one_round_trip_unless_the_first_is_wider_than_its_width(
        mem: GraphMem) -> None:
    mem.remember([
        {"id": "incident", "text": "The March outage started when the billing cron job hung"},
        {"id": "watchdog", "text": "A watchdog now restarts stuck schedulers",
         "links": [{"id": "incident", "weight": 0.9}]},
        {"id": "aside", "text": "Lunch was late that day",
         "links": [{"id": "incident", "weight": 0.2}]},
        {"id": "pager", "text": "The watchdog pages the on-call engineer when it restarts",
         "links": [{"id": "watchdog", "weight": 1.0}]},
    ])
    wide = mem.recall("billing cron outage", mode="keyword", hops=2, width=2, reinforce=False)
    # The first hop reaches two memories: with a width of one, the second spreads from
    # the stronger alone, which the server cannot choose, so it is asked again.
    narrow = mem.recall("billing cron outage", mode="keyword", hops=2, width=1,
                        reinforce=False)
    assert narrow.profile.round_trips == wide.profile.round_trips + 1
    for result in (wide, narrow):
        pager = next(h for h in result.hits if h.id == "pager")
        assert [(p.source, p.target) for p in pager.path] == [
            ("incident", "watchdog"), ("watchdog", "pager")]
    # The same activation reaches it either way (its links age between the two recalls).
    assert [h.score for h in wide.hits if h.id == "pager"] == pytest.approx(
        [h.score for h in narrow.hits if h.id == "pager"], rel=1e-6)


def test_association_lifts_the_linked_one_of_two_equal_candidates(mem: GraphMem) -> None:
    mem.remember([
        {"id": "anchor", "text": "Deploys to production happen on Tuesdays"},
        {"id": "twin-a", "text": "Rollback steps for deploys: revert the tag"},
        {"id": "twin-b", "text": "Rollback steps for deploys: revert the tag!",
         "links": [{"id": "anchor", "weight": 1.0}]},
    ])
    # An alpha blend, not rank fusion: the twins' scores are then nearly equal.
    query = "deploys to production rollback"
    flat = [h.id for h in mem.recall(query, hops=0, alpha=0.5).hits]
    assert flat.index("twin-a") < flat.index("twin-b")
    hits = mem.recall(query, hops=1, alpha=0.5).hits
    twin_b = next(h for h in hits if h.id == "twin-b")
    assert twin_b.via == "direct" and twin_b.activation and twin_b.activation > 0
    assert [h.id for h in hits].index("twin-b") < [h.id for h in hits].index("twin-a")


def test_association_through_a_shared_entity(mem: GraphMem) -> None:
    mem.remember([
        {"id": "a", "text": "Tomasz Nowak leads the payments team"},
        {"id": "b", "text": "Escalate production incidents to Tomasz Nowak first"},
    ])
    hits = mem.recall("who leads payments?", mode="keyword", hops=1).hits
    assert [h.id for h in hits][:2] == ["a", "b"]
    assert hits[1].path[0].kind == "entity" and hits[1].path[0].name == "name:tomasz nowak"


BRIDGE = [
    {"id": "biscuit", "text": "Biscuit is a beagle adopted from the Maple Shelter in 2021.",
     "metadata": {"title": "Biscuit"}},
    {"id": "shelter", "text": "It is run by Dana Ortiz and takes in dogs from the county.",
     "metadata": {"title": "Maple Shelter"}},
    {"id": "rex", "text": "Rex is a collie who came from a farm near the coast.",
     "metadata": {"title": "Rex"}},
    {"id": "days", "text": "Animal shelters hold adoption days on Saturdays.",
     "metadata": {"title": "Adoption days"}},
    {"id": "run", "text": "Running a dog shelter takes volunteers and donations.",
     "metadata": {"title": "Volunteering"}},
]


def test_a_bridge_question_reaches_the_second_passage_through_its_subject(
        mem: GraphMem) -> None:
    mem.remember(BRIDGE, kind="semantic")
    query = "Who runs the shelter that Biscuit came from?"
    # Its words and meaning alone do not find the passage about the Maple Shelter, which
    # never names it: only its subject does.
    assert "shelter" not in ids(mem, query, top_k=3, hops=0, reinforce=False)
    hits = mem.recall(query, top_k=3, reinforce=False).hits
    found = next(h for h in hits if h.id == "shelter")
    assert found.activation and found.activation > 0
    assert [(p.source, p.target, p.kind, p.name) for p in found.path] == [
        ("biscuit", "shelter", "subject", "name:maple shelter")]


def test_what_the_query_names_is_reached_and_its_subject_lifted(mem: GraphMem) -> None:
    mem.remember(BRIDGE, kind="semantic")
    hits = mem.recall("Tell me about Rex", top_k=5, hops=1, reinforce=False).hits
    assert hits[0].id == "rex"
    plain = mem.recall("Tell me about Rex", top_k=5, hops=1, reinforce=False,
                       subject_weight=0.0, mention_weight=0.0).hits
    rex = next(h for h in plain if h.id == "rex")
    assert hits[0].score > rex.score * 1.29  # x (1 + 0.3) for its subject, and more
    # A memory only the query's entity reaches says so in its path.
    mem.remember({"id": "rex-2", "text": "Grooming day for Rex is the first Monday."})
    far = mem.recall("Tell me about Rex", top_k=10, hops=1, reinforce=False,
                     mode="keyword").hits
    assert [(p.source, p.kind, p.name) for h in far if h.id == "rex-2" and h.via ==
            "association" for p in h.path] in ([], [(QUERY, "query", "name:rex")])


def test_layers_show_public_memories_and_never_private_ones(mem: GraphMem, scope: str,
                                                            store: Store) -> None:
    team = scope + "-team"
    try:
        mem.remember([{"id": "team-pub", "text": "The shared runbook says: rotate TLS yearly"},
                      {"id": "team-priv", "text": "The shared runbook secret step: call Bob",
                       "visibility": "private"}], scope=team)
        mem.remember({"id": "mine", "text": "My runbook notes about TLS certificates",
                      "links": []})
        # A link into the other scope's private memory (written behind graphmem's back)
        # must not carry it across.
        store.driver.execute_query(
            "MATCH (a:Memory {id: 'mine'}), (b:Memory {id: 'team-priv'}) "
            "CREATE (a)-[:ASSOCIATED {kind: 'manual', weight: 1.0, created_at: datetime()}]->(b)",
            database_=store.database)
        for mode in ("vector", "keyword", "hybrid", "exact"):
            alone = ids(mem, "runbook", mode=mode, hops=2)
            assert alone and set(alone) <= {"mine"}, mode
            layered = mem.recall("runbook", mode=mode, hops=2, layers=[team]).hits
            assert "team-priv" not in [h.id for h in layered], mode
            shared = [h for h in layered if h.id == "team-pub"]
            assert shared and shared[0].layer == 0.8, mode
    finally:
        mem.drop_scope(team)


def test_a_small_scope_is_scanned_in_one_trip_however_crowded_the_index(
        mem: GraphMem, scope: str, store: Store) -> None:
    crowd = scope + "-crowd"
    try:
        mem.remember([{"id": f"crowd-{i}", "text": f"The lighthouse keeper logs storm {i}"}
                      for i in range(60)], scope=crowd)
        mem.remember([{"id": f"own-{i}", "text": f"Lighthouse keeper note number {i}"}
                      for i in range(3)])
        found = mem.recall("lighthouse keeper storm", mode="vector", hops=0, candidates=10,
                           reinforce=False)
        assert sorted(h.id for h in found.hits) == ["own-0", "own-1", "own-2"]
        # One trip finds them (the scan), one reads what the three hits show.
        assert found.profile.round_trips == 2
        assert all(h.vector_rank is not None for h in found.hits)
    finally:
        mem.drop_scope(crowd)


def test_a_crowded_neighbour_scope_cannot_push_a_scopes_memories_out(
        mem: GraphMem, scope: str, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # The index's path, as a scope too big to scan takes it.
    monkeypatch.setattr(candidates, "SCAN_BELOW", 0)
    crowd = scope + "-crowd"
    try:
        mem.remember([{"id": f"crowd-{i}", "text": f"The lighthouse keeper logs storm {i}"}
                      for i in range(60)], scope=crowd)
        mem.remember([{"id": f"own-{i}", "text": f"Lighthouse keeper note number {i}"}
                      for i in range(3)])
        for mode in ("keyword", "vector", "hybrid"):
            # Only 10 candidates per list: the crowd fills the indexes' top 10 on its own.
            hits = mem.recall("lighthouse keeper storm", mode=mode, hops=0, candidates=10,
                              reinforce=False).hits
            assert sorted(h.id for h in hits) == ["own-0", "own-1", "own-2"], mode
            if mode != "keyword":  # the vector list was completed, not left empty
                assert all(h.vector_rank is not None for h in hits), mode
        # The scope's next recall asks as deep as the last one needed, in one trip.
        reads: list[str] = []
        read = store.read
        store.read = lambda name, **p: reads.append(name) or read(name, **p)
        try:
            hits = mem.recall("storm logs", mode="vector", hops=0, candidates=10,
                              reinforce=False).hits
        finally:
            del store.read
        assert reads == ["recall/retrieve", "recall/show"] and len(hits) == 3
        # A filtered recall keeps its own depth: it cannot push unfiltered ones to a scan.
        core = mem.recall("storm logs", mode="vector", hops=0, candidates=10, kinds=["core"],
                          reinforce=False)
        if store.variant == "search":
            # Neo4j 2026 filters by kind inside the index: one trip, no depth to remember.
            assert core.profile.round_trips == 1 and not candidates.depths(store).items()
            return
        # None of the index's first 10 passed: no pass rate to go deeper by, so the scope
        # is scanned at once (2 round trips, not 3; no hit, so none to read what they show).
        assert core.profile.round_trips == 2
        depths = {k[2]: d for k, d in candidates.depths(store).items() if k[0] == scope}
        assert set(depths) == {(), ("core",)}
        assert depths[("core",)][0] > 10 * candidates.MAX_DEPTH  # scanned
    finally:
        mem.drop_scope(crowd)


SUBJECTS = ["the harbour ferry", "our build server", "grandma's apple pie", "the chess club",
            "a leaking roof", "the quarterly budget", "my running shoes", "the garden shed"]
EVENTS = ["was late again", "needs a new part", "won a prize", "was discussed on Monday",
          "costs more than planned"]


@pytest.fixture
def crowded(mem: GraphMem) -> Iterator[GraphMem]:
    """40 memories of the test's scope (a third archived, some core, some older) among 200
    of another scope that crowd the vector index's nearest neighbours."""
    crowd = mem.settings.scope + "-crowd"
    mem.remember([{"id": f"crowd-{i}", "text": f"{SUBJECTS[i % 8]} {EVENTS[i % 5]}, crowd {i}"}
                  for i in range(200)], scope=crowd)
    mem.remember([{"id": f"m{i}", "text": note(i),
                   "kind": "core" if i % 7 == 0 else "episodic",
                   "created_at": f"2024-0{1 + i % 5}-01T00:00:00Z"} for i in range(40)])
    for i in range(0, 40, 3):
        mem.forget(f"m{i}")  # soft: archived
    try:
        yield mem
    finally:
        mem.drop_scope(crowd)


def note(i: int) -> str:
    return f"{SUBJECTS[i % 8]} {EVENTS[i % 5]} ({i})"


def exact_cosines(mem: GraphMem, query: str, numbers: list[int]) -> dict[str, float]:
    """The exact cosine of each of notes `numbers` with `query`, best first (numpy)."""
    cosines = mem.embedder.embed([note(i) for i in numbers]) @ mem.embedder.embed_query(query)
    return {f"m{numbers[i]}": float(cosines[i]) for i in np.argsort(-cosines, kind="stable")}


@pytest.mark.parametrize("path", ["shared index", "own index", "scan"])
@pytest.mark.parametrize("options", [
    {}, {"kinds": ["core"]}, {"include_archived": True},
    {"since": "2024-02-01T00:00:00Z", "until": "2024-04-01T00:00:00Z"}])
def test_vector_recall_is_the_scopes_exact_cosine_ranking(
        crowded: GraphMem, options: dict, path: str, store: Store,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The same on both lines, by the shared index (5.26 over-fetches as deep as the pass
    # rate says, then scans; 2026 filters inside the index), by a big scope's own index
    # (5.26), or by a small scope's scan.
    monkeypatch.setattr(candidates, "SCAN_BELOW", candidates.SCAN_BELOW if path == "scan" else 0)
    if path == "own index":
        if store.variant == "search":
            pytest.skip("Neo4j 2026 filters in the shared index: no scope has its own")
        scope_indexes.make(store, crowded.settings.scope, crowded.embedder.dimensions)
    query = "is the ferry late"
    found = crowded.recall(query, mode="vector", hops=0, top_k=10, candidates=10,
                           temporal_weight=0.0, turn_weight=0.0, reinforce=False, **options)
    allowed = [i for i in range(40)
               if (options.get("include_archived") or i % 3)
               and (options.get("kinds") is None or i % 7 == 0)
               and ("since" not in options or 2 <= 1 + i % 5 < 4)]
    exact = exact_cosines(crowded, query, allowed)
    assert [h.id for h in found.hits] == list(exact)[:10]
    # ...by the exact cosine too: an index's own scores are quantized, ~1e-3 off.
    assert [h.cosine for h in found.hits] == pytest.approx(
        [exact[h.id] for h in found.hits], abs=1e-5)


def test_both_lines_query_paths_give_the_same_recall(
        crowded: GraphMem, monkeypatch: pytest.MonkeyPatch, store: Store) -> None:
    if store.variant is None:
        pytest.skip(f"Neo4j {store.features.version} has only the plain queries")
    monkeypatch.setattr(candidates, "SCAN_BELOW", 0)  # the index's paths, not a scan
    queries = ["is the ferry late", "what did the chess club win", "budget on Monday"]
    options = [{}, {"kinds": ["episodic"], "top_k": 5}, {"include_archived": True}]
    search = [crowded.recall(q, reinforce=False, **o) for q in queries for o in options]
    # The 5.26 queries (index over-fetch, then a scan) on the same server and store.
    monkeypatch.setattr(Store, "variant", property(lambda self: None))
    plain = [crowded.recall(q, reinforce=False, **o) for q in queries for o in options]
    for a, b in zip(search, plain, strict=True):
        assert [h.id for h in a.hits] == [h.id for h in b.hits], a.query
        assert [h.score for h in a.hits] == pytest.approx([h.score for h in b.hits])


@pytest.mark.parametrize(("options", "message"), [
    ({"mode": "fuzzy"}, "unknown mode"),
    ({"top_k": 0}, "top-k"),
    ({"top_k": 10**6}, "top-k"),
    ({"hops": 9}, "hops"),
    ({"kinds": ["gossip"]}, "unknown kind"),
    ({"alpha": 2.0}, "less than or equal to 1"),
])
def test_bad_recall_options_are_user_errors(mem: GraphMem, options: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        mem.recall("anything", **options)


def test_two_tier_boosting_follows_the_spec_under_a_fixed_clock(mem: GraphMem,
                                                                store: Store) -> None:
    mem.remember([
        {"id": "incident", "text": "The March outage started when the billing cron job hung",
         "created_at": "2024-01-01T00:00:00Z"},
        {"id": "fix", "text": "A watchdog now restarts stuck schedulers after five minutes",
         "links": [{"id": "incident", "weight": 0.9}], "created_at": "2024-01-01T00:00:00Z"},
    ])

    def props(mid: str) -> dict:
        return store.read("admin/memory_by_id", id=mid)[0]["memory"]

    mem._now = datetime(2024, 1, 31, tzinfo=UTC)  # 30 days later: spacing = 2
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
    assert store.read("admin/memory_by_id", id="hot")[0]["memory"]["access_count"] == 15


def test_context_is_type_budgeted_and_under_600_tokens(mem: GraphMem) -> None:
    from graphmem.read.context import estimate_tokens

    kinds = ["semantic"] * 30 + ["episodic"] * 30 + ["procedural"] * 10 + ["heuristic"] * 5
    mem.remember([{"id": f"c{i}", "kind": k, "importance": 0.9 if k == "episodic" else 0.5,
                   "text": f"Context memory number {i} about the {k} side of service {i} "
                           + "with enough words to cost real tokens " * 3}
                  for i, k in enumerate(kinds)])
    ctx = mem.context()
    assert ctx.identity == ("[Memory: 75 entries, 30 episodic, 30 semantic, 10 procedural, "
                            "5 heuristic]")
    assert estimate_tokens(ctx.text) <= ctx.tokens <= 600
    assert 0 < len(ctx.lines) <= 20
    per_kind = {k: sum(1 for c in ctx.lines if c.kind == k) for k in set(kinds)}
    # Episodic memories score highest, yet take at most their 5 slots plus the 2 that core
    # (no candidates) leaves unused, and every kind keeps room within the token budget.
    assert 1 <= per_kind["episodic"] <= 7 and per_kind["semantic"] >= 1
    assert per_kind["procedural"] >= 1 and per_kind["heuristic"] >= 1
    assert all(c.line.startswith(("[S] ", "[E] ", "[P] ", "[H] ")) for c in ctx.lines)


def test_cypher_and_python_agree_on_retention(mem: GraphMem) -> None:
    from graphmem.lifecycle.decay import DEFAULT_CURVES, retention

    created = datetime(2023, 3, 1, tzinfo=UTC)
    mem.remember([{"id": f"r-{kind}", "kind": kind, "importance": 0.8, "confidence": 0.3,
                   "created_at": created.isoformat(),
                   "text": f"Retention probe for the {kind} kind of memory, number {i}"}
                  for i, kind in enumerate(DEFAULT_CURVES)])
    mem._now = datetime(2023, 9, 17, 6, 30, tzinfo=UTC)
    hits = mem.recall("retention probe memory", mode="vector", hops=0, reinforce=False).hits
    assert {h.id for h in hits} == {f"r-{k}" for k in DEFAULT_CURVES}
    for h in hits:
        expected = retention(DEFAULT_CURVES[h.kind], created_at=created, now=mem.now(),
                             importance=0.8, confidence=0.3)
        assert h.retention == pytest.approx(expected, rel=1e-9), h.kind


def test_diverse_recall_gives_each_kind_its_share(mem: GraphMem) -> None:
    mem.remember([{"id": f"fact-{i}", "kind": "semantic",
                   "text": f"Deploy pipeline fact {i}: the Argo CD deploy pipeline"}
                  for i in range(8)]
                 + [{"id": "how", "kind": "procedural",
                     "text": "To ship a release by hand, press sync in the web console"},
                    {"id": "when", "kind": "episodic",
                     "text": "Yesterday the release stalled for an hour before lunch"}])
    plain = mem.recall("argo cd deploy pipeline", top_k=4, hops=0, reinforce=False).hits
    assert {h.kind for h in plain} == {"semantic"}  # the near-copies fill the answer
    mixed = mem.recall("argo cd deploy pipeline", top_k=4, hops=0, diverse=True,
                       reinforce=False).hits
    assert {h.id for h in mixed} >= {"how", "when"} and len(mixed) == 4
    assert [h.score for h in mixed] == sorted((h.score for h in mixed), reverse=True)


def test_since_and_until_keep_to_a_period_in_every_mode_and_hop(mem: GraphMem) -> None:
    mem.remember([
        {"id": "jan", "text": "Standup: the search index rebuild started",
         "created_at": "2024-01-10T09:00:00Z", "session": "s"},
        {"id": "feb", "text": "Standup: the search index rebuild finished",
         "created_at": "2024-02-10T09:00:00Z", "session": "s",
         "links": [{"id": "jan", "weight": 1.0}]},
        {"id": "mar", "text": "Standup: the search index rebuild was rolled back",
         "created_at": "2024-03-10T09:00:00Z"},
    ])
    window = {"since": datetime(2024, 2, 1, tzinfo=UTC), "until": datetime(2024, 3, 1)}
    for mode in ("hybrid", "vector", "keyword", "exact"):
        query = "search index rebuild" if mode != "exact" else "search index"
        got = [h.id for h in mem.recall(query, mode=mode, hops=2, reinforce=False,
                                        **window).hits]
        assert got == ["feb"], mode  # jan is linked to feb, yet outside the period
    assert {h.id for h in mem.recall("search index rebuild", hops=0, reinforce=False,
                                     since=datetime(2024, 2, 1)).hits} == {"feb", "mar"}
    with pytest.raises(InputError, match="since must be before until"):
        mem.recall("x", since=datetime(2024, 3, 1), until=datetime(2024, 2, 1))


def test_recall_while_another_thread_forgets_never_fails(mem: GraphMem) -> None:
    # A memory deleted while a recall reads it comes back with null properties: the
    # recall must simply not show it (the service met this under load).
    import threading

    mem.remember([{"id": f"t{i}", "text": f"Turn {i}: the ferry, the bakery and the tram",
                   "session": "s"} for i in range(60)], signal_gate=False)
    failures: list[BaseException] = []
    done = threading.Event()

    def recall_loop() -> None:
        while not done.is_set():
            try:
                for h in mem.recall("ferry bakery tram", reinforce=False).hits:
                    assert h.text and h.id
            except BaseException as e:  # collected for the assertion below
                failures.append(e)
                return

    readers = [threading.Thread(target=recall_loop) for _ in range(3)]
    for t in readers:
        t.start()
    try:
        for i in range(60):
            mem.forget(f"t{i}", hard=True)
    finally:
        done.set()
        for t in readers:
            t.join()
    assert failures == []


def _plan_key(params: dict) -> tuple:
    """What Neo4j keys a plan on besides its text: each parameter's type, a string's or
    list's size by its order of magnitude (0, 1, 2-10, 11-100, …; measured, see
    retrieval.PLANNING_SCOPES); a map's contents do not count."""
    def of(value: object) -> tuple:
        if isinstance(value, str | list):
            n = len(value)
            return type(value).__name__, -1 if n == 0 else math.ceil(math.log10(n))
        return (type(value).__name__,)
    return tuple(sorted((k, of(v)) for k, v in params.items()))


def test_planning_ahead_runs_every_query_of_a_default_recall_as_it_will_be_run(
        mem: GraphMem, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, tuple]] = []
    for method in ("read", "submit"):
        original = getattr(store, method)

        def record(name: str, _original=original, **params: object) -> object:
            seen.append((name, _plan_key(params)))
            return _original(name, **params)
        monkeypatch.setattr(store, method, record)
    assert mem.ops.plan_ahead() is not None
    planned = set(seen)
    short = f"t{uuid.uuid4().hex[:6]}"
    assert 2 <= len(short) <= 10 < len(mem.settings.scope) <= 100  # both common lengths
    for scope in (mem.settings.scope, short):
        mem.remember([{"text": "The billing cron job hung in March", "session": "s1"},
                      {"text": "A watchdog restarts stuck billing jobs now", "session": "s1"}],
                     scope=scope)
        seen.clear()
        hits = mem.recall("billing cron watchdog", scope=scope, reinforce=False).hits
        assert len(hits) == 2
        assert {"recall/text_lists", "recall/retrieve", "recall/expand",
                "recall/show"} <= {name for name, _ in seen}
        assert set(seen) <= planned, set(seen) - planned
    mem.drop_scope(short)
