"""GraphMemBlock is a long-term block of LlamaIndex's own `Memory`, on the real server:
what the short-term memory flushes lands in graphmem, and a chat engine of another
session, on LlamaIndex's MockLLM (which answers with the prompt it was given), is handed
the earlier session's turns. One LoCoMo conversation put through the block recalls as
well as its transcript (printed)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path

from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage, MockLLM
from llama_index.core.memory import Memory

from graphmem.api import GraphMem
from graphmem.bench import ModeScores
from graphmem.bench.slots import slot_recall
from graphmem.integrations.llamaindex import GraphMemBlock
from graphmem.write.records import Numbered


def test_a_chat_engine_is_handed_what_another_session_flushed(mem: GraphMem) -> None:
    block = GraphMemBlock(mem=mem)
    first = Memory.from_defaults(session_id="s1", token_limit=40, chat_history_token_ratio=0.5,
                                 token_flush_size=20, memory_blocks=[block])

    async def chat() -> list[ChatMessage]:
        await first.aput_messages([
            ChatMessage(role="user", content="My sister Eva moved to Porto last spring."),
            ChatMessage(role="assistant", content="Noted, Eva is in Porto."),
            ChatMessage(role="user", content="I also adopted a dog named Rex in March."),
            ChatMessage(role="assistant", content="Rex, got it.")])
        return await first.aget()

    short_term = asyncio.run(chat())
    # The two oldest messages were flushed to the block, in their session, with roles.
    stored = mem.session_turns("s1")
    assert [m.text for m in stored] == ["My sister Eva moved to Porto last spring.",
                                        "Noted, Eva is in Porto."]
    assert [m.metadata["speaker"] for m in stored] == ["user", "assistant"]
    assert [m.content for m in short_term[-2:]] == [
        "I also adopted a dog named Rex in March.", "Rex, got it."]

    engine = SimpleChatEngine.from_defaults(
        llm=MockLLM(), memory=Memory.from_defaults(session_id="s2", memory_blocks=[block]))
    prompt = str(engine.chat("Where does my sister live?"))
    assert "- My sister Eva moved to Porto last spring." in prompt
    assert prompt.index("Porto") < prompt.index("user: Where does my sister live?")


def _through_block(mem: GraphMem):  # type: ignore[no-untyped-def]
    def write(records: list[Numbered]) -> str:
        scope = f"bench:slot:llamaindex:{uuid.uuid4().hex[:6]}"
        for n in records:  # each turn put when it was said
            r = n.record
            with mem.at(r.created_at) as then:
                asyncio.run(GraphMemBlock(mem=then, scope=scope).aput(
                    [ChatMessage(role="user", content=r.text)], session_id=r.session))
        return scope
    return write


def test_a_conversation_through_the_block_recalls_as_its_transcript(
        mem: GraphMem, shared_data: Path,
        transcript_row: Callable[[GraphMem, Path], ModeScores]) -> None:
    conv = shared_data / "locomo" / "conv-26.json"
    result = slot_recall(mem, conv, "llamaindex", _through_block(mem), by_text=True,
                         transcript=transcript_row(mem, conv))
    print("\n" + result.line())
    assert result.gap() <= 1.0, result
