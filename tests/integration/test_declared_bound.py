"""A bound declared once reaches every door: a tighter `top_k` added to RecallOptions'
declaration (graphmem.base.verbs) is refused, in the same words, by the Python API, the CLI,
MCP over stdio (whose tool schema says it too) and the HTTP service, on the real server.
The CLI and MCP run as their own processes with the bound added before graphmem loads,
as an edit of the declaration would be."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import annotated_types
import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from test_service import Service, svc  # noqa: F401 (a fixture)

from graphmem.base.errors import InputError
from graphmem.base.options import RecallOptions

TIGHTER = 7
#: Python run before graphmem's doors load: the declaration of top_k gains a bound.
ADD_BOUND = ("import annotated_types, graphmem.base.options as o; "
             "o.RecallOptions.model_fields['top_k'].metadata.append("
             f"annotated_types.Le({TIGHTER})); o.RecallOptions.model_rebuild(force=True); ")
RUN_CLI = ADD_BOUND + "import sys; from graphmem.cli import main; main()"
SAID = f"Input should be less than or equal to {TIGHTER}"


@pytest.fixture
def tighter() -> Iterator[None]:
    field = RecallOptions.model_fields["top_k"]
    before = list(field.metadata)
    field.metadata.append(annotated_types.Le(TIGHTER))
    RecallOptions.model_rebuild(force=True)
    yield
    field.metadata[:] = before
    RecallOptions.model_rebuild(force=True)


def _env(service: Service) -> dict[str, str]:
    s = service.mem.settings
    return {**os.environ, "NEO4J_URI": s.neo4j_uri, "GRAPHMEM_SCOPE": service.a,
            "NEO4J_PASSWORD": s.neo4j_password.get_secret_value()}


def _cli(service: Service, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN_CLI, *args, "--json"], text=True,
                          env=_env(service), capture_output=True, timeout=300)


async def _mcp(service: Service) -> tuple[object, bool, str, bool]:
    """The tool schema's top_k maximum, whether one past it is refused and how, and
    whether the bound itself is taken."""
    server = StdioServerParameters(command=sys.executable, args=["-c", RUN_CLI, "mcp"],
                                   env=_env(service))
    async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        tools = {t.name: t for t in (await client.list_tools()).tools}
        maximum = tools["memory_recall"].input_schema["properties"]["top_k"].get("maximum")
        over = await client.call_tool("memory_recall", {"query": "ferry", "top_k": TIGHTER + 1})
        at = await client.call_tool("memory_recall", {"query": "ferry", "top_k": TIGHTER})
        said = " ".join(getattr(c, "text", "") for c in over.content)
        return maximum, over.is_error, said, not at.is_error


def test_a_bound_added_to_the_declaration_holds_at_every_door(
        svc: Service, tighter: None) -> None:  # noqa: F811
    svc.mem.remember({"text": "The ferry to the island leaves at nine."}, scope=svc.a)

    with pytest.raises(InputError, match=SAID) as refused:
        svc.mem.recall("ferry", scope=svc.a, top_k=TIGHTER + 1)
    assert refused.value.field == "top_k"
    assert svc.mem.recall("ferry", scope=svc.a, top_k=TIGHTER).hits

    over = _cli(svc, "recall", "ferry", "--top-k", str(TIGHTER + 1))
    assert over.returncode == 1 and SAID in over.stderr and "top_k" in over.stderr, over.stderr
    at = _cli(svc, "recall", "ferry", "--top-k", str(TIGHTER))
    assert at.returncode == 0 and json.loads(at.stdout)["hits"], at.stderr

    maximum, refused_mcp, said, taken = anyio.run(_mcp, svc)
    assert maximum == TIGHTER and refused_mcp and SAID in said and "top_k" in said, said
    assert taken

    http = svc.call("POST", "/v1/recall", svc.token_a,
                    json={"query": "ferry", "options": {"top_k": TIGHTER + 1}})
    assert http.status_code == 400 and SAID in http.text and "top_k" in http.text, http.text
    assert svc.call("POST", "/v1/recall", svc.token_a,
                    json={"query": "ferry", "options": {"top_k": TIGHTER}}).status_code == 200
