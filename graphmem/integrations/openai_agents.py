"""graphmem in the OpenAI Agents SDK: `GraphMemSession`, a `Session` (the conversation's
items, as the SDK's Runner reads and writes them), and `memory_tools`, recall and
remember as function tools (docs/integrations.md, "OpenAI Agents SDK").

Each item is one memory of the session, in the order it was added: its text what the
item says (a message's text, a tool call and its output), the item itself kept whole
beside it, so `get_items` gives back exactly what was added. Every item is kept (no gate
drops filler: the Runner needs the whole history); one graphmem refuses (a secret, say)
fails the call, naming it, rather than leaving a hole in the conversation."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from typing import TYPE_CHECKING, Any

from agents import FunctionTool, function_tool

from graphmem.api import GraphMem
from graphmem.base.errors import InputError, NotFoundError
from graphmem.base.gates import secret_reason
from graphmem.base.types import MAX_META_LIST, MAX_META_STRING, MAX_TEXT_CHARS, MemoryOut
from graphmem.base.vocabulary import MAX_LISTED, TOP_K
from graphmem.integrations.names import escape

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

#: Metadata keys: the item as JSON (in pieces of at most MAX_META_STRING characters), and
#: who said it.
ITEM, SPEAKER = "agents_item", "speaker"


class GraphMemSession:
    """The items of session `session_id` in `scope` (default: the memory's), on `mem`
    (default: a GraphMem from the usual settings). At most the last 1000 items are read
    back (`get_items`)."""

    session_settings = None

    def __init__(self, session_id: str, mem: GraphMem | None = None, *,
                 scope: str | None = None) -> None:
        self.session_id = session_id
        self.mem = mem if mem is not None else GraphMem()
        self.scope = scope
        self.session = escape(session_id, "session_id") or "@"

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items in order, the latest `limit` of them if given (at most
        the last MAX_LISTED)."""
        if limit is not None and limit < 1:
            return []
        turns = await asyncio.to_thread(self._turns, min(limit or MAX_LISTED, MAX_LISTED))
        return [_item(m) for m in turns]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Add `items` to the end of the session, all or none."""
        if items:
            await asyncio.to_thread(self._add, items)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the latest item and return it (None when the session is empty)."""
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        """Forget every item of the session for good."""
        await asyncio.to_thread(self._clear)

    def _turns(self, last: int) -> list[MemoryOut]:
        # Every item added and not removed, a turn a sweep archived too: the Runner
        # reads the whole history, and "forget for good" must reach all of it.
        return self.mem.session_turns(self.session, scope=self.scope, last=last, every=True)

    def _add(self, items: list[TResponseInputItem]) -> None:
        records = [record(item) for item in items]
        for n, r in enumerate(records, start=1):  # before any is written: all or none
            for said in (r["text"], *r["metadata"][ITEM]):
                if reason := secret_reason(said):
                    raise InputError(f"item {n} of {len(items)} refused: it {reason}; "
                                     "no item was added", field="items")
        # An item popped and added again is the caller's choice: its text may come back.
        report = self.mem.remember(records, scope=self.scope, session=self.session,
                                   signal_gate=False, allow_forgotten=True,
                                   source="<openai-agents>")
        for n, o in enumerate(report.outcomes, start=1):
            if o.status == "rejected":
                raise InputError(f"item {n} of {len(items)} refused: {o.reason}",
                                 field="items")

    def _pop(self) -> TResponseInputItem | None:
        # Concurrent pops read the same latest item; the one whose forget finds it gone
        # takes the next, so each pop removes and returns an item of its own.
        while last := self._turns(1):
            try:
                self.mem.forget(last[0].id, hard=True, scope=self.scope)
            except NotFoundError:
                continue
            return _item(last[0])
        return None

    def _clear(self) -> None:
        while turns := self._turns(MAX_LISTED):
            for m in turns:
                with contextlib.suppress(NotFoundError):  # another pop or clear took it
                    self.mem.forget(m.id, hard=True, scope=self.scope)


def record(item: TResponseInputItem) -> dict[str, Any]:
    """An item as the memory of a turn: what it says, who said it, the item whole."""
    raw = json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=str)
    pieces = [raw[i:i + MAX_META_STRING] for i in range(0, len(raw), MAX_META_STRING)]
    if len(pieces) > MAX_META_LIST:
        raise InputError(f"an item of {len(raw)} characters is longer than a session keeps",
                         field="items")
    said = dict(item) if isinstance(item, dict) else {}
    return {"id": f"item-{uuid.uuid4().hex}", "kind": "episodic", "source": "agent",
            "text": (text(said) or f"[{said.get('type', 'item')}]")[:MAX_TEXT_CHARS],
            "metadata": {ITEM: pieces, SPEAKER: str(said.get("role") or said.get("type")
                                                    or "item")}}


def text(item: dict[str, Any]) -> str:
    """What an item says: a message's text, a tool call with its arguments, a tool's
    output."""
    content = item.get("content")
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        return "\n".join(str(p.get("text") or p.get("refusal") or "") for p in content
                         if isinstance(p, dict)).strip()
    if item.get("type") == "function_call":
        return f"{item.get('name')}({item.get('arguments', '')})"
    output = item.get("output")
    return output.strip() if isinstance(output, str) else json.dumps(output) if output else ""


def _item(m: MemoryOut) -> TResponseInputItem:
    pieces = m.metadata.get(ITEM) or []
    return json.loads("".join(pieces if isinstance(pieces, list) else [pieces]))


def memory_tools(mem: GraphMem | None = None, *, scope: str | None = None,
                 top_k: int = TOP_K) -> list[FunctionTool]:
    """`recall_memories` and `remember`, as function tools an agent calls, on `mem`
    (default: a GraphMem from the usual settings) in `scope`."""
    memory = mem if mem is not None else GraphMem()

    @function_tool
    async def recall_memories(query: str) -> list[dict[str, Any]]:
        """The memories that best answer the query, best first: id, text, when."""
        result = await asyncio.to_thread(memory.recall, query, scope=scope, top_k=top_k)
        return [{"id": h.id, "text": h.text,
                 "created_at": h.created_at.isoformat() if h.created_at else None}
                for h in result.hits]

    @function_tool
    async def remember(text: str) -> str:
        """Keep one self-contained statement worth remembering (a fact, a preference, a
        decision); says whether it was stored, confirmed an existing memory, or refused."""
        report = await asyncio.to_thread(memory.remember, {
            "text": text, "kind": "semantic", "source": "agent"}, scope=scope,
            source="<openai-agents>")
        o = report.outcomes[0]
        return f"{o.status}: {o.id}" if o.status != "rejected" else f"refused: {o.reason}"

    return [recall_memories, remember]
