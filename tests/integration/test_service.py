"""`graphmem serve` over real HTTP (uvicorn, the real server, the real model): tokens map to
scopes, every endpoint refuses another scope with 403 and shows none of its text, limits
answer 413 and 429, errors are one JSON line, and SIGTERM stops the service cleanly."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from graphmem.api import GraphMem
from graphmem.base.settings import Settings
from graphmem.bench.proxy import TcpProxy
from graphmem.embedding.embedders import Embedder
from graphmem.service.app import Limits, create_app

SECRET = "The vault code of the other tenant is 7741"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """The app under uvicorn on a thread, with tokens for two scopes."""

    def __init__(self, settings: Settings, embedder: Embedder, limits: Limits) -> None:
        self.mem = GraphMem(settings, embedder=embedder)
        self.a, self.b = (f"test:svc-{uuid.uuid4().hex[:10]}" for _ in range(2))
        self.port = _free_port()
        self.server = uvicorn.Server(uvicorn.Config(
            create_app(GraphMem(settings, embedder=embedder), limits), host="127.0.0.1",
            port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{self.port}"
        self.token_a = self.mem.tokens.create(name="a", scopes=[self.a]).token
        self.token_b = self.mem.tokens.create(name="b", scopes=[self.b]).token
        self.reader = self.mem.tokens.create(name="a-reader", scopes=[self.a],
                                             read_only=True).token

    def call(self, method: str, path: str, token: str | None, *,
             headers: dict[str, str] | None = None, timeout: float = 60,
             **kw: Any) -> httpx.Response:
        sent = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.request(method, self.url + path, headers={**sent, **(headers or {})},
                             timeout=timeout, **kw)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        for token in (self.token_a, self.token_b, self.reader):
            if not any(t.id == token.split("_")[1] and t.revoked_at
                       for t in self.mem.tokens.listed()):
                self.mem.tokens.revoke(token.split("_")[1])
        for scope in (self.a, self.b):
            self.mem.drop_scope(scope)
        self.mem.close()


@pytest.fixture
def svc(schema_ready: Settings, embedder: Embedder) -> Iterator[Service]:
    s = Service(schema_ready, embedder, Limits(max_body_bytes=20_000, max_batch=5,
                                                rate=1000, burst=1000))
    yield s
    s.close()


def test_a_token_reads_and_writes_its_own_scope(svc: Service) -> None:
    done = svc.call("POST", "/v1/remember", svc.token_a, json={"records": [
        {"id": "ferry", "text": "The ferry to the island leaves at nine.", "session": "s1"},
        {"id": "bakery", "text": "Ana runs the bakery on the harbour.", "session": "s1"}]})
    assert done.status_code == 200, done.text
    assert done.json()["counts"] == {"created": 2}
    hits = svc.call("POST", "/v1/recall", svc.token_a,
                    json={"query": "when does the ferry leave", "options": {"top_k": 1}})
    assert hits.status_code == 200 and hits.json()["hits"][0]["id"] == "ferry"
    assert svc.call("POST", "/v1/feedback", svc.token_a,
                    json={"id": "ferry", "used": True}).status_code == 200
    assert svc.call("POST", "/v1/update", svc.token_a,
                    json={"id": "ferry", "text": "The ferry leaves at ten."}).status_code == 200
    session = svc.call("GET", "/v1/session", svc.token_a, params={"session": "s1"}).json()
    assert [m["id"] for m in session] == ["ferry", "bakery"]
    assert svc.call("GET", "/v1/entities", svc.token_a).status_code == 200
    context = svc.call("GET", "/v1/context", svc.token_a)
    assert context.status_code == 200 and "bakery" in context.text
    assert svc.call("POST", "/v1/forget", svc.token_a,
                    json={"id": "bakery", "hard": True}).status_code == 200
    assert svc.call("GET", "/healthz", None).json() == {"ok": True}
    assert svc.call("GET", "/readyz", None).status_code == 200


def said(text: str, svc: Service) -> str:
    """An answer without the scope names the caller gave (random hex: one held "7741")."""
    return text.replace(svc.a, "").replace(svc.b, "")


def test_every_endpoint_refuses_another_tokens_scope_and_shows_nothing_of_it(
        svc: Service) -> None:
    assert svc.call("POST", "/v1/remember", svc.token_b, json={"records": [
        {"id": "vault", "text": SECRET, "session": "b1"}]}).status_code == 200
    b = svc.b
    attempts = [
        ("POST", "/v1/remember", {"json": {"scope": b, "text": "mine now"}}),
        ("POST", "/v1/remember", {"json": {"records": [{"text": "x", "scope": b}]}}),
        ("POST", "/v1/recall", {"json": {"scope": b, "query": "vault code"}}),
        ("POST", "/v1/recall", {"json": {"query": "vault code", "options": {"layers": [b]}}}),
        ("POST", "/v1/update", {"json": {"scope": b, "id": "vault", "text": "gone"}}),
        ("POST", "/v1/forget", {"json": {"scope": b, "id": "vault", "hard": True}}),
        ("POST", "/v1/feedback", {"json": {"scope": b, "id": "vault", "used": False}}),
        ("GET", "/v1/entities", {"params": {"scope": b}}),
        ("GET", "/v1/session", {"params": {"scope": b, "session": "b1"}}),
        ("GET", "/v1/context", {"params": {"scope": b}}),
    ]
    for method, path, kw in attempts:
        got = svc.call(method, path, svc.token_a, **kw)
        assert got.status_code == 403, (path, got.text)
        assert "7741" not in said(got.text, svc) and "vault code" not in got.text.lower()
    # Another scope's id, asked in the token's own scope, is simply not there.
    for path, body in [("/v1/forget", {"id": "vault", "hard": True}),
                       ("/v1/update", {"id": "vault", "text": "gone"}),
                       ("/v1/feedback", {"id": "vault", "used": False})]:
        got = svc.call("POST", path, svc.token_a, json=body)
        assert got.status_code == 404 and "7741" not in said(got.text, svc)
    hits = svc.call("POST", "/v1/recall", svc.token_a, json={"query": "vault code 7741"})
    assert hits.status_code == 200 and hits.json()["hits"] == []
    # B's memory is untouched by all of it.
    mine = svc.call("POST", "/v1/recall", svc.token_b, json={"query": "vault code"}).json()
    assert [h["text"] for h in mine["hits"]] == [SECRET]


def test_credentials_read_only_and_revocation(svc: Service) -> None:
    assert svc.call("POST", "/v1/recall", None, json={"query": "x"}).status_code == 401
    assert svc.call("POST", "/v1/recall", "gm_" + "0" * 16 + "_" + "x" * 43,
                    json={"query": "x"}).status_code == 401
    assert svc.call("POST", "/v1/recall", svc.reader, json={"query": "x"}).status_code == 200
    refused = svc.call("POST", "/v1/remember", svc.reader, json={"text": "a note"})
    assert refused.status_code == 403 and refused.json() == {
        "error": "this token may only read"}
    reader_id = svc.reader.split("_")[1]
    svc.mem.tokens.revoke(reader_id)
    assert svc.call("POST", "/v1/recall", svc.reader, json={"query": "x"}).status_code == 401
    assert any(t.id == reader_id and t.revoked_at for t in svc.mem.tokens.listed())


def test_bad_input_and_limits_get_one_json_line_with_their_code(svc: Service) -> None:
    bad = svc.call("POST", "/v1/recall", svc.token_a, json={"query": "x", "bogus": 1})
    assert bad.status_code == 400 and bad.json() == {"error": "field 'bogus': unknown field"}
    bad = svc.call("POST", "/v1/recall", svc.token_a,
                   json={"query": "x", "options": {"top_k": "many"}})
    assert bad.status_code == 400 and "top_k" in bad.json()["error"]
    bad = svc.call("POST", "/v1/recall", svc.token_a,
                   json={"query": "x", "options": {"scope": svc.b}})
    assert bad.status_code == 400 and bad.json() == {
        "error": "field 'options.scope': not a recall option here"}
    bad = svc.call("POST", "/v1/remember", svc.token_a, json={"records": [{"text": ""}]})
    assert bad.status_code == 400 and "text" in bad.json()["error"]
    big = svc.call("POST", "/v1/remember", svc.token_a, json={"text": "word " * 10_000})
    assert big.status_code == 413
    many = svc.call("POST", "/v1/remember", svc.token_a,
                    json={"records": [{"text": f"note {i}"} for i in range(6)]})
    assert many.status_code == 413 and "at most 5" in many.json()["error"]
    assert svc.call("GET", "/v1/session", svc.token_a).status_code == 400


def test_a_token_over_its_rate_waits(schema_ready: Settings, embedder: Embedder) -> None:
    s = Service(schema_ready, embedder, Limits(rate=1, burst=2))
    try:
        codes = [s.call("GET", "/v1/entities", s.token_a) for _ in range(3)]
        assert [c.status_code for c in codes] == [200, 200, 429]
        assert int(codes[2].headers["Retry-After"]) >= 1
        # Another token has its own budget.
        assert s.call("GET", "/v1/entities", s.token_b).status_code == 200
    finally:
        s.close()


def _wait_until_up(port: int) -> None:
    """Wait until a `graphmem serve` on `port` answers /healthz (a minute at most)."""
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)


def test_serve_stops_on_sigterm_and_exits_0(schema_ready: Settings) -> None:
    port = _free_port()
    env = {**os.environ, "NEO4J_URI": schema_ready.neo4j_uri,
           "NEO4J_PASSWORD": schema_ready.neo4j_password.get_secret_value()}
    proc = subprocess.Popen([sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_until_up(port)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
        assert out == b""  # results only on stdout; this command has none
    finally:
        if proc.poll() is None:
            proc.kill()


def test_serve_refuses_a_public_address_without_a_token(schema_ready: Settings) -> None:
    with GraphMem(schema_ready) as mem:
        if mem.tokens.live():  # every test here revokes its tokens; a person's may remain
            pytest.skip("live tokens on this server")
    env = {**os.environ, "NEO4J_URI": schema_ready.neo4j_uri,
           "NEO4J_PASSWORD": schema_ready.neo4j_password.get_secret_value()}
    done = subprocess.run([sys.executable, "-m", "graphmem", "serve", "--host", "0.0.0.0",
                           "--port", str(_free_port())], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1 and "loopback" in done.stderr, done.stderr


def test_the_mcp_endpoint_takes_a_token_and_keeps_to_its_scope(svc: Service) -> None:
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    assert svc.call("POST", "/v1/remember", svc.token_b,
                    json={"text": SECRET}).status_code == 200

    async def session(token: str | None) -> list[Any]:
        client = create_mcp_http_client(
            headers={"Authorization": f"Bearer {token}"} if token else None)
        async with client, streamable_http_client(f"{svc.url}/mcp/", http_client=client) as (
                read, write), ClientSession(read, write) as mcp:
            await mcp.initialize()
            stored = await mcp.call_tool("memory_store", {
                "text": "The standup moved to 9:30 on Mondays", "kind": "procedural"})
            recalled = await mcp.call_tool("memory_recall", {"query": "vault code standup"})
            return [stored, recalled]

    stored, recalled = anyio.run(session, svc.token_a)
    assert not stored.is_error and not recalled.is_error, (stored, recalled)
    assert "standup" in recalled.content[0].text and "7741" not in recalled.content[0].text
    assert svc.mem.count(scope=svc.a) == 1  # written in the token's scope
    stored, _ = anyio.run(session, svc.reader)
    assert stored.is_error and "only read" in stored.content[0].text
    refused = httpx.post(f"{svc.url}/mcp/", json={}, timeout=30)
    assert refused.status_code == 401


@pytest.mark.parametrize(("sigterm_at", "scopes"), [(None, 1), (4.0, 4)])
def test_bench_serve_loses_nothing_and_reads_no_other_token(
        schema_ready: Settings, embedder: Embedder, sigterm_at: float | None,
        scopes: int) -> None:
    from graphmem.bench import serve as serve_bench

    with GraphMem(schema_ready, embedder=embedder) as mem:
        result = serve_bench.run(mem, clients=6, seconds=8, sigterm_at=sigterm_at,
                                 scopes=scopes)
    assert result.requests > 0 and result.refused_cross_token > 0
    assert result.scopes == scopes
    by = result.cpu_ms_per_request_by
    assert by["service"] is not None and by["service"] > 0, by
    assert by["neo4j"] is None or by["neo4j"] > 0, by
    assert by["clients"] is not None and by["clients"] > 0, by
    assert result.machine_busy is not None and 0 < result.machine_busy <= 1
    assert (result.errors, result.lost_writes, result.duplicated_writes,
            result.cross_token_reads) == (0, 0, 0, 0), result.error_samples
    assert result.exit_code == 0
    if sigterm_at is not None:
        assert result.after_stop > 0  # the clients met the stopped service


def test_bench_serve_through_ten_seconds_without_neo4j_fails_and_loses_nothing(
        schema_ready: Settings, embedder: Embedder) -> None:
    # The service's Neo4j cut off for 10 s mid-load (every connection, new ones refused):
    # requests wait it out within the retry budget; none fails, none is lost or doubled.
    from graphmem.bench import serve as serve_bench

    with GraphMem(schema_ready, embedder=embedder) as mem:
        result = serve_bench.run(mem, clients=6, seconds=16, scopes=2, outage_at=3,
                                 outage=10)
    assert (result.errors, result.unavailable, result.lost_writes, result.duplicated_writes,
            result.cross_token_reads) == (0, 0, 0, 0, 0), result.error_samples
    assert result.exit_code == 0
    waited = max(ms["max"] for ms in result.latency_ms.values())
    assert waited > 5000, result.latency_ms  # some requests did meet the outage


def test_neo4j_down_is_503_with_one_line(schema_ready: Settings, embedder: Embedder) -> None:
    down = schema_ready.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:1",
                                           "connect_timeout": 1.0})
    s = Service.__new__(Service)  # the app alone: no tokens can be made without Neo4j
    s.port = _free_port()
    s.server = uvicorn.Server(uvicorn.Config(create_app(GraphMem(down, embedder=embedder)),
                                             host="127.0.0.1", port=s.port,
                                             log_level="warning"))
    s.thread = threading.Thread(target=s.server.run, daemon=True)
    s.thread.start()
    while not s.server.started:
        time.sleep(0.05)
    s.url = f"http://127.0.0.1:{s.port}"
    try:
        assert s.call("GET", "/readyz", None).status_code == 503
        got = s.call("POST", "/v1/recall", "gm_" + "0" * 16 + "_" + "x" * 43,
                     json={"query": "anything"})
        assert got.status_code == 503 and got.headers["Retry-After"] == "10"
        assert got.json()["error"].startswith("memory store unavailable: ")
        assert "Traceback" not in got.text
    finally:
        s.server.should_exit = True
        s.thread.join(30)


def test_a_reader_cannot_change_what_recall_stores_and_no_option_is_unbounded(
        svc: Service) -> None:
    svc.mem.remember(["The cache layer is Redis", "Deploys go through staging first"],
                     scope=svc.a)
    before = {m.id: (m.kind, m.confidence) for m in svc.mem.recent(svc.a)}
    writes = {"promote_accesses": 1, "promote_confidence": 1.0, "direct_boost": 1.0,
              "associative_boost": 0.5, "co_retrieval_step": 1.0,
              "co_retrieval_initial": 1.0, "co_retrieval_top": 5}
    for name, value in writes.items():
        for options in ({name: value}, {"feedback": {name: value}}):
            refused = svc.call("POST", "/v1/recall", svc.reader,
                               json={"query": "which cache?", "options": options})
            assert refused.status_code == 403, (options, refused.text)
            assert name in refused.json()["error"]
    # How it ranks stays a reader's choice; what it stores is left as it was.
    ranked = svc.call("POST", "/v1/recall", svc.reader,
                      json={"query": "which cache?", "options": {"rrf_k": 7, "hops": 1}})
    assert ranked.status_code == 200
    svc.mem.flush()
    assert {m.id: (m.kind, m.confidence) for m in svc.mem.recent(svc.a)} == before
    # A writer may tune them, within bounds; nothing is unbounded or infinite.
    assert svc.call("POST", "/v1/recall", svc.token_a, json={
        "query": "which cache?", "options": {"direct_boost": 0.5}}).status_code == 200
    for options in ({"direct_boost": 1e308}, {"promote_accesses": 10**12},
                    {"hub_limit": 1e30}, {"hub_limit": 0}, {"layers": 5}, {"rrf_k": 10**9},
                    {"association": 1e300}, {"link_tau_days": 0}):
        bad = svc.call("POST", "/v1/recall", svc.token_a,
                       json={"query": "which cache?", "options": options})
        assert bad.status_code == 400, (options, bad.text)
        assert bad.json()["error"].startswith("field 'options.") or "field '" in \
            bad.json()["error"], bad.json()
    infinite = httpx.post(svc.url + "/v1/recall", timeout=60, headers={
        "Authorization": f"Bearer {svc.token_a}", "Content-Type": "application/json"},
        content=b'{"query": "x", "options": {"direct_boost": Infinity}}')
    assert infinite.status_code == 400, infinite.text


def test_every_refusal_is_one_error_line_and_echoes_no_secret(svc: Service) -> None:
    auth = {"Authorization": f"Bearer {svc.token_a}"}
    cases = [
        httpx.get(svc.url + "/v1/no-such-route", headers=auth, timeout=60),
        httpx.get(svc.url + "/v1/recall", headers=auth, timeout=60),  # wrong method
        httpx.post(svc.url + "/v1/recall", headers={**auth, "Content-Type":
                   "application/json"}, content=b'{"query": "caf\xe9"}', timeout=60),
        httpx.post(svc.url + "/v1/recall", headers={**auth, "Content-Type":
                   "application/json"}, content=b'{"query": ' + b"[" * 5000, timeout=60),
    ]
    for answer in cases:
        assert 400 <= answer.status_code < 500, answer.text
        body = answer.json()
        assert set(body) == {"error"} and isinstance(body["error"], str), body
        assert "\n" not in body["error"]
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    refused = svc.call("POST", "/v1/recall", svc.token_a,
                       json={"query": "x", "scope": secret})
    assert refused.status_code == 403 and secret not in refused.text


@pytest.mark.parametrize("path", ["/v1/remember", "/mcp/"])
def test_a_streamed_body_over_the_limit_is_413_on_every_route(svc: Service,
                                                              path: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(40):
            yield b"word " * 200  # 1,000 bytes a chunk, no length declared
        yield b'"}'

    answer = httpx.post(svc.url + path, content=chunks(), timeout=60, headers={
        "Authorization": f"Bearer {svc.token_a}", "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream"})
    assert answer.status_code == 413, answer.text
    assert answer.json() == {"error": "the request body is over 20000 bytes"}


def test_mcp_keeps_the_tokens_rate_and_unknown_tokens_cannot_hammer_the_store(
        schema_ready: Settings, embedder: Embedder) -> None:
    s = Service(schema_ready, embedder, Limits(rate=1, burst=2, denied_rate=0.01,
                                               denied_burst=3))
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    try:
        codes = [s.call("POST", "/mcp/", s.token_a, json=init, headers=accept).status_code
                 for _ in range(3)]
        assert codes[:2] == [200, 200] and codes[2] == 429  # /mcp/ spends /v1's budget
        # Tokens that are none: 401 (the SDK's own, on /mcp/) until the address has sent
        # denied_burst of them, then 429 before any look-up, on every route.
        bogus = "gm_" + "0" * 16 + "_" + "x" * 43
        denied = [s.call("POST", "/v1/recall", bogus, json={"query": "x"}).status_code
                  for _ in range(3)]
        assert denied == [401, 401, 401]
        assert s.call("POST", "/v1/recall", bogus, json={"query": "x"}).status_code == 429
        late = s.call("POST", "/mcp/", bogus, json=init, headers=accept)
        assert late.status_code == 429 and "Retry-After" in late.headers
    finally:
        s.close()


def test_serve_stopped_while_neo4j_is_unreachable_says_so_and_exits_2(
        schema_ready: Settings, bolt_proxy: TcpProxy) -> None:
    # The proxy taken down: Neo4j unreachable for the service while the suite's stays up.
    port = _free_port()
    scope = f"test:svc-{uuid.uuid4().hex[:10]}"
    with GraphMem(schema_ready) as mem:
        token = mem.tokens.create(name="relay", scopes=[scope]).token
        mem.remember("The cache layer is Redis", scope=scope)
    env = {**os.environ, "NEO4J_URI": f"bolt://127.0.0.1:{bolt_proxy.port}",
           "GRAPHMEM_CONNECT_TIMEOUT": "1",
           "NEO4J_PASSWORD": schema_ready.neo4j_password.get_secret_value()}
    proc = subprocess.Popen([sys.executable, "-m", "graphmem", "serve", "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_until_up(port)
        found = httpx.post(f"http://127.0.0.1:{port}/v1/recall", timeout=60,
                           headers={"Authorization": f"Bearer {token}"},
                           json={"query": "which cache?"})
        assert found.status_code == 200 and found.json()["hits"]
        bolt_proxy.down()  # its reinforcement is pending (written every 0.5 s at the earliest)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        text = err.decode()
        assert proc.returncode == 2, text
        assert "pending reinforcement not written" in text
        assert "Traceback" not in text and "Application shutdown failed" not in text
    finally:
        if proc.poll() is None:
            proc.kill()
        bolt_proxy.down()
        with GraphMem(schema_ready) as mem:
            mem.drop_scope(scope)
            for t in mem.tokens.listed():
                if t.name == "relay" and not t.revoked_at:
                    mem.tokens.revoke(t.id)


@pytest.mark.parametrize(("path", "body"), [
    ("/v1/remember", {"text": "a note about the cache", "session": "s\ud800"}),
    ("/v1/remember", {"text": "a note about the \udfff cache"}),
    ("/v1/forget", {"id": "m-\ud800"}),
    ("/v1/feedback", {"id": "m-\udc00", "used": True}),
    ("/v1/recall", {"query": "which cache?", "options": {"filters": {"k": ["\ud83d"]}}}),
], ids=["session", "text", "forget-id", "feedback-id", "filter"])
def test_a_lone_surrogate_anywhere_is_a_400_naming_the_field(svc: Service, path: str,
                                                             body: dict) -> None:
    raw = json.dumps(body).encode()  # JSON escapes carry the lone surrogate
    answer = httpx.post(svc.url + path, content=raw, timeout=60, headers={
        "Authorization": f"Bearer {svc.token_a}", "Content-Type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert "surrogate" in answer.json()["error"] and "field '" in answer.json()["error"]


def test_an_mcp_session_belongs_to_the_token_that_opened_it(svc: Service) -> None:
    # The SDK keeps its sessions to the token that opened them (checked here, since one
    # table holds every token's sessions): another token naming one gets a 404.
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    opened = svc.call("POST", "/mcp/", svc.token_a, json=init, headers=accept)
    assert opened.status_code == 200, opened.text
    session = opened.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    theirs = svc.call("POST", "/mcp/", svc.token_b, json=ping,
                      headers={**accept, "mcp-session-id": session})
    assert theirs.status_code == 404, theirs.text
    listen = svc.call("GET", "/mcp/", svc.token_b,
                      headers={**accept, "mcp-session-id": session})
    assert listen.status_code == 404
    ours = svc.call("POST", "/mcp/", svc.token_a, json=ping,
                    headers={**accept, "mcp-session-id": session,
                             "mcp-protocol-version": "2025-06-18"})
    assert ours.status_code == 200, ours.text


def _left_of(mem: GraphMem, scope: str) -> int:
    """Nodes of any kind that still name `scope` (memories, versions, tombstones,
    sessions, entities, its own node)."""
    return mem.ops.core.store.driver.execute_query(
        "MATCH (x) WHERE x.scope = $scope OR (x:Scope AND x.name = $scope) RETURN count(x) AS n",
        scope=scope, database_=mem.ops.core.store.database).records[0]["n"]


def test_a_writer_drops_its_whole_scope_and_no_one_else_can(svc: Service) -> None:
    wrote = svc.call("POST", "/v1/remember", svc.token_a, json={"records": [
        {"id": "d1", "text": "Ana's flat is on the third floor", "session": "move"},
        {"id": "d2", "text": "Ana moves to Porto in March", "session": "move"}]})
    assert wrote.status_code == 200, wrote.text
    svc.call("POST", "/v1/update", svc.token_a, json={"id": "d2", "text": "Ana moves in April"})
    svc.call("POST", "/v1/forget", svc.token_a, json={"id": "d1", "hard": True})
    assert _left_of(svc.mem, svc.a) > 0
    for token in (svc.reader, svc.token_b):
        refused = svc.call("POST", "/v1/drop_scope", token, json={"scope": svc.a})
        assert refused.status_code == 403 and set(refused.json()) == {"error"}
    unnamed = svc.call("POST", "/v1/drop_scope", svc.token_a, json={})
    assert unnamed.status_code == 400  # never a default scope
    for empty in ("", "   ", None):
        refused = svc.call("POST", "/v1/drop_scope", svc.token_a, json={"scope": empty})
        assert refused.status_code == 400 and "scope" in refused.json()["error"], refused.text
    assert _left_of(svc.mem, svc.a) > 0  # nothing was dropped
    dropped = svc.call("POST", "/v1/drop_scope", svc.token_a, json={"scope": svc.a})
    assert dropped.status_code == 200 and dropped.json()["deleted"] >= 1, dropped.text
    assert _left_of(svc.mem, svc.a) == 0


def test_a_statement_an_agent_stores_is_the_same_memory_through_every_agent_door(
        svc: Service) -> None:
    # It was semantic/agent over MCP and in the LangGraph store, episodic/user over
    # /v1/remember, in the same process: another half-life and confidence.
    import anyio

    from graphmem.integrations.langgraph import GraphMemStore
    from graphmem.mcp import Access, build

    text = "The staging database is refreshed from production every Sunday"
    svc.call("POST", "/v1/remember", svc.token_a, json={"text": text})
    over_http = svc.mem.recent(svc.a, limit=1)[0]
    server = build(svc.mem, access=lambda: Access(svc.b, True, "doors"))
    anyio.run(server.call_tool, "memory_store", {"text": text})
    anyio.run(server.call_tool, "memory_store", {"text": "Deploys wait for a green canary",
                                                 "kind": "rule"})  # an alias, as elsewhere
    over_mcp = {m.text: m for m in svc.mem.recent(svc.b, limit=5)}
    store = GraphMemStore(svc.mem, root=f"{svc.b}/lg")
    try:
        store.put(("ops",), "staging", {"text": text})
        in_store = svc.mem.recent(store.scope(("ops",)), limit=1)[0]
    finally:
        svc.mem.drop_scope(store.scope(("ops",)))
    doors = {(m.kind, m.source, m.confidence) for m in (over_http, over_mcp[text], in_store)}
    assert doors == {("semantic", "agent", over_http.confidence)}, doors
    assert over_mcp["Deploys wait for a green canary"].kind == "heuristic"


def test_each_mcp_connection_keeps_a_conversation_of_its_own(svc: Service) -> None:
    # Every client over HTTP shared one default session: two agents' turns interleaved.
    import anyio
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def agent(lines: list[str]) -> list[str]:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {svc.token_a}"})
        async with client, streamable_http_client(f"{svc.url}/mcp/", http_client=client) as (
                read, write), ClientSession(read, write) as mcp:
            await mcp.initialize()
            for line in lines:
                stored = await mcp.call_tool("memory_store", {"text": line})
                assert not stored.is_error, stored.content
            turns = await mcp.call_tool("memory_session", {"last": 10})
            return [t["text"] for t in turns.structured_content["result"]]

    ana = ["Ana starts the migration of the billing tables tonight",
           "Ana will pause the nightly export while it runs"]
    ben = ["Ben reviews the onboarding copy for the mobile app",
           "Ben wants the signup button moved above the fold"]
    assert anyio.run(agent, ana) == ana
    assert anyio.run(agent, ben) == ben  # the same token, another connection


def test_an_answer_names_the_writes_made_and_a_request_may_wait_for_them(
        svc: Service) -> None:
    """Read-your-writes across replicas: an answer's Graphmem-Bookmark names this
    replica's writes; sent back (to any replica), the request's reads wait for them."""
    done = svc.call("POST", "/v1/remember", svc.token_a, json={"records": [
        {"id": "lamp", "text": "The lighthouse lamp is serviced in March."}]})
    assert done.status_code == 200, done.text
    bookmark = done.headers.get("graphmem-bookmark", "")
    assert bookmark, done.headers
    hits = svc.call("POST", "/v1/recall", svc.token_a,
                    headers={"Graphmem-Bookmark": bookmark},
                    json={"query": "when is the lamp serviced", "options": {"top_k": 1}})
    assert hits.status_code == 200 and hits.json()["hits"][0]["id"] == "lamp"
    bad = svc.call("POST", "/v1/recall", svc.token_a,
                   headers={"Graphmem-Bookmark": "FB:not-a-bookmark"}, json={"query": "lamp"})
    assert bad.status_code == 400 and "Graphmem-Bookmark" in bad.json()["error"]
    assert "\n" not in bad.json()["error"]
    many = svc.call("POST", "/v1/recall", svc.token_a,
                    headers={"Graphmem-Bookmark": ",".join(["FB:x"] * 17)},
                    json={"query": "lamp"})
    assert many.status_code == 400 and "at most 16" in many.json()["error"]


def test_the_drivers_routing_scheme_reaches_the_server(schema_ready: Settings,
                                                         embedder: Embedder) -> None:
    """neo4j:// (what a cluster or Aura needs: the driver routes reads to followers and
    writes to the leader) against our server: a write and a recall through it."""
    routed = schema_ready.model_copy(update={
        "neo4j_uri": schema_ready.neo4j_uri.replace("bolt://", "neo4j://", 1),
        "scope": f"test:routed-{uuid.uuid4().hex[:10]}"})
    assert routed.neo4j_uri.startswith("neo4j://")
    with GraphMem(routed, embedder=embedder) as mem:
        try:
            mem.remember("The routing table names this server for reads and writes.")
            assert mem.recall("which server does the routing table name", top_k=1).hits
            assert mem.ops.bookmark()  # the write's bookmark, kept by the process
        finally:
            mem.drop_scope(routed.scope)


def _future(bookmark: str) -> str:
    """`bookmark` (Neo4j's, "FB:" and base64 of a PackStream list: the database's id,
    then its transaction counter) with a transaction far in the future: well formed,
    and one the server waits for."""
    import base64
    import struct

    raw = base64.b64decode(bookmark[3:])
    assert bookmark.startswith("FB:") and raw[:3] == b"\x91\xcc\x10", bookmark
    at = 3 + 16  # the marker of the counter, after the 16 bytes of the id
    size = {0xC8: 1, 0xC9: 2, 0xCA: 4, 0xCB: 8}.get(raw[at], 0)
    counter = int.from_bytes(raw[at + 1:at + 1 + size], "big", signed=True) if size \
        else raw[at]
    forged = raw[:at] + b"\xcb" + struct.pack(">q", counter + 10**12) + raw[at + 1 + size:]
    return "FB:" + base64.b64encode(forged).decode()


def _written_bookmark(svc: Service) -> str:
    done = svc.call("POST", "/v1/remember", svc.token_a,
                    json={"text": "The harbour crane is inspected every spring"})
    assert done.status_code == 200, done.text
    return done.headers["graphmem-bookmark"]


def test_a_forged_bookmark_stalls_nothing_before_or_after_admission(
        schema_ready: Settings, embedder: Embedder) -> None:
    s = Service(schema_ready, embedder, Limits(rate=1000, burst=1000, denied_burst=3,
                                               denied_rate=0.001))
    try:
        forged = _future(_written_bookmark(s))
        header = {"Graphmem-Bookmark": forged}
        # Before admission the header is not even read: no wait, no Neo4j look-up.
        for token in (None, "gm_" + "0" * 16 + "_" + "x" * 43):
            refused = s.call("POST", "/v1/recall", token, headers=header,
                             json={"query": "crane"}, timeout=15)
            assert refused.status_code == 401, refused.text
        assert s.call("GET", "/healthz", None, headers=header, timeout=15).status_code == 200
        # Admitted, the wait is bounded and said in one line; while the server still
        # waits on it, the token's next forged wait is answered at once.
        waited = s.call("POST", "/v1/recall", s.token_a, headers=header,
                        json={"query": "crane"}, timeout=15)
        assert waited.status_code == 503, waited.text
        assert "Graphmem-Bookmark" in waited.json()["error"] and waited.headers["retry-after"]
        started = time.monotonic()
        again = s.call("POST", "/v1/recall", s.token_a, headers=header,
                       json={"query": "crane"}, timeout=15)
        assert again.status_code == 503 and "still running" in again.json()["error"]
        assert time.monotonic() - started < 2
        # What the token did is its own: the address is not charged as for unknown tokens.
        assert s.call("POST", "/v1/recall", s.token_b, json={"query": "crane"},
                      timeout=15).status_code == 200
    finally:
        s.close()


def test_one_tokens_forged_bookmarks_starve_no_other_tokens_reads_of_its_writes(
        svc: Service) -> None:
    """Token a sends many forged future bookmarks at once; token b, from the same
    address, reads its own write with its real bookmark: answered, and not throttled."""
    from concurrent.futures import ThreadPoolExecutor

    forged = {"Graphmem-Bookmark": _future(_written_bookmark(svc))}
    done = svc.call("POST", "/v1/remember", svc.token_b,
                    json={"text": "The lighthouse lamp was replaced in May"})
    mine = {"Graphmem-Bookmark": done.headers["graphmem-bookmark"]}
    with ThreadPoolExecutor(8) as pool:
        flood = [pool.submit(svc.call, "POST", "/v1/recall", svc.token_a, headers=forged,
                             json={"query": "crane"}, timeout=30) for _ in range(8)]
        time.sleep(0.5)  # the flood holds what it can
        started = time.monotonic()
        read = svc.call("POST", "/v1/recall", svc.token_b, headers=mine,
                        json={"query": "lighthouse lamp"}, timeout=30)
        took = time.monotonic() - started
        answered = [f.result() for f in flood]
    assert read.status_code == 200 and read.json()["hits"], read.text
    assert took < 4, took
    assert {a.status_code for a in answered} == {503}
    for _ in range(3):  # the address pays nothing for token a's waits
        assert svc.call("POST", "/v1/recall", svc.token_b, headers=mine,
                        json={"query": "lamp"}, timeout=30).status_code == 200


def test_a_flood_of_forged_bookmarks_with_made_up_tokens_leaves_real_recalls_alone(
        svc: Service) -> None:
    from concurrent.futures import ThreadPoolExecutor

    forged = {"Graphmem-Bookmark": _future(_written_bookmark(svc))}
    # The flood comes from another address of the loopback range than the real caller.
    hostile = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"),
                           timeout=30)

    def forge(i: int) -> httpx.Response:
        return hostile.post(svc.url + "/v1/recall", json={"query": "crane"}, headers={
            **forged, "Authorization": f"Bearer gm_{i:016x}_" + "z" * 43})  # well formed

    with hostile, ThreadPoolExecutor(44) as pool:
        flood = [pool.submit(forge, i) for i in range(44)]
        real = svc.call("POST", "/v1/recall", svc.token_a, json={"query": "crane"},
                        timeout=30)
        answered = [f.result() for f in flood]
    assert real.status_code == 200 and real.json()["hits"], real.text
    assert {a.status_code for a in answered} <= {401, 429}


def test_only_an_admitted_answer_of_the_callers_own_writes_names_a_bookmark(
        svc: Service) -> None:
    mine = svc.call("POST", "/v1/remember", svc.token_a,
                    json={"text": "The harbour crane is inspected every spring"})
    assert mine.status_code == 200 and mine.headers.get("graphmem-bookmark"), mine.headers
    theirs = svc.call("POST", "/v1/remember", svc.token_b,
                      json={"text": "The ferry timetable changes in October"})
    assert theirs.headers["graphmem-bookmark"] != mine.headers["graphmem-bookmark"]
    for answer in (svc.call("GET", "/healthz", None),
                   svc.call("POST", "/v1/recall", None, json={"query": "crane"}),
                   svc.call("POST", "/v1/recall", "gm_nope_" + "x" * 20,
                            json={"query": "crane"}),
                   svc.call("POST", "/v1/recall", svc.token_a, json={"query": "crane"}),
                   svc.call("GET", "/v1/context", svc.token_a)):
        assert "graphmem-bookmark" not in answer.headers, (answer.request.url, answer.text)
    # A's next write names its own commit, which is later than B's, not B's.
    again = svc.call("POST", "/v1/remember", svc.token_a,
                     json={"text": "The crane's inspection takes two days"})
    assert again.headers["graphmem-bookmark"] not in (theirs.headers["graphmem-bookmark"],
                                                      mine.headers["graphmem-bookmark"])


def _remembered_through(s: Service, proxy: Any, outage: float) -> httpx.Response:
    """A remember sent while the proxy is down, answered once it is up `outage` s later."""
    answers: list[httpx.Response] = []
    caller = threading.Thread(target=lambda: answers.append(s.call(
        "POST", "/v1/remember", s.token_a,
        json={"text": "The staging cluster moved to Frankfurt"})))
    caller.start()
    time.sleep(outage)
    proxy.up()
    caller.join(120)
    return answers[0]


def test_the_service_waits_out_a_server_gone_for_seconds(
        schema_ready: Settings, embedder: Embedder, bolt_proxy: Any) -> None:
    # A leader change or a restart behind the service: /readyz says so at once, requests
    # wait for the server within GRAPHMEM_RETRY_S and succeed, /readyz is 200 again
    # without a restart; past a budget a request is a 503 with Retry-After.
    for budget, outage in ((30.0, 4.0), (2.0, 6.0)):
        far = schema_ready.model_copy(update={
            "neo4j_uri": f"bolt://127.0.0.1:{bolt_proxy.port}", "retry_s": budget})
        s = Service(far, embedder, Limits(rate=1000, burst=1000))
        try:
            assert s.call("GET", "/readyz", None).status_code == 200
            bolt_proxy.down()
            started = time.monotonic()
            assert s.call("GET", "/readyz", None).status_code == 503
            assert time.monotonic() - started < 1 + 2 * far.connect_timeout
            answer = _remembered_through(s, bolt_proxy, outage)
            if budget > outage:
                assert answer.status_code == 200, answer.text
                assert s.call("GET", "/readyz", None).status_code == 200
            else:
                assert answer.status_code == 503
                assert answer.headers["Retry-After"] == "10"
                assert s.mem.count(scope=s.a) == 0  # nothing half-written
        finally:
            bolt_proxy.up()
            s.close()


def test_a_query_too_long_names_the_field_query(svc: Service) -> None:
    from graphmem.base.types import MAX_QUERY_CHARS

    done = svc.call("POST", "/v1/recall", svc.token_a, json={"query": "x" * (MAX_QUERY_CHARS + 1)})
    assert done.status_code == 400 and "'query'" in done.json()["error"], done.text
    missing = svc.call("POST", "/v1/recall", svc.token_a, json={})
    assert missing.status_code == 400 and "'query'" in missing.json()["error"], missing.text


def _integers(node: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every integer in a JSON schema, with where it stands."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "integer":
            found.append((where, node))
        for key, value in node.items():
            found += _integers(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _integers(value, f"{where}.{i}")
    return found


def _reached(node: Any, components: dict[str, Any],
             found: dict[str, Any] | None = None) -> dict[str, Any]:
    """The component schemas `node` refers to, and those they refer to, by name."""
    found = {} if found is None else found
    if isinstance(node, dict):
        if (ref := node.get("$ref")) and (name := ref.rsplit("/", 1)[1]) not in found:
            found[name] = components[name]
            _reached(components[name], components, found)
        for value in node.values():
            _reached(value, components, found)
    elif isinstance(node, list):
        for value in node:
            _reached(value, components, found)
    return found


def test_the_openapi_schema_declares_every_field_and_bound(svc: Service) -> None:
    # A generated client sees what each verb takes: recall's options by name (top_k,
    # mode, filters), a record's fields, and the bounds of every integer a request holds.
    schema = svc.call("GET", "/openapi.json", None).json()
    recall = schema["paths"]["/v1/recall"]["post"]["requestBody"]["content"][
        "application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    options = schema["components"]["schemas"][recall]["properties"]["options"]
    assert {"top_k", "mode", "filters", "hops", "fusion"} <= set(options["properties"])
    assert "decay" not in options["properties"]  # the service's configuration, not a call's
    assert options["properties"]["top_k"]["maximum"] == 1000
    remember = schema["components"]["schemas"]["RememberBody"]["properties"]["records"]
    assert "text" in json.dumps(remember) and "importance" in json.dumps(remember)
    verbs = [verb for path in schema["paths"].values() for verb in path.values()]
    bodies = [v["requestBody"] for v in verbs if "requestBody" in v]
    requests = _reached(bodies, schema["components"]["schemas"])
    assert {"RecallBody", "RememberBody", "Association"} <= set(requests)
    integers = _integers(requests) + _integers([v.get("parameters", []) for v in verbs])
    assert len(integers) > 10
    unbounded = [where for where, node in integers if "maximum" not in node]
    assert not unbounded, unbounded
    # The typed body still answers in the service's words, and checks the options once.
    odd = svc.call("POST", "/v1/recall", svc.token_a, json={"query": "x", "options": [1]})
    assert odd.status_code == 400 and odd.json() == {
        "error": "field 'options': an object of recall options"}
    odd = svc.call("POST", "/v1/remember", svc.token_a, json={"records": ["a note"]})
    assert odd.status_code == 400 and "records.0" in odd.json()["error"]
    ok = svc.call("POST", "/v1/recall", svc.token_a,
                  json={"query": "ferry", "options": {"top_k": 2, "turn_weight": 0}})
    assert ok.status_code == 200 and len(ok.json()["hits"]) <= 2
