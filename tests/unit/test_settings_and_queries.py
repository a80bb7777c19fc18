"""Configuration, named queries and the local server's generated files (no server)."""

from __future__ import annotations

import itertools
from datetime import UTC
from pathlib import Path

import neo4j
import neo4j.time
import pytest

from graphmem.base.errors import ConfigError, InputError
from graphmem.base.settings import load_settings
from graphmem.graph import jars, queries, retry, server, store


def test_neo4j_variables_and_graphmem_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-value")
    monkeypatch.setenv("GRAPHMEM_SCOPE", "user:alice/agent:coder")
    s = load_settings()
    assert s.neo4j_uri == "neo4j://db.example:7687"
    assert s.scope == "user:alice/agent:coder"
    assert "s3cret-value" not in repr(s)


def test_toml_file_is_read_and_environment_wins(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "graphmem.toml"
    config.write_text('neo4j_database = "memories"\nscope = "from-toml"\n')
    monkeypatch.setenv("GRAPHMEM_CONFIG", str(config))
    monkeypatch.setenv("GRAPHMEM_SCOPE", "from-env")
    s = load_settings()
    assert (s.neo4j_database, s.scope) == ("memories", "from-env")


@pytest.mark.parametrize(("key", "value"), [
    ("NEO4J_DATABASE", "neo4j` DETACH DELETE n //"),
    ("GRAPHMEM_SCOPE", "bad scope with spaces"),
    ("GRAPHMEM_SERVER_HEAP", "lots"),
])
def test_names_that_reach_queries_are_whitelisted(monkeypatch: pytest.MonkeyPatch, key: str,
                                                  value: str) -> None:
    monkeypatch.setenv(key, value)
    with pytest.raises(ConfigError, match="configuration: "):
        load_settings()


def test_every_named_query_has_a_header_and_loads() -> None:
    names = queries.all_names()
    assert "recall/retrieve" in names and "ingest/create_memories" in names
    for name in names:
        text = queries.query(name)
        assert text.startswith(f"// {name} "), name


def test_retention_is_written_once_and_every_query_gets_it_whole() -> None:
    root = queries.cypher_dir()
    sources = {p: p.read_text() for p in root.rglob("*.cypher") if p.stem != "retention"}
    users = [p for p, text in sources.items() if "{{retention}}" in text]
    assert len(users) >= 3  # maintenance's three share one formula (recall ranks in Python)
    assert not [p for p, text in sources.items() if "d.floor +" in text]  # no copies
    for name in queries.all_names():
        text = queries.query(name)
        assert "{{" not in text, name
        if name == "maintenance/cool":
            assert "exp(-log(2) * (" in text and "// fragments" not in text
        if name.startswith("recall/"):  # recall's queries find; graphmem/read/rank.py ranks
            assert "exp(" not in text and "$temporal" not in text, name


def test_every_index_hint_forces_a_seek() -> None:
    # A plain USING INDEX let the planner, on stale index statistics, scan the whole
    # (scope, id) index for each row of a batch and run out of memory
    # (ingest/link_entities; docs/decisions.md); a SEEK hint cannot be met by a scan.
    hints = [(name, line.strip()) for name in queries.all_names()
             for line in queries.query(name).splitlines()
             if "USING INDEX" in line and not line.lstrip().startswith("//")]
    assert len(hints) >= 20
    assert [h for h in hints if "USING INDEX SEEK" not in h[1]] == []


def test_the_search_variant_changes_only_the_vector_queries() -> None:
    assert queries.all_names("search") == [
        "ingest/existing", "maintenance/covering_semantic", "recall/retrieve"]
    plain, search = queries.query("recall/retrieve"), queries.query("recall/retrieve", "search")
    assert "db.index.vector.queryNodes" in plain and "SEARCH node IN" not in plain
    assert "db.index.vector.queryNodes" not in search and search.count("SEARCH node IN") == 2
    # The header stays first; the Cypher version comes right after it.
    header = list(itertools.takewhile(lambda line: line.startswith("//"), plain.splitlines()))
    lines = search.splitlines()
    assert lines[:len(header)] == header and lines[len(header)] == "CYPHER 25"
    assert queries.query("recall/show", "search") == queries.query("recall/show")
    for name in queries.all_names("search"):
        assert "CYPHER 25" in queries.query(name, "search") and "{{" not in queries.query(
            name, "search")


def test_unknown_or_escaping_query_names_fail() -> None:
    with pytest.raises(KeyError):
        queries.query("recall/nope")
    with pytest.raises(KeyError):
        queries.query("../README")
    with pytest.raises(KeyError):
        queries.query("recall/retrieve", "nope")
    with pytest.raises(KeyError):  # a variant is asked for by its base name
        queries.query("ingest/existing@search")


def test_neo4j_conf_is_loopback_with_auth_and_sized_heap() -> None:
    s = load_settings(server_bolt_port=7688, server_http_port=7475, server_heap="3g")
    conf = server.neo4j_conf(s)
    assert "server.bolt.listen_address=127.0.0.1:7688" in conf
    assert "server.http.listen_address=127.0.0.1:7475" in conf
    # Browser's connect form offers the advertised Bolt address: this server's port.
    assert "server.bolt.advertised_address=127.0.0.1:7688" in conf
    assert "dbms.security.auth_enabled=true" in conf
    assert "server.memory.heap.max_size=3g" in conf
    # Plans are made again at most every five minutes (docs/decisions.md, "Plans live
    # minutes"), not at Neo4j's 10 s.
    assert "dbms.cypher.min_replan_interval=5m" in conf.splitlines()
    assert "internal.cypher.use_parameter_size=false" in conf.splitlines()
    assert s.neo4j_password.get_secret_value() not in conf


def test_each_line_locks_server_browser_and_launcher() -> None:
    for line in server.LINES.values():
        locked = {(j.group, j.artifact): j.version for j in jars.read_lock(line.version)}
        for group, artifact, version in line.artifacts:
            assert locked[(group, artifact)] == version


def test_error_location_formats() -> None:
    assert str(InputError("bad", source="f.jsonl", line=3, field="text")) == \
        "f.jsonl:3: field 'text': bad"
    assert str(InputError("bad", field="--now")) == "field '--now': bad"


def test_features_follow_the_release_line() -> None:
    from graphmem.graph.features import features

    lts = features("Neo4j/5.26.30")
    assert (lts.version, lts.line, lts.cypher_25, lts.vector_search_filters) == \
        ("5.26.30", "5.26", False, False)
    assert lts.enables == []
    early = features("Neo4j/2025.06.0")
    assert (early.line, early.cypher_25, early.vector_search_filters) == ("2025", True, False)
    new = features("Neo4j/2026.08.1")
    assert (new.line, new.cypher_25, new.vector_search_filters) == ("2026", True, True)
    assert "vector SEARCH with in-index filters" in new.enables
    assert features("something else").line is None


@pytest.mark.parametrize("values", [
    {"id": "m1", "score": 0.5, "n": None, "flag": True},
    {"hits": [{"id": "a", "memory": {"tags": ["x"], "meta": [["meta.turn", 3]]}}, None]},
    {"when": neo4j.time.DateTime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "blob": b"\x00"},
])
def test_rows_are_read_as_the_driver_exports_them(values: dict) -> None:
    record = neo4j.Record(values)
    assert store.row(record) == record.data()


def test_a_row_holding_a_node_falls_back_to_the_drivers_export() -> None:
    node = neo4j.graph.Node(neo4j.graph.Graph(), "4:x:1", 1, ["Memory"], {"id": "m1"})
    record = neo4j.Record({"m": node, "ms": [node]})
    assert store.row(record) == record.data() == {"m": {"id": "m1"}, "ms": [{"id": "m1"}]}


@pytest.mark.parametrize("code", sorted(retry.MEMORY_CODES))
def test_a_transaction_out_of_memory_is_not_retried_and_says_what_helps(code: str) -> None:
    """A 100k-record input on a 1 GiB heap was retried whole three times over 22 minutes
    and ended in "run it again": the same input needs the same memory again."""
    import neo4j.exceptions as nx

    from graphmem.base.errors import Neo4jBusy

    settings = load_settings()
    e = nx.Neo4jError._hydrate_neo4j(code=code, message="The allocation of an extra 2.0 MiB "
                                     "would use more than the limit 1.0 GiB")
    assert not retry.retryable(e)
    with pytest.raises(Neo4jBusy) as raised, store.translate_errors(settings):
        raise e
    said = raised.value.one_line()
    assert "ran out of memory for one transaction" in said and "run it again" not in said
    assert "GRAPHMEM_SERVER_HEAP" in said and "GRAPHMEM_WRITE_CHUNK_ROWS, now 10000" in said
    deadlock = nx.Neo4jError._hydrate_neo4j(
        code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock")
    assert retry.retryable(deadlock)


def test_the_local_servers_bolt_port_moves_the_default_uri(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("GRAPHMEM_NEO4J_URI", raising=False)
    monkeypatch.setenv("GRAPHMEM_SERVER_BOLT_PORT", "7787")
    assert load_settings().neo4j_uri == "bolt://127.0.0.1:7787"
    monkeypatch.setenv("NEO4J_URI", "neo4j://db.example:7687")  # a given URI wins
    assert load_settings().neo4j_uri == "neo4j://db.example:7687"


class _Clock:
    """A clock whose sleeps pass at once: retry's budget measured without waiting it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def test_one_retry_policy_tries_again_what_may_succeed_and_undoes_each_try(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Ingest, auto-commit commands and named writes each had their own count, backoff and
    # idea of what is retryable.
    import neo4j.exceptions as nx

    clock = _Clock()
    monkeypatch.setattr(retry, "time", clock)
    deadlock = nx.Neo4jError._hydrate_neo4j(
        code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock")
    conflict = nx.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Schema.ConstraintValidationFailed", message="exists")
    syntax = nx.Neo4jError._hydrate_neo4j(
        code="Neo.ClientError.Statement.SyntaxError", message="bad")
    undone: list[int] = []

    def failing(e: Exception):
        def work() -> None:
            raise e
        return work

    for e in (deadlock, conflict):
        undone.clear()
        clock.now = 0.0
        with pytest.raises(type(e)):
            retry.retried(failing(e), undo=lambda: undone.append(1), budget=5.0)
        assert len(undone) >= 5 and clock.now <= 5.0  # tried until the budget, not past it
    undone.clear()
    with pytest.raises(type(syntax)):
        retry.retried(failing(syntax), undo=lambda: undone.append(1))
    assert len(undone) == 1  # never tried again
    tries = iter([deadlock, None])

    def once_then_fine() -> str:
        e = next(tries)
        if e is not None:
            raise e
        return "done"

    clock.waits.clear()
    assert retry.retried(once_then_fine) == "done" and len(clock.waits) == 1
    assert all(0.5 * min(retry.LONGEST_PAUSE, retry.FIRST_PAUSE * 2 ** (a - 2)) <= retry.pause(a)
               <= min(retry.LONGEST_PAUSE, retry.FIRST_PAUSE * 2 ** (a - 2)) for a in range(2, 12))


def test_a_server_away_is_waited_for_within_the_budget_and_said_once(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    # A leader election keeps the server away 7-9 s: five tries in about 3 s failed most
    # writes of an outage of 10 s; a budget of 30 s waits it out.
    import neo4j.exceptions as nx

    clock = _Clock()
    monkeypatch.setattr(retry, "time", clock)
    away_until = 10.0

    def write() -> str:
        if clock.now < away_until:
            raise nx.ServiceUnavailable("Couldn't connect to 127.0.0.1:7687")
        return "stored"

    with caplog.at_level("WARNING", logger="graphmem.retry"):
        assert retry.retried(write) == "stored"
    assert 10.0 <= clock.now <= 10.0 + retry.LONGEST_PAUSE
    assert [r.getMessage() for r in caplog.records] == [
        "graphmem: waiting for Neo4j to answer (up to 30 s, GRAPHMEM_RETRY_S)"]
    clock.now, away_until = 0.0, 45.0
    with pytest.raises(nx.ServiceUnavailable):
        retry.retried(write)
    assert 30.0 - retry.LONGEST_PAUSE <= clock.now <= 30.0
