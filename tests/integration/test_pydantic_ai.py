"""Pydantic AI reaches graphmem through its MCP toolset (`MCPToolset` over stdio, graphmem's
MCP server in its own process), driven by Pydantic AI's own FunctionModel on the real
server: one run stores a fact, a later run recalls it and is handed the memory. One
LoCoMo conversation stored turn by turn over that MCP path recalls as well as its
transcript (printed)."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from graphmem.api import GraphMem
from graphmem.bench import ModeScores
from graphmem.bench.slots import slot_recall
from graphmem.write.records import Numbered


def _client(mem: GraphMem, scope: str) -> Client:
    s = mem.settings
    env = {**os.environ, "NEO4J_URI": s.neo4j_uri, "GRAPHMEM_SCOPE": scope,
           "NEO4J_PASSWORD": s.neo4j_password.get_secret_value()}
    return Client(StdioTransport(command=sys.executable, args=["-m", "graphmem", "mcp"],
                                 env=env))


def _returned(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


def _scripted(tool: str, args: dict[str, object]) -> FunctionModel:
    """A model that calls `tool` once, then answers with what the tool returned."""
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert tool in {t.name for t in info.function_tools}
        returned = _returned(messages)
        if not returned:
            return ModelResponse(parts=[ToolCallPart(tool_name=tool, args=args)])
        return ModelResponse(parts=[TextPart(content=str(returned[-1].content))])
    return FunctionModel(respond)


def test_a_pydantic_ai_agent_stores_and_recalls_over_mcp(mem: GraphMem) -> None:
    scope = mem.settings.scope

    async def runs() -> tuple[str, str]:
        store = Agent(_scripted("memory_store", {"text": "My sister Eva lives in Porto"}),
                      toolsets=[MCPToolset(_client(mem, scope))])
        stored = await store.run("Remember that my sister Eva lives in Porto.")
        ask = Agent(_scripted("memory_recall", {"query": "Where does my sister live?"}),
                    toolsets=[MCPToolset(_client(mem, scope))])
        asked = await ask.run("Where does my sister live?")
        return stored.output, asked.output

    stored, asked = anyio.run(runs)
    assert "created" in stored
    assert "My sister Eva lives in Porto" in asked
    assert [m.text for m in mem.recall("Eva", top_k=1).hits] == ["My sister Eva lives in Porto"]


def _through_mcp(mem: GraphMem, scope: str):  # type: ignore[no-untyped-def]
    def write(records: list[Numbered]) -> str:
        mem.drop_scope(scope)

        async def store() -> None:
            async with _client(mem, scope) as client:
                for n in records:  # each turn stored as an agent stores it, with its time
                    r = n.record
                    done = await client.call_tool("memory_store", {
                        "text": r.text, "kind": "episodic", "session": r.session,
                        "created_at": r.created_at.isoformat(),
                        "metadata": {k: v for k, v in r.metadata.items() if k != "turn"}})
                    assert not done.is_error, done
        anyio.run(store)
        return scope
    return write


def test_a_conversation_over_mcp_recalls_as_its_transcript(
        mem: GraphMem, shared_data: Path,
        transcript_row: Callable[[GraphMem, Path], ModeScores]) -> None:
    scope = f"bench:slot:mcp:{uuid.uuid4().hex[:6]}"
    conv = shared_data / "locomo" / "conv-26.json"
    result = slot_recall(mem, conv, "mcp", _through_mcp(mem, scope),
                         transcript=transcript_row(mem, conv))
    print("\n" + result.line())
    assert result.gap() <= 1.0, json.dumps(result.model_dump())
