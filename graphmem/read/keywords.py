"""Keyword relevance from the searched scope's own statistics (docs/decisions.md, "A
scope's keyword scores are its own").

Lucene keeps one full-text index for every scope, and its BM25 takes document
frequencies and lengths over the whole index: another scope's writes would reorder this
scope's results, and its scores would tell of other scopes' words. So Lucene only finds
a scope's matches (its query names the scope), and BM25 is computed here over that
scope's memories alone: N and the mean length of the scope's searched field, and each
query word's document frequency among the scope's matches (a memory holding a query
word matches the OR query, so the matches are all the documents that hold one).

The words are Lucene's as near as a regular expression gets (the index's `english`
analyzer: docs/decisions.md, "Words are stemmed"): lower-cased runs of letters and
digits, each Han or Hiragana character a word of its own, each reduced to its Porter stem
(snowballstemmer's "porter" is the algorithm of Lucene's PorterStemFilter), so "adopted"
finds "adoption". The query's own words go to Lucene unstemmed (its analyzer stems them;
Porter's stem of a stem may differ). A length is counted in characters, the same on the
server (`size(text)`) and here, so the mean needs no tokenizer in Cypher.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable, Sequence

import snowballstemmer

from graphmem.graph.scope_indexes import OWN_INDEX_AT

_IDEOGRAPHS = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_IDEOGRAPHS}]|[^\W{_IDEOGRAPHS}]+", re.UNICODE)
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
#: How many texts' word counts are kept between recalls (`WordCounts`): five small
#: scopes' text and context fields, a few megabytes; dropped whole at every forget.
TEXTS_KEPT = 10_000
#: BM25's usual constants (Lucene's too).
K1, B = 1.2, 0.75
#: Distinct words whose stems are kept (a stem costs ~25 µs to find, a lookup 0.1 µs).
STEMS_KEPT = 200_000
_STEMMERS = threading.local()  # a Snowball stemmer keeps its state in itself


def words(text: str) -> list[str]:
    """The lower-cased words of `text`, unstemmed, stop words kept."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=STEMS_KEPT)
def stem(word: str) -> str:
    """`word`'s Porter stem (a lower-cased word: `words`)."""
    porter = getattr(_STEMMERS, "porter", None)
    if porter is None:
        porter = _STEMMERS.porter = snowballstemmer.stemmer("porter")
    return str(porter.stemWord(word))


def stems(text: str) -> list[str]:
    """The stems of `text`'s words, as the index holds them."""
    return [stem(w) for w in words(text)]


def query_terms(query: str) -> list[str]:
    """The words a query searches for, unstemmed, one for each stem: no stop words
    (unless it has nothing else), nothing Lucene would read as an operator, no word of
    underscores alone."""
    # A "word" of underscores alone is no word to Lucene's analyzer: searching it would
    # leave the scope clause alone and match the whole scope.
    found = [w for w in words(query) if _ALNUM.search(w) and w not in _LUCENE_OPERATORS]
    kept = [w for w in found if w not in STOP_WORDS] or found
    first: dict[str, str] = {}
    for w in kept:
        first.setdefault(stem(w), w)
    return list(first.values())


def idf(docs: int, df: int) -> float:
    """How rare a word is in a collection of `docs` documents, `df` of which hold it
    (Lucene's BM25 idf, never negative)."""
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))


def bm25(terms: Iterable[str], matches: dict[str, str], *, docs: int, chars: int,
         counts: WordCounts | None = None) -> dict[str, float]:
    """The BM25 score of each match (key -> its text) for the query words `terms`, by their
    stems, over a collection of `docs` documents of `chars` characters in all; a match
    holding none of the stems (Lucene's analyzer differs at the edges) scores 0. `counts`
    keeps the texts' stem counts between calls."""
    terms = list(dict.fromkeys(stem(t) for t in terms))
    if not terms:
        return dict.fromkeys(matches, 0.0)
    counted = {}
    for key, text in matches.items():
        every, first = counts.of(text) if counts is not None else _counted(text)
        # In the order the words first occur, as a text read from the start counts them:
        # a float sum's last bit depends on its order, and ties are ranked by id.
        found = sorted((t for t in terms if t in every), key=first.__getitem__)
        counted[key] = {t: every[t] for t in found}
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


def _counted(text: str) -> tuple[Counter[str], dict[str, int]]:
    """How often each stem (`stems`) occurs in `text`, and where each first occurs (its
    place among the distinct stems)."""
    every = Counter(stems(text))
    return every, {w: i for i, w in enumerate(every)}


class WordCounts:
    """The stem counts of the texts last scored (`_counted`), per connection
    (`store.kept`): a small scope's recalls score the same texts again and again (every
    match of the text and context fields, up to 2,000 a recall), and splitting them was
    most of the scoring. Least recently used go first; safe across threads."""

    def __init__(self, size: int = TEXTS_KEPT) -> None:
        self._counts: OrderedDict[str, tuple[Counter[str], dict[str, int]]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def of(self, text: str) -> tuple[Counter[str], dict[str, int]]:
        """`text`'s word counts and first places, kept for the next call."""
        with self._lock:
            found = self._counts.get(text)
            if found is not None:
                self._counts.move_to_end(text)
                return found
        found = _counted(text)
        with self._lock:
            self._counts[text] = found
            while len(self._counts) > self._size:
                self._counts.popitem(last=False)
        return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._counts)

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Drop every text's counts (texts are not kept by scope): after a forget or a
        dropped scope, nothing of a forgotten text's words stays in this process."""
        with self._lock:
            self._counts.clear()
