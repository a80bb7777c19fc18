"""Forgotten means gone and private stays private, on the real server (issue 27's holes,
each kept closed by a generated class of the standing hardening suite): a hard forget
deletes only what graphmem made from the memory, tombstones every text the memory had
and refuses it however it is dressed up, leaves a live twin editable; a refused update
keeps no version; a summary or reflection is never more visible than what it was made
from; a query has a size limit at every door."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.base.types import MAX_QUERY_CHARS
from graphmem.cli import app
from graphmem.graph.store import Store
from graphmem.lifecycle.maintenance import SweepOptions
from graphmem.lifecycle.summarize import extractive

SCALE = float(os.environ.get("GRAPHMEM_HARDENING_SCALE", "1"))
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def budget(n: int) -> settings:
    return settings(max_examples=max(1, int(n * SCALE)), derandomize=True, deadline=None,
                    suppress_health_check=list(HealthCheck), database=None)


def at(mem: GraphMem, days: int) -> GraphMem:
    mem.ops.core.fixed_now = T0 + timedelta(days=days)
    return mem


def stored(store: Store, scope: str) -> list[str]:
    """Every string property of the scope's nodes (embeddings aside): where a text lives."""
    rows = store.driver.execute_query(
        "MATCH (n) WHERE n.scope = $scope "
        "UNWIND [k IN keys(n) WHERE k <> 'embedding'] AS k "
        "WITH n[k] AS v UNWIND CASE WHEN v IS :: LIST<ANY> THEN v ELSE [v] END AS x "
        "RETURN toString(x) AS s", scope=scope, database_=store.database).records
    return [r["s"] for r in rows if r["s"] is not None]


def cli(mem: GraphMem, *args: str) -> Result:
    """Run the CLI against the test server, in the test's scope."""
    s = mem.settings
    return CliRunner().invoke(app, list(args), env={
        "NEO4J_URI": s.neo4j_uri, "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(),
        "GRAPHMEM_SCOPE": s.scope})


def fresh(mem: GraphMem, tag: str) -> str:
    """A new scope for one generated example (dropped by `drop`)."""
    return f"{mem.settings.scope}-{tag}-{os.urandom(3).hex()}"


PEOPLE = ["Priya Raman", "Tomasz Wisniewski", "Ximena Oyelaran"]
DEEDS = ["reviewed the billing migration plan", "asked for load tests before the cutover",
         "approved the billing migration", "moved the launch to Thursday",
         "wrote the rollback runbook"]


# Hole 1: a hard forget deletes what graphmem made, never a memory someone wrote.

@budget(5)
@given(forgotten=st.integers(0, 3), n=st.integers(3, 4), person=st.sampled_from(PEOPLE))
def test_a_forget_keeps_a_users_memory_that_a_consolidation_confirmed(mem: GraphMem,
                                                                      forgotten, n, person,
                                                                      hardening) -> None:
    scope = fresh(mem, "confirmed")
    texts = [f"{person} {deed}" for deed in DEEDS[:n]]
    try:
        at(mem, 0).remember([{"id": f"e{i}", "text": t, "kind": "episodic"}
                             for i, t in enumerate(texts)], scope=scope)
        mine = extractive(person, texts).replace("·", ";")
        mem.remember({"id": "mine", "kind": "semantic", "text": mine}, scope=scope)
        done = at(mem, 30).ops.consolidate(scope=scope, options=SweepOptions(reflect=False))
        assert (done.created, done.confirmed) == (0, 1)
        gone = mem.forget(f"e{min(forgotten, n - 1)}", hard=True, scope=scope)
        hardening.inputs += 1
        kept = mem.get(["mine"], scope=scope)
        hardening.found["user memories lost"] += int(not kept)
        assert gone.derived_deleted == [] and kept and kept[0].text == mine
    finally:
        mem.drop_scope(scope)


def test_a_forget_still_deletes_the_summary_consolidation_wrote(mem: GraphMem,
                                                                store: Store) -> None:
    texts = [f"Priya Raman {deed}" for deed in DEEDS[:3]]
    at(mem, 0).remember([{"id": f"e{i}", "text": t, "kind": "episodic"}
                         for i, t in enumerate(texts)])
    assert at(mem, 30).ops.consolidate(options=SweepOptions(reflect=False)).created == 1
    assert len(mem.forget("e1", hard=True).derived_deleted) == 1
    assert not any(DEEDS[1] in s for s in stored(store, mem.settings.scope))


# Hole 2: what graphmem writes is never more visible than what it was made from.

