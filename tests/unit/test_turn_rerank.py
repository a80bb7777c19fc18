"""Conversation order's re-ranking (no server): s(x) + w * max(s(prev), s(next)), and
neighbours outside the ranking brought in with their path."""

from __future__ import annotations

from graphmem.read.turns import Turn, rerank


def key(mid: str) -> tuple[str, str]:
    return ("s", mid)


def test_a_hit_is_lifted_by_its_better_neighbour() -> None:
    scored = [(key("q"), 1.0), (key("a"), 0.2), (key("x"), 0.9)]
    near = {key("q"): (None, "a"), key("a"): ("q", None), key("x"): (None, None)}
    ranked = rerank(scored, near, 0.5, k=3)
    assert [(t.key[1], round(t.score, 3)) for t in ranked] == [("q", 1.1), ("x", 0.9),
                                                              ("a", 0.7)]
    assert all(t.brought_by is None and not t.path(0.5) for t in ranked)


def test_the_turn_after_a_hit_comes_in_with_its_path() -> None:
    scored = [(key("q"), 1.0), (key("x"), 0.3)]
    near = {key("q"): ("b", "a"), key("x"): ("a", None)}
    ranked = rerank(scored, near, 0.5, k=10)
    a = next(t for t in ranked if t.key == key("a"))
    assert (a.score, a.brought_by) == (0.5, "q")  # the better of q (1.0) and x (0.3)
    (step,) = a.path(0.5)
    assert (step.source, step.target, step.kind, step.name) == ("q", "a", "turn",
                                                                "the turn after")
    b = next(t for t in ranked if t.key == key("b"))
    assert b.path(0.5)[0].name == "the turn before" and b.score == 0.5
    assert [t.key[1] for t in rerank(scored, near, 0.5, k=2)] == ["q", "a"]  # ties by id


def test_a_neighbour_is_in_the_scope_of_the_turn_it_is_next_to() -> None:
    scored = [(("layer", "q"), 1.0)]
    (_, a) = rerank(scored, {("layer", "q"): (None, "a")}, 0.5, k=2)
    assert a.key == ("layer", "a")


def test_weight_zero_changes_nothing() -> None:
    scored = [(key("q"), 1.0), (key("a"), 0.2)]
    ranked = rerank(scored, {key("q"): (None, "a"), key("a"): ("q", None)}, 0.0, k=2)
    assert ranked == [Turn(key("q"), 1.0), Turn(key("a"), 0.2)]


def test_of_two_equal_neighbours_the_turn_after_comes_first() -> None:
    # The turn after a match is more often its answer; ids alone would pick "a" here.
    ranked = rerank([(key("q"), 1.0)], {key("q"): ("a", "z")}, 0.5, k=2)
    assert [(t.key[1], t.side) for t in ranked] == [("q", None), ("z", "after")]
