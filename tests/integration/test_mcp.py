"""`graphmem mcp` driven by the MCP SDK's own client sessions over stdio and streamable
HTTP, on the real server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from importlib import metadata

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from graphmem.api import GraphMem
from graphmem.base.errors import InputError

TOOLS = {"memory_store", "memory_recall", "memory_update", "memory_forget",
         "memory_consolidate", "memory_feedback", "memory_context"}


def _server(mem: GraphMem, **env: str) -> StdioServerParameters:
    s = mem.settings
    return StdioServerParameters(
        command=sys.executable, args=["-m", "graphmem", "mcp"],
        env={**os.environ, "NEO4J_URI": s.neo4j_uri,
             "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(),
             "GRAPHMEM_SCOPE": s.scope, **env})


def _payload(result) -> object:
    text = result.content[0].text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def test_an_agent_stores_recalls_and_gives_feedback_over_mcp(mem: GraphMem) -> None:
    async def session() -> None:
        async with stdio_client(_server(mem)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) >= TOOLS
            assert tools["memory_recall"].input_schema["properties"]["query"]["description"]

            stored = await client.call_tool("memory_store", {
                "text": "The team's on-call rotation changes every Monday at 09:00",
                "kind": "procedural", "tags": ["ops"]})
            assert not stored.is_error, stored.content
            created = _payload(stored)["outcomes"][0]
            assert created["status"] == "created"

            recalled = await client.call_tool("memory_recall", {
                "query": "when does on-call rotate?", "top_k": 3, "diverse": True,
                "since": "2000-01-01T00:00:00Z"})
            hits = _payload(recalled)["hits"]
            assert hits and hits[0]["id"] == created["id"]

            used = await client.call_tool("memory_feedback",
                                          {"memory_id": created["id"], "used": True})
            assert _payload(used)["importance"] == 0.55

            context = await client.call_tool("memory_context", {})
            assert "on-call" in _payload(context)

            # Bad arguments and unknown ids are tool errors an agent can read.
            missing = await client.call_tool("memory_feedback",
                                             {"memory_id": "nope", "used": True})
            assert missing.is_error and "no memory with id 'nope'" in missing.content[0].text
            bad = await client.call_tool("memory_recall", {"query": "x", "top_k": 0})
            assert bad.is_error
            empty = await client.call_tool("memory_recall", {"query": "   "})
            assert empty.is_error and "empty" in empty.content[0].text

            forgot = await client.call_tool("memory_forget", {"memory_id": created["id"]})
            assert _payload(forgot)["mode"] == "soft"

    anyio.run(session)
    assert mem.get(limit=10)[0].lifecycle == "archived"  # it wrote in the test's scope


def test_a_lost_database_is_a_readable_tool_error(mem: GraphMem) -> None:
    async def session() -> None:
        params = _server(mem, NEO4J_URI="bolt://127.0.0.1:1", GRAPHMEM_CONNECT_TIMEOUT="1")
        async with stdio_client(params) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            result = await client.call_tool("memory_recall", {"query": "anything"})
            assert result.is_error
            assert "memory store unavailable" in result.content[0].text

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_agent_connects_over_streamable_http(mem: GraphMem) -> None:
    port = _free_port()
    params = _server(mem, GRAPHMEM_SESSION="standup")
    server = subprocess.Popen([*[params.command], *params.args, "--transport", "http",
                               "--port", str(port)], env=params.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            time.sleep(0.2)

        async def session() -> None:
            async with streamable_http_client(url) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                tools = {t.name for t in (await client.list_tools()).tools}
                assert tools >= TOOLS | {"memory_session", "memory_entities", "memory_links"}
                for text in ["Ana opened the standup with the release date",
                             "Ben said the release moves to Thursday because of Lisbon QA",
                             "Ana asked Ben to tell the Lisbon team"]:
                    stored = await client.call_tool("memory_store", {"text": text,
                                                                     "kind": "episodic"})
                    assert not stored.is_error, stored.content
                recalled = _payload(await client.call_tool(
                    "memory_recall", {"query": "when is the release?", "top_k": 3}))
                assert any("Thursday" in h["text"] for h in recalled["hits"])
                turns = await client.call_tool("memory_session", {"last": 2})
                said = [t["text"] for t in turns.structured_content["result"]]
                assert said == ["Ben said the release moves to Thursday because of Lisbon QA",
                                "Ana asked Ben to tell the Lisbon team"]
                named = await client.call_tool("memory_entities", {})
                assert "Lisbon" in {e["name"] for e in named.structured_content["result"]}
                links = await client.call_tool("memory_links",
                                               {"memory_id": recalled["hits"][0]["id"]})
                kinds = {link["type"] for link in links.structured_content["result"]}
                assert {"IN_SESSION", "NEXT"} <= kinds

        anyio.run(session)
    finally:
        server.terminate()
        out, err = server.communicate(timeout=30)
    assert out == ""  # results go to stdout, and a server has none: its logs are on stderr
    assert f"graphmem MCP serves on {url}" in err  # where to point a host, said once


def test_a_port_in_use_is_one_line_naming_it(mem: GraphMem) -> None:
    params = _server(mem)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for command in ([*params.args, "--transport", "http", "--port", str(port)],
                        ["-m", "graphmem", "serve", "--port", str(port)]):
            done = subprocess.run([params.command, *command], env=params.env,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 1, done.stderr  # was a logged traceback and exit 3
            assert f"127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
            assert "Traceback" not in done.stderr


def test_http_refuses_an_address_beyond_this_machine(mem: GraphMem) -> None:
    params = _server(mem)
    done = subprocess.run([*[params.command], *params.args, "--transport", "http", "--host",
                           "0.0.0.0"], env=params.env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert "listens on 127.0.0.1" in done.stderr and "Traceback" not in done.stderr


def test_every_tool_tells_a_host_what_it_does(mem: GraphMem) -> None:
    # Hosts auto-approve read-only tools and warn before destructive ones; an empty
    # version and docstring indentation were what the official inspector showed.
    async def session() -> None:
        async with stdio_client(_server(mem)) as (read, write), \
                ClientSession(read, write) as client:
            started = await client.initialize()
            assert started.server_info.version == metadata.version("graphmem")
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert all(t.annotations is not None and t.title for t in tools.values())
            assert tools["memory_recall"].annotations.read_only_hint is True
            assert tools["memory_forget"].annotations.destructive_hint is True
            assert tools["memory_store"].annotations.read_only_hint is False
            assert not [n for n, t in tools.items() if "\n    " in (t.description or "")]

    anyio.run(session)


def test_a_memory_is_read_by_id_and_an_unknown_id_is_an_error(mem: GraphMem) -> None:
    kept = mem.remember("The deploy window is Tuesday 14:00-16:00 UTC").outcomes[0].id
    archived = mem.remember("The old deploy window was Monday mornings").outcomes[0].id
    mem.forget(archived)  # soft: still found by id

    async def session() -> None:
        async with stdio_client(_server(mem)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            got = await client.call_tool("memory_get", {"memory_ids": [kept, archived]})
            assert not got.is_error, got.content
            assert {json.loads(c.text)["id"] for c in got.content} == {kept, archived}
            for tool, args in (("memory_get", {"memory_ids": [kept, "m-nope"]}),
                               ("memory_links", {"memory_id": "m-nope"})):
                missing = await client.call_tool(tool, args)
                assert missing.is_error and "m-nope" in missing.content[0].text

    anyio.run(session)


def test_an_argument_a_tool_does_not_take_is_refused_by_name(mem: GraphMem) -> None:
    # The SDK dropped unknown arguments: a misspelt `top_k` silently became the default,
    # and `visibility` on memory_store was ignored.
    async def session() -> None:
        async with stdio_client(_server(mem)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert all(t.input_schema.get("additionalProperties") is False
                       for t in tools.values())
            for tool, args, wrong in (
                    ("memory_recall", {"query": "deploy window", "topk": 3}, "topk"),
                    ("memory_store", {"text": "The deploy window moved to Wednesday",
                                      "visibility": "private"}, "visibility")):
                refused = await client.call_tool(tool, args)
                said = refused.content[0].text  # one line, as every door says it
                assert refused.is_error and said.endswith(f"field {wrong!r}: unknown field")
            over = await client.call_tool("memory_recall", {"query": "deploy", "top_k": 10**4})
            assert over.content[0].text.count("\n") == 0 and "field 'top_k'" in \
                over.content[0].text, over
            assert mem.recent(limit=5) == []  # the refused store wrote nothing
            fine = await client.call_tool("memory_recall", {"query": "deploy", "top_k": 3})
            assert not fine.is_error, fine.content

    anyio.run(session)


def test_every_door_takes_the_same_defaults_and_bounds(mem: GraphMem) -> None:
    # MCP's recall took 1-50 (default 8), every other door 1-1000 (default 10); context
    # tokens 100-4,000 against 50-100,000; session and entity lists 200 against 1,000.
    from graphmem.base import vocabulary as v
    from graphmem.base.options import RecallOptions
    from graphmem.mcp import build

    async def schemas() -> dict[str, dict]:
        return {t.name: t.input_schema["properties"]
                for t in await build(mem).list_tools()}

    tools = anyio.run(schemas)
    expected = {("memory_recall", "top_k"): (1, v.MAX_TOP_K, v.TOP_K),
                ("memory_context", "max_tokens"): (v.MIN_CONTEXT_TOKENS,
                                                   v.MAX_CONTEXT_TOKENS, v.CONTEXT_TOKENS),
                ("memory_session", "last"): (1, v.MAX_LISTED, v.SESSION_TURNS),
                ("memory_entities", "limit"): (1, v.MAX_LISTED, v.ENTITIES)}
    for (tool, arg), bounds in expected.items():
        p = tools[tool][arg]
        assert (p["minimum"], p["maximum"], p["default"]) == bounds, (tool, p)
    assert RecallOptions().top_k == v.TOP_K
    for call in (lambda: mem.recall("anything", top_k=v.MAX_TOP_K + 1),
                 lambda: mem.context(max_tokens=v.MAX_CONTEXT_TOKENS + 1),
                 lambda: mem.entities(limit=v.MAX_LISTED + 1),
                 lambda: mem.session_turns("s", last=v.MAX_LISTED + 1)):
        with pytest.raises(InputError):
            call()


def test_recall_answers_in_brief_unless_asked_for_details(mem: GraphMem) -> None:
    # Each recall answered ~6 KB of scoring internals: heavy in a model's context.
    mem.remember([{"text": t, "session": "standup"} for t in (
        "Ana opened the standup with the release date",
        "Ben said the release moves to Thursday because of Lisbon QA")])

    async def session() -> None:
        async with stdio_client(_server(mem)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            args = {"query": "when is the release?"}
            brief = await client.call_tool("memory_recall", args)
            full = await client.call_tool("memory_recall", {**args, "details": True})
            hits = _payload(brief)["hits"]
            assert hits and all(set(h) == {"id", "text", "kind", "score", "created_at", "why"}
                                for h in hits)
            assert hits[0]["why"].startswith("the query's")
            detailed = _payload(full)["hits"]
            # The same memories; their order may differ, since the first recall's
            # reinforcement can land before the second ranks.
            assert {h["id"] for h in detailed} == {h["id"] for h in hits}
            assert "relevance" in detailed[0]
            assert len(brief.content[0].text) * 2 < len(full.content[0].text)

    anyio.run(session)
