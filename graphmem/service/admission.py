"""Who may ask the service: the request's token checked (401), its rate (429), and a
client that keeps sending tokens that are none slowed down before any look-up
(docs/service.md, "Tokens"). The same for /v1 and /mcp/."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

from fastapi import Depends, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from graphmem.graph import tokens
from graphmem.graph.causal import BOOKMARK_HEADER, CAUSAL

#: Keys of a request's ASGI state: the bookmarks its Graphmem-Bookmark header names
#: (set by the app's middleware), and whether its token was admitted.
ASKED, ADMITTED = "graphmem_bookmarks", "graphmem_admitted"
#: How long an admitted request waits for the server to hold the writes its bookmarks
#: name before it is answered 503 (a forged future bookmark would hold it for the
#: server's own 30 s, and the driver's retries, otherwise).
BOOKMARK_WAIT_SECONDS = 5.0
#: Requests that may wait on bookmarks at once: each holds a thread and a connection
#: until the server gives up, so a flood of forged ones holds these, not the workers.
BOOKMARK_WAITERS = 4
#: Of those, what one token may hold, counted until its wait ends on the server (a forged
#: bookmark holds a waiter for the server's own 30 s after its request was answered 503),
#: so no token holder keeps another's read-your-writes waiting (docs/service.md).
WAITERS_PER_TOKEN = 1


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


class Buckets:
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



class BookmarkWaits:
    """The threads that wait for bookmarks, and which token holds each: at most
    WAITERS_PER_TOKEN a token, until the server has answered its wait."""

    def __init__(self, waiters: int = BOOKMARK_WAITERS) -> None:
        self.pool = ThreadPoolExecutor(waiters, thread_name_prefix="graphmem-bookmark")
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def submit(self, token: str, wait: Callable[[], object],
               started: threading.Event) -> asyncio.Future[object] | None:
        """`wait()` on a waiter for `token`, `started` set once it runs; None when the
        token already holds its share."""
        with self._lock:
            if self._held.get(token, 0) >= WAITERS_PER_TOKEN:
                return None
            self._held[token] = self._held.get(token, 0) + 1

        def run() -> object:
            started.set()
            try:
                return wait()
            finally:
                with self._lock:
                    self._held[token] -= 1
                    if not self._held[token]:
                        del self._held[token]

        return asyncio.get_running_loop().run_in_executor(self.pool, run)

    def shutdown(self) -> None:
        """Stop taking waits; those running end with the server's answer."""
        self.pool.shutdown(wait=False, cancel_futures=True)


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
    found = state.mem.tokens.grant(value.strip())
    if found is None:
        state.denied.take(client)
        raise ServiceError(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer"})
    wait = state.buckets.take(found.id)
    if wait > 0:
        raise ServiceError(429, f"more than {state.limits.rate:g} requests a second",
                           {"Retry-After": str(math.ceil(wait))})
    return found


async def causal(state: Any, given: tuple[str, ...], grant: tokens.Grant) -> None:
    """Have the request's reads wait for the writes `given` names (`causal.CAUSAL`), once
    the server holds them, within BOOKMARK_WAIT_SECONDS: else 503 (400 for bookmarks
    that are none of this database's). What a wait holds is its token's (`BookmarkWaits`):
    a token whose wait still runs is answered 503 at once, and neither it nor a wait that
    found every waiter busy costs another caller anything."""
    started = threading.Event()
    waiting = state.bookmark_waits.submit(
        grant.id, lambda: state.mem.ops.await_bookmarks(given), started)
    retry = {"Retry-After": str(math.ceil(BOOKMARK_WAIT_SECONDS))}
    if waiting is None:
        raise ServiceError(503, f"header {BOOKMARK_HEADER}: this token's earlier wait for "
                                "writes the server does not hold is still running", retry)
    try:
        await asyncio.wait_for(waiting, BOOKMARK_WAIT_SECONDS)
    except TimeoutError:
        if not started.is_set():  # others' waits held every waiter: not this caller's doing
            raise ServiceError(503, f"header {BOOKMARK_HEADER}: every bookmark waiter is "
                                    "busy; retry", retry) from None
        raise ServiceError(503, f"header {BOOKMARK_HEADER}: the server does not hold the "
                                f"writes it names (waited {BOOKMARK_WAIT_SECONDS:g} s)",
                           retry) from None
    CAUSAL.set(given)  # in this request's context: its endpoint's reads see it


async def _grant(request: Request) -> tokens.Grant:
    """The request's token, admitted (`admit`), and then, only then, its bookmarks
    applied to its own reads (`causal`)."""
    state, client = request.app.state, request.client.host if request.client else ""
    found = await run_in_threadpool(admit, state, request.headers.get("authorization", ""),
                                    client)
    asked = request.scope.setdefault("state", {})
    if given := asked.get(ASKED, ()):
        await causal(state, given, found)
    asked[ADMITTED] = True
    return found


Granted = Annotated[tokens.Grant, Depends(_grant)]
