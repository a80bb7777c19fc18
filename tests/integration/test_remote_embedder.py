"""An OpenAI-compatible embeddings endpoint instead of the local model: a local stand-in
serves the real default model's vectors (scaled, so normalisation is checked too), and
graphmem remembers and recalls through it on the real server."""

from __future__ import annotations

import pytest

from graphmem.api import GraphMem
from graphmem.base.settings import Settings
from graphmem.embedding.chosen import from_settings
from graphmem.embedding.embedders import Embedder
from graphmem.embedding.remote import EmbeddingUnavailable, RemoteEmbedder
from graphmem.graph.store import Store


def test_remember_and_recall_through_an_embeddings_endpoint(
        schema_ready: Settings, embedder: Embedder, scope: str, chat_endpoint,
        store: Store) -> None:
    chat_endpoint.embed = lambda texts: (embedder.embed(texts) * 3.0).tolist()
    remote = RemoteEmbedder(chat_endpoint.url, "all-MiniLM-L6-v2", "sk-embed", batch_size=2)
    assert remote.dimensions == 384
    settings = schema_ready.model_copy(update={"scope": scope})
    with GraphMem(settings, embedder=remote) as mem:
        try:
            mem.remember([{"id": "r1", "text": "The staging cluster runs in Frankfurt"},
                          {"id": "r2", "text": "Invoices are generated on the 1st"},
                          {"id": "r3", "text": "Our office dog is called Pixel"}])
            hits = mem.recall("where is staging hosted?", mode="vector", hops=0,
                              reinforce=False).hits
            assert hits[0].id == "r1"
            # The endpoint embeds a query as any other text (no query prefix of its own).
            local = float(embedder.embed(["where is staging hosted?"])[0]
                          @ embedder.embed(["The staging cluster runs in Frankfurt"])[0])
            assert hits[0].cosine == pytest.approx(local, abs=5e-3)  # batching moves it a bit
            norm = store.driver.execute_query(  # stored unit length, whatever was sent
                "MATCH (m:Memory {id: 'r1'}) "
                "RETURN sqrt(reduce(s = 0.0, x IN m.embedding | s + x * x)) AS n",
                database_=store.database).records[0]["n"]
            assert norm == pytest.approx(1.0, abs=1e-5)
        finally:
            mem.drop_scope(scope)
    headers, body = chat_endpoint.requests[-1]
    assert body["path"] == "/v1/embeddings" and body["model"] == "all-MiniLM-L6-v2"
    assert headers["Authorization"] == "Bearer sk-embed"
    assert max(len(b["input"]) for _, b in chat_endpoint.requests) <= 2  # batch_size


def test_the_settings_choose_the_endpoint_and_failures_are_environment_errors(
        chat_endpoint, monkeypatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_URL", chat_endpoint.url)
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_MODEL", "text-embedding-3-small")
    chosen = from_settings(Settings())
    assert isinstance(chosen, RemoteEmbedder) and chosen.name == "text-embedding-3-small"
    chat_endpoint.status = 401
    with pytest.raises(EmbeddingUnavailable, match="answered HTTP 401") as failed:
        chosen.embed(["x"])
    assert failed.value.exit_code == 2
    chat_endpoint.status, chat_endpoint.raw = 200, b'{"data": [{"index": 0}]}'
    with pytest.raises(EmbeddingUnavailable, match="without data"):
        chosen.embed(["x"])
