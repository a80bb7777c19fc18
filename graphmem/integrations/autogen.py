"""graphmem as AutoGen's memory: `GraphMemMemory`, an `autogen_core.memory.Memory` for an
`AssistantAgent(memory=[…])` (docs/integrations.md, "AutoGen").

Before each model call AutoGen asks the memory to update the model's context: graphmem
recalls for the latest message and adds the memories as one system message. `add` stores
a memory (an agent's semantic memory unless its metadata names a kind), `query` is
graphmem's recall."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from autogen_core import CancellationToken
from autogen_core.memory import (
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    UpdateContextResult,
)
from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import SystemMessage

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.base.types import META_KEY, Hit
from graphmem.base.verbs import agent_written
from graphmem.base.vocabulary import TOP_K
from graphmem.integrations.names import escape

#: Metadata of a MemoryContent that are the record's own fields, not metadata.
FIELDS = ("kind", "session", "created_at", "importance", "tags", "id")


class GraphMemMemory(Memory):
    """AutoGen's memory on graphmem: `mem` (default: a GraphMem from the usual settings),
    `scope` (default: the memory's; `clear` drops it), the `top_k` memories recalled."""

    def __init__(self, mem: GraphMem | None = None, *, scope: str | None = None,
                 top_k: int = TOP_K, name: str = "graphmem") -> None:
        self._own = mem is None
        self.mem = mem if mem is not None else GraphMem()
        self.scope = scope
        self.top_k = top_k
        self.name = name

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        """Add what graphmem recalls for the latest message to `model_context`, as one
        system message, and return it."""
        said = [getattr(m, "content", None) for m in await model_context.get_messages()]
        query = next((t for t in reversed(said) if isinstance(t, str) and t.strip()), "")
        found = await self.query(query) if query else MemoryQueryResult(results=[])
        if found.results:
            lines = [f"{n}. {c.content!s}" for n, c in enumerate(found.results, start=1)]
            await model_context.add_message(SystemMessage(
                content="Relevant memories (best first):\n" + "\n".join(lines)))
        return UpdateContextResult(memories=found)

    async def query(self, query: str | MemoryContent = "",
                    cancellation_token: CancellationToken | None = None,
                    **kwargs: Any) -> MemoryQueryResult:
        """The memories that best answer `query`, best first (graphmem's recall)."""
        text = query if isinstance(query, str) else str(query.content)
        if not text.strip():
            return MemoryQueryResult(results=[])
        result = await asyncio.to_thread(self.mem.recall, text, scope=self.scope,
                                         top_k=self.top_k)
        return MemoryQueryResult(results=[content(h) for h in result.hits])

    async def add(self, content: MemoryContent,
                  cancellation_token: CancellationToken | None = None) -> None:
        """Store `content`: text, markdown or JSON, as one memory (refused by graphmem's
        gates: an InputError naming why)."""
        report = await asyncio.to_thread(self.mem.remember, record(content),
                                         scope=self.scope, source="<autogen>")
        o = report.outcomes[0]
        if o.status == "rejected":
            raise InputError(f"not stored: {o.reason}", field="content")

    async def clear(self) -> None:
        """Delete the memory's scope for good, every memory in it."""
        scope = self.scope or self.mem.settings.scope
        await asyncio.to_thread(self.mem.drop_scope, scope)

    async def close(self) -> None:
        """Close the connection, if this memory opened it."""
        if self._own:
            self.mem.close()


def record(c: MemoryContent) -> dict[str, Any]:
    """A MemoryContent as a record: its text, the record fields its metadata names
    (kind, session, created_at, …), the rest of its plain metadata as metadata."""
    mime = c.mime_type.value if isinstance(c.mime_type, MemoryMimeType) else str(c.mime_type)
    if mime in (MemoryMimeType.TEXT.value, MemoryMimeType.MARKDOWN.value):
        text = str(c.content)
    elif mime == MemoryMimeType.JSON.value:
        text = json.dumps(c.content, ensure_ascii=False)
    else:
        raise InputError(f"graphmem keeps text, markdown or JSON, not {mime}",
                         field="mime_type")
    meta = dict(c.metadata or {})
    fields = {k: meta.pop(k) for k in FIELDS if meta.get(k) is not None}
    if isinstance(fields.get("session"), str):
        fields["session"] = escape(fields["session"], "session")
    plain = {k: v for k, v in meta.items() if META_KEY.fullmatch(k)
             and isinstance(v, str | int | float | bool)}
    return agent_written({"text": text, **fields, "metadata": plain})


def content(hit: Hit) -> MemoryContent:
    """A recall hit as AutoGen's MemoryContent: its text, and its id, score, kind, when it
    was written and its metadata."""
    return MemoryContent(content=hit.text, mime_type=MemoryMimeType.TEXT, metadata={
        **hit.metadata, "id": hit.id, "score": hit.score, "kind": hit.kind,
        "created_at": hit.created_at.isoformat() if hit.created_at else None})
