"""graphmem as a long-term block of LlamaIndex's `Memory`: `GraphMemBlock`, a
`BaseMemoryBlock` (docs/integrations.md, "LlamaIndex").

What the short-term memory lets go of (and what is put into the block) becomes memories
of the scope, one a message, in its session and with its role as the speaker, written as
an agent's turns are. What the block gives the LLM is graphmem's recall for the latest
message, as lines of text."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field

from graphmem.api import GraphMem
from graphmem.base.vocabulary import TOP_K
from graphmem.integrations.names import escape


class GraphMemBlock(BaseMemoryBlock[str]):
    """A long-term memory block on graphmem: `mem` (default: a GraphMem from the usual
    settings), `scope` (default: the memory's), the `top_k` memories recalled for the
    latest message."""

    name: str = Field(default="GraphMem", description="The name of the memory block.")
    description: str | None = Field(
        default="What graphmem recalls for the latest message, from every session.")
    mem: Any = Field(default_factory=GraphMem, exclude=True)
    scope: str | None = None
    top_k: int = TOP_K

    async def _aget(self, messages: list[ChatMessage] | None = None,
                    **block_kwargs: Any) -> str:
        """The memories that best answer the latest message with text, one a line."""
        query = next((t for m in reversed(messages or []) if (t := _text(m))), "")
        if not query:
            return ""
        result = await asyncio.to_thread(self.mem.recall, query, scope=self.scope,
                                         top_k=self.top_k)
        return "\n".join(
            f"- {h.text}" + (f" ({h.created_at:%Y-%m-%d})" if h.created_at else "")
            for h in result.hits)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Each message with text as a memory: its session (LlamaIndex's session id), its
        role as the speaker."""
        records = [record(m) for m in messages if _text(m)]
        if records:
            mem: GraphMem = self.mem
            await asyncio.to_thread(mem.remember, records, scope=self.scope,
                                    source="<llamaindex>")


def record(message: ChatMessage) -> dict[str, Any]:
    """A chat message as the memory of a turn."""
    session = message.additional_kwargs.get("session_id")
    return {"text": _text(message), "kind": "episodic", "source": "agent",
            "metadata": {"speaker": message.role.value},
            **({"session": escape(session, "session")}
               if isinstance(session, str) and session else {})}


def _text(message: ChatMessage) -> str:
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()
