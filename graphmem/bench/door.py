"""`bench cli`: what an agent waits for when it calls `graphmem` as a subprocess. The wall
time of `recall`, `remember` and `--help`, each a new process, next to the floor measured
in the same rounds: a Python that imports only the driver, numpy and ONNX Runtime, which
any call would have to. `recall` and `remember` are timed as users get them (handed to the
warm process, which the warm-up round starts; `graphmem.base.handoff`) and each in its own
process (GRAPHMEM_WARM=off). The commands take turns within each round, so the machine's
noise falls on all of them alike."""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.base import handoff

#: The floor: what every call imports before it does anything of graphmem's.
FLOOR = "import neo4j, numpy, onnxruntime"
#: Modules a call must not import once the model's export exists.
FRAMEWORKS = ("torch", "transformers", "sentence_transformers")
#: The targets: the default call's wall median over the floor's, in seconds; `--help`
#: is absolute.
OVER_FLOOR = {"recall": 0.5, "remember": 0.6}
#: How long the warm-up round waits for the warm process it started to answer.
WARM_WAIT = 120.0
#: The MCP server's first memory_recall, in seconds after `initialize` answered.
MCP_FIRST_RECALL = 1.5
HELP_TARGET = 0.5
#: What the scope holds: a few notes, as an agent's first day would.
NOTES = ("The cache layer is Redis, one instance per region.",
         "Deploys go through the staging cluster first; production follows after an hour.",
         "Secrets live in Vault; nobody commits a .env file.",
         "Tomasz leads on-call in September.",
         "The billing service retries a failed charge three times.")
QUESTION = "which cache do we use?"


class CallWall(BaseModel):
    """One call's wall times over the runs, in seconds."""

    call: str
    median_s: float
    spread_s: tuple[float, float]  # the fastest and slowest run
    over_floor_s: float | None  # median minus the floor's median
    target: str  # what the median is held to


class CliBench(BaseModel):
    """`bench cli`: the wall medians of CLI calls next to the floor, in one run."""

    cores: int
    runs: int
    scope_memories: int
    frameworks_imported: list[str]  # by a cold recall and remember, once the export exists
    calls: list[CallWall]
    #: The MCP stdio server (`graphmem mcp`, started by the SDK's client as a host does):
    #: seconds from its start to `initialize` answered, and from then to the first
    #: memory_recall answered; medians over the runs.
    mcp_initialize_s: float
    mcp_first_recall_s: float
    met: bool  # every target held


def command() -> list[str]:
    """How a user calls graphmem: the console script beside this Python, else `-m`."""
    script = Path(sys.executable).parent / "graphmem"
    if script.is_file():
        return [str(script)]
    found = shutil.which("graphmem")
    return [found] if found else [sys.executable, "-m", "graphmem"]


def _wall(argv: list[str], env: dict[str, str]) -> float:
    """Seconds from start to exit of one call, which must succeed."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=600, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} … exited {done.returncode}: "
                           f"{done.stderr.decode(errors='replace').strip()[-300:]}")
    return took


def imported_frameworks(argv: list[str], env: dict[str, str]) -> list[str]:
    """The model frameworks a call imports (read from Python's -X importtime report)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "graphmem", *argv[1:]],
                          env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=600, check=True)
    seen = set()
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:"):
            top = line.rsplit("|", 1)[-1].strip().split(".")[0]
            if top in FRAMEWORKS:
                seen.add(top)
    return sorted(seen)


