"""Issue 57's holes at the doors, on the real server: text that is not Unicode is one
input error at every door and fails no one else's recall (hole 6); an id that names a
kept version is refused as a new record's id, and a version is not edited, at every
door (holes 4 and 7); a memory deleted while `get` reads it is passed over (hole 10)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from test_service import Service, svc  # noqa: F401 (a fixture)

from graphmem.api import GraphMem
from graphmem.base.errors import InputError
from graphmem.mcp import build


def _cli(mem: GraphMem, *args: str | bytes, stdin: str = "") -> subprocess.CompletedProcess:
    s = mem.settings
    env = {**os.environ, "NEO4J_URI": s.neo4j_uri, "GRAPHMEM_SCOPE": s.scope,
           "NEO4J_PASSWORD": s.neo4j_password.get_secret_value()}
    return subprocess.run([sys.executable, "-m", "graphmem", *args], input=stdin.encode(),
                          env=env, capture_output=True, timeout=300)


def _one_error_line(done: subprocess.CompletedProcess, field: str) -> None:
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    assert field in err and "Traceback" not in err


def test_argv_bytes_that_are_not_utf8_are_one_input_error(mem: GraphMem) -> None:
    mem.remember("The build cache lives on the shared volume")
    _one_error_line(_cli(mem, "recall", b"cache \xff\xfe"), "query")
    _one_error_line(_cli(mem, "get", b"ab\xffcd"), "id")
    _one_error_line(_cli(mem, "forget", b"ab\xffcd"), "id")
    _one_error_line(_cli(mem, "get", "--meta", b"dia_id=D1:\xff"), "--meta")


def test_a_query_that_is_not_unicode_fails_only_its_own_recall(mem: GraphMem) -> None:
    mem.remember(["The build cache lives on the shared volume",
                  "Nightly builds publish to the internal registry"])
    mem.embedder.forget_queries()
    results: dict[int, object] = {}
    start = threading.Barrier(24)

    def ask(i: int) -> None:
        query = "where is the build cache \ud800" if i == 7 else f"build cache {i}"
        start.wait()
        try:
            results[i] = mem.recall(query, reinforce=False).hits[0].text
        except InputError as e:
            results[i] = e

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert isinstance(results.pop(7), InputError)
    assert len(results) == 23 and all(isinstance(r, str) for r in results.values())
    # Below the door's check, the shared model run isolates a text it cannot take.
    model = mem.embedder._onnx_model()
    assert model is not None
    got: dict[str, object] = {}

    def embed(text: str) -> None:
        try:
            got[text] = model.one(text)
        except Exception as e:
            got[text] = e

    texts = ["fine one", "bad \ud800", "fine two", "fine three"]
    threads = [threading.Thread(target=embed, args=(t,)) for t in texts * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert isinstance(got.pop("bad \ud800"), Exception)
    assert all(not isinstance(v, Exception) for v in got.values())


def test_version_ids_are_refused_and_versions_not_edited_at_every_door(
        svc: Service) -> None:  # noqa: F811
    mem = svc.mem
    mem.remember([{"id": "cfg", "text": "Retries are capped at three"}], scope=svc.a)
    mem.update("cfg", text="Retries are capped at five", scope=svc.a)
    # HTTP: a record may not take a version's id; a version may not be updated.
    taken = svc.call("POST", "/v1/remember", svc.token_a,
                     json={"records": [{"id": "cfg@v2", "text": "Names a version id"}]})
    assert taken.status_code == 400 and "@v<n>" in taken.json()["error"], taken.text
    edited = svc.call("POST", "/v1/update", svc.token_a,
                      json={"id": "cfg@v1", "text": "Retries were capped at four"})
    assert edited.status_code == 400 and "version" in edited.json()["error"], edited.text
    ours = GraphMem(mem.settings.model_copy(update={"scope": svc.a}), embedder=mem.embedder)
    try:
        # MCP: the same refusal as a tool error.
        try:
            anyio.run(build(ours).call_tool, "memory_update",
                      {"memory_id": "cfg@v1", "text": "Retries were capped at four"})
            raise AssertionError("MCP edited a version")
        except ToolError as e:
            assert "version" in str(e)
        # CLI: one line, exit 1, nothing written.
        _one_error_line(_cli(ours, "remember", "--json", stdin='{"id": "cfg@v7", '
                             '"text": "Names a version id"}'), "id")
        _one_error_line(_cli(ours, "update", "cfg@v1", "--text", "Capped at four"), "id")
    finally:
        ours.close()
    assert [h.memory.id for h in mem.history("cfg", scope=svc.a)] == ["cfg", "cfg@v1"]
    assert mem.get(ids=["cfg@v2", "cfg@v7"], scope=svc.a) == []
