"""The MCP server (`graphmem mcp`): graphmem's verbs as tools any agent host can call, over
stdio or streamable HTTP, with the official `mcp` SDK. One server instance serves one
scope, fixed by flag or environment, so an agent cannot read or write another scope's
memories. What each tool is for: docs/integrations.md.

Every tool validates its arguments (the SDK checks them against the JSON schema made from
the signature) and answers a graphmem error, an unreachable Neo4j included, as a tool
error the agent can read, never as a crash.
"""

from __future__ import annotations

import inspect
import sys
import threading
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal, NamedTuple, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from graphmem import grants
from graphmem.api import GraphMem
from graphmem.errors import GraphmemError, InputError, invalid
from graphmem.types import KIND_ALIASES, MAX_QUERY_CHARS, Hit, MemoryOut
from graphmem.vocabulary import (
    AGENT_KIND,
    AGENT_SOURCE,
    CONTEXT_TOKENS,
    ENTITIES,
    KINDS,
    MAX_CONTEXT_TOKENS,
    MAX_LISTED,
    MAX_TOP_K,
    MIN_CONTEXT_TOKENS,
    SESSION_TURNS,
    TOP_K,
)

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = """\
graphmem is your long-term memory. Call memory_context once at the start for what you
already know. Call memory_recall before answering anything that may depend on the past
(it also returns memories linked to the best hits, with the path that linked them).
Call memory_store for facts, decisions, preferences and procedures worth keeping, one
self-contained statement each. After using recalled memories, call memory_feedback
(used or not): it is how memory learns what matters. memory_session gives a
conversation's last turns, memory_entities what your memories name, memory_links why a
memory is connected to others. Nothing is ever lost silently: memory_forget archives
unless asked to delete for good."""

#: A kind, or an alias every door takes (fact, rule, …: graphmem.types.KIND_ALIASES).
Kind = Literal[(*KINDS, *KIND_ALIASES)]  # type: ignore[valid-type]


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
    _call(lambda: mem.check(ids, scope=scope))


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


#: Each tool's title and its hints to a host (read-only, destructive, idempotent), so a
#: host can run recall without asking and warn before a hard forget. Recall counts as a
#: read: what it writes is the memory's own use (reinforcement), not the agent's content.
TOOLS: dict[str, tuple[str, bool, bool, bool]] = {
    "memory_store": ("Remember", False, False, False),
    "memory_recall": ("Recall", True, False, True),
    "memory_update": ("Correct a memory", False, False, True),
    "memory_forget": ("Forget", False, True, True),
    "memory_consolidate": ("Consolidate", False, False, False),
    "memory_feedback": ("Say whether a memory helped", False, False, False),
    "memory_context": ("What you know, in brief", True, False, True),
    "memory_session": ("A conversation's last turns", True, False, True),
    "memory_entities": ("What your memories name", True, False, True),
    "memory_links": ("Why a memory is connected", True, False, True),
    "memory_get": ("Read memories by id", True, False, True),
}


def _refuse_unknown_arguments(server: MCPServer, name: str) -> None:
    """Make tool `name` refuse an argument it does not take, naming it (the SDK drops
    them silently: a misspelt `top_k` would be a silent default), and say so in its
    input schema."""
    from pydantic import ConfigDict

    tool = server._tool_manager.get_tool(name)  # the SDK has no public hook for this
    assert tool is not None
    loose = tool.fn_metadata.arg_model
    tool.fn_metadata.arg_model = type(loose.__name__, (loose,), {
        "model_config": ConfigDict(**{**loose.model_config, "extra": "forbid"})})
    tool.parameters["additionalProperties"] = False


