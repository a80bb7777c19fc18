"""Conversation order for what agents write, on the real server: memories written one call
at a time into a session take their places by arrival, and every door — the importer,
`remember`, `remember_json`, the CLI, the MCP tools — builds the same conversation from
the same turns; forgets and updates keep the chain whole; two processes appending to one
session leave one chain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from graphmem.api import GraphMem
from graphmem.graph.store import Store

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026

WHEN = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
SESSIONS = {
    "standup": [
        ("alice", "Did the Helsinki office finally get its new coffee machine?"),
        ("bob", "Yes, the espresso is much better than in the old place."),
        ("alice", "Who is leading the Helsinki data-centre migration?"),
        ("bob", "Priya is, starting next week."),
    ],
    "retro": [
        ("bob", "The Helsinki migration window is the first weekend of June."),
        ("alice", "Then we freeze deploys from the Thursday before it."),
        ("bob", "Agreed, and Priya wants a rollback rehearsal too."),
    ],
}


def records() -> list[dict[str, Any]]:
    """The conversation as an agent hands it over: one record per turn, no position."""
    return [{"text": f"{who}: {said}", "session": name, "created_at": WHEN.isoformat(),
             "metadata": {"speaker": who}}
            for name, turns in SESSIONS.items() for who, said in turns]


def structure(store: Store, scope: str) -> dict[str, Any]:
    """What a conversation became, by text: each session's chain in order, each turn's
    place and context, and what each turn is about."""
    def rows(query: str) -> list[dict[str, Any]]:
        return [r.data() for r in store.driver.execute_query(
            query, scope=scope, database_=store.database).records]

    chains = rows("MATCH (s:Session {scope: $scope}) "
                  "MATCH (m:Memory)-[:IN_SESSION]->(s) WHERE m.session = s.id "
                  "WITH s, m ORDER BY m.position "
                  "WITH s, collect(m.text) AS texts "
                  "OPTIONAL MATCH (x:Memory {id: s.last, scope: $scope}) "
                  "RETURN s.name AS session, s.turns AS turns, texts, "
                  "last(texts) AS last_text, collect(x.text) AS last "
                  "ORDER BY session")
    edges = rows("MATCH (a:Memory {scope: $scope})-[r:NEXT]->(b:Memory) "
                 "RETURN a.text AS a, b.text AS b ORDER BY a")
    turns = rows("MATCH (m:Memory {scope: $scope}) "
                 "RETURN m.text AS text, m.position AS position, m.context AS context, "
                 "[(m)-[:ABOUT]->(e:Entity) | e.name] AS about ORDER BY text")
    for c in chains:
        assert c.pop("last") == [c.pop("last_text")]  # the session knows its end
    return {"chains": chains, "edges": edges, "turns": turns}


def expected_chains() -> list[dict[str, Any]]:
    return [{"session": name, "turns": len(turns),
             "texts": [f"{who}: {said}" for who, said in turns]}
            for name, turns in sorted(SESSIONS.items())]


def test_one_call_per_turn_builds_the_conversation_the_importer_builds(
        mem: GraphMem, store: Store, tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps({"sessions": [
        {"id": name, "date": WHEN.isoformat(),
         "turns": [{"speaker": who, "text": said} for who, said in turns]}
        for name, turns in SESSIONS.items()]}))
    imported, agent, batch = (f"{mem.settings.scope}:{d}" for d in ("import", "agent", "json"))
    try:
        mem.ingest([transcript], scope=imported)
        for record in records():
            report = mem.remember(record, scope=agent)
            assert report.counts == {"created": 1}
        mem.ops.remember_json("\n".join(json.dumps(r) for r in records()), scope=batch)
        want = structure(store, imported)
        assert want["chains"] == expected_chains()
        assert len(want["edges"]) == 5
        assert all(t["about"] for t in want["turns"])  # the speaker is the subject
        first = {f"{who}: {said}" for turns in SESSIONS.values() for who, said in turns[:1]}
        assert [t["text"] for t in want["turns"] if t["context"] is None] == sorted(first)
        assert structure(store, agent) == want
        assert structure(store, batch) == want
    finally:
        for scope in (imported, agent, batch):
            mem.drop_scope(scope)


def _mcp_server(mem: GraphMem, scope: str, **env: str) -> StdioServerParameters:
    s = mem.settings
    return StdioServerParameters(
        command=sys.executable, args=["-m", "graphmem", "mcp"],
        env={**os.environ, "NEO4J_URI": s.neo4j_uri,
             "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(),
             "GRAPHMEM_SCOPE": scope, **env})


def test_the_mcp_tools_and_the_cli_build_the_same_conversation(
        mem: GraphMem, store: Store) -> None:
    over_mcp, cli, alone = (f"{mem.settings.scope}:{d}" for d in ("mcp", "cli", "alone"))

    async def agent() -> None:
        async with stdio_client(_mcp_server(mem, over_mcp)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            for r in records():
                stored = await client.call_tool("memory_store", {
                    "text": r["text"], "kind": "episodic", "session": r["session"],
                    "metadata": r["metadata"], "created_at": r["created_at"]})
                assert not stored.is_error, stored.content

    async def connection_session() -> None:
        async with stdio_client(_mcp_server(mem, alone)) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            for text in ("We moved the staging database to the Helsinki region today.",
                         "The staging database now needs a VPN to reach it."):
                stored = await client.call_tool("memory_store", {"text": text})
                assert not stored.is_error, stored.content

    try:
        anyio.run(agent)
        anyio.run(connection_session)
        for name in SESSIONS:  # one CLI call per session: flag, then env
            lines = "\n".join(json.dumps({k: v for k, v in r.items() if k != "session"})
                              for r in records() if r["session"] == name)
            flag = ["--session", name] if name == "standup" else []
            env = {**os.environ, "NEO4J_URI": mem.settings.neo4j_uri,
                   "NEO4J_PASSWORD": mem.settings.neo4j_password.get_secret_value(),
                   **({} if flag else {"GRAPHMEM_SESSION": name})}
            done = subprocess.run([sys.executable, "-m", "graphmem", "remember", "--scope", cli,
                                   *flag, "--json"], input=lines, env=env, text=True,
                                  capture_output=True, timeout=300)
            assert done.returncode == 0, done.stderr
        want = structure(store, over_mcp)
        assert want["chains"] == expected_chains()
        assert structure(store, cli) == want
        # An agent that names no session gets its connection's: one conversation, in order.
        own = structure(store, alone)["chains"]
        assert len(own) == 1 and own[0]["session"].startswith("mcp-") and own[0]["turns"] == 2
        assert own[0]["texts"][0].startswith("We moved the staging database")
    finally:
        for scope in (over_mcp, cli, alone):
            mem.drop_scope(scope)


def _texts_in_scope(store: Store, scope: str) -> str:
    """Every string property of every node of the scope, and of its sessions, joined."""
    found = store.driver.execute_query(
        "MATCH (n) WHERE n.scope = $scope RETURN properties(n) AS p",
        scope=scope, database_=store.database).records
    return "\n".join(str(v) for r in found for k, v in r["p"].items() if k != "embedding")


def test_a_forgotten_turn_leaves_no_gap_and_no_text(mem: GraphMem, store: Store) -> None:
    ids = [mem.remember(r).outcomes[0].id for r in records() if r["session"] == "standup"]
    forgotten = mem.get([ids[1]])[0].text
    mem.forget(ids[1], hard=True)
    s = structure(store, mem.settings.scope)
    texts = [f"{who}: {said}" for who, said in SESSIONS["standup"]]
    assert s["chains"][0]["texts"] == [texts[0], texts[2], texts[3]]
    assert {(e["a"], e["b"]) for e in s["edges"]} == {(texts[0], texts[2]),
                                                      (texts[2], texts[3])}
    third = next(t for t in s["turns"] if t["text"] == texts[2])
    assert third["context"] == texts[0] + "\n" + texts[2]
    assert forgotten not in _texts_in_scope(store, mem.settings.scope)

    # The last turn forgotten: the session ends at the one before, and goes on from it.
    mem.forget(ids[3], hard=True)
    later = mem.remember({"text": "alice: Then Priya gets the rollback runbook first.",
                          "session": "standup"}).outcomes[0].id
    s = structure(store, mem.settings.scope)
    assert s["chains"][0]["texts"] == [texts[0], texts[2], mem.get([later])[0].text]
    assert mem.get([later])[0].position == 4  # places are never given twice

    # A session whose only turn is forgotten goes too: its name may say what was said.
    alone = mem.remember({"text": "bob: The divorce lawyer called about the custody date.",
                          "session": "divorce-call-with-lawyer"}).outcomes[0].id
    mem.forget(alone, hard=True)
    assert "divorce" not in _texts_in_scope(store, mem.settings.scope)


def test_an_update_keeps_the_place_and_refreshes_the_next_context(mem: GraphMem,
                                                                  store: Store) -> None:
    ids = [mem.remember(r).outcomes[0].id for r in records() if r["session"] == "retro"]
    mem.update(ids[1], text="alice: Then we freeze deploys from the Wednesday before it.")
    after = {m.id: m for m in mem.get(ids)}
    assert [after[i].position for i in ids] == [0, 1, 2]
    assert after[ids[1]].session == "retro"
    turns = {t["text"]: t for t in structure(store, mem.settings.scope)["turns"]}
    third = turns[after[ids[2]].text]
    assert "Wednesday" in third["context"] and "Thursday" not in third["context"]
    version = mem.history(ids[1])[-1].memory
    assert version.version_of == ids[1] and version.position is None
    kept = store.driver.execute_query(
        "MATCH (v:Memory {scope: $scope, version_of: $id}) RETURN v.context AS context",
        scope=mem.settings.scope, id=ids[1], database_=store.database).records
    assert [r["context"] for r in kept] == [None]  # it quoted the turn before


def test_an_imported_session_goes_on_by_arrival_and_init_places_older_turns(
        mem: GraphMem, store: Store, tmp_path: Path) -> None:
    transcript = tmp_path / "chat.json"
    transcript.write_text(json.dumps({"id": "standup", "date": WHEN.isoformat(), "turns": [
        {"speaker": who, "text": said} for who, said in SESSIONS["standup"]]}))
    mem.ingest([transcript])
    # As a store written before positions existed: turns with metadata.turn only, and no
    # record of the migrations that place them.
    store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) REMOVE m.position, m.session "
        "WITH DISTINCT m.scope AS scope MATCH (s:Session {scope: scope}) "
        "REMOVE s.turns, s.last", scope=mem.settings.scope, database_=store.database)
    store.driver.execute_query(
        "MATCH (g:Migration) WHERE g.id IN ['009_positions', '010_session_ends'] DELETE g",
        database_=store.database)
    mem.init()
    added = mem.remember({"text": "alice: Great, then Priya leads the June window too.",
                          "session": "standup"}).outcomes[0].id
    chain = structure(store, mem.settings.scope)["chains"][0]
    assert chain["turns"] == 5 and mem.get([added])[0].position == 4
    assert chain["texts"][:4] == [f"{who}: {said}" for who, said in SESSIONS["standup"]]
    edges = structure(store, mem.settings.scope)["edges"]
    assert (chain["texts"][3], chain["texts"][4]) in {(e["a"], e["b"]) for e in edges}


APPEND = textwrap.dedent("""
    import sys
    import numpy as np
    from graphmem.api import GraphMem
    from graphmem.base.settings import load_settings
    from graphmem.base.types import MemoryIn
    from graphmem.write.records import Numbered

    scope, writer, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(abs(hash(writer)) % 2**32)
    with GraphMem(load_settings(scope=scope)) as mem:
        opts = mem.ops.write_options(session="shared")
        for i in range(n):
            text = f"Writer {writer} notes item {i} of the long shared session log."
            vector = rng.normal(size=mem.embedder.dimensions)
            report = mem.ops.write([Numbered(1, MemoryIn(text=text))], opts,
                                   vectors={text: vector})
            assert report.counts == {"created": 1}, report
