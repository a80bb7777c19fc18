"""Every rule of recall's ranking (graphmem/read/rank.py), without a server: the factors
of a direct hit's score, spreading activation and its bonus, the final order and the
paths (the fusion of the lists: test_fusion.py)."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.base.decay import DEFAULT_CURVES
from graphmem.read import rank
from graphmem.read.answer import path as answer_path
from graphmem.read.fusion import Candidate, Fusing
from graphmem.read.rank import Reached, Scoring, Spreading

NOW = datetime(2026, 6, 1, tzinfo=UTC)
SPREAD = Spreading(seeds=2, hops=2, width=3, beta=0.6, link_tau=30.0, entity_weight=1.0,
                   hop_decay=0.5, mention_weight=1.0, subject_weight=0.3)
SCORING = Scoring(scope="s", now=NOW, decay=dict(DEFAULT_CURVES), temporal=0.15,
                  layer_factor=0.8, use_weight=0.6)


def memory(id_: str, *, scope: str = "s", kind: str = "semantic", days: float = 0.0,
           **facts: object) -> dict[str, object]:
    return {"id": id_, "scope": scope, "kind": kind, "text": id_,
            "created": ms(NOW - timedelta(days=days)), **facts}


def ms(when: datetime) -> float:
    return when.timestamp() * 1000


def test_the_temporal_factor_only_reorders() -> None:
    assert rank.temporal_factor(1.0, 0.15) == 1.0
    assert rank.temporal_factor(0.0, 0.15) == pytest.approx(0.85)  # never below 1 - w
    assert rank.temporal_factor(0.5, 0.0) == 1.0
    assert rank.temporal_factor(0.2, 0.15) < rank.temporal_factor(0.8, 0.15)


def test_retention_follows_the_kind_curve_and_last_access() -> None:
    fresh = rank.retention(memory("a", days=0), SCORING.decay, NOW)
    old = rank.retention(memory("a", days=120), SCORING.decay, NOW)
    touched = rank.retention(memory("a", days=120, accessed=ms(NOW)), SCORING.decay, NOW)
    assert fresh == pytest.approx(1.0) and touched == pytest.approx(1.0)
    assert old == pytest.approx(0.02 + 0.98 * 0.5)  # one semantic half-life
    assert rank.retention(memory("p", kind="procedural", days=999), SCORING.decay, NOW) == 1.0
    assert rank.retention(memory("x", kind="unknown", days=999), SCORING.decay, NOW) == 1.0
    # A memory deleted while recall read it has null properties: neutral, not an error.
    assert rank.retention({"id": None, "scope": None, "kind": None, "created": None},
                          SCORING.decay, NOW) == 1.0


def test_usefulness_moves_by_at_most_the_weight() -> None:
    assert rank.usefulness(memory("a"), 0.6) == 1.0
    assert rank.usefulness(memory("a", used_count=1), 0.6) == pytest.approx(1.3)
    assert rank.usefulness(memory("a", unused_count=1), 0.6) == pytest.approx(0.7)
    assert 1.59 < rank.usefulness(memory("a", used_count=99), 0.6) < 1.6


def test_layer_factor_is_for_other_scopes() -> None:
    assert rank.layer_factor(memory("a"), "s", 0.8) == 1.0
    assert rank.layer_factor(memory("a", scope="team"), "s", 0.8) == 0.8


def test_direct_hits_rank_by_score_then_id() -> None:
    old = Candidate(memory=memory("old", days=400), cosine=0.9, bm25=2.0)
    new = Candidate(memory=memory("new"), cosine=0.9, bm25=2.0)
    twin = Candidate(memory=memory("a-twin"), cosine=0.9, bm25=2.0)
    ranked = rank.direct([old, new, twin], SCORING, Fusing(mode="hybrid"), k=2)
    assert [c.memory["id"] for c in ranked] == ["a-twin", "new"]
    assert ranked[0].relevance == pytest.approx(1.0) and ranked[0].score == pytest.approx(1.0)
    assert old.score < new.score and old.retention < 1.0


def test_exact_matches_rank_newer_first_among_equals() -> None:
    a = Candidate(memory=memory("a", kind="procedural", days=5))
    b = Candidate(memory=memory("b", kind="procedural", days=1))
    ranked = rank.direct([a, b], SCORING, Fusing(mode="exact"), k=10)
    assert [c.memory["id"] for c in ranked] == ["b", "a"]


@pytest.mark.parametrize("mode", ["hybrid", "exact"])
def test_a_memory_deleted_while_recall_read_it_is_left_out(mode: str) -> None:
    # Its facts come back empty; ranking compared its None id with a live one's and the
    # service answered 500 under load.
    gone = Candidate(memory={k: None for k in memory("x")}, cosine=0.9, bm25=2.0)
    live = Candidate(memory=memory("live"), cosine=0.9, bm25=2.0)
    twin = Candidate(memory=memory("twin"), cosine=0.9, bm25=2.0)
    ranked = rank.direct([gone, live, twin], SCORING, Fusing(mode=mode), k=10)
    assert [c.memory["id"] for c in ranked] == ["live", "twin"]


def _edge(source: str, target: str, kind: str = "link", **more: object) -> dict:
    return {"from": source, "from_scope": "s", "to": target, "to_scope": "s", "kind": kind,
            "name": more.pop("name", "synaptic"), **more}


def test_a_hop_spreads_by_link_weight_and_age_or_by_entity_degree() -> None:
    edges = [_edge("seed", "x", weight=0.5, since=ms(NOW)),
             _edge("seed", "y", weight=0.5, since=ms(NOW - timedelta(days=30))),
             _edge("seed", "z", kind="entity", name="Lisbon", degree=5),
             _edge("seed", "z", kind="subject", name="Ana", degree=2),
             _edge("elsewhere", "w", weight=1.0, since=ms(NOW))]  # not a source: ignored
    reached = rank.hop({("s", "seed"): 2.0}, edges, SPREAD, NOW)
    by = {r.key[1]: r for r in reached}
    assert set(by) == {"x", "y", "z"}
    assert by["x"].activation == pytest.approx(2.0 * 0.5 * 0.5)
    assert by["y"].activation == pytest.approx(by["x"].activation * math.exp(-1))
    assert by["z"].activation == pytest.approx(2.0 * 0.5 * (1 / 2 + 1.0))
    assert by["z"].subject == pytest.approx(2.0 * 0.5)
    assert by["z"].step == {"kind": "subject", "name": "Ana", "weight": 1.0}  # the strongest
    assert [r.key[1] for r in reached] == ["z", "x", "y"]
    assert len(rank.hop({("s", "seed"): 2.0}, edges, replace(SPREAD, width=1), NOW)) == 1


def test_a_hop_keeps_the_same_strongest_step_whatever_order_the_edges_come_in() -> None:
    sources = {("s", "b"): 1.0, ("s", "a"): 1.0}
    edges = [_edge("b", "x", kind="entity", name="Ana", degree=3),
             _edge("a", "x", kind="entity", name="Ana", degree=3)]
    for order in (edges, edges[::-1]):
        (x,) = rank.hop(sources, order, SPREAD, NOW)
        assert x.source == "a"  # equal activations: the source first by id


def test_what_the_query_names_reaches_its_memories_by_share_and_degree() -> None:
    rows = [{"to": "a", "to_scope": "s", "entity": "e1", "name": "Ana", "degree": 2},
            {"to": "b", "to_scope": "s", "entity": "e1", "name": "Ana", "degree": 2},
            {"to": "a", "to_scope": "s", "entity": "e2", "name": "Lisbon", "degree": 4}]
    reached = {r.key[1]: r for r in rank.named(rows, entities=2, width=3)}
    assert reached["a"].named == pytest.approx(1 / 2 / 2 + 1 / 4 / 2)
    assert reached["a"].step["name"] == "Ana" and reached["a"].source is None
    assert reached["b"].named == pytest.approx(0.25)


def test_the_bonus_weighs_spread_by_the_memorys_own_closeness() -> None:
    r = Reached(key=("s", "x"), hop=1, source="seed", step={}, activation=1.0, subject=0.25,
                named=0.5)
    assert rank.bonus(r, 0.5, SPREAD) == pytest.approx(0.6 * 0.75 * 0.25 + 0.6 * 0.25 + 0.5)
    assert rank.bonus(r, -0.2, SPREAD) == pytest.approx(0.6 * 0.25 + 0.5)
    assert rank.bonus(r, None, SPREAD) == pytest.approx(0.6 * 0.75 + 0.6 * 0.25 + 0.5)


def test_merge_keeps_the_shortest_path_and_sums_the_hops() -> None:
    hop1 = [Reached(key=("s", "b"), hop=0, source="a", step={"kind": "link", "name": "k",
                                                               "weight": 0.5},
                    activation=0.4)]
    hop2 = [Reached(key=("s", "c"), hop=0, source="b", step={"kind": "entity", "name": "E",
                                                               "weight": 1.0},
                    activation=0.2),
            Reached(key=("s", "b"), hop=0, source="c", step={}, activation=0.1)]
    merged = rank.merge([], hop1, hop2, {("s", "b"): 1.0, ("s", "c"): None}, SPREAD)
    assert merged[("s", "b")].hop == 1 and merged[("s", "b")].activation == pytest.approx(0.5)
    assert merged[("s", "c")].prev == {"from": "a", "step": hop1[0].step}
    assert [s["source"] for s in answer_path(merged[("s", "c")])] == ["a", "b"]
    assert answer_path(Reached(key=("s", "q"), hop=0, source=None,
                             step={"kind": "query"}))[0]["source"] == "<query>"


def test_final_adds_the_bonus_brings_in_the_reached_and_lifts_subjects() -> None:
    direct = Candidate(memory=memory("d"), score=0.5)
    about = memory("about", about=["s:ana"])
    merged = {("s", "d"): Reached(key=("s", "d"), hop=1, source="x", step={}, bonus=0.25),
              ("s", "about"): Reached(key=("s", "about"), hop=0, source=None, step={},
                                      bonus=0.4)}
    ranked = rank.final([direct], merged, {("s", "about"): about}, {}, SCORING, SPREAD,
                        ["s:ana"], k=5)
    by = {r.memory["id"]: r for r in ranked}
    assert by["d"].score == pytest.approx(0.75)
    assert by["about"].score == pytest.approx(0.4 * 1.0 * 1.3)  # fresh, own scope, lifted
    assert [r.memory["id"] for r in ranked] == ["d", "about"]
    assert len(rank.final([direct], merged, {("s", "about"): about}, {}, SCORING, SPREAD,
                          [], k=1)) == 1
