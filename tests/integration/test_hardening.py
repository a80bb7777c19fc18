"""The holes a hostile or unlucky user found, each closed and kept closed, on the real
server: partial batches, cross-scope writes, hard-forget residue, secrets, concurrent
first writes, tracebacks for ordinary input, messages, and tenancy side channels."""

from __future__ import annotations

import json
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.base.errors import InputError, Neo4jBusy, Neo4jUnavailable
from graphmem.base.settings import Settings
from graphmem.cli import app
from graphmem.graph.store import Store
from graphmem.lifecycle.maintenance import SweepOptions
from graphmem.read import keywords
from graphmem.write import ingest

#: Also run on Neo4j 2026 by .ci/run: this file meets what differs between the lines.
pytestmark = pytest.mark.line2026

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def count(mem: GraphMem, scope: str | None = None) -> int:
    return mem.count(scope=scope)


def everything(store: Store) -> list[str]:
    """Every string of the database: property names and values of every node and
    relationship (embeddings aside), labels and relationship types."""
    rows = store.driver.execute_query(
        "MATCH (n) RETURN labels(n) AS names, [k IN keys(n) WHERE k <> 'embedding' | "
        "[k, n[k]]] AS props "
        "UNION ALL MATCH ()-[r]->() RETURN [type(r)] AS names, "
        "[k IN keys(r) | [k, r[k]]] AS props",
        database_=store.database).records
    out: list[str] = []
    for row in rows:
        out += row["names"]
        for key, value in row["props"]:
            out.append(key)
            out += [str(v) for v in (value if isinstance(value, list) else [value])]
    return out


def residue(store: Store, needle: str) -> int:
    return sum(needle in s for s in everything(store))


# 1. A batch is all or nothing, at any size.

def test_a_bad_record_after_six_hundred_good_ones_writes_nothing(mem: GraphMem,
                                                                  hardening) -> None:
    batch = [{"text": f"Release note {i}: the exporter handles case {i} now"}
             for i in range(600)]
    batch.append({"text": "The last one carries a mixed list", "metadata": {"k": [True, 1]}})
    with pytest.raises(InputError, match=r"<api>:601: field 'metadata'.*one type"):
        mem.remember(batch)
    assert count(mem) == 0
    hardening.inputs += 601


def test_a_failure_in_a_late_batch_rolls_back_the_early_ones(
        mem: GraphMem, monkeypatch: pytest.MonkeyPatch, hardening) -> None:
    mem.ops.core.settings = mem.settings.model_copy(update={"write_batch_size": 2})
    calls = []
    real = ingest.write_batch

    def failing(tx, store, rows, opts, referrers=(), **kw):
        calls.append(len(rows))
        if len(calls) == 3:
            raise RuntimeError("the server went away")
        return real(tx, store, rows, opts, referrers, **kw)

    monkeypatch.setattr(ingest, "write_batch", failing)
    with pytest.raises(RuntimeError):
        mem.remember([f"Inventory item {i} sits on shelf {i} in aisle four" for i in range(7)])
    assert len(calls) == 3 and count(mem) == 0
    if count(mem):
        hardening.found["partial batches"] += 1


# 2. Reinforcement and co-retrieval are decided by scope, never by a score factor.

def test_a_layer_is_never_written_whatever_its_factor(mem: GraphMem, scope: str,
                                                      hardening, store: Store) -> None:
    other = scope + "-layer"
    try:
        mem.remember([{"id": f"l{i}", "text": t} for i, t in enumerate([
            "The staging cluster runs in Frankfurt", "Staging deploys happen every hour",
            "The staging database is a copy of production from Sunday"])], scope=other)
        mem.remember({"id": "own", "text": "Our staging budget is ten thousand a month"})
        with pytest.raises(InputError, match="layer_factor"):
            mem.recall("staging", layers=[other], layer_factor=1.5)
        hits = mem.recall("where is staging?", layers=[other], layer_factor=1.0).hits
        assert {h.scope for h in hits} == {scope, other}
        mem.flush()
        rows = store.driver.execute_query(
            "MATCH (m:Memory {scope: $other}) OPTIONAL MATCH (m)-[r:ASSOCIATED]-() "
            "RETURN m.id AS id, m.access_count AS n, m.stability AS s, count(r) AS edges",
            other=other, database_=store.database).records
        touched = [r for r in rows if r["n"] or r["s"] != 1.0 or r["edges"]]
        hardening.found["cross-scope writes"] += len(touched)
        assert touched == []
        assert mem.get(["own"])[0].access_count == 1
    finally:
        mem.drop_scope(other)


