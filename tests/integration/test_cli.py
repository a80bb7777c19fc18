"""The `graphmem` command on the real server: JSON on stdout, one-line errors, exit codes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graphmem.api import GraphMem
from graphmem.cli import app


@pytest.fixture
def cli(mem: GraphMem, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner whose environment points at the test server and the test's scope."""
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    return CliRunner()


def test_remember_ndjson_then_recall_json(cli: CliRunner, mem: GraphMem) -> None:
    lines = "\n".join(json.dumps({"text": t}) for t in
                      ["The cache layer is Redis", "We deploy with Kubernetes on GKE"])
    wrote = cli.invoke(app, ["remember", "--json"], input=lines)
    assert wrote.exit_code == 0, wrote.stderr
    assert [o["status"] for o in json.loads(wrote.stdout)["outcomes"]] == ["created", "created"]
    found = cli.invoke(app, ["recall", "which key-value store do we use?", "-k", "1", "--json"])
    assert found.exit_code == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert [h["text"] for h in hits] == ["The cache layer is Redis"]


def test_remember_text_with_kind_alias(cli: CliRunner, mem: GraphMem) -> None:
    done = cli.invoke(app, ["remember", "--text", "Deploys need on-call approval",
                            "--kind", "rule", "--json"])
    assert done.exit_code == 0, done.stderr
    mid = json.loads(done.stdout)["outcomes"][0]["id"]
    assert mem.store.read("admin/memory_by_id", id=mid)[0]["memory"]["kind"] == "heuristic"


def test_bad_line_exits_1_with_one_line_and_writes_nothing(cli: CliRunner, mem: GraphMem) -> None:
    done = cli.invoke(app, ["remember"], input='{"text": "fine memory"}\n{"txt": "typo"}\n')
    assert done.exit_code == 1
    assert done.stdout == ""
    assert done.stderr.strip() == "error: <stdin>:2: field 'text': missing"
    assert mem.store.read("admin/count_memories", scope=mem.settings.scope)[0]["memories"] == 0


def test_bad_now_is_a_user_error(cli: CliRunner) -> None:
    done = cli.invoke(app, ["remember", "--text", "a fine memory", "--now", "last tuesday"])
    assert done.exit_code == 1
    assert "--now" in done.stderr


def test_unreachable_server_exits_2_with_a_hint(cli: CliRunner,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    done = cli.invoke(app, ["recall", "anything"])
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1
    assert "graphmem server start" in done.stderr


def test_wrong_password_exits_2_and_never_echoes_it(cli: CliRunner,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_PASSWORD", "definitely-wrong-pw")
    done = cli.invoke(app, ["recall", "anything"])
    assert done.exit_code == 2
    assert "NEO4J_PASSWORD" in done.stderr
    assert "definitely-wrong-pw" not in done.stderr + done.stdout


def test_doctor_json_shows_every_index_online(cli: CliRunner, mem: GraphMem) -> None:
    done = cli.invoke(app, ["doctor", "--json"])
    assert done.exit_code == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["indexes"]
    assert {i["state"] for i in report["indexes"]} == {"ONLINE"}
    assert mem.settings.neo4j_password.get_secret_value() not in done.stdout


def test_bad_scope_flag_is_a_user_error(cli: CliRunner) -> None:
    done = cli.invoke(app, ["recall", "anything", "--scope", "no spaces allowed"])
    assert done.exit_code == 1
    assert done.stderr.startswith("error: field '--scope': scope 'no spaces allowed'")
