"""graphmem as a LangChain retriever: `GraphMemRetriever`, a `langchain_core`
`BaseRetriever` whose documents are the memories graphmem's recall returns, best first
(docs/integrations.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field

from graphmem.api import GraphMem
from graphmem.base.types import Hit
from graphmem.base.vocabulary import TOP_K


def document(hit: Hit) -> Document:
    """A recall hit as a Document: its text, and in metadata its id, score, scope, kind,
    when it was written, how it was reached (`via`) and the path that reached it."""
    return Document(page_content=hit.text, id=hit.id, metadata={
        "id": hit.id, "score": hit.score, "scope": hit.scope, "kind": hit.kind,
        "created_at": hit.created_at.isoformat() if hit.created_at else None,
        "via": hit.via, "path": [step.model_dump(mode="json") for step in hit.path],
        "metadata": hit.metadata})


class GraphMemRetriever(BaseRetriever):
    """Documents for a query from graphmem's recall: `mem` (default: a GraphMem from the
    usual settings), `scope` (default: the configured one), `top_k`, `mode`, `filters`
    (metadata key -> allowed values) and any other recall option in `options`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    mem: GraphMem = Field(default_factory=GraphMem)
    scope: str | None = None
    top_k: int = TOP_K
    mode: str = "hybrid"
    filters: dict[str, list[Any]] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        result = self.mem.recall(query, scope=self.scope, top_k=self.top_k, mode=self.mode,
                                 filters=self.filters, **self.options)
        return [document(h) for h in result.hits]

    async def _aget_relevant_documents(
            self, query: str, *,
            run_manager: AsyncCallbackManagerForRetrieverRun) -> list[Document]:
        return await asyncio.to_thread(
            self._get_relevant_documents, query,
            run_manager=run_manager.get_sync())
