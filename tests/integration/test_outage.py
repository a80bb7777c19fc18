"""A server gone for seconds (every connection cut and new ones refused, as in a leader
change or a rolling restart) is waited for within GRAPHMEM_RETRY_S: writers and a reader
through the Python API all succeed and every acknowledged write is stored once; past the
budget a call fails cleanly, nothing half-written, and the next one succeeds."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Any

import neo4j
import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import Neo4jUnavailable
from graphmem.graph import retry

PLACES = ["the Oslo office", "the Lisbon warehouse", "the Osaka lab", "the Quito depot",
          "the Tartu studio"]


def _through(proxy: Any, mem: GraphMem, reinforce_every: float = 0.5,
             **update: Any) -> GraphMem:
    """A GraphMem of `mem`'s scope whose server is behind `proxy`."""
    settings = mem.settings.model_copy(update={
        "neo4j_uri": f"bolt://127.0.0.1:{proxy.port}", **update})
    return GraphMem(settings, embedder=mem.embedder, reinforce_every=reinforce_every)


def _stored(mem: GraphMem) -> Counter[str]:
    rows = mem.ops.core.store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) RETURN m.id AS id", scope=mem.settings.scope,
        database_=mem.ops.core.store.database).records
    return Counter(r["id"] for r in rows)


def test_ten_seconds_without_the_server_fail_no_call(mem: GraphMem, bolt_proxy: Any) -> None:
    failures: list[str] = []
    acknowledged: list[str] = []
    recalls = [0, 0]  # answered while the server was away, in all
    away = threading.Event()
    done = threading.Event()
    with _through(bolt_proxy, mem) as far:
        far.remember({"id": "first", "text": "The drill starts with one note"})

        def writer(w: int) -> None:
            for i in range(15):
                key = f"w{w}-{i}"
                text = f"Crate {key} was moved to {PLACES[(w + i) % len(PLACES)]}"
                try:
                    far.remember({"id": key, "text": text, "session": f"writer-{w}"})
                    acknowledged.append(key)
                except Exception as e:  # every failure is the finding
                    failures.append(f"{key}: {e!r} ({e.__cause__!r})")
                time.sleep(0.4)

        def reader() -> None:
            while not done.is_set():
                try:
                    far.recall("where was the crate moved?", reinforce=False)
                    recalls[0] += away.is_set()
                    recalls[1] += 1
                except Exception as e:
                    failures.append(f"recall: {e!r}")
                time.sleep(0.2)

        threads = [threading.Thread(daemon=True, target=writer, args=(w,)) for w in range(4)]
        threads.append(threading.Thread(daemon=True, target=reader))
        for t in threads:
            t.start()
        time.sleep(1.0)
        bolt_proxy.down()
        away.set()
        time.sleep(10.0)
        bolt_proxy.up()
        away.clear()
        for t in threads[:-1]:
            t.join(120)
        done.set()
        threads[-1].join(60)
        stuck = [t.name for t in threads if t.is_alive()]  # daemons: they hold no exit
    assert (failures, stuck) == ([], [])
    assert len(acknowledged) == 60 and recalls[1] > 10
    stored = _stored(mem)
    assert [k for k in acknowledged if stored[k] != 1] == []


def test_past_the_budget_a_call_fails_whole_and_the_next_succeeds(
        mem: GraphMem, bolt_proxy: Any) -> None:
    with _through(bolt_proxy, mem, retry_s=3.0) as far:
        far.remember({"id": "before", "text": "Backups run nightly at two"})
        bolt_proxy.down()
        try:
            started = time.monotonic()
            with pytest.raises(Neo4jUnavailable):
                far.remember([{"id": "during-1", "text": "Restores are tested monthly"},
                              {"id": "during-2", "text": "The tape library is in Basel"}])
            # Tried until the next pause would pass the budget, never past it (plus the
            # last try's own connection wait).
            took = time.monotonic() - started
            assert 3.0 - retry.LONGEST_PAUSE <= took <= 3.0 + 2 * far.settings.connect_timeout
            with pytest.raises(Neo4jUnavailable):
                far.recall("when do backups run?", reinforce=False)
            started = time.monotonic()  # doctor (and /readyz) says so now, not once back
            report = far.doctor()
            assert not report.reachable and not report.ok
            assert time.monotonic() - started < 1 + 2 * far.settings.connect_timeout
        finally:
            bolt_proxy.up()
        far.remember({"id": "after", "text": "The backup window moved to three"})
        assert far.recall("when do backups run?", reinforce=False).hits
    assert set(_stored(mem)) == {"before", "after"}


def test_a_commit_whose_answer_was_lost_counts_once(mem: GraphMem, bolt_proxy: Any) -> None:
    """The server commits, the connection breaks before the answer: the write is not run
    again on top of itself. A new text is reported created (not confirmed by its own
    first try), a confirmation and a recall's reinforcement count once, feedback once."""
    text = "The fire drill is on the first Monday of each month"
    with _through(bolt_proxy, mem, reinforce_every=3600) as far:
        far.remember({"id": "first", "text": "The drill starts with one note"})
        bolt_proxy.lose_commit_answers(1)
        created = far.remember(text)
        assert bolt_proxy.lost == 1
        assert [o.status for o in created.outcomes] == ["created"]
        memory = created.outcomes[0].id
        bolt_proxy.lose_commit_answers(1)
        confirmed = far.remember(text)
        assert bolt_proxy.lost == 2
        assert [o.status for o in confirmed.outcomes] == ["confirmed"]
        assert far.get([memory])[0].confirmation_count == 1
        hits = far.recall("when is the fire drill?").hits
        assert memory in [h.id for h in hits]
        bolt_proxy.lose_commit_answers(1)
        far.flush()  # the recall's reinforcement: one transaction for its hits
        assert bolt_proxy.lost == 3
        assert far.get([memory])[0].access_count == 1
        before = far.get([memory])[0].importance
        bolt_proxy.lose_commit_answers(1)
        far.feedback(memory, used=True)
        assert bolt_proxy.lost == 4
        echoed = far.get([memory])[0].importance
        far.feedback(memory, used=True)
        assert far.get([memory])[0].importance - echoed == pytest.approx(echoed - before)
    assert _stored(mem) == Counter({"first": 1, memory: 1})


