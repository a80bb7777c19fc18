"""`graphmem serve`: one memory for many agents over HTTP, with tokens that map to scopes
(docs/service.md).

Every `/v1` endpoint takes `Authorization: Bearer <token>`; a token may use only the
scopes it names (the first is its default), and a read-only token may not write. The
scope of a request — its `scope`, each of its `layers`, each record's own `scope` — is
checked before anything reaches the store, and every store call is made with that scope,
so an id, an entity or a link of another scope is simply not there (404, or absent from
a result). Errors are JSON, `{"error": <the CLI's one-line message>}`, with the HTTP code
of their kind; never a traceback. FastAPI writes the OpenAPI docs at `/docs`.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphmem import grants
from graphmem.api import GraphMem
from graphmem.errors import GraphmemError, InputError, invalid
from graphmem.options import RecallOptions, parse
from graphmem.service import tokens
from graphmem.types import MAX_QUERY_CHARS, RecallResult, WriteReport
from graphmem.vocabulary import (
    AGENT_KIND,
    AGENT_SOURCE,
    CONTEXT_TOKENS,
    CONTEXT_TOP,
    ENTITIES,
    SESSION_TURNS,
)

_log = logging.getLogger("graphmem.service")


class Limits(BaseModel):
    """What one request and one token may ask of the service."""

    max_body_bytes: int = Field(1_000_000, ge=1_000)
    max_batch: int = Field(1_000, ge=1)
    #: Requests per second per token, and the burst a token may spend at once.
    rate: float = Field(50.0, gt=0)
    burst: int = Field(100, ge=1)
    #: Requests per second, and at once, that one client address may send with a token
    #: that is not one: past them it is answered 429 without a look-up in Neo4j.
    denied_rate: float = Field(1.0, gt=0)
    denied_burst: int = Field(20, ge=1)


class ServiceError(Exception):
    """A refusal with its HTTP status (401, 403, 413, 429)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers or {}


class _Buckets:
    """A token bucket per token id: `rate` a second, up to `burst` (this replica's)."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._state: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def waiting(self, key: str) -> float:
        """Seconds until `key` may spend a request (0: now), spending nothing."""
        with self._lock:
            level, then = self._state.get(key, (float(self.burst), time.monotonic()))
            level = min(float(self.burst), level + (time.monotonic() - then) * self.rate)
            return 0.0 if level >= 1.0 else (1.0 - level) / self.rate

    def take(self, key: str) -> float:
        """Spend one request of `key`; 0 if allowed, else the seconds until one is."""
        with self._lock:
            now = time.monotonic()
            level, then = self._state.get(key, (float(self.burst), now))
            level = min(float(self.burst), level + (now - then) * self.rate)
            if level < 1.0:
                self._state[key] = (level, now)
                return (1.0 - level) / self.rate
            self._state[key] = (level - 1.0, now)
            return 0.0


# --- request bodies -----------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scope: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _whole_unicode(cls, value: Any) -> Any:
        # JSON's \ud800 escapes carry lone surrogates, which no store can encode (they
        # reached the driver and failed as 500s).
        if (where := _surrogate(value)) is not None:
            raise ValueError(f"holds a lone surrogate{where}, which is not Unicode text")
        return value


def _surrogate(value: Any, where: str = "") -> str | None:
    """Where in `value` (a JSON value) a string holds a lone surrogate ("" for the value
    itself, " at <key>…" inside it), or None."""
    if isinstance(value, str):
        return where if any("\ud800" <= c <= "\udfff" for c in value) else None
    if isinstance(value, list):
        items: Any = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return None
    for key, item in items:
        if (found := _surrogate(key, where) if isinstance(key, str) else None) is not None:
            return found
        if (found := _surrogate(item, f"{where}.{key}" if where else f" at {key}")) \
                is not None:
            return found
    return None


class RememberBody(_Body):
    """One text, or records (MemoryIn fields), stored as one all-or-nothing batch."""

    text: str | None = None
    records: list[dict[str, Any]] | None = None
    session: str | None = None
    kind: str | None = None
    visibility: str | None = None


class RecallBody(_Body):
    """A query and any RecallOptions field (mode, top_k, hops, layers, filters, …)."""

    query: str = Field(max_length=MAX_QUERY_CHARS)
    options: dict[str, Any] = {}


class UpdateBody(_Body):
    """A memory's new text, kind, importance, tags or metadata."""

    id: str
    text: str | None = None
    kind: str | None = None
    importance: float | None = None
    tags: list[str] | None = None
    metadata: dict[str, Any] | None = None