@budget(8)
@given(private=st.lists(st.booleans(), min_size=5, max_size=5), reflect=st.booleans())
def test_private_text_never_reaches_a_public_summary_or_reflection(
        mem: GraphMem, store: Store, private, reflect, hardening) -> None:
    a, b = fresh(mem, "a"), fresh(mem, "b")
    texts = [f"Priya Raman {deed} (codeword{i})" for i, deed in enumerate(DEEDS)]
    try:
        at(mem, 0).remember([{"id": f"e{i}", "text": t, "kind": "episodic",
                              "importance": 0.9,
                              "visibility": "private" if p else "public"}
                             for i, (t, p) in enumerate(zip(texts, private, strict=True))],
                            scope=a)
        at(mem, 30).sweep(scope=a, options=SweepOptions(reflect=reflect, reflect_after=1.0))
        secrets = [f"codeword{i}" for i, p in enumerate(private) if p]
        public = [r["text"] for r in store.driver.execute_query(
            "MATCH (m:Memory {scope: $scope}) WHERE m.visibility = 'public' "
            "RETURN m.text AS text", scope=a, database_=store.database).records]
        seen = [h.text for mode in ("exact", "keyword", "hybrid")
                for h in mem.recall("Priya Raman codeword", scope=b, layers=[a], mode=mode,
                                    top_k=20, reinforce=False).hits]
        hardening.inputs += 1
        leaks = [t for t in public + seen for s in secrets if s in t]
        hardening.found["private in public"] += len(leaks)
        assert leaks == []
    finally:
        mem.drop_scope(a)
        mem.drop_scope(b)


# Holes 3 and 4: every text a memory had is gone and refused after a hard forget.

@budget(6)
@given(updates=st.integers(1, 3), forget_first=st.booleans())
def test_every_text_a_memory_had_is_refused_after_a_hard_forget(mem: GraphMem, store: Store,
                                                                updates, forget_first,
                                                                hardening) -> None:
    scope = fresh(mem, "versions")
    texts = [f"The vault passphrase hint is the {w} of the office cat"
             for w in ("name", "colour", "age", "breed")[:updates + 1]]
    try:
        mem.remember([{"text": "alice: Who looks after the office cat?", "session": "s"},
                      {"id": "t2", "text": texts[0], "session": "s"}], scope=scope)
        for t in texts[1:]:
            mem.update("t2", text=t, scope=scope)
        assert len(mem.history("t2", scope=scope)) == updates + 1
        first = mem.recall("office cat", scope=scope, top_k=1, reinforce=False).hits[0].id
        if forget_first:  # the turn before: no version of t2 may keep it as context
            mem.forget(first, hard=True, scope=scope)
            assert not any("Who looks after" in s for s in stored(store, scope))
        mem.forget("t2", hard=True, scope=scope)
        back = mem.remember([{"text": t} for t in texts], scope=scope)
        hardening.inputs += len(texts)
        hardening.found["forgotten text back"] += len(texts) - len(back.rejected)
        assert len(back.rejected) == len(texts)
        assert not any("passphrase" in s for s in stored(store, scope))
    finally:
        mem.drop_scope(scope)


# Hole 5: a forgotten text stays refused however it is dressed, through every door.

DISGUISES = {
    "speaker": lambda t: f"alice: {t}", "full stop": lambda t: t + ".",
    "zero-width space": lambda t: t.replace(" ", " \u200b", 1),
    "soft hyphen": lambda t: t.replace("confidence", "con\u00adfidence"),
    "homoglyph": lambda t: t.replace("a", "\u0430", 1),  # a Cyrillic a
    "case and space": lambda t: "  " + t.upper().replace(" ", "  "),
    "fullwidth": lambda t: t.replace("Q3", "Ｑ３"),
    "quotes": lambda t: f"“{t}!”",
}
SAID = "Ximena told Priya about the Q3 layoffs in confidence"


@budget(12)
@given(dress=st.lists(st.sampled_from(sorted(DISGUISES)), min_size=1, max_size=3,
                      unique=True),
       door=st.sampled_from(["remember", "chat import", "cli", "mcp"]),
       forgotten_as=st.sampled_from(["plain", "turn"]))
