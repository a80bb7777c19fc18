"""How recall's lists become one relevance (graphmem/read/fusion.py), without a server:
score fusion, its session list, rank fusion, the context readings, each mode."""

from __future__ import annotations

import math

import pytest

from graphmem.read import fusion
from graphmem.read.fusion import Candidate, Fusing


def memory(id_: str, session: str | None = None) -> dict[str, object]:
    return {"id": id_, "scope": "s", "session": session}


def test_normalised_scales_each_list_to_its_best_and_worst() -> None:
    assert fusion.normalised([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert fusion.normalised([None, 4.0, 0.0]) == [0.0, 1.0, 0.0]
    assert fusion.normalised([3.0, 3.0]) == [1.0, 1.0]  # all equal: each is the best
    assert fusion.normalised([None, None]) == [0.0, 0.0]


def test_score_fusion_weighs_the_cosines_by_the_models_weight() -> None:
    by_cosine = Candidate(memory=memory("a"), cosine=0.9, bm25=1.0)
    by_words = Candidate(memory=memory("b"), cosine=0.8, bm25=5.0)
    even = fusion.relevances([by_cosine, by_words], Fusing(mode="hybrid", dense=1.0))
    assert even == pytest.approx([0.5, 0.5])
    dense = fusion.relevances([by_cosine, by_words], Fusing(mode="hybrid", dense=3.0))
    assert dense == pytest.approx([0.75, 0.25])
    # First in every list scores 1.
    best = Candidate(memory=memory("c"), cosine=0.95, bm25=6.0)
    assert fusion.relevances([by_cosine, by_words, best],
                             Fusing(mode="hybrid", dense=3.0))[2] == pytest.approx(1.0)


def test_a_keyword_list_gives_nothing_to_a_candidate_without_a_query_word() -> None:
    worded = Candidate(memory=memory("a"), cosine=0.5, bm25=2.0)
    worst_worded = Candidate(memory=memory("b"), cosine=0.5, bm25=1.0)
    wordless = Candidate(memory=memory("c"), cosine=0.5)
    got = fusion.relevances([worded, worst_worded, wordless], Fusing(mode="hybrid"))
    # The cosines tie (1 each); BM25 is scaled from 0, not from the worst match.
    assert got == pytest.approx([1.0, 0.75, 0.5])
    # In no list at all: not a hit.
    assert fusion.relevances([Candidate(memory=memory("d"))],
                             Fusing(mode="hybrid")) == [None]


def test_the_session_list_lifts_the_turns_of_the_session_the_words_point_to() -> None:
    answer = Candidate(memory=memory("answer", "s1"), cosine=0.6)  # no query word
    asked = Candidate(memory=memory("asked", "s1"), cosine=0.6, bm25=4.0)
    elsewhere = Candidate(memory=memory("elsewhere", "s2"), cosine=0.6, bm25=1.0)
    loose = Candidate(memory=memory("loose"), cosine=0.6)
    assert fusion.session_bm25([answer, asked, elsewhere, loose]) == [4.0, 4.0, 1.0, None]
    on = fusion.relevances([answer, asked, elsewhere, loose],
                           Fusing(mode="hybrid", context=True, session_weight=1.0))
    off = fusion.relevances([answer, asked, elsewhere, loose],
                            Fusing(mode="hybrid", context=True, session_weight=0.0))
    assert on[0] > on[3] and off[0] == pytest.approx(off[3])


def test_a_turn_reads_in_context_by_its_context_vector_else_the_two_turns_mean() -> None:
    assert fusion.mean_cosine(0.5, None, None) == 0.5
    assert fusion.mean_cosine(None, 0.9, 0.9) is None
    # Two orthogonal unit vectors a, b and the query q = a: cos(q, (a + b)/|a + b|).
    assert fusion.mean_cosine(1.0, 0.0, 0.5) == pytest.approx(1 / math.sqrt(2))
    # A turn identical to its predecessor reads as itself.
    assert fusion.mean_cosine(0.7, 0.7, 1.0) == pytest.approx(0.7)
    mean = Candidate(memory=memory("a"), cosine=1.0, prev_cosine=0.0, prev_similarity=0.5,
                     bm25=1.0, has_context=True, context_bm25=3.0)
    assert mean.read_in_context() == pytest.approx((1 / math.sqrt(2), 3.0))
    own = Candidate(memory=memory("b"), cosine=1.0, prev_cosine=0.0, prev_similarity=0.5,
                    context_cosine=0.4, bm25=1.0)
    assert own.read_in_context() == (0.4, 1.0)  # no context text: its own BM25


def test_reciprocal_rank_fusion_scores_first_everywhere_as_one() -> None:
    assert fusion.rrf([1, 1], 5) == pytest.approx(1.0)
    assert fusion.rrf([1, None], 5) == pytest.approx(0.5)
    assert fusion.rrf([2, 3, None, None], 5) == pytest.approx((1 / 7 + 1 / 8) * 6 / 4)
    assert fusion.rrf([1, 1, 1, 1], 5, (2, 1, 2, 1)) == pytest.approx(1.0)
    assert fusion.rrf([1, None], 5, (2, 1)) == pytest.approx(2 / 3)
    assert fusion.rrf([None, 1], 5, (2, 1)) == pytest.approx(1 / 3)


def test_context_ranks_cut_at_fetch_and_break_ties_by_the_other_reading() -> None:
    a = Candidate(memory=memory("a"), cosine=0.5, bm25=3.0)
    b = Candidate(memory=memory("b"), cosine=0.9, bm25=3.0)  # BM25 tie: the closer first
    c = Candidate(memory=memory("c"), cosine=0.1, bm25=1.0, has_context=True,
                  context_bm25=5.0)  # a turn reads by its context's BM25
    d = Candidate(memory=memory("d"), cosine=None)
    fusion.context_ranks([a, b, c, d], fetch=3)
    assert [x.context_text_rank for x in (c, b, a, d)] == [1, 2, 3, None]
    assert [x.context_vector_rank for x in (b, a, c, d)] == [1, 2, 3, None]
    fusion.context_ranks([a, b, c, d], fetch=1)
    assert (b.context_vector_rank, a.context_vector_rank) == (1, None)


def test_relevance_per_mode() -> None:
    c = Candidate(memory=memory("a"), cosine=0.4, bm25=2.0, vector_rank=1, text_rank=3,
                  context_vector_rank=2)
    best = Candidate(memory=memory("b"), bm25=4.0)
    def one(**given: object) -> float | None:
        return fusion.relevances([c, best], Fusing(**given))[0]  # type: ignore[arg-type]
    assert one(mode="vector") == 0.4
    assert one(mode="keyword") == 0.5
    assert one(mode="exact") == 1.0
    assert one(mode="hybrid", rrf=True) == pytest.approx((1 / 6 + 1 / 8) * 3)
    assert one(mode="hybrid", alpha=0.25) == pytest.approx(0.25 * 0.4 + 0.75 * 0.5)
    assert one(mode="hybrid", rrf=True, dense=2.0) > one(mode="hybrid", rrf=True)


def test_a_list_that_found_nothing_weighs_nothing() -> None:
    # No candidate in a session: the session list must not shrink every relevance.
    a = Candidate(memory=memory("a"), cosine=0.9, bm25=2.0)
    b = Candidate(memory=memory("b"), cosine=0.5, bm25=1.0)
    on = fusion.relevances([a, b], Fusing(mode="hybrid", context=True, session_weight=1.0))
    off = fusion.relevances([a, b], Fusing(mode="hybrid", context=True, session_weight=0.0))
    assert on == off and on[0] == pytest.approx(1.0)