""")


def test_two_processes_appending_to_one_session_leave_one_chain(mem: GraphMem,
                                                                store: Store) -> None:
    each = 150  # together beyond the 100 turns synaptic tagging reads
    env = {**os.environ, "NEO4J_URI": mem.settings.neo4j_uri,
           "NEO4J_PASSWORD": mem.settings.neo4j_password.get_secret_value()}
    writers = [subprocess.Popen([sys.executable, "-c", APPEND, mem.settings.scope, name,
                                 str(each)], env=env, stderr=subprocess.PIPE, text=True)
               for name in ("A", "B")]
    for w in writers:
        _, err = w.communicate(timeout=900)
        assert w.returncode == 0, err[-2000:]

    def rows(query: str) -> list[dict[str, Any]]:
        return [r.data() for r in store.driver.execute_query(
            query, scope=mem.settings.scope, database_=store.database).records]

    sessions = rows("MATCH (s:Session {scope: $scope}) RETURN s.turns AS turns, s.last AS last")
    members = {r["id"]: r["position"] for r in rows(
        "MATCH (m:Memory)-[:IN_SESSION]->(:Session {scope: $scope}) "
        "RETURN m.id AS id, m.position AS position")}
    following: dict[str, str] = {}
    for r in rows("MATCH (a:Memory {scope: $scope})-[:NEXT]->(b:Memory) "
                  "RETURN a.id AS a, b.id AS b"):
        assert r["a"] not in following  # a turn has one next
        following[r["a"]] = r["b"]
    assert len(sessions) == 1 and len(members) == 2 * each == sessions[0]["turns"]
    assert sorted(members.values()) == list(range(2 * each))  # none twice, none skipped
    heads = set(members) - set(following.values())
    assert len(heads) == 1
    walked = [heads.pop()]
    while walked[-1] in following:
        walked.append(following[walked[-1]])
    assert walked[-1] == sessions[0]["last"]
    assert [members[m] for m in walked] == list(range(2 * each))  # one chain, by place