# 3. Hard forget leaves no copy, and tombstones refuse resurrection.

def test_hard_forget_removes_every_copy_and_refuses_reimport(mem: GraphMem, tmp_path: Path,
                                                            hardening, store: Store) -> None:
    mem.ops.core.fixed_now = T0
    secret_life = "Ximena Oyelaran told Priya Raman about the billing outage in confidence"
    mem.remember([{"id": f"e{i}", "text": t, "kind": "episodic"} for i, t in enumerate([
        "Priya Raman reviewed the billing migration plan today",
        "Priya Raman asked for load tests before the billing cutover", secret_life])])
    mem.ops.core.fixed_now = T0 + timedelta(days=30)
    assert mem.ops.consolidate(options=SweepOptions(reflect=False)).created == 1
    assert residue(store, "Ximena") >= 3  # the memory, its summary, its entity
    pack = tmp_path / "pack.jsonl"
    pack.write_text("".join(r.model_dump_json(exclude_none=True) + "\n"
                            for r in mem.export()))

    # A keyword recall of this small scope keeps the words of what it scored...
    assert mem.recall("Ximena confidence", mode="keyword", reinforce=False).hits
    counts = store.kept.get(keywords.WordCounts)
    assert len(counts) > 0
    done = mem.forget("e2", hard=True)
    assert len(counts) == 0  # ...until a forget
    assert len(done.derived_deleted) == 1  # the summary that quoted it
    left = residue(store, "Ximena") + residue(store, "in confidence")
    hardening.found["residue after hard forget"] += left
    assert left == 0

    again = mem.import_pack(pack)
    assert {o.id for o in again.outcomes if o.status in ("created", "updated")} == {"e0", "e1"}
    refused = [o for o in again.outcomes if o.status == "rejected"]
    assert len(refused) == 2 and all("forgotten for good" in o.reason for o in refused)
    assert residue(store, "Ximena") == 0
    assert mem.remember(secret_life).rejected  # the text alone is refused too
    back = mem.import_pack(pack, allow_forgotten=True)
    assert "e2" in {o.id for o in back.outcomes if o.status == "created"}
    hardening.inputs += 3


# 4. Secrets: every string a record or flag carries is scanned; nothing echoes one.

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize("where", ["id", "session", "added_by", "tags", "meta_key",
                                   "meta_list", "supersedes", "links"])
def test_a_secret_anywhere_in_a_record_is_not_stored(mem: GraphMem, where: str,
                                                     hardening, store: Store) -> None:
    record = {"text": "The release train leaves on Thursdays at noon"}
    value = {"tags": ["ops", SECRET], "meta_key": None, "meta_list": None}.get(where, SECRET)
    if where == "meta_key":
        record["metadata"] = {SECRET: "x"}
    elif where == "meta_list":
        record["metadata"] = {"notes": ["fine", SECRET]}
    elif where == "links":
        record["links"] = [SECRET]
    else:
        record[where] = value
    try:
        report = mem.remember(record)
        assert report.counts == {"rejected": 1}
        assert SECRET not in report.model_dump_json()
    except InputError as e:
        assert SECRET not in str(e)
    stored = residue(store, SECRET)
    hardening.inputs += 1
    hardening.found["secrets stored"] += stored
    assert stored == 0


@pytest.mark.parametrize("flags", [["--scope", SECRET], ["--session", SECRET],
                                   ["--added-by", SECRET]])
def test_a_secret_in_a_flag_is_refused_and_not_echoed(mem: GraphMem, flags: list[str],
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      hardening, store: Store) -> None:
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    done = CliRunner().invoke(app, ["remember", "--text", "A fine memory about the train",
                                    *flags])
    hardening.inputs += 1
    assert done.exit_code == 1 and SECRET not in done.stderr + done.stdout
    assert done.stderr.count("\n") == 1
    for verb in (["get", SECRET], ["forget", SECRET], ["feedback", SECRET, "--used"]):
        out = CliRunner().invoke(app, verb)
        assert out.exit_code == 1 and SECRET not in out.stderr + out.stdout, verb
    assert residue(store, SECRET) == 0


