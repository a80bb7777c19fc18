"""Recall's association stage (read/association.py) on the real server: links, two
hops in one round trip, shared entities, what the query names."""

from __future__ import annotations

import pytest
from test_recall import ids

from graphmem.api import GraphMem
from graphmem.base.types import QUERY

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026


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
        {"id": "twin-b", "text": "Rollback steps for deploys: revert the tag!"},
    ])
    # An alpha blend, not rank fusion: the twins' scores are then nearly equal, and the
    # model decides which is ahead; the one behind is linked to the anchor.
    query = "deploys to production rollback"
    flat = [h.id for h in mem.recall(query, hops=0, alpha=0.5, reinforce=False).hits]
    ahead, behind = sorted(["twin-a", "twin-b"], key=flat.index)
    mem.add_link(behind, "anchor", weight=1.0)
    hits = mem.recall(query, hops=1, alpha=0.5).hits
    lifted = next(h for h in hits if h.id == behind)
    assert lifted.via == "direct" and lifted.activation and lifted.activation > 0
    assert [h.id for h in hits].index(behind) < [h.id for h in hits].index(ahead)


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
    {"id": "shelter", "text": "Dana Ortiz manages it and takes in dogs from the county.",
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