class ForgetBody(_Body):
    """Archive a memory (soft), or delete it for good (hard)."""

    id: str
    hard: bool = False


class DropScopeBody(_Body):
    """A whole scope to delete, always named: there is no default to drop by accident."""

    scope: str


class FeedbackBody(_Body):
    """A recalled memory helped (used: an echo) or did not (a fizzle)."""

    id: str
    used: bool


# --- the app --------------------------------------------------------------------------


def admit(state: Any, authorization: str, client: str) -> tokens.Grant:
    """The grant of a request's Authorization header, checked (401) and within its
    token's rate (429); a client address that keeps sending tokens that are none is
    answered 429 before any look-up. /v1 and /mcp/ alike."""
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() != "bearer" or not value:
        raise ServiceError(401, "send Authorization: Bearer <token>",
                           {"WWW-Authenticate": "Bearer"})
    if (wait := state.denied.waiting(client)) > 0:
        raise ServiceError(429, "too many requests with unknown tokens from this address",
                           {"Retry-After": str(math.ceil(wait))})
    found = state.mem.token_grant(value.strip())
    if found is None:
        state.denied.take(client)
        raise ServiceError(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer"})
    wait = state.buckets.take(found.id)
    if wait > 0:
        raise ServiceError(429, f"more than {state.limits.rate:g} requests a second",
                           {"Retry-After": str(math.ceil(wait))})
    return found


def _grant(request: Request) -> tokens.Grant:
    """The request's token, admitted (`admit`)."""
    return admit(request.app.state, request.headers.get("authorization", ""),
                 request.client.host if request.client else "")


Granted = Annotated[tokens.Grant, Depends(_grant)]


def create_app(mem: GraphMem, limits: Limits | None = None, *,
               public_url: str = "http://127.0.0.1:8080") -> FastAPI:
    """The service's ASGI app over `mem` (closed, and its reinforcement flushed, when the
    app shuts down), with the MCP endpoint at /mcp; `public_url` is where clients reach
    it (MCP names it as the resource its tokens are for)."""
    limits = limits or Limits()
    buckets = _Buckets(limits.rate, limits.burst)
    tools = _mcp_server(mem, public_url)
    mcp_app = tools.streamable_http_app(streamable_http_path="/", host="0.0.0.0")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        # The model loads, and recall's queries are planned, before the first request.
        await run_in_threadpool(mem.warm_up, _log.warning)
        async with tools.session_manager.run():
            yield
        try:
            await run_in_threadpool(mem.close)
        except GraphmemError as e:  # said once, and `serve` exits 2: nothing else to do
            app.state.unwritten = f"pending reinforcement not written: {e.one_line()}"
            _log.error("%s", app.state.unwritten)

    app = FastAPI(title="graphmem", version="0.1.0", lifespan=lifespan,
                  description="Associative long-term memory for agents, on Neo4j.")
    app.state.mem, app.state.limits, app.state.buckets = mem, limits, buckets
    app.state.unwritten = None  # what shutting down could not write, if anything
    app.state.denied = _Buckets(limits.denied_rate, limits.denied_burst)
    app.mount("/mcp", mcp_app)
    app.add_middleware(_McpGate)
    app.add_middleware(_BodyLimit, limit=limits.max_body_bytes)
    _errors(app)

    def scope_of(g: tokens.Grant, scope: str | None, *, write: bool = False) -> str:
        if write:
            grants.may_write(g.read_only)
        return grants.may_use(g.scopes, scope)

    @app.get("/healthz")
    def healthz() -> dict[str, bool]:
        """The process answers."""
        return {"ok": True}

    @app.get("/readyz")
    def readyz() -> JSONResponse:
        """Neo4j answers and every index is online (503 otherwise)."""
        report = mem.doctor()
        ready = report.ok
        return JSONResponse({"ready": ready}, status_code=200 if ready else 503)

    @app.post("/v1/remember")
    def remember(body: RememberBody, g: Granted) -> WriteReport:
        """Store one text or a batch of records (all or nothing)."""
        scope = scope_of(g, body.scope, write=True)
        if (body.text is None) == (body.records is None):
            raise InputError("give text or records", field="text")
        if body.records is not None and len(body.records) > limits.max_batch:
            raise ServiceError(413, f"{len(body.records)} records; at most "
                                    f"{limits.max_batch} a request")
        records: list[Any] = ([{"text": body.text}] if body.text is not None
                              else body.records or [])
        for i, r in enumerate(records):
            if isinstance(r, dict) and r.get("scope") is not None:
                scope_of(g, str(r["scope"]), write=True)
                if r["scope"] != scope:
                    raise InputError("a record's scope must be the request's",
                                     field=f"records.{i}.scope")
        # What an agent stores names its kind and source, else the agent doors' own.
        records = [{"source": AGENT_SOURCE, **r} for r in records]
        return mem.remember(records, scope=scope, session=body.session,
                            kind=body.kind or AGENT_KIND, visibility=body.visibility,
                            source="<http>")

    @app.post("/v1/recall")
    def recall(body: RecallBody, g: Granted) -> RecallResult:
        """The memories of the scope (and its permitted layers) that best answer a query."""
        scope = scope_of(g, body.scope)
        options = dict(body.options)
        for key in options:
            if not RecallOptions.accepts(key) or key == "decay":  # decay: configured
                raise InputError("not a recall option here", field=f"options.{key}")
        grants.may_recall_with(g.read_only, options)
        checked = parse(RecallOptions, options)  # a wrong type is a 400 naming it
        for layer in checked.layers:
            scope_of(g, layer)
        return mem.recall(body.query, scope=scope, **options)

    @app.post("/v1/update")
    def update(body: UpdateBody, g: Granted) -> WriteReport:
        """Change a memory in place (a new text keeps the old as a version)."""
        scope = scope_of(g, body.scope, write=True)
        return mem.update(body.id, scope=scope, text=body.text, kind=body.kind,
                          importance=body.importance, tags=body.tags, metadata=body.metadata)

    @app.post("/v1/forget")
    def forget(body: ForgetBody, g: Granted) -> dict[str, Any]:
        """Archive a memory, or delete it for good."""
        scope = scope_of(g, body.scope, write=True)
        return mem.forget(body.id, scope=scope, hard=body.hard).model_dump(mode="json")

    @app.post("/v1/drop_scope")
    def drop_scope(body: DropScopeBody, g: Granted) -> dict[str, Any]:
        """Delete a whole scope for good (a user's whole memory): its memories, versions,
        tombstones, sessions, entities and indexes of its own. A writer's token only."""
        scope = scope_of(g, body.scope, write=True)
        return {"scope": scope, "deleted": mem.drop_scope(scope)}

    @app.post("/v1/feedback")
    def feedback(body: FeedbackBody, g: Granted) -> dict[str, Any]:
        """Tell the memory a recalled memory helped, or did not."""
        scope = scope_of(g, body.scope, write=True)
        return mem.feedback(body.id, used=body.used, scope=scope).model_dump(mode="json")

    @app.get("/v1/entities")
    def entities(g: Granted, scope: str | None = None, limit: int = ENTITIES) -> list[Any]:
        """What the scope's memories name, most mentioned first."""
        return [e.model_dump(mode="json")
                for e in mem.entities(scope=scope_of(g, scope), limit=limit)]

    @app.get("/v1/session")
    def session(g: Granted, session: str, scope: str | None = None,
                last: int = SESSION_TURNS) -> list[Any]:
        """A conversation's last turns, in order."""
        return [m.model_dump(mode="json") for m in
                mem.session_turns(session, scope=scope_of(g, scope), last=last)]

    @app.get("/v1/context")
    def context(g: Granted, scope: str | None = None, top: int = CONTEXT_TOP,
                max_tokens: int = CONTEXT_TOKENS) -> dict[str, Any]:
        """The tiered load: L0 (counts per kind) and L1 (the best memories, budgeted)."""
        return mem.context(scope=scope_of(g, scope), top=top,
                           max_tokens=max_tokens).model_dump(mode="json")

    return app


def _mcp_server(mem: GraphMem, public_url: str) -> Any:
    """graphmem's MCP tools for token holders: each call acts on the caller's token's
    first scope, and writes only with a token that may write."""
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver.exceptions import ToolError

    from graphmem import mcp

    class Verifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            found = await run_in_threadpool(mem.token_grant, token)
            if found is None:
                return None
            return AccessToken(token=token, client_id=found.id, scopes=[], claims={
                "graphmem_scopes": found.scopes, "read_only": found.read_only})

    def access() -> mcp.Access:
        token = get_access_token()
        if token is None or not token.claims:
            raise ToolError("send Authorization: Bearer <token>")
        return mcp.Access(token.claims["graphmem_scopes"][0], not token.claims["read_only"])

    return mcp.build(mem, access=access, token_verifier=Verifier(),
                     # graphmem's own tokens name no OAuth resource: the verifier is the check.
                     auth=AuthSettings(issuer_url=public_url,
                                       resource_server_url=f"{public_url}/mcp",
                                       validate_token_resource=False))


def _errors(app: FastAPI) -> None:
    """Every error as `{"error": one line}` with the status of its kind."""

    def reply(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    @app.exception_handler(ServiceError)
    async def refused(_: Request, e: ServiceError) -> JSONResponse:
        return reply(e.status, e.message, e.headers)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, e: StarletteHTTPException) -> JSONResponse:
        # The framework's own refusals (unknown path, wrong method, a body it cannot
        # parse) in graphmem's shape too, not {"detail": …}.
        message = e.detail if isinstance(e.detail, str) else "bad request"
        return reply(e.status_code, message.splitlines()[0][:200] if message else
                     "bad request", dict(e.headers) if e.headers else None)

    @app.exception_handler(RequestValidationError)
    async def malformed(_: Request, e: RequestValidationError) -> JSONResponse:
        bad = invalid(e.errors())
        return reply(400, bad.said() if bad.field else f"field 'body': {bad.reason}")

    @app.exception_handler(ValidationError)
    async def invalid_model(_: Request, e: ValidationError) -> JSONResponse:
        return reply(400, invalid(e).said())

    @app.exception_handler(GraphmemError)
    async def graphmem_error(_: Request, e: GraphmemError) -> JSONResponse:
        return reply(e.status, e.said())

    @app.exception_handler(Exception)
    async def unexpected(request: Request, e: Exception) -> JSONResponse:
        # The operator reads what went wrong on stderr; the caller gets one line.
        _log.error("%s %s failed", request.method, request.url.path, exc_info=e)
        return reply(500, f"internal error ({type(e).__name__})")


class _BodyLimit:
    """Refuse a request body over `limit` bytes with 413, declared or streamed."""

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                       send: Callable[..., Awaitable[None]]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(self.limit, send)
            return
        seen, answered = 0, False

        async def counted() -> Any:
            # Past the limit the caller is answered 413 here, and the app behind (FastAPI,
            # or the MCP SDK, which turns any error it meets into its own 500) hears that
            # the client went away; whatever it answers then is dropped.
            nonlocal seen, answered
            if answered:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                answered = True
                await _too_large(self.limit, send)
                return {"type": "http.disconnect"}
            return message

        async def unless_answered(message: dict[str, Any]) -> None:
            if not answered:
                await send(message)

        try:
            await self.app(scope, counted, unless_answered)
        except Exception:
            if not answered:
                raise


class _McpGate:
    """/mcp/ admits a request as /v1 does (`admit`: the token's rate, the address's
    unknown tokens) before the MCP SDK sees it; the SDK checks the token again, answers
    its 401s and keeps the session."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                       send: Callable[..., Awaitable[None]]) -> None:
        if scope["type"] == "http" and scope.get("path", "").startswith("/mcp"):
            headers = dict(scope.get("headers") or [])
            client = (scope.get("client") or ("",))[0]
            try:
                await run_in_threadpool(admit, scope["app"].state,
                                        headers.get(b"authorization", b"").decode("latin-1"),
                                        client)
            except ServiceError as e:
                if e.status != 401:  # a 401 is the SDK's to give, with its OAuth hints
                    await _answer(send, e.status, {"error": e.message}, e.headers)
                    return
        await self.app(scope, receive, send)


async def _answer(send: Callable[..., Awaitable[None]], status: int, body: dict[str, Any],
                  headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(data)).encode()),
                            *((k.lower().encode(), v.encode())
                              for k, v in (headers or {}).items())]})
    await send({"type": "http.response.body", "body": data})


async def _too_large(limit: int, send: Callable[..., Awaitable[None]]) -> None:
    await _answer(send, 413, {"error": f"the request body is over {limit} bytes"})
