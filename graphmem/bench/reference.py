"""The plain reference every recall benchmark prints next to graphmem's modes: what a
short script does with the same texts and no graph — BM25 over one scope's texts (stop
words out, no stemming), the model's cosine, reciprocal rank fusion of the two lists, at
recall's own depth and k (`RecallOptions.fusion`: candidates 50, rrf_k 5) — so no change
can quietly fall below it."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from graphmem.base.options import RecallOptions
from graphmem.embedding.embedders import Embedder
from graphmem.read.keywords import K1, STOP_WORDS, B
from graphmem.read.keywords import words as all_words


def words(text: str) -> list[str]:
    """Lower-case words without stop words, as the reference indexes and queries them."""
    return [w for w in all_words(text) if w not in STOP_WORDS]


class PlainReference:
    """BM25 + cosine + RRF over one scope's texts, in memory."""

    def __init__(self, texts: list[str], embedder: Embedder, *, depth: int | None = None,
                 rrf_k: int | None = None, vectors: np.ndarray | None = None) -> None:
        """An index of `texts`; `vectors` are their embeddings where the caller has them
        (the model embeds them otherwise), `embedder` embeds the queries."""
        # Recall's own list depth and fusion constant, so the two cannot drift apart.
        defaults = RecallOptions().fusion
        self.embedder = embedder
        self.depth = depth if depth is not None else defaults.candidates
        self.rrf_k = rrf_k if rrf_k is not None else defaults.rrf_k
        self.docs = [Counter(words(t)) for t in texts]
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=np.float64)
        self.avg = float(self.lengths.mean()) if len(texts) else 0.0
        df = Counter(w for d in self.docs for w in d)
        n = len(texts)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}
        if vectors is None:
            vectors = embedder.embed(texts) if texts else np.zeros((0, embedder.dimensions))
        self.vectors = vectors

    def bm25(self, query: str) -> np.ndarray:
        """The BM25 score of every text for `query`."""
        scores = np.zeros(len(self.docs))
        norm = K1 * (1 - B + B * self.lengths / (self.avg or 1.0))
        for w in set(words(query)):
            idf = self.idf.get(w)
            if idf is None:
                continue
            tf = np.array([d.get(w, 0) for d in self.docs], dtype=np.float64)
            scores += idf * tf * (K1 + 1) / (tf + norm)
        return scores

    def rank(self, query: str, k: int) -> list[int]:
        """Indexes of the best `k` texts for `query`, best first."""
        fused: dict[int, float] = {}
        cosine = self.vectors @ self.embedder.embed_query(query)
        for scores in (self.bm25(query), cosine):
            top = [i for i in np.argsort(-scores, kind="stable")[:self.depth] if scores[i] > 0]
            for rank, i in enumerate(top, start=1):
                fused[int(i)] = fused.get(int(i), 0.0) + 1.0 / (self.rrf_k + rank)
        return sorted(fused, key=lambda i: (-fused[i], i))[:k]
