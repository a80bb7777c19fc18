"""`graphmem server start|stop|status`: a local Neo4j without Docker; `graphmem init` and
`graphmem doctor`: its schema, and a check of the server graphmem uses."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from graphmem.base.errors import GraphmemError
from graphmem.cli.options import JsonOpt
from graphmem.cli.output import emit, handled, open_memory, say

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


@handled
def init(as_json: JsonOpt = False) -> None:
    """Install the schema (constraints, vector, full-text and range indexes), have the
    server plan recall's queries, and make the embedding model's export if there is none
    yet; idempotent."""
    with open_memory() as mem:
        found = mem.init()
        took = mem.ops.plan_ahead()  # else a new store's first recall waits for the planner
        mem.ops.warm_embedder(say)  # else the first recall or remember exports the model
    if took is not None:
        say(f"recall's queries planned in {took:.0f} ms")
    online = sum(i.state == "ONLINE" for i in found)
    waiting = ", ".join(i.name for i in found if i.state != "ONLINE")
    emit([i.model_dump() for i in found], as_json,
         lambda c: c.print(f"schema installed: {online} indexes ONLINE" + (
             f"; still populating: {waiting} (`graphmem doctor` shows when they are ONLINE)"
             if waiting else "")))


@handled
def doctor(as_json: JsonOpt = False) -> None:
    """Report the server (URI, version, edition, the release line and what it enables),
    its indexes, and the embedder."""
    with open_memory() as mem:
        report = mem.doctor()

    def render(c) -> None:
        s = report.server
        c.print(f"server    {s.uri}  database={s.database}  user={s.user}  "
                f"{s.version or '?'} {s.edition or ''}")
        if s.line:
            c.print(f"line      {s.line}: " + (", ".join(s.enables) or
                                               "vector index without filters (graphmem "
                                               "over-fetches and scans a crowded scope)"))
        if report.embedder:
            e = report.embedder
            c.print(f"embedder  {e.model}  {e.dimensions}-d  ({e.path})")
        if report.memories is not None:
            c.print(f"memories  {report.memories}")
        table = Table("index", "type", "state", "on", "dims")
        for i in report.indexes:
            table.add_row(i["name"], i["type"], i["state"],
                          f"{i['entity']}.{','.join(i['properties'])}", str(i["dimensions"] or ""))
        if report.indexes:
            c.print(table)
        c.print("ok" if report.ok else f"problem: {report.problem}")

    emit(report, as_json, render)
    if not report.ok:
        say(f"error: {report.problem}")
        raise typer.Exit(2)
