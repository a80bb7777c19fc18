"""graphmem's verbs as MCP tools: one method a tool, its signature the tool's JSON schema
(the SDK builds it), acting where the call's `Access` says. A graphmem error, an
unreachable Neo4j included, comes back as a tool error the agent can read, in the words
every door uses (`graphmem.base.errors`). What each tool is for: docs/integrations.md."""

from __future__ import annotations

import inspect
import threading
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, NamedTuple, TypeVar

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field, ValidationError

from graphmem.api import GraphMem
from graphmem.base import grants
from graphmem.base.errors import GraphmemError, invalid
from graphmem.base.options import KindOrAlias as Kind
from graphmem.base.options import RecallOptions
from graphmem.base.types import MAX_QUERY_CHARS, Hit, MemoryIn, MemoryOut
from graphmem.base.verbs import (
    ContextArgs,
    SessionArgs,
    Verb,
    agent_written,
    declared,
    described,
    parameter,
    run,
)
from graphmem.base.vocabulary import AGENT_KIND

T = TypeVar("T")

#: What memory_store takes of a record (MemoryIn), each as MemoryIn declares it; kind and
#: session besides, with an agent's defaults.
STORED = ("text", "importance", "tags", "metadata", "supersedes", "created_at")
#: What memory_recall takes of RecallOptions, each as RecallOptions declares it.
RECALLED = ("top_k", "mode", "kinds", "hops", "diverse", "since", "until")


def _call(fn: Callable[[], T]) -> T:
    """Run one tool body; graphmem errors become tool errors the agent can read."""
    try:
        return fn()
    except GraphmemError as e:
        raise ToolError(e.said()) from None
    except ValidationError as e:  # options a tool built from its arguments
        raise ToolError(invalid(e).said()) from None


def _known(mem: GraphMem, ids: list[str], scope: str) -> None:
    """A tool error naming the ids that are no memory of `scope` (a forgotten one as
    such), instead of an empty answer."""
    _call(lambda: mem.ops.check(ids, scope=scope))


def connection_session(now: datetime) -> str:
    """The session a connection's memories join when the agent names none: one per
    stdio server process, one per MCP session over HTTP."""
    return f"mcp-{now:%Y-%m-%dT%H%M%S}-{uuid.uuid4().hex[:6]}"


class Access(NamedTuple):
    """Where a tool call acts: its scope, whether it may write, and the session what it
    stores joins when it names none (None: the connection's own)."""

    scope: str
    writable: bool
    session: str | None = None


#: MCP sessions whose memory sessions a server keeps (the oldest is forgotten past it).
MAX_CONNECTIONS = 10_000