def test_a_receipt_outlives_any_number_of_writes_landing_before_its_writer_asks(
        mem: GraphMem, bolt_proxy: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer whose commit answer was lost asks whether it landed once the server answers
    again; meanwhile others go on writing. Receipts kept by count (a scope's latest 100)
    forgot a landed confirmation after 100 more, and it was counted twice."""
    text = "The release train leaves every second Tuesday"
    with _through(bolt_proxy, mem, reinforce_every=3600) as far:
        made = far.remember(text).outcomes[0].id
        mem.remember({"id": "busy", "text": "A memory other writers keep using"})
        store = far.ops.core.store
        asked = store._landed

        def landed_after_traffic(scope: str, key: str) -> bool:
            for _ in range(150):  # counted writes of the same scope, each with a receipt
                mem.feedback("busy", used=True)
            return asked(scope, key)

        monkeypatch.setattr(store, "_landed", landed_after_traffic)
        bolt_proxy.lose_commit_answers(1)
        confirmed = far.remember(text)
        assert bolt_proxy.lost == 1
        assert [o.status for o in confirmed.outcomes] == ["confirmed"]
        assert far.get([made])[0].confirmation_count == 1


def test_a_forget_whose_answer_was_lost_says_what_it_did(mem: GraphMem,
                                                       bolt_proxy: Any) -> None:
    """A hard forget that committed, its answer lost with the connection, is not run again
    into "no memory with that id": its caller would think the memory still there (the
    service bench once counted one such forget lost). A soft one says it archived."""
    with _through(bolt_proxy, mem) as far:
        far.remember([{"id": "gone", "text": "The old VPN gateway is vpn1.example.org"},
                      {"id": "archived", "text": "The team wiki moved to Confluence"}])
        bolt_proxy.lose_commit_answers(1)
        hard = far.forget("gone", hard=True)
        assert bolt_proxy.lost == 1 and hard.mode == "hard"
        bolt_proxy.lose_commit_answers(1)
        soft = far.forget("archived")
        assert bolt_proxy.lost == 2 and soft.mode == "soft"
        assert far.get(["archived"])[0].lifecycle == "archived"
    assert _stored(mem) == Counter({"archived": 1})


def test_a_caller_gone_mid_transaction_leaves_no_lock_behind_the_proxy(
        mem: GraphMem, bolt_proxy: Any) -> None:
    """A process that ends inside an open transaction (a service stopped mid-write, an
    input's transaction, which has no timeout) releases its locks when it goes, also
    through the proxy: the proxy once closed the server's end without telling it, and the
    server held those locks until the transaction's timeout, or for ever without one
    (a later schema change then waited past CI's limit)."""
    mem.remember({"id": "held", "text": "The lock drill is on Tuesdays"})
    s = mem.settings
    child = (
        "import os, sys, neo4j\n"
        "uri, user, password, database, scope = sys.argv[1:]\n"
        "driver = neo4j.GraphDatabase.driver(uri, auth=(user, password))\n"
        "tx = driver.session(database=database).begin_transaction()  # no timeout\n"
        "tx.run('MATCH (m:Memory {scope: $scope}) SET m.held = true', scope=scope).consume()\n"
        "os._exit(0)  # gone, the transaction open\n")
    subprocess.run([sys.executable, "-c", child, f"bolt://127.0.0.1:{bolt_proxy.port}",
                    s.neo4j_user, s.neo4j_password.get_secret_value(), s.neo4j_database,
                    s.scope], check=True, timeout=120)
    store = mem.ops.core.store
    with store.driver.session(database=store.database) as session:
        # Fails (LockClientStopped) if the gone caller's lock is still held 10 s on.
        session.run(neo4j.Query("MATCH (m:Memory {scope: $scope}) SET m.held = false",
                                timeout=10), scope=s.scope).consume()


def test_receipts_are_kept_an_hour_then_pruned(mem: GraphMem) -> None:
    store, scope = mem.ops.core.store, mem.settings.scope
    mem.remember("The fire drill is on the first Monday")  # a counted write: a receipt now

    def receipts() -> dict[str, int]:
        rows = store.driver.execute_query(
            "MATCH (r:Receipt {scope: $scope}) RETURN r.key STARTS WITH 'old-' AS old, "
            "count(*) AS n", scope=scope, database_=store.database).records
        return {("old" if r["old"] else "new"): r["n"] for r in rows}

    store.driver.execute_query(  # as receipts written two hours ago would be
        "UNWIND range(1, 5) AS i CREATE (:Receipt {key: 'old-' + $scope + toString(i), "
        "scope: $scope, at: datetime() - duration('PT2H')})", scope=scope,
        database_=store.database)
    assert receipts() == {"old": 5, "new": 1}
    while store.prune_receipts():  # other scopes' expired ones may go first
        pass
    assert receipts() == {"new": 1}
