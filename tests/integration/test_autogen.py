"""GraphMemMemory is AutoGen's Memory, driven by AutoGen itself on the real server: an
AssistantAgent on autogen_ext's ReplayChatCompletionClient is handed what graphmem
recalls for the task (a system message before the model call, and the MemoryQueryEvent
AutoGen emits). One LoCoMo conversation added a turn at a time recalls as well as its
transcript (printed)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core.memory import MemoryContent, MemoryMimeType
from autogen_ext.models.replay import ReplayChatCompletionClient

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.bench import ModeScores
from graphmem.bench.slots import slot_recall
from graphmem.integrations.autogen import GraphMemMemory
from graphmem.write.records import Numbered


def _text(text: str, **metadata: object) -> MemoryContent:
    return MemoryContent(content=text, mime_type=MemoryMimeType.TEXT, metadata=metadata)


def test_an_assistant_is_handed_what_graphmem_recalls(mem: GraphMem) -> None:
    scope = f"{mem.settings.scope}-autogen"
    memory = GraphMemMemory(mem, scope=scope)
    model = ReplayChatCompletionClient(["She lives in Porto."])
    agent = AssistantAgent("helper", model_client=model, memory=[memory])

    async def scenario() -> list:
        await memory.add(_text("My sister Eva moved to Porto last spring", speaker="dana"))
        await memory.add(_text("The team offsite is in Rome in June", kind="episodic"))
        result = await agent.run(task="Where does my sister live?")
        return list(result.messages)

    try:
        messages = asyncio.run(scenario())
        events = [m for m in messages if isinstance(m, MemoryQueryEvent)]
        assert events and events[0].content[0].content == "My sister Eva moved to Porto last spring"
        assert events[0].content[0].metadata["speaker"] == "dana"
        # The model was called with the recall as a system message, before the task.
        sent = model.create_calls[0]["messages"]
        system = [m.content for m in sent if type(m).__name__ == "SystemMessage"]
        assert any("1. My sister Eva moved to Porto last spring" in s for s in system)
        kinds = {m.kind for m in mem.get(meta=None, scope=scope, ids=[
            h.id for h in mem.recall("offsite Rome", scope=scope, top_k=2).hits])}
        assert kinds == {"semantic", "episodic"}  # an agent's fact, unless it names a kind
        with pytest.raises(InputError, match="not stored"):
            asyncio.run(memory.add(_text("my key is AKIAIOSFODNN7EXAMPLE")))
        asyncio.run(memory.clear())
        assert mem.count(scope=scope) == 0
    finally:
        mem.drop_scope(scope)


def _through_memory(mem: GraphMem, scope: str):  # type: ignore[no-untyped-def]
    def write(records: list[Numbered]) -> str:
        mem.drop_scope(scope)
        memory = GraphMemMemory(mem, scope=scope)
        for n in records:  # each turn as an agent adds it: its session, time and speaker
            r = n.record
            asyncio.run(memory.add(_text(
                r.text, kind="episodic", session=r.session,
                created_at=r.created_at.isoformat(), speaker=r.metadata.get("speaker"),
                dia_id=r.metadata.get("dia_id"))))
        return scope
    return write


def test_a_conversation_through_autogen_recalls_as_its_transcript(
        mem: GraphMem, shared_data: Path,
        transcript_row: Callable[[GraphMem, Path], ModeScores]) -> None:
    scope = f"bench:slot:autogen:{uuid.uuid4().hex[:6]}"
    conv = shared_data / "locomo" / "conv-26.json"
    result = slot_recall(mem, conv, "autogen", _through_memory(mem, scope),
                         transcript=transcript_row(mem, conv))
    print("\n" + result.line())
    assert result.gap() <= 1.0, result
