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
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphmem.api import GraphMem
from graphmem.base.errors import GraphmemError, invalid
from graphmem.base.verbs import VERBS, Verb
from graphmem.graph.causal import BOOKMARK_HEADER, MADE
from graphmem.service.admission import (
    ADMITTED,
    ASKED,
    BOOKMARK_WAITERS,
    BookmarkWaits,
    Buckets,
    Limits,
    ServiceError,
    admit,
)
from graphmem.service.routes import router

__all__ = ["Limits", "ServiceError", "create_app"]

_log = logging.getLogger("graphmem.service")


def create_app(mem: GraphMem, limits: Limits | None = None, *,
               public_url: str = "http://127.0.0.1:8080",
               table: tuple[Verb, ...] = VERBS) -> FastAPI:
    """The service's ASGI app over `mem` (closed, and its reinforcement flushed, when the
    app shuts down), with the MCP endpoint at /mcp; `public_url` is where clients reach
    it (MCP names it as the resource its tokens are for). Its routes and tools are the
    verbs of `table` that the service and MCP offer."""
    limits = limits or Limits()
    buckets = Buckets(limits.rate, limits.burst)
    tools = _mcp_server(mem, public_url, table)
    mcp_app = tools.streamable_http_app(streamable_http_path="/", host="0.0.0.0")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        # The model loads, and recall's queries are planned, before the first request.
        await run_in_threadpool(mem.ops.warm_up, _log.warning)
        async with tools.session_manager.run():
            yield
        app.state.bookmark_waits.shutdown()
        try:
            await run_in_threadpool(mem.close)
        except GraphmemError as e:  # said once, and `serve` exits 2: nothing else to do
            app.state.unwritten = f"pending reinforcement not written: {e.one_line()}"
            _log.error("%s", app.state.unwritten)

    app = FastAPI(title="graphmem", version=metadata.version("graphmem"), lifespan=lifespan,
                  description="Associative long-term memory for agents, on Neo4j.")
    app.state.mem, app.state.limits, app.state.buckets = mem, limits, buckets
    app.state.unwritten = None  # what shutting down could not write, if anything
    app.state.denied = Buckets(limits.denied_rate, limits.denied_burst)
    app.state.bookmark_waits = BookmarkWaits(BOOKMARK_WAITERS)
    app.mount("/mcp", mcp_app)
    app.add_middleware(_McpGate)
    app.add_middleware(_Causal, mem=mem)
    app.add_middleware(_BodyLimit, limit=limits.max_body_bytes)
    _errors(app)

    app.include_router(router(mem, limits, table))
    return app


def _mcp_server(mem: GraphMem, public_url: str, table: tuple[Verb, ...]) -> Any:
    """graphmem's MCP tools for token holders: each call acts on the caller's token's
    first scope, and writes only with a token that may write."""
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.provider import AccessToken
    from mcp.server.auth.settings import AuthSettings
    from mcp.server.mcpserver.exceptions import ToolError

    from graphmem import mcp

    class Verifier:
        async def verify_token(self, token: str) -> AccessToken | None:
            found = await run_in_threadpool(mem.tokens.grant, token)
            if found is None:
                return None
            return AccessToken(token=token, client_id=found.id, scopes=[], claims={
                "graphmem_scopes": found.scopes, "read_only": found.read_only})

    def access() -> mcp.Access:
        token = get_access_token()
        if token is None or not token.claims:
            raise ToolError("send Authorization: Bearer <token>")
        return mcp.Access(token.claims["graphmem_scopes"][0], not token.claims["read_only"])

    return mcp.build(mem, access=access, table=table, token_verifier=Verifier(),
                     # graphmem's own tokens name no OAuth resource: the verifier is the check.
                     auth=AuthSettings(issuer_url=public_url,
                                       resource_server_url=f"{public_url}/mcp",
                                       validate_token_resource=False))


#: Seconds a client is told to wait (Retry-After) when Neo4j did not answer within the
#: retry budget: a leader election takes 7-9 s.
UNAVAILABLE_RETRY_AFTER = 10


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
        # Neo4j away past the retry budget (or busy): the client may come back soon.
        later = {"Retry-After": str(UNAVAILABLE_RETRY_AFTER)} if e.status == 503 else None
        return reply(e.status, e.said(), later)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, e: Exception) -> JSONResponse:
        # The operator reads what went wrong on stderr; the caller gets one line.
        _log.error("%s %s failed", request.method, request.url.path, exc_info=e)
        return reply(500, f"internal error ({type(e).__name__})")


class _Middleware:
    """An ASGI layer in front of `app` that acts on HTTP requests (`http`) and passes
    anything else (the server's lifespan) through."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                       send: Callable[..., Awaitable[None]]) -> None:
        if scope["type"] == "http":
            await self.http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def http(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                   send: Callable[..., Awaitable[None]]) -> None:
        raise NotImplementedError


class _BodyLimit(_Middleware):
    """Refuse a request body over `limit` bytes with 413, declared or streamed."""

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int) -> None:
        super().__init__(app)
        self.limit = limit

    async def http(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                   send: Callable[..., Awaitable[None]]) -> None:
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


class _Causal(_Middleware):
    """Read-your-writes across replicas (docs/service.md, "Scale out"). A request's
    Graphmem-Bookmark header is checked for shape here and kept for admission, which
    applies it to that request's own reads only once its token is admitted, and waits
    for it within BOOKMARK_WAIT_SECONDS (`admission.causal`). An admitted request's
    answer names the writes it made itself, nothing else (none: no header)."""

    #: What a header may hold: a few bookmarks, of the size Neo4j's are.
    MOST, LONGEST = 16, 512

    def __init__(self, app: Callable[..., Awaitable[None]], mem: GraphMem) -> None:
        super().__init__(app)
        self.mem = mem

    async def http(self, scope: dict[str, Any], receive: Callable[..., Awaitable[Any]],
                   send: Callable[..., Awaitable[None]]) -> None:
        raw = dict(scope.get("headers") or []).get(BOOKMARK_HEADER.lower().encode(), b"")
        given = tuple(b for b in raw.decode("latin-1").replace(" ", "").split(",") if b)
        if len(given) > self.MOST or any(len(b) > self.LONGEST for b in given):
            await _answer(send, 400, {"error": f"header {BOOKMARK_HEADER}: at most "
                                               f"{self.MOST} bookmarks of Neo4j's size"})
            return
        state = scope.setdefault("state", {})
        state[ASKED] = given
        made: list[str] = []

        async def stamped(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and state.get(ADMITTED) and made:
                message = {**message, "headers": [*message.get("headers", []), (
                    BOOKMARK_HEADER.lower().encode(),
                    ",".join(sorted(set(made))).encode("latin-1"))]}
            await send(message)

        token = MADE.set(made)
        try:
            await self.app(scope, receive, stamped)
        finally:
            MADE.reset(token)


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
