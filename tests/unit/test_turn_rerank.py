"""Conversation order's re-ranking (no server): s(x) + w * max(s(prev), s(next)), and
neighbours outside the ranking brought in with their path."""

from __future__ import annotations

from graphmem.read.turns import rerank
from graphmem.types import Hit


def hit(mid: str, score: float) -> Hit:
    return Hit(id=mid, text=f"text of {mid}", kind="episodic", scope="s", score=score,
               relevance=score)


def found(mid: str) -> dict:
    return {"memory": {"id": mid, "text": f"text of {mid}", "scope": "s", "kind": "episodic"},
            "retention": 1.0, "layer": 1.0}


def row(mid: str, prev: str | None, nxt: str | None) -> dict:
    return {"id": mid, "scope": "s", "prev": found(prev) if prev else None,
            "next": found(nxt) if nxt else None}


def test_a_hit_is_lifted_by_its_better_neighbour() -> None:
    hits = [hit("q", 1.0), hit("a", 0.2), hit("x", 0.9)]
    rows = [row("q", None, "a"), row("a", "q", None), row("x", None, None)]
    ranked = rerank(hits, rows, 0.5, k=3)
    assert [(h.id, round(h.score, 3)) for h in ranked] == [("q", 1.1), ("x", 0.9), ("a", 0.7)]
    assert all(h.via == "direct" and not h.path for h in ranked)


def test_the_turn_after_a_hit_comes_in_with_its_path() -> None:
    hits = [hit("q", 1.0), hit("x", 0.3)]
    rows = [row("q", "b", "a"), row("x", "a", None)]
    ranked = rerank(hits, rows, 0.5, k=10)
    a = next(h for h in ranked if h.id == "a")
    assert (a.score, a.via) == (0.5, "association")  # the better of q (1.0) and x (0.3)
    assert (a.path[0].source, a.path[0].kind, a.path[0].name) == ("q", "turn", "the turn after")
    b = next(h for h in ranked if h.id == "b")
    assert b.path[0].name == "the turn before" and b.score == 0.5
    assert [h.id for h in rerank(hits, rows, 0.5, k=2)] == ["q", "a"]  # ties by id


def test_weight_zero_changes_nothing() -> None:
    hits = [hit("q", 1.0), hit("a", 0.2)]
    assert rerank(hits, [row("q", None, "a"), row("a", "q", None)], 0.0, k=2) == hits
