"""How recall's lists become one relevance, in plain Python (docs/decisions.md, "The lists
are fused by their scores").

A direct hit is found by up to five lists: its cosine with the query; its context's cosine
(the turn before it and itself, embedded together); BM25 over its text; BM25 over its
context; and its session's best BM25 (the session a question's words point to holds its
answer's other turns). Hybrid recall fuses them by score: each list min-max normalised
over the query's candidates, weighed (the model's `dense_weight` for the two cosines, 1
for each keyword list, `session_weight` for the session's), added, and divided by the
weights' sum of the lists that found something, so that the best in every list scores
1. Reciprocal rank fusion (`rrf`) of the same lists stays a choice (`Fusion.rrf`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: Keeps the context cosine's denominator above zero (a turn the same as the one before).
EPSILON = 1e-9


def cosine(similarity: float | None) -> float | None:
    """The cosine a vector similarity stands for: Neo4j's vector index and
    `vector.similarity.cosine` report (1 + cos) / 2, which recall's queries return as is."""
    return None if similarity is None else 2.0 * similarity - 1.0


def rescaled(cosine: float | None, floor: float) -> float | None:
    """A cosine where it enters a score, from the model's floor (graphmem.base.models)
    to 1 as 0 to 1: e5's sit near 0.7-1, where a factor or a square would swamp them."""
    return None if cosine is None else (cosine - floor) / (1.0 - floor)


def mean_cosine(cosine: float | None, prev_cosine: float | None,
                prev_similarity: float | None) -> float | None:
    """The cosine of the query with the mean of a turn's and its predecessor's vectors:
    (c + c_prev) / sqrt(2 + 2 cos(turn, prev)); the turn's own without a predecessor. The
    context cosine of a turn whose context has no vector of its own yet."""
    if cosine is None or prev_cosine is None or prev_similarity is None:
        return cosine
    return (cosine + prev_cosine) / math.sqrt(4 * prev_similarity + EPSILON)


@dataclass
class Candidate:
    """One memory recall found: its facts, what each list says of it, and its places in
    the lists (rank fusion's)."""

    memory: dict[str, Any]
    cosine: float | None = None
    bm25: float | None = None
    context_bm25: float | None = None
    has_context: bool = False
    #: The query's cosine with the turn's context vector (None: it has none).
    context_cosine: float | None = None
    prev_cosine: float | None = None
    prev_similarity: float | None = None
    vector_rank: int | None = None
    text_rank: int | None = None
    context_vector_rank: int | None = None
    context_text_rank: int | None = None
    relevance: float | None = None
    retention: float = 1.0
    layer: float = 1.0
    score: float = 0.0

    @classmethod
    def of(cls, row: dict[str, Any]) -> Candidate:
        """A candidate from a `recall/retrieve` (or `recall/exact`) row."""
        c = cls(memory=row["memory"], cosine=cosine(row.get("similarity")),
                has_context=bool(row.get("has_context")),
                context_cosine=cosine(row.get("context_similarity")),
                prev_cosine=cosine(row.get("prev_query_similarity")),
                prev_similarity=row.get("prev_similarity"))
        for r in row.get("ranks", []):
            if r["list"] == "vector":
                c.vector_rank = r["rank"]
            elif r["list"] == "text":
                c.text_rank, c.bm25 = r["rank"], r["score"]
            elif r["list"] == "context":
                c.context_bm25 = r["score"]
        return c

    def read_in_context(self) -> tuple[float | None, float | None]:
        """The candidate as it reads with the turn before it: the context's cosine (its
        vector's, else the two turns' mean), and its context's BM25 (its own text's
        without a context)."""
        cos = self.context_cosine if self.context_cosine is not None else mean_cosine(
            self.cosine, self.prev_cosine, self.prev_similarity)
        return cos, self.context_bm25 if self.has_context else self.bm25


@dataclass(frozen=True)
class Fusing:
    """How a recall fuses its lists (RecallOptions' fusion and context fields, and the
    embedding model's numbers)."""

    mode: str
    alpha: float | None = None
    rrf: bool = False
    rrf_k: int = 5
    context: bool = False
    session_weight: float = 0.0
    fetch: int = 50
    floor: float = 0.0  # the embedding model's (`rescaled`)
    dense: float = 1.0  # the embedding model's weight of the cosine lists


def relevances(candidates: Sequence[Candidate], fusing: Fusing) -> list[float | None]:
    """How well each candidate answers the query: its cosine (vector), its BM25 over the
    best (keyword), the lists fused (hybrid: by score, or by rank with `rrf`; with
    context, the context and session lists too), or alpha x cosine + (1 - alpha) x BM25 /
    best (hybrid with an alpha); a cosine `rescaled` from the model's floor. None: the
    candidate is in no list of the mode."""
    best_bm25 = max((c.bm25 for c in candidates if c.bm25 is not None), default=None)
    if fusing.mode == "exact":
        return [1.0] * len(candidates)
    if fusing.mode == "vector":
        return [rescaled(c.cosine, fusing.floor) for c in candidates]
    if fusing.mode == "keyword":
        return [(c.bm25 or 0.0) / best_bm25 if best_bm25 else None for c in candidates]
    if fusing.alpha is not None:
        a = fusing.alpha
        return [a * (rescaled(c.cosine, fusing.floor) or 0.0)
                + (1 - a) * (c.bm25 / best_bm25 if c.bm25 is not None and best_bm25 else 0.0)
                for c in candidates]
    if fusing.rrf:
        return _rank_fused(candidates, fusing)
    return _score_fused(candidates, fusing)


