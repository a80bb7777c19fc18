"""Shared fixtures. Every test of the store runs on a real Neo4j 5.26 server:

- a testcontainers Neo4j container when a Docker engine answers, else
- the server named by NEO4J_URI / NEO4J_PASSWORD (`graphmem server start` brings one up).

With GRAPHMEM_REQUIRE_NEO4J=1 (CI sets it) a missing server fails the run instead of
skipping the integration tests. Each test gets its own scope, deleted afterwards.
"""

from __future__ import annotations

import importlib.util
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.api import GraphMem
from graphmem.base.errors import Neo4jUnavailable
from graphmem.base.settings import Settings, load_settings
from graphmem.bench.proxy import TcpProxy
from graphmem.embedding import chosen
from graphmem.embedding.embedders import Embedder
from graphmem.graph.store import Store

# Tests that run `graphmem` in a subprocess measure that process, not a warm one left by
# an earlier test: the warm path's own tests turn it on, with a socket folder of their own.
os.environ.setdefault("GRAPHMEM_WARM", "off")


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def neo4j_settings() -> Iterator[Settings]:
    """Settings pointing at a live Neo4j (container or NEO4J_URI)."""
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        image = f"neo4j:{load_settings().server_line}-community"  # the line of the settings
        with Neo4jContainer(image, password="graphmem-test") as container:
            yield load_settings(neo4j_uri=container.get_connection_url(),
                                neo4j_password="graphmem-test")
        return
    settings = load_settings()
    try:
        Store.connect(settings).close()
    except Neo4jUnavailable as e:
        if os.environ.get("GRAPHMEM_REQUIRE_NEO4J") == "1":
            pytest.fail(f"GRAPHMEM_REQUIRE_NEO4J=1 but no Neo4j: {e.one_line()}", pytrace=False)
        pytest.skip(f"no Neo4j server: {e.one_line()}")
    yield settings


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real default model (or GRAPHMEM_EMBEDDING_MODEL's), loaded once per run."""
    e = chosen.from_settings(Settings())
    e.warm()
    return e


@pytest.fixture(scope="session")
def schema_ready(neo4j_settings: Settings, embedder: Embedder) -> Settings:
    """The schema, installed once per run."""
    with GraphMem(neo4j_settings, embedder=embedder) as mem:
        mem.init()
    return neo4j_settings


@pytest.fixture
def scope() -> str:
    """A scope of this test's own."""
    return f"test:{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(schema_ready: Settings) -> Iterator[Store]:
    """A connection to the real server, for tests that look at the graph itself; `mem`
    uses the same one."""
    s = Store.connect(schema_ready)
    yield s
    s.close()


@pytest.fixture
def mem(schema_ready: Settings, embedder: Embedder, scope: str,
        store: Store) -> Iterator[GraphMem]:
    """A GraphMem on the real server, in a fresh scope that is deleted after the test."""
    settings = schema_ready.model_copy(update={"scope": scope})
    with GraphMem(settings, embedder=embedder, store=store) as m:
        yield m
        m.drop_scope(scope)


@pytest.fixture
def local_server(schema_ready: Settings) -> None:
    """Skips unless the tests talk to the server `graphmem server start` runs: a container
    maps its ports elsewhere and keeps a configuration of its own."""
    if not schema_ready.neo4j_uri.endswith(f":{schema_ready.server_bolt_port}"):
        pytest.skip("needs the local server graphmem starts (a container maps its ports)")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared benchmark data (GRAPHMEM_DATA, else ../shared/data next to the repo)."""
    here = Path(__file__).resolve().parents[1]
    path = Path(os.environ.get("GRAPHMEM_DATA") or here.parent / "shared" / "data")
    if not (path / "locomo").is_dir():
        why = f"no shared data at {path} (set GRAPHMEM_DATA)"
        if os.environ.get("GRAPHMEM_REQUIRE_DATA") == "1":  # as in .ci/run: never skipped
            pytest.fail(why)
        pytest.skip(why)
    return path


@pytest.fixture(scope="session")
def transcript_row() -> Callable[[GraphMem, Path], Any]:
    """`graphmem.bench.slots.transcript_recall` of a conversation, asked once for the whole
    run: every framework's slot test is held to the same transcript row (each asking it
    again cost ~20 s of the suite)."""
    from graphmem.bench.slots import transcript_recall

    kept: dict[Path, Any] = {}

    def row(mem: GraphMem, path: Path) -> Any:
        if path not in kept:
            kept[path] = transcript_recall(mem, path)
        return kept[path]
    return row


class HardeningCounts:
    """What the standing hardening suite tried and found, printed at the end of the run
    (`pytest_terminal_summary`): every test of it counts its generated inputs and any
    failure of the kinds the suite hunts."""

    KINDS = ("tracebacks", "partial batches", "leaks", "cross-scope writes", "lost updates",
             "secrets stored", "secrets echoed", "residue after hard forget",
             "user memories lost", "private in public", "forgotten text back",
             "live twins refused", "versions of refused updates", "unbounded queries",
             "partial runs", "error shapes", "random ids refused", "adapter races",
             "hand-off differences", "interrupted writes unreported", "bookmark stalls",
             "bookmark leaks", "version ids", "versions edited", "scopes of two models",
             "receipts forgotten")

    def __init__(self) -> None:
        self.inputs = 0
        self.found = dict.fromkeys(self.KINDS, 0)

    def line(self) -> str:
        """The suite's summary line."""
        found = ", ".join(f"{n} {kind}" for kind, n in self.found.items())
        return f"hardening: {self.inputs} generated inputs, {found}"


