"""Embeddings from an OpenAI-compatible endpoint instead of a local model
(GRAPHMEM_EMBEDDING_URL; opt-in: it sends every text there)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from graphmem.base import models
from graphmem.base.errors import ConfigError, EnvironmentProblem
from graphmem.base.openai_compat import post
from graphmem.embedding.embedders import Embedder

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from graphmem.embedding.runtime import OnnxModel


class EmbeddingUnavailable(EnvironmentProblem):
    """The embeddings endpoint did not answer with vectors (exit 2)."""


class RemoteEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible `/embeddings` endpoint (GRAPHMEM_EMBEDDING_URL):
    the same batching and query cache, vectors made unit length here, since not every
    endpoint normalises them. Opt-in: it sends every text to that endpoint."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None,
                 batch_size: int = 64, timeout: float = 30.0) -> None:
        self.name = model
        self.path = base_url.rstrip("/") + "/embeddings"
        self.device = "remote"
        self.batch_size = batch_size
        self.timeout = timeout
        self._key = api_key

    @property
    def recorded(self) -> str:
        """The endpoint's model name, marked as the endpoint's where graphmem's registry
        names a local model so (e5-small-v2-q, GRAPHMEM_EMBEDDING_MODEL's default): its
        vectors are not that model's, and a scope must not say they are."""
        return f"endpoint:{self.name}" if models.find(self.name) is not None else self.name

    @property
    def model(self) -> SentenceTransformer:
        """A remote embedder has no local model."""
        raise ConfigError(f"{self.name} is served by {self.path}, not loaded locally")

    @cached_property
    def dimensions(self) -> int:
        """Length of the endpoint's vectors (asked once, with a probe text)."""
        return int(self._encode(["dimension probe"]).shape[1])

    def warm(self) -> None:
        """Nothing to load; asking the dimension checks the endpoint answers."""
        _ = self.dimensions

    def _onnx_model(self) -> OnnxModel | None:
        return None  # the endpoint embeds every text

    def exported(self) -> bool:
        """Nothing to export: the endpoint embeds."""
        return True

    def _encode_one(self, text: str) -> np.ndarray:
        return self._encode([text])[0]

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start:start + self.batch_size])
            answer = post(self.path, {"model": self.name, "input": batch},
                          api_key=self._key, timeout=self.timeout,
                          error=EmbeddingUnavailable, what="embeddings endpoint")
            try:
                rows = sorted(answer["data"], key=lambda d: d["index"])
                vectors = np.asarray([d["embedding"] for d in rows], dtype=np.float32)
            except (KeyError, TypeError, ValueError):
                raise EmbeddingUnavailable(
                    f"embeddings endpoint {self.path} answered without data[].embedding"
                ) from None
            if vectors.ndim != 2 or len(vectors) != len(batch):
                raise EmbeddingUnavailable(
                    f"embeddings endpoint {self.path} answered {len(vectors)} vectors "
                    f"for {len(batch)} texts")
            parts.append(vectors)
        vectors = np.concatenate(parts)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)
