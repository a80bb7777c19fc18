"""Type budgets over a recall's answer: pure selection."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.read.budgets import select

KINDS = ["semantic", "episodic", "procedural", "heuristic", "core", "reflection"]


def test_one_kind_cannot_fill_the_answer() -> None:
    ranked = [("semantic", i) for i in range(10)] + [("procedural", 10), ("episodic", 11)]
    chosen = select(ranked, 5, kind=lambda x: x[0])
    assert [k for k, _ in chosen].count("semantic") == 3  # 2 by budget + 1 left over
    assert ("procedural", 10) in chosen and ("episodic", 11) in chosen


def test_unused_shares_go_to_the_best_of_any_kind() -> None:
    ranked = [("semantic", i) for i in range(10)]
    assert select(ranked, 5, kind=lambda x: x[0]) == ranked[:5]


@given(st.lists(st.sampled_from(KINDS), max_size=40), st.integers(min_value=1, max_value=20))
def test_select_takes_distinct_items_best_first_within_each_kind(kinds: list[str],
                                                                  top: int) -> None:
    ranked = list(enumerate(kinds))
    chosen = select(ranked, top, kind=lambda x: x[1])
    assert len(chosen) == min(top, len(ranked)) and len(set(chosen)) == len(chosen)
    for kind in KINDS:  # within a kind, nothing is skipped for a worse one
        mine = sorted(i for i, k in chosen if k == kind)
        assert mine == [i for i, k in ranked if k == kind][:len(mine)]