class _Server(MCPServer):
    """The SDK's server, but a tool's arguments refused read as every door says it:
    `field 'top_k': …` on one line, not pydantic's report of several."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {invalid(e.__cause__).said()}"
                            ) from e.__cause__


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


def build(mem: GraphMem, session: str | None = None, *,
          access: Callable[[], Access] | None = None, **server_options: Any) -> MCPServer:
    """An MCP server whose tools act on `mem`'s scope, or on the scope `access` gives for
    each call (the service's, from the caller's token). What the agent stores without
    naming a session joins `session` (default: the configured one, else one of this
    connection's own), in order of arrival, so its conversation gets its order."""
    from importlib import metadata

    server = _Server(name="graphmem", instructions=INSTRUCTIONS,
                     version=metadata.version("graphmem"),
                     description="Associative long-term memory", **server_options)

    def tool(name: str) -> Callable[[F], F]:
        """Register a tool under `name` with its title and hints (TOOLS), and its
        docstring as a description without the source's indentation."""
        title, read_only, destructive, idempotent = TOOLS[name]

        def register(fn: F) -> F:
            registered = server.tool(
                name=name, title=title, description=inspect.cleandoc(fn.__doc__ or ""),
                annotations=ToolAnnotations(
                    title=title, read_only_hint=read_only, destructive_hint=destructive,
                    idempotent_hint=idempotent, open_world_hint=False))(fn)
            _refuse_unknown_arguments(server, name)
            return registered

        return register
    fixed = Access(mem.settings.scope, True, session or mem.settings.session)
    # Each MCP session's memory session, by its id ("" for stdio: one client a process).
    sessions: dict[str, str] = {}
    guard = threading.Lock()

    def here(ctx: Context | None = None) -> Access:
        """Where this call acts; a session named by no one is the connection's own, so
        two HTTP clients' conversations do not interleave."""
        where = (access or (lambda: fixed))()
        if where.session is not None:
            return where
        key = _mcp_session_id(ctx)
        with guard:
            if key not in sessions:
                if len(sessions) >= MAX_CONNECTIONS:
                    sessions.pop(next(iter(sessions)))  # the oldest
                sessions[key] = connection_session(mem.now())
            return where._replace(session=sessions[key])

    def writing(ctx: Context | None = None) -> Access:
        where = here(ctx)
        _call(lambda: grants.may_write(not where.writable))
        return where

    @tool("memory_store")
    def memory_store(
        text: Annotated[str, Field(description="One self-contained statement to remember.")],
        kind: Annotated[Kind, Field(description="episodic (an event), semantic (a fact), "
                                    "procedural (how to), heuristic (a rule of thumb), core "
                                    "(identity), reflection; or an alias such as fact or "
                                    "rule.")] = AGENT_KIND,
        importance: Annotated[float, Field(ge=0, le=1, description="0-1; 0.5 is ordinary.")
                              ] = 0.5,
        tags: Annotated[list[str], Field(description="Short labels.")] = [],  # noqa: B006
        metadata: Annotated[dict[str, str | int | float | bool], Field(
            description="Extra facts, e.g. {\"speaker\": \"Ana\"}.")] = {},  # noqa: B006
        session: Annotated[str | None, Field(
            description="The conversation or run (default: this connection's).")] = None,
        supersedes: Annotated[str | None, Field(
            description="Id of a memory this one replaces.")] = None,
        created_at: Annotated[datetime | None, Field(
            description="When it was said or happened, ISO-8601 (default: now).")] = None,
        ctx: Context | None = None,
    ) -> dict[str, Any]:
        """Remember a statement. Near-duplicates confirm the existing memory instead of
        adding one; secrets and filler are refused with the reason. Statements of one
        session are kept in the order they arrive."""
        record = {"text": text, "kind": kind, "importance": importance, "tags": tags,
                  "metadata": metadata, "source": AGENT_SOURCE, "session": session,
                  "supersedes": supersedes, "created_at": created_at}
        where = writing(ctx)
        report = _call(lambda: mem.remember({k: v for k, v in record.items()
                                             if v is not None}, scope=where.scope,
                                            session=where.session, source="<mcp>"))
        return report.model_dump(mode="json")

    @tool("memory_recall")
    def memory_recall(
        query: Annotated[str, Field(max_length=MAX_QUERY_CHARS,
                                    description="What you want to know, in plain words.")],
        top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many memories.")
                         ] = TOP_K,
        mode: Annotated[Literal["hybrid", "vector", "keyword", "exact"], Field(
            description="hybrid (default) unless you need exact words.")] = "hybrid",
        kinds: Annotated[list[Kind] | None, Field(description="Only these kinds.")] = None,
        hops: Annotated[int, Field(ge=0, le=2, description="Association depth.")] = 2,
        diverse: Annotated[bool, Field(description="Mix kinds (facts, events, procedures, "
                                       "rules) instead of the best of one kind.")] = False,
        since: Annotated[datetime | None, Field(
            description="Only memories written at or after this ISO-8601 time.")] = None,
        until: Annotated[datetime | None, Field(
            description="Only memories written before this ISO-8601 time.")] = None,
        details: Annotated[bool, Field(
            description="Each hit's score parts and association path in full.")] = False,
    ) -> dict[str, Any]:
        """The memories that best answer the query, best first: each one's id, text,
        kind, score, when it was written and why it was found (the query's meaning or
        words, or the association that reached it); `details` adds the score's parts."""
        result = _call(lambda: mem.recall(query, scope=here().scope, top_k=top_k, mode=mode,
                                          kinds=kinds, hops=hops, diverse=diverse,
                                          since=since, until=until))
        if details:
            return result.model_dump(mode="json")
        return {"query": result.query, "hits": [_compact(h) for h in result.hits]}

    @tool("memory_update")
    def memory_update(
        memory_id: Annotated[str, Field(description="The memory's id.")],
        text: Annotated[str | None, Field(description="The corrected text.")] = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        tags: Annotated[list[str] | None, Field(description="Replace the tags.")] = None,
    ) -> dict[str, Any]:
        """Correct a memory in place; the old text stays in its history."""
        where = writing()
        report = _call(lambda: mem.update(memory_id, scope=where.scope, text=text,
                                          importance=importance, tags=tags))
        return report.model_dump(mode="json")

    @tool("memory_forget")
    def memory_forget(
        memory_id: Annotated[str, Field(description="The memory's id.")],
        hard: Annotated[bool, Field(description="Delete for good (only a tombstone "
                                    "without the text stays). Default: archive.")] = False,
    ) -> dict[str, Any]:
        """Forget a memory: archived by default (still findable by id), deleted if hard."""
        where = writing()
        return _call(lambda: mem.forget(memory_id, hard=hard, scope=where.scope)
                     ).model_dump(mode="json")

    @tool("memory_consolidate")
    def memory_consolidate() -> dict[str, Any]:
        """Sum up groups of related episodic memories into semantic ones; returns how many
        were created and confirmed, who wrote the summaries, and any warning."""
        where = writing()
        return _call(lambda: mem.consolidate(scope=where.scope)).model_dump(mode="json")

    @tool("memory_feedback")
    def memory_feedback(
        memory_id: Annotated[str, Field(description="A memory you were given.")],
        used: Annotated[bool, Field(description="True if it helped your answer.")],
    ) -> dict[str, Any]:
        """Say whether a recalled memory helped: it gains or loses importance and
        confidence, which steers what surfaces next time."""
        where = writing()
        return _call(lambda: mem.feedback(memory_id, used=used, scope=where.scope)
                     ).model_dump(mode="json")

    @tool("memory_context")
    def memory_context(
        max_tokens: Annotated[int, Field(ge=MIN_CONTEXT_TOKENS, le=MAX_CONTEXT_TOKENS,
                                         description="Budget of the block.")] = CONTEXT_TOKENS,
    ) -> str:
        """What you know, in brief: counts per kind and the most important memories, to
        read at the start of a task."""
        return _call(lambda: mem.context(scope=here().scope, max_tokens=max_tokens)).text

    @tool("memory_session")
    def memory_session(
        session: Annotated[str | None, Field(
            description="The conversation or run (default: this connection's).")] = None,
        last: Annotated[int, Field(ge=1, le=MAX_LISTED, description="How many turns.")
                        ] = SESSION_TURNS,
        ctx: Context | None = None,
    ) -> list[dict[str, Any]]:
        """A conversation's last turns in the order they were said, to pick it up again."""
        where = here(ctx)
        turns = _call(lambda: mem.session_turns(session or where.session, scope=where.scope,
                                                last=last))
        return [_brief(m) for m in turns]

    @tool("memory_entities")
    def memory_entities(
        limit: Annotated[int, Field(ge=1, le=MAX_LISTED, description="How many.")
                         ] = ENTITIES,
    ) -> list[dict[str, Any]]:
        """What your memories name (people, places, files, titles…), most mentioned
        first: the handles to recall by."""
        return [e.model_dump(mode="json")
                for e in _call(lambda: mem.entities(scope=here().scope, limit=limit))]

    @tool("memory_links")
    def memory_links(
        memory_id: Annotated[str, Field(description="A memory you were given.")],
    ) -> list[dict[str, Any]]:
        """Why a memory is connected: its edges to other memories (associations,
        conversation order, versions), the entities it names and its sessions."""
        scope = here().scope
        _known(mem, [memory_id], scope)
        return [link.model_dump(mode="json")
                for link in _call(lambda: mem.links([memory_id], scope=scope))]

    @tool("memory_get")
    def memory_get(
        memory_ids: Annotated[list[str], Field(min_length=1, max_length=100, description=(
            "Ids of memories you were given (by recall, or a forget that archived)."))],
    ) -> list[dict[str, Any]]:
        """Read memories by id, archived ones too: their text, kind, sessions, entities
        and when they were written."""
        scope = here().scope
        _known(mem, memory_ids, scope)
        return [m.model_dump(mode="json")
                for m in _call(lambda: mem.get(memory_ids, scope=scope,
                                               limit=len(memory_ids)))]

    return server


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


