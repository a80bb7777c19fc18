"""Keyword relevance from a scope's own statistics: BM25 over the scope's matches equals
BM25 over the whole scope, rare words weigh more, longer texts less."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.read.keywords import K1, B, bm25, query_terms, stem, stems, words


def _full_bm25(terms: list[str], texts: dict[str, str]) -> dict[str, float]:
    """BM25 as a textbook computes it, over every text of the collection."""
    counts = {k: words(t) for k, t in texts.items()}
    mean = sum(len(t) for t in texts.values()) / len(texts)
    out = {}
    for key, ws in counts.items():
        score = 0.0
        for t in terms:
            df = sum(1 for c in counts.values() if t in c)
            tf = ws.count(t)
            if tf:
                idf = math.log(1 + (len(texts) - df + 0.5) / (df + 0.5))
                score += idf * tf / (tf + K1 * (1 - B + B * len(texts[key]) / mean))
        out[key] = score
    return out


_VOCAB = ["piano", "lisbon", "friday", "deploy", "river", "tram", "note", "the"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=12),
                min_size=1, max_size=30),
       st.lists(st.sampled_from(_VOCAB), min_size=1, max_size=4))
def test_the_matches_and_the_scopes_totals_give_the_whole_scopes_bm25(
        docs: list[list[str]], query: list[str]) -> None:
    texts = {f"m{i}": " ".join(d) for i, d in enumerate(docs)}
    terms = query_terms(" ".join(query))
    matches = {k: t for k, t in texts.items() if set(words(t)) & set(terms)}
    scores = bm25(terms, matches, docs=len(texts), chars=sum(len(t) for t in texts.values()))
    full = _full_bm25(terms, texts)
    assert set(scores) == set(matches)
    for key, score in scores.items():
        assert math.isclose(score, full[key], rel_tol=1e-9)
        assert score > 0


def test_a_rare_word_weighs_more_than_a_common_one() -> None:
    matches = {"rare": "the piano recital", "common": "the deploy window"}
    # Of 100 memories, 50 mention deploys and 1 the piano.
    scores = bm25(["piano", "deploy"], {**matches, **{f"d{i}": "deploy" for i in range(49)}},
                  docs=100, chars=1500)
    assert scores["rare"] > scores["common"] > 0


def test_a_longer_text_with_the_same_count_scores_lower() -> None:
    scores = bm25(["piano"], {"short": "piano lesson", "long": "piano " + "lesson " * 20},
                  docs=10, chars=300)
    assert scores["short"] > scores["long"]


def test_a_match_by_lucenes_words_but_not_ours_scores_zero() -> None:
    assert bm25(["dont"], {"m": "don't"}, docs=5, chars=50) == {"m": 0.0}


def test_words_split_han_and_hiragana_per_character_as_lucene_does() -> None:
    assert words("Tokyo 東京に行く!") == ["tokyo", "東", "京", "に", "行", "く"]


def test_query_terms_drop_stop_words_operators_and_repeats() -> None:
    assert query_terms("Who runs the Maple shelter? The shelter AND maple") == [
        "runs", "maple", "shelter"]
    assert query_terms("the and of") == ["the", "of"]
    assert query_terms("__ ?? **") == []


def test_a_word_matches_its_inflections_by_its_porter_stem() -> None:
    # Lucene's english analyzer (PorterStemFilter) indexes these stems; the same here.
    assert [stem(w) for w in ("adopted", "adoption", "adopting", "paintings", "ponies")] == [
        "adopt", "adopt", "adopt", "paint", "poni"]
    assert bm25(["adopted"], {"m": "The adoption went well", "n": "An adopter"},
                docs=5, chars=50)["m"] > 0
    # One query word for each stem: "paint" and "painting" would count one stem twice.
    assert query_terms("painting paint paints pottery") == ["painting", "pottery"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab_1 .-'東京にカ\u00e9A")), max_size=40),
                min_size=1, max_size=5),
       st.lists(st.sampled_from(["a", "ab", "b_1", "1", "東", "に", "カ", "\u00e9a"]),
                min_size=1, max_size=4))
def test_bm25_counts_whole_words_and_scores_alike_when_asked_again(
        texts: list[str], terms: list[str]) -> None:
    matches = {str(i): t for i, t in enumerate(texts)}
    first = bm25(terms, matches, docs=10, chars=200)
    # A match scores exactly when one of the terms is one of its words.
    assert {k for k, v in first.items() if v > 0} == {
        k for k, t in matches.items() if set(stems(t)) & {stem(x) for x in terms}}
    # The second time its word counts are the kept ones: the same scores.
    assert bm25(terms, matches, docs=10, chars=200) == first