# 5. Concurrent first writes of the same text.

def test_six_writers_of_the_same_new_file_all_succeed(mem: GraphMem, embedder,
                                                      hardening, store: Store) -> None:
    texts = ["The pager rotation moves to the database team on Monday",
             "Invoices are generated on the first business day of the month",
             "The staging cluster is rebuilt from scratch every Sunday night",
             "Marta prefers written design reviews over meetings",
             "Our CDN is Fastly, with Cloudflare as the fallback",
             "The mobile app release needs sign-off from legal",
             "Backups of the analytics warehouse are kept for ninety days",
             "The office in Porto closes early on Fridays in summer",
             "Feature flags live in LaunchDarkly under the growth project",
             "The oldest supported Python version is 3.10"]
    results: list[object] = []

    def one() -> None:
        with GraphMem(mem.settings, embedder=embedder) as m:
            try:
                results.append(m.remember(texts, session="handover"))
            except Exception as e:  # kept to fail the test below with its message
                results.append(e)

    threads = [threading.Thread(target=one) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    errors = [r for r in results if isinstance(r, Exception)]
    hardening.found["tracebacks"] += len(errors)
    assert errors == [] and len(results) == 6
    assert count(mem) == len(texts)
    rows = store.driver.execute_query(
        "MATCH (m:Memory {scope: $scope}) RETURN sum(m.confirmation_count) AS c",
        scope=mem.settings.scope, database_=store.database).records
    assert rows[0]["c"] == len(texts) * 5  # five of six confirmed what the first created
    hardening.inputs += 6


# 6. Tracebacks for ordinary input.

def test_ordinary_odd_input_is_one_line(mem: GraphMem, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    cli = CliRunner()
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 1000 + "]" * 1000)
    cases = [
        (["remember", str(deep)], "nested"),
        (["remember", "--text", "A memory from the far future", "--now",
          "9999-12-31T23:00:00-05:00"], "--now"),
        (["recall", "anything", "--since", "0001-01-01T00:30:00+01:00"], "--since"),
    ]
    for args, word in cases:
        done = cli.invoke(app, args)
        assert done.exit_code == 1 and word in done.stderr, (args, done.stderr)
        assert done.stderr.count("\n") == 1
    for record, field in [({"created_at": "9999-12-31T23:00:00-05:00"}, "created_at"),
                          ({"valid_until": "0001-01-01T00:30:00+01:00"}, "valid_until"),
                          ({"metadata": {"n": 2**64}}, "metadata"),
                          ({"metadata": {"k": ["a", 1]}}, "metadata")]:
        with pytest.raises(InputError, match=field):
            mem.remember({"text": "An ordinary memory", **record})
    done = mem.remember("We met 999999999 days ago at the harbour in Oslo")
    assert done.counts == {"created": 1}
    assert count(mem) == 1


def test_a_locked_out_user_is_exit_2_with_a_hint(neo4j_settings: Settings) -> None:
    # A throwaway user takes the lockout, so the suite's own login keeps working.
    admin = Store.connect(neo4j_settings)
    try:
        admin.driver.execute_query(
            "CREATE OR REPLACE USER graphmem_probe SET PASSWORD 'right-password-123' "
            "CHANGE NOT REQUIRED", database_="system")
        wrong = neo4j_settings.model_copy(update={
            "neo4j_user": "graphmem_probe", "neo4j_password": SecretStr("wrong-password")})
        messages = []
        for _ in range(7):
            with pytest.raises(Neo4jUnavailable) as e:
                Store.connect(wrong)
            messages.append(e.value.one_line())
        assert any("too many failed" in m for m in messages), messages
    finally:
        admin.driver.execute_query("DROP USER graphmem_probe IF EXISTS", database_="system")
        admin.close()


# 7. Messages.

def test_messages_stay_on_one_line_and_say_what_they_found(
        mem: GraphMem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    cli = CliRunner()
    done = cli.invoke(app, ["get", "first\nsecond"])
    assert done.exit_code == 1 and done.stderr.count("\n") == 1
    done = cli.invoke(app, ["get", "--meta", "dia_id=D9:9"])
    assert done.exit_code == 1 and "no memory with metadata" in done.stderr
    bom = tmp_path / "bom.json"
    bom.write_text("\ufeff" + json.dumps({"id": "b1", "text": "A file saved by Notepad",
                                          "metadata": {"k": 1}}), encoding="utf-8")
    assert cli.invoke(app, ["remember", str(bom)]).exit_code == 0
    mem.update("b1", metadata={"k": None})  # null removes a key, as the README says
    assert mem.get(["b1"])[0].metadata == {}
    assert mem.remember({"text": "A null value on create is left out",
                         "metadata": {"gone": None}}).counts == {"created": 1}
    found = mem.recall("_", mode="keyword", hops=0, reinforce=False).hits
    assert found == []
    monkeypatch.setenv("NEO4J_DATABASE", "nosuchdb")
    done = cli.invoke(app, ["doctor"])
    assert done.exit_code == 2 and "nosuchdb" in done.stderr


def test_a_port_that_never_answers_fails_in_seconds(neo4j_settings: Settings) -> None:
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    try:
        port = silent.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(Neo4jUnavailable):
            Store.connect(neo4j_settings.model_copy(
                update={"neo4j_uri": f"bolt://127.0.0.1:{port}"}))
        assert time.monotonic() - started < 15
    finally:
        silent.close()


# 8. Tenancy side channels.

def test_entity_weights_tell_nothing_of_other_scopes(mem: GraphMem, scope: str,
                                                     store: Store) -> None:
    other = scope + "-c"
    ours = ["Zanzibar ferry tickets are booked for the twelfth",
            "The Zanzibar hotel confirmed our late arrival"]

    def weights() -> list[float]:
        hits = mem.recall("ferry tickets", reinforce=False).hits
        return sorted(p.weight for h in hits for p in h.path if p.kind == "entity")

    try:
        mem.remember(ours)
        before = weights()
        mem.remember([{"id": f"n{i}", "text": f"Private note {i} about Zanzibar spice prices",
                       "visibility": "private"} for i in range(6)], scope=other)
        assert weights() == before
        keys = store.driver.execute_query(
            "MATCH (e:Entity {ref: 'name:zanzibar'}) RETURN e.scope AS scope, "
            "e.degree AS degree ORDER BY scope", database_=store.database).records
        assert [(k["scope"], k["degree"]) for k in keys] == [(scope, 2), (other, 6)]
    finally:
        mem.drop_scope(other)


def test_an_id_of_another_scope_is_not_visible(mem: GraphMem, scope: str) -> None:
    other = scope + "-a"
    try:
        mem.remember({"id": "plan", "text": "Scope A's plan is to expand to Lisbon"},
                     scope=other)
        done = mem.remember({"id": "plan", "text": "Scope B's plan is to hire two people"})
        assert done.counts == {"created": 1}
        assert [m.text for m in mem.get(["plan"])] == ["Scope B's plan is to hire two people"]
        assert [m.text for m in mem.get(["plan"], scope=other)] == [
            "Scope A's plan is to expand to Lisbon"]
        mem.forget("plan", hard=True)
        assert [m.text for m in mem.get(["plan"], scope=other)] == [
            "Scope A's plan is to expand to Lisbon"]
    finally:
        mem.drop_scope(other)


def test_a_query_stuck_behind_a_lock_ends_in_seconds(mem: GraphMem, store: Store) -> None:
    mem.remember({"id": "locked", "text": "A memory another writer holds for a long time"})
    settings = mem.settings.model_copy(update={"query_timeout": 1.0})
    driver = store.driver
    with driver.session(database=store.database) as holder:
        tx = holder.begin_transaction()
        tx.run("MATCH (m:Memory {id: 'locked', scope: $scope}) SET m.probe = 1",
               scope=mem.settings.scope).consume()
        try:
            with GraphMem(settings, embedder=mem.embedder) as waiting:
                started = time.monotonic()
                with pytest.raises(Neo4jBusy) as e:
                    waiting.feedback("locked", used=True)
                assert time.monotonic() - started < 20
                assert "\n" not in e.value.one_line()
        finally:
            tx.rollback()