#: Where `graphmem mcp --transport http` listens unless told otherwise.
HTTP_HOST, HTTP_PORT, HTTP_PATH = "127.0.0.1", 8765, "/mcp"


def serve(mem: GraphMem, transport: str = "stdio", *, host: str = HTTP_HOST,
          port: int = HTTP_PORT) -> None:
    """Serve `mem`'s scope over stdio until the client hangs up, or over streamable HTTP
    at http://host:port/mcp until stopped; pending reinforcement is written before
    returning. HTTP listens on a loopback address only: it has no credentials yet."""
    from graphmem.service.http import LOOPBACK

    if transport == "http" and host not in LOOPBACK:
        raise InputError(f"host {host!r}: the MCP HTTP server has no tokens yet, so it "
                         "listens on 127.0.0.1, localhost or ::1 only", field="--host")
    planning = warm_up_meanwhile(mem)
    try:
        if transport == "http":
            _serve_http(build(mem), host, port)
        else:
            build(mem).run("stdio")
    finally:
        planning.join(timeout=PLANNING_WAIT)
        mem.close()


#: How long a door that stops waits for its warm-up before closing the connection.
PLANNING_WAIT = 10.0


def warm_up_meanwhile(mem: GraphMem) -> threading.Thread:
    """`GraphMem.warm_up` on a thread while the door starts serving (an MCP host waits
    for `initialize`, not for the model), its warnings on stderr."""
    def warm() -> None:
        mem.warm_up(lambda message: print(f"graphmem: {message}", file=sys.stderr))

    thread = threading.Thread(target=warm, name="graphmem-warm-up", daemon=True)
    thread.start()
    return thread


def _serve_http(server: MCPServer, host: str, port: int) -> None:
    """Run the streamable-HTTP app under uvicorn, its logs on stderr."""
    from graphmem.service import http

    http.check_free(host, port)
    print(f"graphmem MCP serves on http://{host}:{port}{HTTP_PATH}", file=sys.stderr)
    http.run(server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host), host, port)
