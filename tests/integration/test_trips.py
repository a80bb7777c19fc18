"""Neo4j's round trips are told by query name to a listener (`graph.trips`, what `bench
verbs` splits a verb's server time by), from every thread a call uses."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from graphmem.api import GraphMem
from graphmem.graph.trips import listening, trip

pytestmark = pytest.mark.integration


def test_every_round_trip_of_a_write_and_a_recall_is_told_by_name(mem: GraphMem) -> None:
    told: list[tuple[str, str]] = []

    @contextmanager
    def listener(name: str) -> Iterator[None]:
        told.append((name, threading.current_thread().name))
        yield

    with listening(listener):
        mem.remember([{"text": "The ferry to Lisbon leaves at nine.", "session": "s"},
                      {"text": "Nadia keeps the harbour keys.", "session": "s"}])
        mem.recall("when does the ferry leave")
        mem.flush()  # recall's reinforcement, written on a thread of its own
    names = {name for name, _ in told}
    assert {"ingest/create_memories", "commit", "recall/retrieve", "recall/text_lists",
            "recall/reinforce"} <= names
    assert len({thread for _, thread in told}) > 1  # the reads' and writers' threads too
    told.clear()
    mem.recall("who keeps the keys")
    assert told == []  # no one listens now
    with listening(listener), pytest.raises(RuntimeError, match="one listener"), \
            listening(listener):
        pass
    with trip("anything"):  # nobody listening: nothing happens
        pass
