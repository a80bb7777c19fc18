"""The warm path on the real server: a CLI call handed to the warm process answers as the
call would have answered in its own process, with the caller's settings and scope."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.bench.door import command
from graphmem.embed import Embedder


@pytest.fixture
def warm_env(mem: GraphMem, embedder: Embedder, tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment whose calls go to a warm process of this test's own."""
    embedder.warm()  # the export exists, as after `graphmem init`
    s = mem.settings
    env = {**os.environ, "NEO4J_URI": s.neo4j_uri, "GRAPHMEM_SCOPE": s.scope,
           "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(),
           "XDG_RUNTIME_DIR": str(tmp_path), "GRAPHMEM_WARM": "on"}
    yield env
    subprocess.run([*command(), "warm", "stop"], env=env, capture_output=True, timeout=60)


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), *argv], env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def _status(env: dict[str, str]) -> dict | None:
    done = _run(["warm", "status", "--json"], env)
    return json.loads(done.stdout) if done.returncode == 0 else None


def _wait_for_warm(env: dict[str, str]) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = _status(env)
        if found is not None:
            return found
        time.sleep(0.2)
    raise AssertionError("no warm process answered within 120 s")


def test_calls_after_the_first_are_answered_warm_as_they_would_be_cold(
        warm_env: dict[str, str], mem: GraphMem) -> None:
    assert _status(warm_env) is None
    first = _run(["remember", "--text", "The cache layer is Redis, one per region",
                  "--json"], warm_env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["counts"] == {"created": 1}
    before = _wait_for_warm(warm_env)["calls"]  # the first call started it

    second = _run(["remember", "--text", "Deploys go through staging first", "--json"],
                  warm_env)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["counts"] == {"created": 1}
    warm = _run(["recall", "which key-value store do we use?", "--json"], warm_env)
    assert warm.returncode == 0, warm.stderr
    cold = _run(["recall", "which key-value store do we use?", "--json"],
                {**warm_env, "GRAPHMEM_WARM": "off"})
    warm_hits = [(h["id"], h["text"]) for h in json.loads(warm.stdout)["hits"]]
    cold_hits = [(h["id"], h["text"]) for h in json.loads(cold.stdout)["hits"]]
    assert warm_hits == cold_hits and warm_hits[0][1].startswith("The cache layer is Redis")
    assert _status(warm_env)["calls"] == before + 2  # both went to the warm process
    assert len(mem.get(meta=None, ids=[i for i, _ in warm_hits])) == 2


def test_the_warm_process_keeps_each_callers_scope_and_exit_codes(
        warm_env: dict[str, str], mem: GraphMem) -> None:
    mem.remember("The on-call rota is kept in PagerDuty")
    assert _run(["recall", "warm it up", "--json"], warm_env).returncode == 0
    _wait_for_warm(warm_env)
    other = {**warm_env, "GRAPHMEM_SCOPE": mem.settings.scope + ":other"}
    theirs = _run(["recall", "where is the on-call rota?", "--json"], other)
    assert theirs.returncode == 0, theirs.stderr
    assert json.loads(theirs.stdout)["hits"] == []  # another caller's scope, not ours
    ours = _run(["recall", "where is the on-call rota?", "--json"], warm_env)
    assert "PagerDuty" in json.loads(ours.stdout)["hits"][0]["text"]

    bad = _run(["recall", "x", "--top-k", "0"], warm_env)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.startswith("error: ") and len(bad.stderr.strip().splitlines()) == 1
    missing = _run(["get", "m-no-such-memory"], warm_env)
    assert missing.returncode == 1 and "m-no-such-memory" in missing.stderr
    assert _status(warm_env)["calls"] >= 3


def test_warm_stop_ends_it_and_calls_run_on_their_own_again(
        warm_env: dict[str, str]) -> None:
    assert _run(["recall", "anything", "--json"], warm_env).returncode == 0
    pid = _wait_for_warm(warm_env)["pid"]
    stopped = _run(["warm", "stop", "--json"], warm_env)
    assert json.loads(stopped.stdout)["stopped"] == [pid]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    assert _status(warm_env) is None
    off = _run(["recall", "anything", "--json"], {**warm_env, "GRAPHMEM_WARM": "off"})
    assert off.returncode == 0 and _status(warm_env) is None  # and started none
