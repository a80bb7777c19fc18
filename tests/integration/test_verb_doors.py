"""A verb added to the verb table reaches every door with nothing else written: the CLI
gets a command, MCP a tool and the service a route, each made from the verb's declared
parameters, and each answers what the facade does (the real server, the real clients:
Typer's runner, the MCP SDK's client, an HTTP client on the service's app)."""

from __future__ import annotations

import json

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from pydantic import Field
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.base.verbs import VERBS, Declared, Verb
from graphmem.cli import make_app
from graphmem.mcp import build
from graphmem.service.app import create_app

pytestmark = pytest.mark.integration


class CountArgs(Declared):
    """`count`'s parameters: none besides the scope (its `all_scopes` stays out of reach
    of a door, as a scope's grant requires)."""


#: A verb the table does not have: the facade's `count`, offered at every door.
COUNT = Verb("count", "How many memories", "read", True, cli="count", mcp="memory_count",
             http="GET /v1/count", args=CountArgs)


class LimitArgs(Declared):
    """A bounded parameter, to see the bound hold at the made doors."""

    limit: int = Field(3, ge=1, le=5, description="How many, most mentioned first.")


#: `entities` under other names, with a tighter bound than the table's own.
FEW_ENTITIES = Verb("entities", "A few names", "read", True, cli="names",
                    mcp="memory_names", http="GET /v1/names", args=LimitArgs)


def test_a_verb_added_to_the_table_is_found_at_every_door(mem: GraphMem) -> None:
    table = (*(v for v in VERBS if v.name != "entities"), COUNT, FEW_ENTITIES)
    mem.remember(["Caroline moved to Lisbon in May", "Melanie paints with Caroline"])
    scope = mem.settings.scope
    want = mem.count(scope=scope)
    assert want == 2

    # The CLI: a command under the table's name, its result as JSON on stdout.
    s = mem.settings
    env = {"NEO4J_URI": s.neo4j_uri, "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(),
           "GRAPHMEM_SCOPE": scope, "GRAPHMEM_WARM": "off"}
    cli = make_app(table)
    done = CliRunner().invoke(cli, ["count", "--json"], env=env)
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout) == want
    names = CliRunner().invoke(cli, ["names", "--limit", "6"], env=env)
    assert names.exit_code == 1 and "limit" in names.stderr

    # MCP: a tool with the verb's title and hints, through the SDK's own client.
    async def over_mcp() -> tuple[object, bool, object]:
        async with Client(build(mem, table=table)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["memory_count"].title == "How many memories"
            assert tools["memory_count"].annotations.read_only_hint
            assert tools["memory_names"].input_schema["properties"]["limit"]["maximum"] == 5
            counted = await client.call_tool("memory_count", {})
            over = await client.call_tool("memory_names", {"limit": 6})
            named = await client.call_tool("memory_names", {"limit": 2})
            return counted.structured_content, over.is_error, named.structured_content

    counted, refused, named = anyio.run(over_mcp)
    assert counted == {"result": want}
    assert refused
    assert [e["name"] for e in named["result"]] == [e.name for e in mem.entities(limit=2)]

    # The service: a route with the verb's parameters in its OpenAPI schema, within the
    # caller's grant.
    token = mem.tokens.create(name="verb-doors", scopes=[scope])
    other = mem.tokens.create(name="verb-doors-other", scopes=[f"{scope}-other"])
    try:
        service = GraphMem(mem.settings, embedder=mem.embedder)
        with TestClient(create_app(service, table=table)) as http:
            schema = http.get("/openapi.json").json()
            assert schema["paths"]["/v1/count"]["get"]["summary"] == "How many memories"
            limit = next(p for p in schema["paths"]["/v1/names"]["get"]["parameters"]
                         if p["name"] == "limit")
            assert limit["schema"]["maximum"] == 5
            auth = {"Authorization": f"Bearer {token.token}"}
            assert http.get("/v1/count", headers=auth).json() == want
            assert http.get("/v1/names", params={"limit": 6}, headers=auth).status_code == 400
            assert http.get("/v1/count", params={"scope": f"{scope}-other"},
                            headers=auth).status_code == 403
            assert http.get("/v1/count", headers={
                "Authorization": f"Bearer {other.token}"}).json() == 0
    finally:
        for t in (token, other):
            mem.tokens.revoke(t.info.id)
