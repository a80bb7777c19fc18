"""Reinforcement's plan is made on the recall's time and its writes later: the cold hits
a recall brings back are embedded when the reinforcement is written, not while the
caller waits."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graphmem.base.options import RecallOptions
from graphmem.base.types import Hit
from graphmem.embedding.embedders import Embedder
from graphmem.read import reinforcement


class Counting:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.texts = inner, 0

    def embed(self, texts: list[str], **kwargs: Any) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts, **kwargs)


def _hit(id_: str, tier: str) -> Hit:
    return Hit(id=id_, text=f"memory {id_} about grafana dashboards", kind="episodic",
               scope="s", score=1.0, relevance=1.0, retention=1.0, layer=1.0, tier=tier)


def test_cold_hits_are_embedded_when_written_not_when_planned(embedder: Embedder) -> None:
    counting = Counting(embedder)
    item = reinforcement.plan([_hit("a", "hot"), _hit("b", "cold"), _hit("c", "stub")],
                              scope="s", now=datetime(2026, 1, 1, tzinfo=UTC),
                              opts=RecallOptions(), embedder=counting)  # type: ignore[arg-type]
    assert item is not None and counting.texts == 0  # the recall returns before embedding
    rows = reinforcement._embedded(item)
    assert counting.texts == 2 and [r["id"] for r in rows] == ["b", "c"]
    assert len(rows[0]["embedding"]) == embedder.dimensions
    assert [b["id"] for b in item.boosts] == ["a", "b", "c"]