def _mcp_session_id(ctx: Context | None) -> str:
    """The MCP session a tool call belongs to over HTTP (its `mcp-session-id` header),
    or "" on stdio and outside a request."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # a call made in-process, outside any request
        return ""
    headers = getattr(request, "headers", None)
    return str(headers.get("mcp-session-id") or "") if headers is not None else ""


class Tools:
    """The tools of one server: each acts on `mem` where `access` says (the service's
    token's scope), else in `mem`'s scope and `session`."""

    def __init__(self, mem: GraphMem, access: Callable[[], Access] | None = None,
                 session: str | None = None) -> None:
        self.mem = mem
        fixed = Access(mem.settings.scope, True, session or mem.settings.session)
        self._access = access or (lambda: fixed)
        # Each MCP session's memory session, by its id ("" for stdio: one client a process).
        self._sessions: dict[str, str] = {}
        self._guard = threading.Lock()

    def here(self, ctx: Context | None = None) -> Access:
        """Where this call acts; a session named by no one is the connection's own, so
        two HTTP clients' conversations do not interleave."""
        where = self._access()
        if where.session is not None:
            return where
        key = _mcp_session_id(ctx)
        with self._guard:
            if key not in self._sessions:
                if len(self._sessions) >= MAX_CONNECTIONS:
                    self._sessions.pop(next(iter(self._sessions)))  # the oldest
                self._sessions[key] = connection_session(self.mem.now())
            return where._replace(session=self._sessions[key])

    def writing(self, ctx: Context | None = None) -> Access:
        """`here`, refused to a grant that may only read."""
        where = self.here(ctx)
        _call(lambda: grants.may_write(not where.writable))
        return where

    def made(self, verb: Verb) -> Callable[..., Any]:
        """The tool of a verb with none of its own, made from its declared parameters:
        it acts where the call's access says and answers the verb's result as JSON."""
        assert verb.args is not None, f"{verb.name} declares no parameters"
        write = verb.effect != "read"

        @declared({name: parameter(verb.args, name) for name in verb.args.model_fields})
        def tool(**args: Any) -> Any:
            scope = (self.writing() if write else self.here()).scope
            return _call(lambda: run(self.mem, verb, args, scope))

        # What the verb returns is the tool's structured output (its schema, to the host).
        tool.__doc__, returned = described(GraphMem, verb)
        tool.__signature__ = inspect.signature(tool).replace(  # type: ignore[attr-defined]
            return_annotation=returned)
        return tool

    @declared({**{name: parameter(MemoryIn, name) for name in STORED},
                "kind": parameter(MemoryIn, "kind", annotation=Kind, default=AGENT_KIND),
                "session": parameter(MemoryIn, "session", help=(
                    "The conversation or run (default: this connection's)."))})
    def memory_store(self, ctx: Context | None = None, **record: Any) -> dict[str, Any]:
        """Remember a statement. Near-duplicates confirm the existing memory instead of
        adding one; secrets and filler are refused with the reason. Statements of one
        session are kept in the order they arrive."""
        where = self.writing(ctx)
        given = agent_written({k: v for k, v in record.items() if v is not None})
        report = _call(lambda: self.mem.remember(given, scope=where.scope,
                                                 session=where.session, source="<mcp>"))
        return report.model_dump(mode="json")

    @declared({name: parameter(RecallOptions, name) for name in RECALLED})
    def memory_recall(
        self,
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                    description="What you want to know, in plain words.")],
        details: Annotated[bool, Field(
            description="Each hit's score parts and association path in full.")] = False,
        **options: Any,
    ) -> dict[str, Any]:
        """The memories that best answer the query, best first: each one's id, text,
        kind, score, when it was written and why it was found (the query's meaning or
        words, or the association that reached it); `details` adds the score's parts."""
        scope = self.here().scope
        result = _call(lambda: self.mem.recall(query, scope=scope, **options))
        if details:
            return result.model_dump(mode="json")
        return {"query": result.query, "hits": [_compact(h) for h in result.hits]}

    @declared({"text": parameter(MemoryIn, "text", optional=True, help="The corrected text."),
               "importance": parameter(MemoryIn, "importance", optional=True),
               "tags": parameter(MemoryIn, "tags", optional=True, help="Replace the tags.")})
    def memory_update(
        self,
        memory_id: Annotated[str, Field(description="The memory's id.")],
        **changes: Any,
    ) -> dict[str, Any]:
        """Correct a memory in place; the old text stays in its history."""
        where = self.writing()
        report = _call(lambda: self.mem.update(memory_id, scope=where.scope, **changes))
        return report.model_dump(mode="json")

    @declared({"max_tokens": parameter(ContextArgs, "max_tokens")})
    def memory_context(self, **args: Any) -> str:
        """What you know, in brief: counts per kind and the most important memories, to
        read at the start of a task."""
        scope = self.here().scope
        return _call(lambda: self.mem.context(scope=scope, **args)).text

    @declared({"last": parameter(SessionArgs, "last")})
    def memory_session(
        self,
        session: Annotated[str | None, Field(
            description="The conversation or run (default: this connection's).")] = None,
        ctx: Context | None = None,
        **args: Any,
    ) -> list[dict[str, Any]]:
        """A conversation's last turns in the order they were said, to pick it up again."""
        where = self.here(ctx)
        turns = _call(lambda: self.mem.session_turns(session or where.session,
                                                     scope=where.scope, **args))
        return [_brief(m) for m in turns]

    def memory_links(
        self,
        memory_id: Annotated[str, Field(description="A memory you were given.")],
    ) -> list[dict[str, Any]]:
        """Why a memory is connected: its edges to other memories (associations,
        conversation order, versions), the entities it names and its sessions."""
        scope = self.here().scope
        _known(self.mem, [memory_id], scope)
        return [link.model_dump(mode="json")
                for link in _call(lambda: self.mem.links([memory_id], scope=scope))]

    def memory_get(
        self,
        memory_ids: Annotated[list[str], Field(min_length=1, max_length=100, description=(
            "Ids of memories you were given (by recall, or a forget that archived)."))],
    ) -> list[dict[str, Any]]:
        """Read memories by id, archived ones too: their text, kind, sessions, entities
        and when they were written."""
        scope = self.here().scope
        _known(self.mem, memory_ids, scope)
        return [m.model_dump(mode="json")
                for m in _call(lambda: self.mem.get(memory_ids, scope=scope,
                                                    limit=len(memory_ids)))]


def _compact(hit: Hit) -> dict[str, Any]:
    """What a model reads of a hit (a tenth of its full form): no scoring internals."""
    if hit.via == "direct":
        found = [name for name, part in (("meaning", hit.cosine), ("words", hit.bm25))
                 if part is not None]
        why = "the query's " + " and ".join(found or ["text"])
    else:
        step = hit.path[-1] if hit.path else None
        why = (f"association: {step.kind} {step.name!r} from {step.source}" if step
               else "association")
    return {"id": hit.id, "text": hit.text, "kind": hit.kind, "score": round(hit.score, 3),
            "created_at": hit.created_at.isoformat() if hit.created_at else None,
            "why": why}


def _brief(m: MemoryOut) -> dict[str, Any]:
    """What an agent reads of a turn."""
    return {"id": m.id, "text": m.text, "kind": m.kind,
            "created_at": m.created_at.isoformat() if m.created_at else None,
            "metadata": m.metadata}


