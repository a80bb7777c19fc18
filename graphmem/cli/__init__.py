"""The `graphmem` command: a thin layer over the Python API (`graphmem.GraphMem`)."""

from __future__ import annotations

import functools
import logging
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from graphmem.base import handoff, verbs
from graphmem.base.errors import InputError
from graphmem.base.vocabulary import FORMATS
from graphmem.cli import bench as bench_cmd
from graphmem.cli import demo as demo_cmd
from graphmem.cli import made
from graphmem.cli import maintain as maintain_cmd
from graphmem.cli import packs as packs_cmd
from graphmem.cli import read as read_cmd
from graphmem.cli import server as server_cmd
from graphmem.cli import service as service_cmd
from graphmem.cli import warm as warm_cmd
from graphmem.cli.output import (
    AllowForgottenOpt,
    JsonOpt,
    NowOpt,
    ScopeOpt,
    SkipInvalidOpt,
    emit,
    finish_write,
    handled,
    open_memory,
    say,
    show_progress,
)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib import metadata

        print(f"graphmem {metadata.version('graphmem')}")
        raise typer.Exit()


def root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print graphmem's version and exit.")] = False) -> None:
    """Perfect-recall, graph-native associative memory for AI agents, on Neo4j."""


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


KindOpt = Annotated[str | None, typer.Option(
    "--kind", help="Kind for records that name none (episodic, semantic, fact, …).")]
VisibilityOpt = Annotated[str | None, typer.Option(
    "--visibility", help="public or private, for records that name none.")]
SessionOpt = Annotated[str | None, typer.Option(
    "--session", help="Session for records that name none (links memories said together, "
    "in order of arrival; remember's default: GRAPHMEM_SESSION).")]
AddedByOpt = Annotated[str | None, typer.Option(
    "--added-by", help="Who adds these (default: settings); a record's own value wins.")]
NoSignalGateOpt = Annotated[bool, typer.Option(
    "--no-signal-gate", help="Keep short, self-talk, filler and tool-output records "
    "(the secret scanner always runs).")]


#: The options of the commands that write records (remember, ingest), beside their own.
WRITING: dict[str, tuple[Any, Any]] = {
    "kind": (KindOpt, None), "visibility": (VisibilityOpt, None),
    "session": (SessionOpt, None), "scope": (ScopeOpt, None), "added_by": (AddedByOpt, None),
    "skip_invalid": (SkipInvalidOpt, False), "no_signal_gate": (NoSignalGateOpt, False),
    "allow_forgotten": (AllowForgottenOpt, False), "now": (NowOpt, None),
    "as_json": (JsonOpt, False)}


def _writing(given: dict[str, Any]) -> dict[str, Any]:
    """What a write command's WRITING options ask of the write itself."""
    return {"added_by": given["added_by"], "kind": given["kind"],
            "visibility": given["visibility"], "session": given["session"],
            "signal_gate": not given["no_signal_gate"],
            "allow_forgotten": given["allow_forgotten"]}


@handled
@verbs.declared(WRITING)
def remember(
    file: Annotated[Path | None, typer.Argument(
        help="JSON object, JSON array or NDJSON file; '-' or nothing reads stdin.")] = None,
    text: Annotated[str | None,
                    typer.Option("--text", "-t", help="Remember this one text.")] = None,
    **given: Any,
) -> None:
    """Store memories: --text, one JSON object, or NDJSON on stdin or in a file. A batch is
    all or nothing; records the gates refuse are listed as rejected (exit 1)."""
    if text is not None and file is not None:
        raise InputError("give either --text or a file, not both", field="--text")
    flags = _writing(given)
    if text is None:
        if file is None and sys.stdin.isatty():  # else it would wait, saying nothing
            raise InputError("give --text, a file, or records on stdin (a pipe)",
                             field="--text")
        if file is None or str(file) == "-":
            source, data = "<stdin>", sys.stdin.read()
        else:
            from graphmem.write import formats

            source, data = str(file), formats.read_text(file)
    with open_memory(given["scope"], given["now"], embeds=True) as mem:
        if text is not None:
            report = mem.remember(text, source="--text", **flags)
        else:
            report = mem.ops.remember_json(data, source=source,
                                           skip_invalid=given["skip_invalid"],
                                           progress=show_progress(0), **flags)
    finish_write(report, given["as_json"])


@handled
@verbs.declared(WRITING)
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="Files or folders: NDJSON/JSONL records, text, Markdown, LoCoMo or chat "
        "transcripts (a folder: every such file below it).")],
    fmt: Annotated[str, typer.Option(
        "--format", help=f"One of {', '.join(FORMATS)}.")] = "auto",
    split: Annotated[str, typer.Option(
        help="Text and Markdown: a memory per 'paragraph' or per '##' 'section'.")
    ] = "paragraph",
    **given: Any,
) -> None:
    """Ingest files. Everything is validated before anything is written; re-ingesting a
    file updates the same memories (stable ids)."""
    with open_memory(given["scope"], given["now"], embeds=True) as mem:
        report = mem.ingest(paths, fmt=fmt, split=split, skip_invalid=given["skip_invalid"],
                            progress=show_progress(0), **_writing(given))
    finish_write(report, given["as_json"])


