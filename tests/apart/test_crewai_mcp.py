"""CrewAI reaches graphmem over MCP: a CrewAI Agent resolves graphmem's MCP server
(`mcps=[MCPServerStdio(...)]`, CrewAI's own client) into the tools it would call, and they
store and recall on the real server. CrewAI pins mcp < 2 and graphmem's server needs 2.3,
so this runs in an environment of its own without graphmem (.ci/run makes it)."""

from __future__ import annotations

import json
import os
import uuid

from crewai import Agent
from crewai.mcp import MCPServerStdio

WANTED = ("memory_store", "memory_recall", "memory_forget")


def test_a_crewai_agent_gets_graphmem_tools_that_store_and_recall() -> None:
    env = {**os.environ, "GRAPHMEM_SCOPE": f"test:crewai-{uuid.uuid4().hex[:8]}"}
    # The agent's model is never called here: CrewAI only wants one named.
    os.environ.setdefault("OPENAI_API_KEY", "not-called")
    agent = Agent(role="helper", goal="remember what the user says", backstory="a helper",
                  llm="openai/gpt-4o-mini")
    resolved = agent.get_mcp_tools([MCPServerStdio(
        command=os.environ["GRAPHMEM_BIN"], args=["mcp"], env=env)])
    # CrewAI prefixes each tool's name with the server's.
    tools = {name: t for t in resolved for name in WANTED if t.name.endswith(name)}
    assert set(tools) == set(WANTED), [t.name for t in resolved]
    stored = json.loads(tools["memory_store"].run(text="My sister Eva lives in Porto"))
    assert stored["counts"] == {"created": 1}
    found = json.loads(tools["memory_recall"].run(query="Where does my sister live?",
                                                   top_k=2))
    assert found["hits"][0]["text"] == "My sister Eva lives in Porto"
    gone = tools["memory_forget"].run(memory_id=stored["outcomes"][0]["id"], hard=True)
    assert "deleted" in gone or "hard" in gone, gone