def normalised(values: Sequence[float | None]) -> list[float]:
    """Each value min-max scaled over the present ones to [0, 1] (all equal: 1 each); a
    missing one 0."""
    present = [v for v in values if v is not None]
    if not present:
        return [0.0] * len(values)
    lo, hi = min(present), max(present)
    return [0.0 if v is None else (v - lo) / (hi - lo) if hi > lo else 1.0 for v in values]


def session_bm25(candidates: Sequence[Candidate]) -> list[float | None]:
    """Each candidate's session's best BM25 among the candidates of the text list (None
    outside a session, or for a session the list did not reach)."""
    best: dict[tuple[str, str], float] = {}
    for c in candidates:
        where = _session(c)
        if where is not None and c.bm25 is not None:
            best[where] = max(best.get(where, 0.0), c.bm25)
    return [best.get(w) if (w := _session(c)) is not None else None for c in candidates]


def _score_fused(candidates: Sequence[Candidate], fusing: Fusing) -> list[float | None]:
    # A keyword list gives 0 to a candidate without a query word (the list's floor when
    # any candidate lacks one), not the worst match's score.
    def words(values: list[float | None]) -> list[float | None]:
        return values if all(v is None for v in values) else [v or 0.0 for v in values]

    lists = [(fusing.dense, [c.cosine for c in candidates]),
             (1.0, words([c.bm25 for c in candidates]))]
    if fusing.context:
        read = [c.read_in_context() for c in candidates]
        lists += [(fusing.dense, [cos for cos, _ in read]),
                  (1.0, words([bm for _, bm in read]))]
        if fusing.session_weight > 0:
            lists.append((fusing.session_weight, words(session_bm25(candidates))))
    # A list that found nothing (no session, no query word) weighs nothing: it would
    # only shrink every relevance against association's bonus.
    lists = [(w, values) for w, values in lists if any(v is not None for v in values)]
    total = sum(w for w, _ in lists) or 1.0
    fused = [0.0] * len(candidates)
    for weight, values in lists:
        for i, v in enumerate(normalised(values)):
            fused[i] += weight * v / total
    # A candidate in no list of the mode (no vector, no query word) is not a hit.
    return [f if c.cosine is not None or c.bm25 is not None else None
            for f, c in zip(fused, candidates, strict=True)]


def rrf(ranks: Iterable[int | None], k: int, weights: Iterable[float] | None = None) -> float:
    """Reciprocal rank fusion, each list counting by its weight (1 each by default),
    scaled so that first in every list scores 1."""
    ranks = list(ranks)
    w = list(weights) if weights is not None else [1.0] * len(ranks)
    return sum(wi / (k + r) for r, wi in zip(ranks, w, strict=True) if r is not None) \
        * (k + 1) / sum(w)


def context_ranks(candidates: Sequence[Candidate], fetch: int) -> None:
    """Rank every candidate as it reads in its conversation (`Candidate.read_in_context`),
    twice: by the context cosine and by the context's BM25; the first `fetch` of each get
    a rank, as a list of its own (rank fusion's)."""
    read = {id(c): c.read_in_context() for c in candidates}
    cosines = {i: r[0] for i, r in read.items()}
    bm25s = {i: r[1] for i, r in read.items()}

    def by(first: dict[int, float | None], then: dict[int, float | None]) -> Any:
        # Lucene's BM25 ties often (it keeps lengths coarsely): a tie goes to the better
        # of the other reading, then by id, so a store ranks the same way every time.
        return lambda c: (-_or(first[id(c)], -2.0), -_or(then[id(c)], -2.0),
                          (c.memory["scope"], c.memory["id"]))

    for i, c in enumerate(sorted(candidates, key=by(cosines, bm25s))):
        c.context_vector_rank = i + 1 if cosines[id(c)] is not None and i < fetch else None
    for i, c in enumerate(sorted(candidates, key=by(bm25s, cosines))):
        c.context_text_rank = i + 1 if bm25s[id(c)] is not None and i < fetch else None


def _rank_fused(candidates: Sequence[Candidate], fusing: Fusing) -> list[float | None]:
    if not fusing.context:
        return [rrf([c.vector_rank, c.text_rank], fusing.rrf_k, (fusing.dense, 1.0))
                for c in candidates]
    context_ranks(candidates, fusing.fetch)
    return [rrf([c.vector_rank, c.text_rank, c.context_vector_rank, c.context_text_rank],
                fusing.rrf_k, (fusing.dense, 1.0, fusing.dense, 1.0)) for c in candidates]


def _session(c: Candidate) -> tuple[str, str] | None:
    session = c.memory.get("session")
    return None if session is None else (c.memory["scope"], session)


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value
