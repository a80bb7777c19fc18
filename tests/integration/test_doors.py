"""Every door stores the same record as the same memory and keeps the same limits: the
Python API, the CLI (a subprocess), MCP over stdio and over HTTP, the HTTP service and the
LangGraph store, on the real server with the real clients. They had drifted apart: another
kind and source over /v1/remember, other bounds over MCP (docs/decisions.md, "What an
agent stores is a semantic memory by the agent")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from test_service import Service, svc  # noqa: F401 (a fixture)

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.base.types import MemoryOut
from graphmem.base.vocabulary import AGENT_KIND, AGENT_SOURCE, MAX_TOP_K
from graphmem.integrations.langgraph import GraphMemStore

TEXT = "The staging database is refreshed from production every Sunday night"
#: What an agent hands over: a fact, by the agent (the agent doors say so by default).
RECORD = {"text": TEXT, "kind": "fact", "source": AGENT_SOURCE}


def _env(mem: GraphMem, scope: str) -> dict[str, str]:
    s = mem.settings
    return {**os.environ, "NEO4J_URI": s.neo4j_uri,
            "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(), "GRAPHMEM_SCOPE": scope}


def _cli(mem: GraphMem, scope: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graphmem", *args, "--json"], input=stdin,
                          env=_env(mem, scope), text=True, capture_output=True, timeout=300)


async def _over_mcp(client: ClientSession) -> tuple[bool, bool, bool]:
    """Store the record; then whether recall refuses one past the bound and takes the bound."""
    await client.initialize()
    stored = await client.call_tool("memory_store", {"text": TEXT, "kind": "fact"})
    assert not stored.is_error, stored.content
    over = await client.call_tool("memory_recall", {"query": "staging", "top_k": MAX_TOP_K + 1})
    at = await client.call_tool("memory_recall", {"query": "staging", "top_k": MAX_TOP_K})
    return stored.is_error, over.is_error, not at.is_error


def test_the_same_record_is_the_same_memory_with_the_same_limits_at_every_door(
        svc: Service) -> None:  # noqa: F811
    mem = svc.mem
    scopes = {door: f"{svc.a}-{door}" for door in ("api", "cli", "stdio", "langgraph")}
    scopes["http"], scopes["mcp-http"] = svc.a, svc.b
    refused: dict[str, bool] = {}
    taken: dict[str, bool] = {}

    # The Python API.
    mem.remember(RECORD, scope=scopes["api"])
    with pytest.raises(InputError):
        mem.recall("staging", scope=scopes["api"], top_k=MAX_TOP_K + 1)
    refused["api"] = True
    taken["api"] = bool(mem.recall("staging", scope=scopes["api"], top_k=MAX_TOP_K).hits)

    # The CLI, as an agent's shell runs it.
    done = _cli(mem, scopes["cli"], "remember", stdin=json.dumps(RECORD))
    assert done.returncode == 0, done.stderr
    over = _cli(mem, scopes["cli"], "recall", "staging", "--top-k", str(MAX_TOP_K + 1))
    refused["cli"] = over.returncode == 1 and "top" in over.stderr
    taken["cli"] = _cli(mem, scopes["cli"], "recall", "staging", "--top-k",
                        str(MAX_TOP_K)).returncode == 0

    # MCP over stdio (its own process) and over HTTP (the service's /mcp, with a token).
    stdio = StdioServerParameters(command=sys.executable, args=["-m", "graphmem", "mcp"],
                                  env=_env(mem, scopes["stdio"]))

    async def over_stdio() -> tuple[bool, bool, bool]:
        async with stdio_client(stdio) as (read, write), ClientSession(read, write) as c:
            return await _over_mcp(c)

    async def over_http() -> tuple[bool, bool, bool]:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {svc.token_b}"})
        async with client, streamable_http_client(f"{svc.url}/mcp/", http_client=client) as (
                read, write), ClientSession(read, write) as c:
            return await _over_mcp(c)

    for door, run in (("stdio", over_stdio), ("mcp-http", over_http)):
        _, refused[door], taken[door] = anyio.run(run)

    # The HTTP service.
    stored = svc.call("POST", "/v1/remember", svc.token_a, json={"records": [RECORD]})
    assert stored.status_code == 200, stored.text
    over = svc.call("POST", "/v1/recall", svc.token_a,
                    json={"query": "staging", "options": {"top_k": MAX_TOP_K + 1}})
    refused["http"] = over.status_code == 400 and "top_k" in over.json()["error"]
    taken["http"] = svc.call("POST", "/v1/recall", svc.token_a, json={
        "query": "staging", "options": {"top_k": MAX_TOP_K}}).status_code == 200

    # The LangGraph store: a put's value is the record, its key the id.
    store = GraphMemStore(mem, root=scopes["langgraph"])
    scopes["langgraph"] = store.scope(("ops",))
    store.put(("ops",), "staging", {"text": TEXT})
    with pytest.raises(InputError):
        store.search(("ops",), query="staging", limit=MAX_TOP_K + 1)
    refused["langgraph"] = True
    taken["langgraph"] = bool(store.search(("ops",), query="staging", limit=MAX_TOP_K))

    try:
        found: dict[str, MemoryOut] = {}
        for door, scope in scopes.items():
            mine = [m for m in mem.recent(scope, limit=10) if m.text == TEXT]
            assert len(mine) == 1, (door, mine)
            found[door] = mine[0]
        seen = {door: (m.kind, m.source, m.confidence, m.importance)
                for door, m in found.items()}
        assert set(seen.values()) == {seen["api"]}, seen
        assert seen["api"][:2] == (AGENT_KIND, AGENT_SOURCE)
        assert refused == dict.fromkeys(scopes, True), refused
        assert taken == dict.fromkeys(scopes, True), taken
    finally:
        for door, scope in scopes.items():
            if door not in ("http", "mcp-http"):  # the service's own, dropped by svc
                mem.drop_scope(scope)


def test_every_door_says_one_error_the_same_way(svc: Service) -> None:  # noqa: F811
    # A read-only token writing, an unknown id: one line, the same words, at each door.
    from graphmem.mcp import Access, build

    reader: Callable[[], Access] = lambda: Access(svc.a, False, "doors")  # noqa: E731
    server = build(svc.mem, access=reader)
    http = svc.call("POST", "/v1/remember", svc.reader, json={"text": "I may not"})
    with pytest.raises(Exception) as over_mcp:
        anyio.run(server.call_tool, "memory_store", {"text": "I may not"})
    assert http.status_code == 403
    assert http.json()["error"] == str(over_mcp.value).split(": ", 1)[-1] \
        == "this token may only read"
    missing = svc.call("POST", "/v1/feedback", svc.token_a, json={"id": "m-nope", "used": True})
    # The service said version 0.1.0 whatever the package's was; MCP says the package's.
    assert svc.call("GET", "/openapi.json", None).json()["info"]["version"] == \
        metadata.version("graphmem")
    writer = build(svc.mem, access=lambda: Access(svc.a, True, "doors"))
    with pytest.raises(Exception) as unknown:
        anyio.run(writer.call_tool, "memory_feedback", {"memory_id": "m-nope", "used": True})
    assert missing.status_code == 404
    assert missing.json()["error"] in str(unknown.value)
