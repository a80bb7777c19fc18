"""Every example of docs/integrations.md runs as written, against the real server: the
LangGraph graph, LangMem's tools, the LangChain chain and the MCP HTTP client (with
`graphmem mcp --transport http` started as the page says)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.api import GraphMem
from graphmem.integrations import langgraph as store_module

PAGE = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
#: The scope the ADK example writes: its app "helper", its user "dana".
ADK_EXAMPLE = "adk/helper/"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)


@pytest.fixture
def environment(mem: GraphMem, monkeypatch: pytest.MonkeyPatch) -> Iterator[GraphMem]:
    """The environment the examples read (the test's server and scope), and a store root
    of the test's own."""
    s = mem.settings
    monkeypatch.setenv("NEO4J_URI", s.neo4j_uri)
    monkeypatch.setenv("NEO4J_PASSWORD", s.neo4j_password.get_secret_value())
    monkeypatch.setenv("GRAPHMEM_SCOPE", s.scope)
    monkeypatch.setattr(store_module, "ROOT", f"lgdocs-{uuid.uuid4().hex[:10]}")
    for scope in mem.scopes(ADK_EXAMPLE):  # the ADK example names its app and user
        mem.drop_scope(scope)
    yield mem
    for scope in mem.scopes(store_module.ROOT + "/") + mem.scopes(ADK_EXAMPLE):
        mem.drop_scope(scope)


def test_the_page_has_its_nine_examples() -> None:
    assert len(BLOCKS) == 9


@pytest.mark.parametrize(("index", "printed"), [
    (0, "['My sister Eva lives in Porto']"), (1, "Helix"),
    (2, "rides a red bicycle to work"), (3, "My sister Eva lives in Porto"),
    (4, "'content': 'My sister Eva lives in Porto'"),
    (5, "- My sister Eva lives in Porto"), (6, "My sister Eva lives in Porto"),
    (7, "Eva lives in Porto")])
def test_python_examples_run(environment: GraphMem, capfd: pytest.CaptureFixture[str],
                             index: int, printed: str) -> None:
    # `graphmem` as this interpreter runs it (the suite's venv need not be on PATH);
    # captured by file descriptor, as a stdio MCP server's stderr needs a real one.
    code = BLOCKS[index].replace('StdioTransport("graphmem", ["mcp"]',
                                 f'StdioTransport({sys.executable!r}, ["-m", "graphmem", "mcp"]')
    try:
        exec(compile(code, f"{PAGE.name} example {index + 1}", "exec"), {})
    except Exception as e:
        # What the ADK example's scope holds, and finds now: a rare CI failure (no hit at
        # all) should say whether the write or the recall lost the turn.
        e.add_note(_held(environment, ADK_EXAMPLE))
        raise
    assert printed in capfd.readouterr().out


def _held(mem: GraphMem, prefix: str) -> str:
    """Each scope under `prefix`: its memories (id, lifecycle, tier, text) and what a
    recall of the ADK example's question finds in it."""
    return "; ".join(
        f"{s}: {[(m.id, m.lifecycle, m.tier, m.text) for m in mem.recent(s)]}, recall "
        f"{[h.id for h in mem.recall('Where does my sister live?', scope=s).hits]}"
        for s in mem.scopes(prefix)) or f"no scope under {prefix}"


def test_mcp_http_example_runs(environment: GraphMem,
                               capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "graphmem", "mcp", "--transport", "http",
                               "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        code = BLOCKS[8].replace(":8765/", f":{port}/")
        exec(compile(code, f"{PAGE.name} example 9", "exec"), {})
        assert "Thursday" in capsys.readouterr().out
    finally:
        server.terminate()
        server.wait(timeout=30)
