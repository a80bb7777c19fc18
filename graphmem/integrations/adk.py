"""graphmem as Google ADK's long-term memory: `GraphMemMemoryService`, a
`google.adk.memory.BaseMemoryService` (docs/integrations.md, "Google ADK").

An app's user is a scope (`adk/<app>/<user>`), an ADK session a graphmem session, and
each event with text one episodic memory of it, written as an agent's turns are: its
author as the speaker, its time as when it was said, in the session's order. An event is
keyed by its id, so a session added again (ADK adds a session whenever it likes) writes
only the events it had not written. `search_memory` is graphmem's recall."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from graphmem.api import GraphMem
from graphmem.base.types import META_KEY, Hit, WriteReport
from graphmem.base.verbs import agent_written
from graphmem.base.vocabulary import TOP_K
from graphmem.integrations.names import escape, scope_of

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

#: Event ids looked up at once when a session is added again.
KNOWN_CHUNK = 100


class GraphMemMemoryService(BaseMemoryService):
    """ADK's memory slot on graphmem: `mem` (default: a GraphMem from the usual settings),
    scopes under `root`, `top_k` memories a search."""

    def __init__(self, mem: GraphMem | None = None, *, root: str = "adk",
                 top_k: int = TOP_K) -> None:
        self.mem = mem if mem is not None else GraphMem()
        self.root = root
        self.top_k = top_k

    def scope(self, app_name: str, user_id: str) -> str:
        """The scope of one app's user."""
        return scope_of(self.root, app_name, user_id, field="user_id")

    async def add_session_to_memory(self, session: Session) -> None:
        """Each event of `session` with text, once (events written before are left)."""
        await self.add_events_to_memory(app_name=session.app_name, user_id=session.user_id,
                                        events=session.events, session_id=session.id)

    async def add_events_to_memory(
            self, *, app_name: str, user_id: str, events: Sequence[Event],
            session_id: str | None = None,
            custom_metadata: Mapping[str, object] | None = None) -> None:
        """`events` (a delta of a session) as memories of the user's scope, in order."""
        await asyncio.to_thread(self._add_events, self.scope(app_name, user_id), events,
                                session_id, dict(custom_metadata or {}))

    async def add_memory(self, *, app_name: str, user_id: str,
                         memories: Sequence[MemoryEntry],
                         custom_metadata: Mapping[str, object] | None = None) -> None:
        """Explicit memories (what an agent decided to keep): a semantic memory each, by
        the agent, keyed by its id if it has one."""
        scope = self.scope(app_name, user_id)
        records = [agent_written({
            **({"id": f"entry-{escape(m.id, 'id')}"} if m.id else {}), "text": _text(m.content),
            "metadata": _metadata({**(custom_metadata or {}), **m.custom_metadata,
                                   "speaker": m.author})}) for m in memories]
        await asyncio.to_thread(self._write, records, scope)

    async def search_memory(self, *, app_name: str, user_id: str,
                            query: str) -> SearchMemoryResponse:
        """The user's memories that best answer `query`, best first (graphmem's recall)."""
        scope = self.scope(app_name, user_id)
        result = await asyncio.to_thread(self.mem.recall, query, scope=scope,
                                         top_k=self.top_k)
        return SearchMemoryResponse(memories=[entry(h) for h in result.hits])

    async def delete_memory(self, *, app_name: str, user_id: str,
                            memory_id: str | None = None) -> None:
        """Forget one memory for good (a tombstone without its text stays)."""
        if memory_id is not None:
            await asyncio.to_thread(self.mem.forget, memory_id, hard=True,
                                    scope=self.scope(app_name, user_id))

    def _add_events(self, scope: str, events: Sequence[Event], session_id: str | None,
                    extra: dict[str, object]) -> WriteReport | None:
        records = [turn(e, session_id, extra) for e in events if _text(e.content)]
        if not records:
            return None
        ids = [r["id"] for r in records]
        known = {m.id for i in range(0, len(ids), KNOWN_CHUNK)
                 for m in self.mem.get(ids[i:i + KNOWN_CHUNK], scope=scope,
                                       limit=KNOWN_CHUNK)}
        return self._write([r for r in records if r["id"] not in known], scope)

    def _write(self, records: list[dict[str, Any]], scope: str) -> WriteReport | None:
        return self.mem.remember(records, scope=scope, source="<adk>") if records else None


def turn(event: Event, session_id: str | None, extra: Mapping[str, object]) -> dict[str, Any]:
    """An event as the memory of a turn: its text, session, author and time, keyed by its
    id."""
    content = event.content
    return {"id": f"event-{escape(event.id, 'id')}", "text": _text(content),
            "kind": "episodic", "source": "agent",
            "session": escape(session_id, "session_id") if session_id else None,
            "created_at": datetime.fromtimestamp(event.timestamp, UTC),
            "metadata": _metadata({**extra, **(event.custom_metadata or {}),
                                   "speaker": event.author,
                                   "role": content.role if content else None})}


def entry(hit: Hit) -> MemoryEntry:
    """A recall hit as ADK's MemoryEntry: its text as the content, the speaker as author,
    when it was said, and graphmem's id, score and session."""
    speaker = hit.metadata.get("speaker")
    role = "user" if hit.metadata.get("role") in (None, "user") else "model"
    return MemoryEntry(
        id=hit.id, content=types.Content(role=role, parts=[types.Part(text=hit.text)]),
        author=speaker if isinstance(speaker, str) else None,
        timestamp=hit.created_at.isoformat() if hit.created_at else None,
        custom_metadata={"score": hit.score, "kind": hit.kind, "via": hit.via})


def _text(content: types.Content | None) -> str:
    """The text of a message's parts (a model's thoughts left out)."""
    if content is None or not content.parts:
        return ""
    return "\n".join(p.text for p in content.parts if p.text and not p.thought).strip()


def _metadata(given: Mapping[str, object]) -> dict[str, Any]:
    """What graphmem keeps of a framework's metadata: plain keys with a scalar or a list
    of scalars (nested objects and odd keys are left out)."""
    def plain(v: object) -> bool:
        return isinstance(v, str | int | float | bool)
    return {k: v for k, v in given.items() if META_KEY.fullmatch(k) and (
        plain(v) or (isinstance(v, list) and all(plain(x) for x in v)))}