HARDENING = HardeningCounts()


@pytest.fixture(scope="session")
def hardening() -> HardeningCounts:
    """The run's hardening counts (see HardeningCounts)."""
    return HARDENING


#: Cold plan times of recall's queries (ms), as `test_queries` measured them.
PLAN_TIMES: dict[str, float] = {}


@pytest.fixture(scope="session")
def plan_times() -> dict[str, float]:
    """Where tests put the plan times printed at the end of the run."""
    return PLAN_TIMES


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the hardening suite's counts and the recall queries' plan times when they ran."""
    if HARDENING.inputs:
        terminalreporter.write_line(HARDENING.line())
    if PLAN_TIMES:
        terminalreporter.write_line("cold plan times (ms): " + ", ".join(
            f"{name} {ms:.0f}" for name, ms in sorted(PLAN_TIMES.items())))


#: Tests that run first: the benchmarks notebook recalls from whole data sets, and on a
#: server the rest of the suite has filled each of its recalls took 250-340 ms instead of
#: 10-60 (CI's notebook test grew from 110 to 680 s).
FIRST = ("test_notebooks.py::test_notebook_runs[benchmarks]",)

#: The test files that measure recall on the shared benchmark data and hold it to a figure
#: (the same figures run after run, a slot within 1.0 R@10 of the transcript), or write
#: `graphmem bench`'s scopes of fixed names (bench:locomo:<conv>: a run's figures depend on
#: the name, since a memory's id is a hash of its scope and text). With pytest-xdist's
#: workers (.ci/run runs two on one server) they are one unit, run by one worker, one after
#: another: none writes another's scope, and none measures beside another's copy of its
#: conversation in 5.26's shared vector index (while the grouping was silently off, CI saw
#: the reproducibility file's two tests, which share one scope, drop it under each other:
#: docs/results.md). Every other file is a unit of its own and writes scopes of its own.
MEASURED = ("test_adk.py", "test_autogen.py", "test_bench_reproducible.py", "test_cli.py",
            "test_llamaindex.py", "test_notebooks.py", "test_openai_agents.py",
            "test_pydantic_ai.py")

#: The units that take a minute or more in .ci/run, longest first, handed to the workers
#: first so that none is left to run alone at the end.
LONGEST = ("measured", "test_service.py", "test_hardening_suite.py", "test_async_store.py",
           "test_warm.py", "test_hardening_inputs.py", "test_recall_candidates.py",
           "test_runs.py", "test_agent_turns.py", "test_embed.py", "test_mcp.py")


def _unit(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return "measured" if path.rsplit("/", 1)[-1] in MEASURED else path


def _rank(item: pytest.Item) -> tuple[bool, int]:
    name = _unit(item.nodeid).rsplit("/", 1)[-1]
    return (not item.nodeid.endswith(FIRST),
            LONGEST.index(name) if name in LONGEST else len(LONGEST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests under tests/integration so `-m "not integration"` runs the fast ones, and
    put FIRST, then LONGEST, in front (the workers take the units in this order)."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.integration)
    items.sort(key=_rank)


if importlib.util.find_spec("xdist") is not None:
    from xdist.scheduler import LoadScopeScheduling

    class Units(LoadScopeScheduling):
        """pytest-xdist's `loadscope` with this suite's units as its scopes (`_unit`).
        Not `loadgroup` with `xdist_group` marks: it carries the group in the test's
        nodeid, which pytest 9.2 no longer lets a plugin change, so every test became a
        unit of its own without a word (pytest-xdist issue 1386), and CI ran the two tests
        of one file that share a benchmark's scope at once in both workers."""

        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Units | None:
        """With `-n N` alone (`--dist load`) or `--dist loadscope` (as .ci/run runs it):
        schedule by `_unit`."""
        return Units(config, log) if config.getvalue("dist") in ("load", "loadscope") else None


