"""Strands Agents reaches graphmem over MCP: Strands' own MCPClient (what `Agent(tools=
[client])` hands an agent) starts graphmem's MCP server and calls its tools on the real
server. Strands pins mcp < 2.2 and graphmem's server needs 2.3, so this runs in an
environment of its own without graphmem (.ci/run makes it): graphmem is the command in
GRAPHMEM_BIN, configured by the environment as any MCP host configures it."""

from __future__ import annotations

import json
import os
import uuid

from mcp import StdioServerParameters, stdio_client
from strands.tools.mcp import MCPClient


def _text(result: dict) -> str:
    return " ".join(str(c.get("text", "")) for c in result["content"])


def test_strands_stores_and_recalls_through_graphmem_mcp() -> None:
    env = {**os.environ, "GRAPHMEM_SCOPE": f"test:strands-{uuid.uuid4().hex[:8]}"}
    server = StdioServerParameters(command=os.environ["GRAPHMEM_BIN"], args=["mcp"], env=env)
    with MCPClient(lambda: stdio_client(server)) as client:
        tools = {t.tool_name: t for t in client.list_tools_sync()}
        assert {"memory_store", "memory_recall", "memory_forget"} <= set(tools)
        stored = client.call_tool_sync("t1", "memory_store",
                                       {"text": "My sister Eva lives in Porto"})
        assert stored["status"] == "success", stored
        found = client.call_tool_sync("t2", "memory_recall",
                                      {"query": "Where does my sister live?", "top_k": 3})
        assert found["status"] == "success" and "Eva lives in Porto" in _text(found)
        # A bound every door keeps, refused in graphmem's words.
        refused = client.call_tool_sync("t3", "memory_recall",
                                        {"query": "Eva", "top_k": 100_000})
        assert refused["status"] == "error" and "top_k" in _text(refused), refused
        memory_id = json.loads(_text(stored))["outcomes"][0]["id"]
        gone = client.call_tool_sync("t4", "memory_forget", {"memory_id": memory_id,
                                                              "hard": True})
        assert gone["status"] == "success", gone
