"""The `graphmem` command: a thin layer over the Python API (`graphmem.GraphMem`)."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from graphmem import ingest
from graphmem.api import GraphMem, valid_scope
from graphmem.cli import demo as demo_cmd
from graphmem.cli import server as server_cmd
from graphmem.cli.output import JsonOpt, NowOpt, ScopeOpt, emit, handled, parse_now
from graphmem.errors import InputError
from graphmem.settings import load_settings
from graphmem.types import RecallResult

PROGRESS_MIN_RECORDS = 200

app = typer.Typer(
    name="graphmem",
    help="Perfect-recall, graph-native associative memory for AI agents, on Neo4j.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(server_cmd.app, name="server")
app.command("demo")(demo_cmd.demo)


def open_memory(scope: str | None = None, now: str | None = None,
                added_by: str | None = None) -> GraphMem:
    """A GraphMem from the environment, with the command's overrides."""
    settings = load_settings(scope=valid_scope(scope, "--scope"), added_by=added_by)
    return GraphMem(settings, now=parse_now(now))


@app.command()
@handled
def init(as_json: JsonOpt = False) -> None:
    """Install the schema (constraints, vector, full-text and range indexes); idempotent."""
    with open_memory() as mem:
        found = mem.init()
    emit([i.model_dump() for i in found], as_json,
         lambda c: c.print(f"schema installed: {len(found)} indexes ONLINE"))


@app.command()
@handled
def doctor(as_json: JsonOpt = False) -> None:
    """Report the server (URI, version, edition), its indexes, and the embedder."""
    with open_memory() as mem:
        report = mem.doctor()

    def render(c) -> None:
        s = report.server
        c.print(f"server    {s.uri}  database={s.database}  user={s.user}  "
                f"{s.version or '?'} {s.edition or ''}")
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
        raise typer.Exit(2)


@app.command()
@handled
def remember(
    file: Annotated[Path | None, typer.Argument(
        help="JSON object, JSON array or NDJSON file; '-' or nothing reads stdin.")] = None,
    text: Annotated[str | None,
                    typer.Option("--text", "-t", help="Remember this one text.")] = None,
    kind: Annotated[str | None,
                    typer.Option(help="Kind for --text (episodic, semantic, …).")] = None,
    scope: ScopeOpt = None,
    added_by: Annotated[str | None, typer.Option("--added-by", help="Who adds these.")] = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store memories: one JSON object, NDJSON on stdin or in a file, or --text. All or nothing."""
    if text is not None:
        if file is not None:
            raise InputError("give either --text or a file, not both", field="--text")
        record = {"text": text} | ({"kind": kind} if kind else {})
        source, records = "--text", [ingest.Numbered(1, ingest.validate(record, "--text", 1))]
    else:
        if file is None or str(file) == "-":
            source, data = "<stdin>", sys.stdin.read()
        else:
            source = str(file)
            try:
                data = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise InputError(f"cannot read: {e}", source=source) from None
        records = ingest.parse_records(data, source)
    with open_memory(scope, now, added_by) as mem:
        # A bar only for a person watching a long batch; piped runs stay quiet.
        bar = sys.stderr.isatty() and len(records) >= PROGRESS_MIN_RECORDS
        report = mem.remember_parsed(records, source=source, progress=bar)

    def render(c) -> None:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts.items()))
        c.print(f"{counts} in scope {report.scope}")
        for o in report.outcomes:
            c.print(f"  {o.status:<8} {o.id}")

    emit(report, as_json, render)


@app.command()
@handled
def recall(
    query: Annotated[str, typer.Argument(help="What to recall, in plain words.")],
    top_k: Annotated[int, typer.Option("--top-k", "-k", help="How many hits.")] = 10,
    mode: Annotated[str, typer.Option(help="Retrieval mode: vector.")] = "vector",
    scope: ScopeOpt = None,
    now: NowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall the memories that best answer QUERY, best first."""
    with open_memory(scope, now) as mem:
        result = mem.recall(query, top_k=top_k, mode=mode)
    emit(result, as_json, lambda c: render_hits(c, result))


def render_hits(c, result: RecallResult) -> None:
    """Draw recall hits as a table for a person."""
    table = Table("#", "score", "kind", "id", "text", title=f"recall: {result.query}",
                  title_justify="left")
    for rank, h in enumerate(result.hits, start=1):
        table.add_row(str(rank), f"{h.score:.3f}", h.kind, h.id, h.text)
    c.print(table)
    c.print(f"{len(result.hits)} hits in {result.took_ms:.0f} ms (scope {result.scope})")


def main() -> None:
    """Console-script entry point."""
    # The driver logs retries as warnings; the CLI reports failures itself, in one line.
    logging.getLogger("neo4j").addHandler(logging.NullHandler())
    logging.getLogger("neo4j").propagate = False
    app()


__all__ = ["app", "main"]
