"""The recall plan's sizes, one rule each; the one deepening rule; the depth cache under
threads (two recalls evicting at once raised KeyError when it was a bare dict)."""

from __future__ import annotations

import sys
import threading

import pytest

from graphmem.base.clock import utcnow
from graphmem.base.models import MINILM
from graphmem.base.options import RecallOptions
from graphmem.read.candidates import DEPTH_REUSE, MARGIN, DepthCache, deeper
from graphmem.read.plan import EXACT_DEPTH, RecallPlan


def _plan(opts: RecallOptions, query: str = "who runs the shelter") -> RecallPlan:
    return RecallPlan.of(opts, query, scope="s", now=utcnow(), model=MINILM)


def test_a_plain_recall_ranks_what_it_answers() -> None:
    plan = _plan(RecallOptions(top_k=5, hops=0, turn_weight=0.0))
    assert (plan.k, plan.pool_k, plan.answer_k) == (5, 5, 5)
    assert plan.fetch == RecallOptions().fusion.candidates
    assert not plan.with_turns


def test_association_ranks_a_deeper_pool_capped_by_the_lists() -> None:
    opts = RecallOptions(top_k=5, hops=1, turn_weight=0.0)
    plan = _plan(opts)
    assert plan.pool_k == min(plan.fetch, 5 * opts.association.pool_factor)
    assert plan.answer_k == 5 and plan.needs_vector


def test_conversation_order_reorders_the_whole_pool() -> None:
    plan = _plan(RecallOptions(top_k=5, hops=1, turn_weight=0.3))
    assert plan.with_turns and plan.answer_k == max(plan.pool_k, plan.k) > 5


def test_diversity_picks_from_a_deeper_ranking() -> None:
    opts = RecallOptions(top_k=4, diverse=True, hops=0, turn_weight=0.0)
    assert _plan(opts).k == 4 * opts.association.pool_factor


def test_a_top_k_past_the_candidates_fetches_that_many() -> None:
    assert _plan(RecallOptions(top_k=500)).fetch == 500


@pytest.mark.parametrize(("mode", "fields", "vector"), [
    ("hybrid", ("text", "context"), True), ("keyword", ("text",), False),
    ("vector", (), True), ("exact", (), False)])
def test_each_mode_searches_its_lists(mode: str, fields: tuple[str, ...], vector: bool) -> None:
    plan = _plan(RecallOptions(mode=mode, hops=0))
    assert plan.fields == fields and plan.needs_vector is vector
    assert plan.exact_k >= EXACT_DEPTH


def test_association_embeds_the_query_in_keyword_mode_too() -> None:
    assert _plan(RecallOptions(mode="keyword", hops=1)).needs_vector


def test_an_alpha_blend_searches_no_context() -> None:
    assert _plan(RecallOptions(mode="hybrid", alpha=0.5)).fields == ("text",)


def test_deeper_asks_as_deep_as_the_pass_rate_fills_with_a_margin() -> None:
    assert deeper(40, 10, 5, 10_000) == int(40 * 10 / 5 * MARGIN)
    assert deeper(40, 10, 0, 800) == 800  # none passed: at once as deep as allowed
    assert deeper(40, 10, 1, 100) == 100


def test_the_depth_cache_reuses_then_starts_again_and_forgets_a_scope() -> None:
    cache = DepthCache(size=2)
    assert cache.get(("a",), 20) == (20, 0)
    cache.put(("a",), 300, 1)
    assert cache.get(("a",), 20) == (300, 1)
    cache.put(("a",), 300, DEPTH_REUSE)
    assert cache.get(("a",), 20) == (20, 0)
    cache.put(("b", 1), 40, 1)
    cache.put(("c",), 40, 1)  # over size: the least recent goes
    assert [k for k, _ in cache.items()] == [("b", 1), ("c",)]
    cache.forget(["b"])
    assert [k for k, _ in cache.items()] == [("c",)]


def test_the_depth_cache_holds_under_threads() -> None:
    # Threads switch every microsecond, so evictions, forgets and puts interleave (a bare
    # dict raised "mutated during iteration" or KeyError here).
    cache, errors = DepthCache(size=500), []

    def recalls(n: int) -> None:
        try:
            for i in range(4000):
                key = (f"scope-{(n * 7919 + i) % 700}", i % 3)
                depth, uses = cache.get(key, 20)
                cache.put(key, depth + 1, uses + 1)
                if i % 40 == 0:
                    cache.forget([key[0]])
                    cache.items()
        except Exception as e:
            errors.append(e)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=recalls, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert errors == [] and len(cache.items()) <= 500


def test_the_query_is_tokenised_once_and_every_stage_reads_the_same_flags() -> None:
    opts = RecallOptions(top_k=5, hops=0, turn_weight=0.3, layers=["shared"])
    plan = _plan(opts, "Who runs the Maple shelter? The shelter")
    assert plan.terms == ("runs", "maple", "shelter") and plan.scopes == ("s", "shared")
    # Without association the candidates read each hit's turns; with it, association does.
    assert plan.common()["turns"] and plan.finding()["turns"]
    assert not _plan(RecallOptions(hops=1, turn_weight=0.3)).finding()["turns"]
    assert not _plan(RecallOptions(turn_weight=0.0)).common()["turns"]
    assert plan.fusing.floor == plan.spreading.floor == MINILM.cosine_floor