def test_a_forgotten_text_stays_refused_however_it_is_dressed(mem: GraphMem, tmp_path: Path,
                                                              dress, door, forgotten_as,
                                                              hardening) -> None:
    scope = mem.settings.scope  # the MCP connection writes into the configured scope
    text = SAID
    for name in dress:
        text = DISGUISES[name](text)
    try:
        first = SAID if forgotten_as == "plain" else f"bob: {SAID}"
        mid = mem.remember({"text": first, "session": "call"}).outcomes[0].id
        mem.forget(mid, hard=True)
        hardening.inputs += 1
        if door == "remember":
            accepted = not mem.remember(text).rejected
        elif door == "chat import":
            path = tmp_path / "chat.json"
            path.write_text(json.dumps({"id": "c1", "date": "2024-05-01", "turns": [
                {"speaker": "alice", "text": "Shall we talk about the quarter?"},
                {"speaker": "carol", "text": text}]}))
            accepted = len(mem.ingest([path], fmt="chat").rejected) != 1
        elif door == "cli":
            accepted = "forgotten for good" not in cli(mem, "remember", "--text", text,
                                                       "--json").output
        else:
            import anyio

            from graphmem.mcp import build

            accepted = "forgotten for good" not in str(anyio.run(
                build(mem).call_tool, "memory_store", {"text": text}))
        hardening.found["forgotten text back"] += int(accepted)
        assert not accepted, (door, text)
    finally:
        mem.drop_scope(scope)


# Hole 6: a tombstone refuses the text, not a live memory that says it.

def test_a_live_twin_of_a_forgotten_memory_can_still_be_edited(mem: GraphMem,
                                                               hardening) -> None:
    mem.remember([{"id": "one", "text": SAID}, {"id": "two", "text": SAID + " too"},
                  {"id": "three", "text": "The Q3 plan is on the wiki"}])
    mem.remember({"id": "twin", "text": SAID}, allow_forgotten=True)
    mem.forget("one", hard=True)
    edits = [mem.update("twin", importance=0.9), mem.update("twin", tags=["hr"]),
             mem.update("twin", metadata={"checked": True})]
    hardening.inputs += len(edits) + 2
    refused = sum(len(e.rejected) for e in edits)
    hardening.found["live twins refused"] += refused
    assert refused == 0
    assert mem.get(["twin"])[0].importance == 0.9 and mem.get(["twin"])[0].tags == ["hr"]
    # Its text cannot become the forgotten one, nor can another memory's.
    assert mem.update("three", text=SAID + "!").rejected
    assert mem.remember({"id": "four", "text": SAID}).rejected


# Hole 7: an update the write path refuses leaves nothing, and says why.

@budget(6)
@given(reason=st.sampled_from(["secret", "forgotten"]), tries=st.integers(1, 4))
def test_a_refused_update_keeps_no_version(mem: GraphMem, reason, tries, hardening) -> None:
    scope = fresh(mem, "refused")
    try:
        mem.remember([{"id": "cfg", "text": "The deploy key lives in the platform vault"},
                      {"id": "old", "text": SAID}], scope=scope)
        mem.forget("old", hard=True, scope=scope)
        new = (f"The deploy key is ghp_{'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}"
               if reason == "secret" else SAID)
        for _ in range(tries):
            assert mem.update("cfg", text=new, scope=scope).rejected
        hardening.inputs += tries
        versions = len(mem.history("cfg", scope=scope)) - 1
        hardening.found["versions of refused updates"] += versions
        assert versions == 0
        assert mem.get(["cfg"], scope=scope)[0].text.startswith("The deploy key lives")
    finally:
        mem.drop_scope(scope)


def test_the_cli_says_why_an_update_was_refused(mem: GraphMem) -> None:
    mem.remember([{"id": "p1", "text": "The standup is at ten"}, {"id": "x", "text": SAID}])
    mem.forget("x", hard=True)
    result = cli(mem, "update", "p1", "--text", SAID)
    assert result.exit_code == 1
    assert "updated" not in result.stdout
    assert "p1: not updated: forgotten for good" in result.stderr


# Hole 12: a query has a size limit, at every door, named in the error.

@budget(12)
@given(size=st.one_of(st.integers(1, 3 * MAX_QUERY_CHARS),
                      st.sampled_from([MAX_QUERY_CHARS, MAX_QUERY_CHARS + 1, 10_000_000])),
       door=st.sampled_from(["api", "mcp", "cli"]))