def cli(mem: GraphMem, *, runs: int = 5) -> CliBench:
    """Time `runs` rounds of the floor, `--help`, and a recall and a one-text remember both
    warm and cold (after one warm-up round) against a new scope of a few notes, then stop
    the bench's warm process and drop the scope."""
    scope = f"bench:cli:{uuid.uuid4().hex[:8]}"
    mem.ops.warm_embedder()  # the export exists before anything is timed, as after `init`
    mem.remember(list(NOTES), scope=scope)
    base = {**os.environ, "GRAPHMEM_SCOPE": scope, "NEO4J_URI": mem.settings.neo4j_uri}
    graphmem = command()
    with tempfile.TemporaryDirectory() as sockets:
        # A warm process of the bench's own: started by the warm-up round, stopped after.
        warm = {**base, "XDG_RUNTIME_DIR": sockets, handoff.SWITCH: "on"}
        cold = {**base, handoff.SWITCH: "off"}

        def remember(i: int) -> list[str]:
            return [*graphmem, "remember", "--text",
                    f"Run {i}: the nightly backup finished at 02:{i % 60:02d}.", "--json"]

        calls: dict[str, tuple[Callable[[int], list[str]], dict[str, str]]] = {
            "floor": (lambda i: [sys.executable, "-c", FLOOR], cold),
            "--help": (lambda i: [*graphmem, "--help"], cold),
            "recall": (lambda i: [*graphmem, "recall", QUESTION, "--json"], warm),
            "remember": (remember, warm),
            "recall (cold)": (lambda i: [*graphmem, "recall", QUESTION, "--json"], cold),
            "remember (cold)": (lambda i: remember(1000 + i), cold),
        }
        try:
            frameworks = sorted({*imported_frameworks(calls["recall"][0](0), cold),
                                 *imported_frameworks(remember(-1), cold)})
            walls: dict[str, list[float]] = {name: [] for name in calls}
            for i in range(runs + 1):
                for name, (argv, env) in calls.items():
                    took = _wall(argv(i), env)
                    if i:  # the first round warms the disk cache and the server
                        walls[name].append(took)
                if not i:
                    _wait_for_warm(graphmem, warm)
            mcp = [asyncio.run(_mcp_first_recall(cold)) for _ in range(runs)]
        finally:
            subprocess.run([*graphmem, "warm", "stop"], env=warm, capture_output=True,
                           timeout=60, check=False)
            mem.drop_scope(scope)
    floor = statistics.median(walls["floor"])
    rows = []
    for name, times in walls.items():
        median = statistics.median(times)
        over = None if name == "floor" else round(median - floor, 3)
        target = (f"<= floor + {OVER_FLOOR[name]} s" if name in OVER_FLOOR else
                  f"<= {HELP_TARGET} s" if name == "--help" else "")
        rows.append(CallWall(call=name, median_s=round(median, 3),
                             spread_s=(round(min(times), 3), round(max(times), 3)),
                             over_floor_s=over, target=target))
    medians = {r.call: r.median_s for r in rows}
    first_recall = round(statistics.median(r for _, r in mcp), 3)
    met = (not frameworks and medians["--help"] <= HELP_TARGET
           and all(medians[c] - floor <= limit for c, limit in OVER_FLOOR.items())
           and first_recall <= MCP_FIRST_RECALL)
    return CliBench(cores=os.cpu_count() or 1, runs=runs, scope_memories=len(NOTES),
                    frameworks_imported=frameworks, calls=rows,
                    mcp_initialize_s=round(statistics.median(i for i, _ in mcp), 3),
                    mcp_first_recall_s=first_recall, met=met)


async def _mcp_first_recall(env: dict[str, str]) -> tuple[float, float]:
    """Start `graphmem mcp` over stdio with the MCP SDK's client, as an agent host does;
    the seconds to `initialize` answered, and from then to the first memory_recall."""
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "graphmem", "mcp"],
                                   env=env)
    started = time.perf_counter()
    # The server's log is no figure, and a captured stderr (a test's) has no file number.
    with open(os.devnull, "w") as quiet:
        return await _first_recall(stdio_client(server, errlog=quiet), started)


async def _first_recall(transport: Any, started: float) -> tuple[float, float]:
    from mcp import ClientSession

    async with transport as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        ready = time.perf_counter()
        answer = await client.call_tool("memory_recall", {"query": QUESTION})
        done = time.perf_counter()
        if answer.is_error:
            raise RuntimeError(f"memory_recall failed: {answer.content}")
    return ready - started, done - ready


def _wait_for_warm(graphmem: list[str], env: dict[str, str]) -> None:
    """Wait until the warm process the warm-up round started answers."""
    deadline = time.monotonic() + WARM_WAIT
    while time.monotonic() < deadline:
        if subprocess.run([*graphmem, "warm", "status"], env=env, capture_output=True,
                          timeout=60, check=False).returncode == 0:
            return
        time.sleep(0.2)
    raise RuntimeError(f"no warm process answered within {WARM_WAIT:.0f} s")
