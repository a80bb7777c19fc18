"""`graphmem server start|stop|status`: a local Neo4j without Docker."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from graphmem.base.errors import GraphmemError
from graphmem.cli.output import JsonOpt, emit, handled, say

if TYPE_CHECKING:
    from graphmem.graph.server import LocalServer, ServerStatus

#: `status`'s exit code when the server is not running (as service tools say it).
NOT_RUNNING = 3

app = typer.Typer(help="Run a local Neo4j (5.26 LTS, or the 2026 line with "
                  "GRAPHMEM_SERVER_LINE=2026) + Browser, fetched from Maven Central.",
                  no_args_is_help=True, rich_markup_mode="markdown")


def _local() -> LocalServer:
    """The local server the settings describe (imported here: `--help` loads none of it)."""
    from graphmem.base.settings import load_settings
    from graphmem.graph.server import LocalServer

    return LocalServer(load_settings())


def _render(status: ServerStatus) -> Callable[[Console], None]:
    def draw(c: Console) -> None:
        if status.running:
            c.print(f"Neo4j {status.version} runs (pid {status.pid}) at {status.uri}")
            c.print(f"Browser: {status.browser}")
        else:
            c.print(f"Neo4j is not running (home {status.home})")
    return draw


@app.command()
@handled
def start(as_json: JsonOpt = False, plan: Annotated[bool, typer.Option(
        "--plan/--no-plan", help="Have the server plan recall's queries as it starts (a "
        "few seconds), so that the first recall does not wait for that; a new database "
        "gets graphmem's schema first.")] = True) -> None:
    """Fetch (first time only), start in the background, wait until Bolt answers, install
    the schema on a new database, plan recall's queries, and make the embedding model's
    export if there is none yet."""
    from graphmem.api import GraphMem
    from graphmem.base.settings import load_settings

    status = _local().start(say, progress=sys.stderr.isatty())
    with GraphMem(load_settings(neo4j_uri=status.uri)) as mem:
        if plan:
            took = mem.ops.plan_ahead()
            if took is None:
                # A server with no schema yet is a new one: set it up now, so that the
                # first remember and recall work without a separate `graphmem init`.
                mem.init()
                say("graphmem's schema installed (a new database)")
                took = mem.ops.plan_ahead()
            say(f"recall's queries planned in {took:.0f} ms" if took is not None else
                "recall's queries will be planned by the first recall")
        try:
            mem.ops.warm_embedder(say)
        except GraphmemError as e:  # the server runs; the first call will say it again
            say(f"the embedder is not ready: {e.one_line()}")
    emit(status, as_json, _render(status))


@app.command()
@handled
def stop(as_json: JsonOpt = False) -> None:
    """Stop the server that `start` started (only that one)."""
    server = _local()
    stopped = server.stop(say)
    status = server.status()
    emit({"stopped": stopped, **status.model_dump()}, as_json,
         lambda c: c.print("stopped" if stopped else "was not running"))


@app.command()
@handled
def status(as_json: JsonOpt = False) -> None:
    """Say whether the local server runs, and where; exit 3 when it does not run."""
    status = _local().status()
    emit(status, as_json, _render(status))
    if not status.running:
        raise typer.Exit(NOT_RUNNING)