@handled
def mcp_cmd(
    scope: ScopeOpt = None,
    transport: Annotated[str, typer.Option(
        help="stdio (an agent host starts the server) or http (streamable HTTP, "
             "for agents that connect to a running server).")] = "stdio",
    host: Annotated[str, typer.Option(help="HTTP: the loopback address to listen on.")
                    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="HTTP: the port to listen on.")] = 8765,
) -> None:
    """Serve this scope's memories to an agent over MCP (stdio, or streamable HTTP at
    http://HOST:PORT/mcp): memory_store, memory_recall, memory_update, memory_forget,
    memory_consolidate, memory_feedback, memory_context, memory_session, memory_entities,
    memory_links. The scope is fixed for the server's life (--scope or GRAPHMEM_SCOPE)."""
    from graphmem import mcp

    if transport not in ("stdio", "http"):
        raise InputError(f"unknown transport {transport!r} (stdio or http)",
                         field="--transport")
    mcp.serve(open_memory(scope, embeds=True), transport, host=host, port=port)


#: The verbs' own commands (the rest of the verb table's are made from it: `made`).
OWN: dict[str, Callable[..., None]] = {
    "remember": remember, "recall": read_cmd.recall, "update": maintain_cmd.update,
    "forget": maintain_cmd.forget, "feedback": maintain_cmd.feedback,
    "context": read_cmd.context_cmd, "get": read_cmd.get, "ingest": ingest,
    "history": maintain_cmd.history, "add_link": maintain_cmd.link,
    "sweep": maintain_cmd.sweep, "overview": maintain_cmd.overview,
    "export_pack": packs_cmd.export_cmd, "import_pack": packs_cmd.import_cmd,
    "drop_scope": maintain_cmd.drop_scope, "ops.reembed": maintain_cmd.reembed,
    "doctor": doctor, "init": init}


def make_app(table: tuple[verbs.Verb, ...] = verbs.VERBS) -> typer.Typer:
    """The `graphmem` command: a command for each verb of `table` the CLI offers, under
    the name the table gives it, and the doors, the local server and the benchmarks."""
    app = typer.Typer(
        name="graphmem",
        help="Perfect-recall, graph-native associative memory for AI agents, on Neo4j.",
        no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
        # Docstrings are wrapped at 90 columns; markdown joins their lines into paragraphs.
        rich_markup_mode="markdown")
    app.callback()(root)
    for v in table:
        if v.cli:
            app.command(v.cli)(OWN.get(v.name) or made.command(v))
    # The periodic sweep is also called a tick; both names run it.
    app.command("tick", help="The same as `sweep` (the periodic run's other name).")(
        maintain_cmd.sweep)
    app.command("browse")(maintain_cmd.browse)
    app.command("mcp")(mcp_cmd)
    app.command("serve")(service_cmd.serve)
    app.command("demo")(demo_cmd.demo)
    app.add_typer(server_cmd.app, name="server")
    app.add_typer(bench_cmd.app, name="bench")
    app.add_typer(service_cmd.token_app, name="token")
    app.add_typer(warm_cmd.app, name="warm")
    return app


@warm_cmd.app.command("serve")
def warm_serve(
    socket_path: Annotated[Path | None, typer.Option(
        "--socket", help="Where to listen (default: this graphmem's socket).")] = None,
    idle: Annotated[float, typer.Option(
        help="Exit after this many seconds without a call.")] = handoff.IDLE_SECONDS,
) -> None:
    """Answer handed-off calls until idle (started by the first call, in the background)."""
    warm_cmd.serve(socket_path, idle, run, handed_off)


def handed_off(argv: list[str]) -> bool:
    """Whether the warm process may answer `argv`, decided from the command as Typer
    parses it, never from raw words: `remember` only with a --text value and no file (a
    `--text` that is another flag's value leaves stdin to read, which is the caller's)."""
    if not handoff.eligible(argv):
        return False
    command = _click_command().commands.get(argv[0])
    if command is None:
        return False
    try:
        with command.make_context(argv[0], list(argv[1:]), resilient_parsing=True) as ctx:
            params = dict(ctx.params)
    except Exception:  # a parse it cannot make: the caller's own process says what is wrong
        return False
    if argv[0] == "remember":
        return params.get("text") is not None and params.get("file") is None
    return True


@functools.cache
def _click_command() -> Any:
    return typer.main.get_command(app)


app = make_app()


def exit_on_sigterm() -> None:
    """Let SIGTERM end the process as an ordinary exit does, so what is pending
    (reinforcement of past recalls) is written first, as on a clean exit."""
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))


def run(argv: list[str] | None = None) -> int:
    """Run the command `argv` (default: this process's arguments); its exit code."""
    # The driver logs retries as warnings; the CLI reports failures itself, in one line.
    # (Once per process: the warm process runs many commands.)
    driver_log = logging.getLogger("neo4j")
    if not driver_log.handlers:
        driver_log.addHandler(logging.NullHandler())
    driver_log.propagate = False
    # Typer's own errors (a missing argument, an unknown flag) follow graphmem's rule too:
    # one line on stderr naming what is wrong, exit 1 (2 is kept for an unusable Neo4j).
    try:
        code = app(args=argv, standalone_mode=False)
    except typer.Abort:
        print(handoff.INTERRUPTED, end="", file=sys.stderr)
        code = handoff.INTERRUPTED_CODE
    except typer.TyperException as e:
        if not e.format_message():  # no command given: the help was printed
            return 0
        ctx = getattr(e, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        print(f"error: {e.format_message()}{where}", file=sys.stderr)
        code = 1
    return code if isinstance(code, int) else 0


def main() -> None:
    """Console-script entry point: the command, in this process."""
    exit_on_sigterm()
    sys.exit(run())