def test_a_query_over_the_limit_is_refused_at_every_door(mem: GraphMem, size: int, door,
                                                         hardening) -> None:
    import anyio
    from mcp.server.mcpserver.exceptions import ToolError

    from graphmem.mcp import build

    if door == "cli" and size > 100_000:  # an argument list of 10 MB is the OS's to refuse
        door = "api"
    query = ("standup " * (size // 8 + 1))[:size]
    limit = f"the limit is {MAX_QUERY_CHARS}" if door != "mcp" else str(MAX_QUERY_CHARS)
    try:
        if door == "api":
            refused = _refused(lambda: mem.recall(query, reinforce=False), InputError, limit)
        elif door == "mcp":
            refused = _refused(lambda: anyio.run(build(mem).call_tool, "memory_recall",
                                                 {"query": query}), ToolError, limit)
        else:
            result = cli(mem, "recall", query)
            assert result.exit_code == (1 if size > MAX_QUERY_CHARS else 0), result.stderr
            refused = result.exit_code == 1
            assert not refused or limit in result.stderr
        hardening.inputs += 1
        wrong = refused != (size > MAX_QUERY_CHARS)
        hardening.found["unbounded queries"] += int(wrong)
        assert not wrong
    finally:
        mem.drop_scope(mem.settings.scope)


def _refused(call, error: type[Exception], says: str) -> bool:
    """Whether `call` raised `error` naming the limit (any other error fails the test)."""
    try:
        call()
    except error as e:
        assert says in str(e), str(e)
        return True
    return False


# Issue 57, holes 4 and 7: a version is never edited, and no record takes a version's id.


def test_a_version_is_not_edited_and_a_hard_forget_leaves_none(mem: GraphMem,
                                                               store: Store) -> None:
    scope = fresh(mem, "version-edit")
    try:
        mem.remember([{"id": "pin", "text": "The door code of the lab is 4471"}], scope=scope)
        mem.update("pin", text="The door code of the lab is 9902", scope=scope)
        assert [h.memory.id for h in mem.history("pin", scope=scope)] == ["pin", "pin@v1"]
        try:
            mem.update("pin@v1", text="The lab door code was 4471 until May", scope=scope)
            raise AssertionError("a kept version was edited")
        except InputError as e:
            assert e.field == "id" and "version" in e.one_line()
        # What an older graphmem left: a version edited, with a version of its own.
        store.driver.execute_query(
            "MATCH (v:Memory {id: 'pin@v1', scope: $scope}) "
            "CREATE (c:Memory) SET c = v {.*, id: 'pin@v1@v1', version_of: 'pin@v1'} "
            "CREATE (v)-[:SUPERSEDES {kind: 'version', at: datetime()}]->(c)",
            scope=scope, database_=store.database)
        done = mem.forget("pin", hard=True, scope=scope)
        assert done.versions_deleted == 2
        assert not any("4471" in s or "9902" in s for s in stored(store, scope))
        assert mem.get(ids=["pin@v1", "pin@v1@v1"], scope=scope) == []
        assert mem.recall("The door code of the lab is 4471", mode="exact", scope=scope,
                          reinforce=False).hits == []
    finally:
        mem.drop_scope(scope)


def test_no_record_takes_a_versions_id_so_updates_of_the_memory_go_on(mem: GraphMem) -> None:
    scope = fresh(mem, "version-id")
    try:
        mem.remember([{"id": "cfg", "text": "Retries are capped at three"}], scope=scope)
        for taken in ("cfg@v1", "cfg@v12", "other@v3"):
            try:
                mem.remember([{"id": taken, "text": "A record that names a version id"}],
                             scope=scope)
                raise AssertionError(f"{taken} was written")
            except InputError as e:
                assert e.field == "id" and "@v<n>" in e.one_line()
        for fine in ("cfg@vnext", "release@v2-notes", "cfg@V1"):  # not a version's form
            assert mem.remember([{"id": fine, "text": f"Notes for {fine}"}],
                                scope=scope).counts == {"created": 1}
        mem.update("cfg", text="Retries are capped at five", scope=scope)
        mem.update("cfg", text="Retries are capped at seven", scope=scope)
        assert [h.memory.id for h in mem.history("cfg", scope=scope)] == [
            "cfg", "cfg@v2", "cfg@v1"]
    finally:
        mem.drop_scope(scope)


def test_a_reflection_naming_only_forgotten_memories_entity_goes_with_them(
        mem: GraphMem, store: Store) -> None:
    at(mem, 0).remember([{"id": f"e{i}", "text": f"Priya Raman {deed}", "kind": "episodic",
                          "importance": 0.9} for i, deed in enumerate(DEEDS)])
    at(mem, 30).sweep(options=SweepOptions(reflect=True, reflect_after=1.0))
    named = [h.text for h in mem.recall("Priya Raman", kinds=["reflection"], top_k=5,
                                        reinforce=False).hits if "Priya Raman" in h.text]
    assert named, "the sweep reflected on Priya Raman"
    for i in range(len(DEEDS)):
        mem.forget(f"e{i}", hard=True)
    left = [s for s in stored(store, mem.settings.scope) if "Priya Raman" in s]
    assert left == [], "\n".join(left)
