"""Keyword relevance from the searched scope's own statistics (docs/decisions.md, "A
scope's keyword scores are its own").

Lucene keeps one full-text index for every scope, and its BM25 takes document
frequencies and lengths over the whole index: another scope's writes would reorder this
scope's results, and its scores would tell of other scopes' words. So Lucene only finds
a scope's matches (its query names the scope), and BM25 is computed here over that
scope's memories alone: N and the mean length of the scope's searched field, and each
query word's document frequency among the scope's matches (a memory holding a query
word matches the OR query, so the matches are all the documents that hold one).

The words are Lucene's as near as a regular expression gets (its standard analyzer,
which Neo4j's default keeps stop words in): lower-cased runs of letters and digits, each
Han or Hiragana character a word of its own. A length is counted in characters, the
same on the server (`size(text)`) and here, so the mean needs no tokenizer in Cypher.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable

from graphmem.graph.scope_indexes import OWN_INDEX_AT

_IDEOGRAPHS = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_IDEOGRAPHS}]|[^\W{_IDEOGRAPHS}]+", re.UNICODE)
_SINGLE = re.compile(rf"[{_IDEOGRAPHS}]")
#: A character inside a run of letters and digits (a word goes on through it).
_INSIDE = re.compile(rf"[^\W{_IDEOGRAPHS}]", re.UNICODE)
_ALNUM = re.compile(r"[^\W_]", re.UNICODE)
_LUCENE_OPERATORS = {"and", "or", "not", "to"}
#: Lucene's English stop words and question words: the full-text index keeps stop words
#: (Neo4j's default analyzer), so the query leaves them out or BM25 rewards "the".
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with", "who", "whom", "whose", "what",
    "when", "where", "which", "why", "how", "did", "does", "do", "i", "you", "he", "she",
    "we", "me", "my", "your", "his", "her", "our", "has", "have", "had", "been"
})
#: A scope of fewer memories is scored here by its own statistics: all its matches and
#: its field's length are read in the one round trip (a few milliseconds at this size);
#: from this size on it has a full-text index of its own.
SMALL_SCOPE = OWN_INDEX_AT
#: BM25's usual constants (Lucene's too).
K1, B = 1.2, 0.75


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, stop words kept (as the index keeps them)."""
    return _WORD.findall(text.lower())


def query_terms(query: str) -> list[str]:
    """The words a query searches for, once each: no stop words (unless it has nothing
    else), nothing Lucene would read as an operator, no word of underscores alone."""
    # A "word" of underscores alone is no word to Lucene's analyzer: searching it would
    # leave the scope clause alone and match the whole scope.
    found = [w for w in words(query) if _ALNUM.search(w) and w not in _LUCENE_OPERATORS]
    kept = [w for w in found if w not in STOP_WORDS] or found
    return list(dict.fromkeys(kept))


def idf(docs: int, df: int) -> float:
    """How rare a word is in a collection of `docs` documents, `df` of which hold it
    (Lucene's BM25 idf, never negative)."""
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))


def bm25(terms: Iterable[str], matches: dict[str, str], *, docs: int,
         chars: int) -> dict[str, float]:
    """The BM25 score of each match (key -> its text) for `terms`, over a collection of
    `docs` documents of `chars` characters in all; a match holding none of the terms by
    these words (Lucene's analyzer differs at the edges) scores 0."""
    terms = list(dict.fromkeys(terms))
    if not terms:
        return dict.fromkeys(matches, 0.0)
    find = _finder(tuple(terms))
    counted = {key: Counter(find(text.lower())) for key, text in matches.items()}
    df = {t: sum(1 for c in counted.values() if t in c) for t in terms}
    # The matches are part of the collection even if the collection's count lags them.
    docs = max(docs, len(matches))
    mean = chars / docs if docs and chars > 0 else 1.0
    weight = {t: idf(docs, df[t]) for t in terms}
    out = {}
    for key, count in counted.items():
        norm = K1 * (1 - B + B * len(matches[key]) / mean)
        out[key] = sum(weight[t] * n / (n + norm) for t, n in count.items())
    return out


@functools.lru_cache(maxsize=256)
def _finder(terms: tuple[str, ...]) -> Callable[[str], list[str]]:
    """A function giving the occurrences of `terms` as words of a lower-cased text (as
    `words` splits it), without splitting the whole text: a recall scores hundreds.

    The pattern holds the terms alone, and a word's edges are checked on each match: with
    the edges in the pattern (a class of every ideograph), compiling it took more of a
    recall's time than scoring, and nearly every query's terms are new."""
    runs = sorted((t for t in terms if not _SINGLE.fullmatch(t)), key=len, reverse=True)
    singles = {t for t in terms if _SINGLE.fullmatch(t)}
    if not runs and not singles:
        return lambda text: []
    # Longest first: where a run matches but is not a whole word, no shorter one is (the
    # longer goes on with letters), and no word starts inside it.
    pattern = re.compile("|".join(map(re.escape, [*runs, *sorted(singles)])), re.UNICODE)
    inside = _INSIDE.match

    def find(text: str) -> list[str]:
        out = []
        for m in pattern.finditer(text):
            word, start, end = m.group(), m.start(), m.end()
            joined = (start > 0 and inside(text, start - 1)) or (
                end < len(text) and inside(text, end))
            if word in singles or not joined:
                out.append(word)
        return out

    return find
