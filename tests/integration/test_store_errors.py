"""A transaction the server gives up on (here a real deadlock between two writers)
becomes a one-line environment error, not a driver traceback."""

from __future__ import annotations

import threading
import time

from graphmem.api import GraphMem
from graphmem.base.errors import GraphmemError, Neo4jBusy
from graphmem.graph.store import Store, translate_errors


def test_a_deadlock_becomes_a_one_line_environment_error(mem: GraphMem, store: Store) -> None:
    mem.remember([{"id": "lock-a", "text": "Lock order test memory A"},
                  {"id": "lock-b", "text": "Lock order test memory B"}])
    driver, db = store.driver, store.database
    errors: list[GraphmemError] = []
    with driver.session(database=db) as s1, driver.session(database=db) as s2:
        t1, t2 = s1.begin_transaction(), s2.begin_transaction()
        t1.run("MATCH (m:Memory {id: 'lock-a'}) SET m.probe = 1").consume()
        t2.run("MATCH (m:Memory {id: 'lock-b'}) SET m.probe = 1").consume()

        def take(tx, other: str) -> None:
            try:
                with translate_errors(mem.settings):
                    tx.run("MATCH (m:Memory {id: $id}) SET m.probe = 2", id=other).consume()
            except GraphmemError as e:
                errors.append(e)

        waiting = threading.Thread(target=take, args=(t1, "lock-b"))
        waiting.start()
        time.sleep(0.5)  # t1 now waits for lock-b, held by t2
        take(t2, "lock-a")  # closes the cycle: the server picks a victim
        waiting.join(timeout=30)
        for tx in (t1, t2):
            if not tx.closed():
                tx.rollback()
    assert len(errors) == 1
    assert isinstance(errors[0], Neo4jBusy) and errors[0].exit_code == 2
    assert "DeadlockDetected" in errors[0].one_line() and "\n" not in errors[0].one_line()
