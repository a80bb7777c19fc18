"""The plain reference of the recall benchmarks (no server; the real MiniLM)."""

from __future__ import annotations

import pytest

from graphmem.bench.reference import PlainReference, words
from graphmem.embedding.embedders import Embedder

TEXTS = ["Caroline: I went to the LGBTQ support group yesterday.",
         "Melanie: The kids loved the pottery class last weekend.",
         "Caroline: I am researching adoption agencies now.",
         "Melanie: We camped at the beach and saw the Perseids."]


@pytest.fixture(scope="module")
def reference() -> PlainReference:
    return PlainReference(TEXTS, Embedder())


def test_words_leave_stop_words_out() -> None:
    assert words("What did the kids love?") == ["kids", "love"]


def test_bm25_scores_only_texts_with_the_words(reference: PlainReference) -> None:
    scores = reference.bm25("the pottery class at the beach")
    assert scores[1] > scores[3] > 0  # two words matched beat one
    assert scores[[0, 2]].tolist() == [0.0, 0.0]  # "the" counts for nothing


def test_fusion_ranks_the_answer_first(reference: PlainReference) -> None:
    assert reference.rank("Which agencies is Caroline looking into for adoption?", 2)[0] == 2
    assert reference.rank("meteor shower while camping", 1) == [3]