class WorkerCounts:
    """With pytest-xdist each worker keeps its own hardening counts and plan times: each
    sends them back as it ends, and the controller adds them up for the summary. The
    controller also sees which worker ran each unit: a unit split between two fails the
    run (its tests may meet each other's scopes), whatever the tests said."""

    def __init__(self) -> None:
        self.ran_on: dict[str, set[str]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """In the controller: note the worker that ran this test."""
        node = getattr(report, "node", None)
        if node is not None:
            self.ran_on.setdefault(_unit(report.nodeid), set()).add(node.gateway.id)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """In a worker: hand this worker's counts to the controller. In the controller:
        fail the run if a unit's tests ran in more than one worker."""
        out = getattr(session.config, "workeroutput", None)
        if out is not None:
            out["hardening"] = {"inputs": HARDENING.inputs, "found": HARDENING.found}
            out["plan_times"] = PLAN_TIMES
            return
        split = {unit: sorted(on) for unit, on in self.ran_on.items() if len(on) > 1}
        if split:
            session.config.pluginmanager.get_plugin("terminalreporter").write_line(
                f"units split between workers (run with `--dist loadscope`): {split}", red=True)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """In the controller: add a worker's counts to the run's."""
        out = getattr(node, "workeroutput", None) or {}
        if "hardening" in out:
            HARDENING.inputs += out["hardening"]["inputs"]
            for kind, n in out["hardening"]["found"].items():
                HARDENING.found[kind] += n
        PLAN_TIMES.update(out.get("plan_times", {}))


def pytest_configure(config: pytest.Config) -> None:
    """Gather the workers' counts when pytest-xdist runs them."""
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(WorkerCounts(), "graphmem-worker-counts")


class ChatEndpoint:
    """A local stand-in for an OpenAI-compatible endpoint: `/v1/chat/completions` answers
    `reply`, `/v1/embeddings` answers what `embed` makes of the input (or either answers
    `status`, or `raw` bytes); every request is kept."""

    def __init__(self) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.reply: str = "A summary."
        self.status = 200
        self.raw: bytes | None = None
        self.embed: Callable[[list[str]], list[list[float]]] | None = None
        self.requests: list[tuple[dict, dict]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append((dict(self.headers), body | {"path": self.path}))
                if endpoint.raw is not None:
                    payload = endpoint.raw
                elif self.path.endswith("/embeddings") and endpoint.embed:
                    payload = json.dumps({"data": [
                        {"index": i, "embedding": v}
                        for i, v in enumerate(endpoint.embed(body["input"]))]}).encode()
                else:
                    payload = json.dumps({"choices": [{"message": {
                        "role": "assistant", "content": endpoint.reply}}]}).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_port}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def chat_endpoint() -> Iterator[ChatEndpoint]:
    """A local OpenAI-compatible chat endpoint (see ChatEndpoint)."""
    endpoint = ChatEndpoint()
    yield endpoint
    endpoint.close()


@pytest.fixture
def bolt_proxy(neo4j_settings: Settings) -> Iterator[TcpProxy]:
    """A TcpProxy to the test server's Bolt port."""
    from urllib.parse import urlsplit

    where = urlsplit(neo4j_settings.neo4j_uri)
    proxy = TcpProxy(where.hostname or "127.0.0.1", where.port or 7687)
    yield proxy
    proxy.close()


#: tests/apart runs in an environment of its own, without graphmem (.ci/run): a framework
#: whose pins cannot share graphmem's, reaching it over MCP.
collect_ignore = ["apart"]
