"""GraphMemSession is the OpenAI Agents SDK's Session and `memory_tools` its memory tools,
driven by the SDK's own Runner and ScriptedModel on the real server: a run's items are
the session's history on the next run (exactly as added), pop and clear work, and a new
session's agent finds the first conversation through `recall_memories`. One LoCoMo
conversation added item by item recalls as well as its transcript (printed)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from agents import Agent, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.bench import ModeScores
from graphmem.bench.slots import slot_recall
from graphmem.integrations.openai_agents import GraphMemSession, memory_tools
from graphmem.write.records import Numbered


def test_an_agent_keeps_its_history_and_recalls_another_session(mem: GraphMem) -> None:
    scope = mem.settings.scope
    first = GraphMemSession(f"chat-{uuid.uuid4().hex[:6]}", mem)
    model = ScriptedModel([[assistant_message("Noted: Eva lives in Porto.")],
                           [assistant_message("Porto, as you said.")]])
    agent = Agent(name="helper", model=model)

    async def scenario() -> list:
        await Runner.run(agent, "My sister Eva moved to Porto last spring.", session=first)
        await Runner.run(agent, "Where does she live?", session=first)
        return await first.get_items()

    items = asyncio.run(scenario())
    # The second call was handed the first run's items, as the SDK's own sessions do.
    handed = model.last_call.input if model.last_call else []
    assert [i.get("role") for i in handed[:2]] == ["user", "assistant"]
    assert handed[0]["content"] == "My sister Eva moved to Porto last spring."
    assert [i.get("role") for i in items] == ["user", "assistant", "user", "assistant"]
    assert items[:3] == handed[:3]  # given back exactly as added
    assert asyncio.run(first.get_items(limit=1)) == items[-1:]
    assert asyncio.run(first.get_items(limit=5000)) == items  # past the bound: all kept
    assert asyncio.run(first.get_items(limit=0)) == []
    assert asyncio.run(first.pop_item()) == items[-1]
    assert len(asyncio.run(first.get_items())) == 3

    # A new session: the agent calls recall_memories and is handed the earlier turn.
    asking = ScriptedModel([
        [function_call("recall_memories", {"query": "Where does my sister live?"},
                       call_id="c1")],
        [assistant_message("In Porto.")]])
    recalling = Agent(name="helper", model=asking, tools=memory_tools(mem, scope=scope))
    second = GraphMemSession(f"chat-{uuid.uuid4().hex[:6]}", mem)
    result = asyncio.run(Runner.run(recalling, "Remind me where my sister lives",
                                    session=second))
    assert result.final_output == "In Porto."
    output = [i for i in (asking.last_call.input if asking.last_call else [])
              if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert output and "Porto" in str(output[0]["output"])

    # A secret is refused whole, naming it; clear forgets the session for good.
    with pytest.raises(InputError, match="item 1 of 1 refused"):
        asyncio.run(first.add_items([{"role": "user",
                                      "content": "my key is AKIAIOSFODNN7EXAMPLE"}]))
    asyncio.run(first.clear_session())
    assert asyncio.run(first.get_items()) == []
    assert len(asyncio.run(second.get_items())) > 0


def _through_sessions(mem: GraphMem, scope: str):  # type: ignore[no-untyped-def]
    def write(records: list[Numbered]) -> str:
        mem.drop_scope(scope)
        for n in records:  # each turn added when it was said, as an agent adds it
            r = n.record
            with mem.at(r.created_at) as then:
                asyncio.run(GraphMemSession(r.session or "", then, scope=scope).add_items(
                    [{"role": "user", "content": r.text}]))
        return scope
    return write


def test_a_conversation_through_sessions_recalls_as_its_transcript(
        mem: GraphMem, shared_data: Path,
        transcript_row: Callable[[GraphMem, Path], ModeScores]) -> None:
    scope = f"bench:slot:openai-agents:{uuid.uuid4().hex[:6]}"
    conv = shared_data / "locomo" / "conv-26.json"
    result = slot_recall(mem, conv, "openai-agents", _through_sessions(mem, scope), by_text=True,
                         transcript=transcript_row(mem, conv))
    print("\n" + result.line())
    assert result.gap() <= 1.0, result


def test_a_session_id_that_is_not_unicode_is_refused_as_input(mem: GraphMem) -> None:
    from graphmem.base.errors import InputError

    with pytest.raises(InputError, match="surrogate") as refused:
        GraphMemSession("chat-\ud800", mem)
    assert refused.value.field == "session_id"


def _user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_an_archived_item_stays_in_the_history_and_clear_forgets_it_for_good(
        mem: GraphMem) -> None:
    session = GraphMemSession(f"chat-{uuid.uuid4().hex[:6]}", mem)
    said = [_user(f"Item {n}: the ferry to Lagos leaves at {n} pm") for n in range(3)]
    asyncio.run(session.add_items(said))
    middle = mem.session_turns(session.session)[1]
    mem.forget(middle.id)  # archived, as a sweep archives an old turn
    assert asyncio.run(session.get_items()) == said  # the Runner is handed every item
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    store = mem.ops.core.store
    left = store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) WHERE m.text CONTAINS 'ferry to Lagos' "
        "OR any(k IN keys(m) WHERE k STARTS WITH 'meta.' AND toString(m[k]) CONTAINS 'Lagos') "
        "RETURN count(m) AS n", scope=mem.settings.scope, database_=store.database).records
    assert left[0]["n"] == 0  # forgotten for good: no text and no item JSON stays


def test_concurrent_pops_each_take_an_item_of_their_own(mem: GraphMem) -> None:
    session = GraphMemSession(f"chat-{uuid.uuid4().hex[:6]}", mem)
    said = [_user(f"Step {n} of the runbook") for n in range(6)]
    asyncio.run(session.add_items(said))

    async def pops() -> list:
        return await asyncio.gather(*(session.pop_item() for _ in range(4)))

    popped = asyncio.run(pops())
    assert sorted(p["content"] for p in popped) == sorted(i["content"] for i in said[2:])
    assert asyncio.run(session.get_items()) == said[:2]
