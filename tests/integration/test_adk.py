"""GraphMemMemoryService is Google ADK's memory slot, driven by ADK itself on the real
server: a Runner with ADK's own MockModel writes a conversation, the session is added to
memory (twice, as apps do), and a second session's agent calls ADK's `load_memory` tool,
which finds the first conversation through graphmem's recall. One LoCoMo conversation
written through the slot recalls as well as its transcript (printed)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

from google.adk.agents import Agent
from google.adk.cli.agent_test_runner import MockModel
from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.sessions.session import Session
from google.adk.tools import load_memory
from google.genai import types

from graphmem.api import GraphMem
from graphmem.bench import ModeScores
from graphmem.bench.slots import slot_recall
from graphmem.integrations.adk import GraphMemMemoryService
from graphmem.write.records import Numbered

APP = "graphmem-test"


def _said(text: str, role: str = "model") -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


async def _run(runner: Runner, sessions: InMemorySessionService, user: str,
               text: str) -> Session:
    session = await sessions.create_session(app_name=APP, user_id=user)
    async for _ in runner.run_async(user_id=user, session_id=session.id,
                                    new_message=_said(text, "user")):
        pass
    found = await sessions.get_session(app_name=APP, user_id=user, session_id=session.id)
    assert found is not None
    return found


def test_an_adk_agent_recalls_an_earlier_session_through_load_memory(mem: GraphMem) -> None:
    service = GraphMemMemoryService(mem)
    user = f"dana-{uuid.uuid4().hex[:6]}"
    scope = service.scope(APP, user)
    sessions = InMemorySessionService()
    first = MockModel.create([_said("Noted: your sister Eva lives in Porto.")])
    asking = MockModel.create([
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
            name="load_memory", args={"query": "Where does my sister live?"}))]),
        _said("She lives in Porto.")])

    async def scenario() -> tuple[int, int]:
        runner = Runner(app_name=APP, agent=Agent(name="helper", model=first),
                        session_service=sessions, memory_service=service)
        told = await _run(runner, sessions, user, "My sister Eva moved to Porto last spring.")
        await service.add_session_to_memory(told)
        once = mem.count(scope=scope)
        await service.add_session_to_memory(told)  # ADK may add a session again
        runner = Runner(app_name=APP, agent=Agent(name="helper", model=asking,
                                                  tools=[load_memory]),
                        session_service=sessions, memory_service=service)
        await _run(runner, sessions, user, "Where does my sister live again?")
        return once, mem.count(scope=scope)

    try:
        once, twice = asyncio.run(scenario())
        assert once == twice == 2  # the user's turn and the agent's, once each
        # What the model was handed back by ADK's load_memory: the earlier session's turn.
        handed = asking.requests[1].contents[-1].parts[0].function_response
        assert handed is not None and handed.name == "load_memory"
        memories = handed.response.get("memories") or handed.response
        assert "Porto" in str(memories) and "Eva" in str(memories), handed.response
        hits = asyncio.run(service.search_memory(app_name=APP, user_id=user,
                                                 query="Where does Eva live?")).memories
        assert {h.author for h in hits} == {"user", "helper"} and hits[0].timestamp
        # Explicit memories, and one forgotten for good.
        asyncio.run(service.add_memory(app_name=APP, user_id=user, memories=[MemoryEntry(
            id="pref-1", content=_said("Dana prefers trains to planes"), author="helper")]))
        found = asyncio.run(service.search_memory(app_name=APP, user_id=user,
                                                  query="how does Dana like to travel"))
        assert found.memories[0].id == "entry-pref-1"
        asyncio.run(service.delete_memory(app_name=APP, user_id=user,
                                          memory_id="entry-pref-1"))
        assert mem.count(scope=scope) == 2
    finally:
        mem.drop_scope(scope)


def _through_adk(mem: GraphMem, user: str):  # type: ignore[no-untyped-def]
    service = GraphMemMemoryService(mem, root="bench-adk")

    def write(records: list[Numbered]) -> str:
        by_session: dict[str, list[Event]] = {}
        for n in records:
            r = n.record
            by_session.setdefault(r.session or "", []).append(Event(
                id=str(uuid.uuid4()), author=str(r.metadata.get("speaker")),
                content=_said(r.text, "user"), timestamp=r.created_at.timestamp(),
                custom_metadata={"dia_id": r.metadata.get("dia_id")}))
        for name, events in by_session.items():
            asyncio.run(service.add_session_to_memory(Session(
                id=name, app_name="locomo", user_id=user, events=events)))
        return service.scope("locomo", user)
    return write


def test_a_conversation_through_adk_recalls_as_its_transcript(
        mem: GraphMem, shared_data: Path,
        transcript_row: Callable[[GraphMem, Path], ModeScores]) -> None:
    user = f"reader-{uuid.uuid4().hex[:6]}"
    conv = shared_data / "locomo" / "conv-26.json"
    result = slot_recall(mem, conv, "adk", _through_adk(mem, user),
                         transcript=transcript_row(mem, conv))
    print("\n" + result.line())
    assert result.gap() <= 1.0, result
