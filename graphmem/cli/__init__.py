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

from graphmem.base import handoff, verbs
from graphmem.cli import bench as bench_cmd
from graphmem.cli import demo as demo_cmd
from graphmem.cli import made, output
from graphmem.cli import maintain as maintain_cmd
from graphmem.cli import read as read_cmd
from graphmem.cli import server as server_cmd
from graphmem.cli import service as service_cmd
from graphmem.cli import warm as warm_cmd
from graphmem.cli import write as write_cmd
from graphmem.cli.output import Call, answering


def _print_version(asked: bool) -> None:
    if asked:
        from importlib import metadata

        output.call().out.write(f"graphmem {metadata.version('graphmem')}\n")
        raise typer.Exit()


def root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print graphmem's version and exit.")] = False) -> None:
    """Perfect-recall, graph-native associative memory for AI agents, on Neo4j."""


#: The verbs' own commands (the rest of the verb table's are made from it: `made`).
OWN: dict[str, Callable[..., None]] = {
    "remember": write_cmd.remember, "recall": read_cmd.recall, "update": maintain_cmd.update,
    "forget": maintain_cmd.forget, "feedback": maintain_cmd.feedback,
    "context": read_cmd.context_cmd, "get": read_cmd.get, "ingest": write_cmd.ingest,
    "history": maintain_cmd.history, "add_link": maintain_cmd.link,
    "sweep": maintain_cmd.sweep, "overview": maintain_cmd.overview,
    "export_pack": write_cmd.export_cmd, "import_pack": write_cmd.import_cmd,
    "drop_scope": maintain_cmd.drop_scope, "ops.reembed": maintain_cmd.reembed,
    "doctor": server_cmd.doctor, "init": server_cmd.init}


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
    app.command("mcp")(service_cmd.mcp_cmd)
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


def run(argv: list[str] | None = None, call: Call | None = None) -> int:
    """Run the command `argv` (default: this process's arguments) with `call`'s
    environment and streams (default: this process's); its exit code."""
    # The driver logs retries as warnings; the CLI reports failures itself, in one line.
    # (Once per process: the warm process runs many commands.)
    driver_log = logging.getLogger("neo4j")
    if not driver_log.handlers:
        driver_log.addHandler(logging.NullHandler())
    driver_log.propagate = False
    own_log = logging.getLogger("graphmem")
    if not own_log.handlers:
        own_log.addHandler(output.CallLog())
    err = sys.stderr if call is None else call.err
    # Typer's own errors (a missing argument, an unknown flag) follow graphmem's rule too:
    # one line on stderr naming what is wrong, exit 1 (2 is kept for an unusable Neo4j).
    try:
        with answering(call):
            code = app(args=argv, standalone_mode=False)
    except typer.Abort:
        err.write(handoff.INTERRUPTED)
        code = handoff.INTERRUPTED_CODE
    except typer.TyperException as e:
        if not e.format_message():  # no command given: the help was printed
            return 0
        ctx = getattr(e, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        err.write(f"error: {e.format_message()}{where}\n")
        code = 1
    return code if isinstance(code, int) else 0


def main() -> None:
    """Console-script entry point: the command, in this process."""
    exit_on_sigterm()
    sys.exit(run())
