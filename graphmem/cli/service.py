"""`graphmem serve` and `graphmem token create|list|revoke`: the HTTP service and its
credentials (docs/service.md); `graphmem mcp`: the MCP server alone."""

from __future__ import annotations

import signal
from typing import Annotated

import typer
from rich.table import Table

from graphmem.base.errors import InputError
from graphmem.cli.options import JsonOpt, ScopeOpt
from graphmem.cli.output import emit, handled, open_memory, say

token_app = typer.Typer(help="Make, list and revoke the service's tokens.",
                        no_args_is_help=True)


@token_app.command("create")
@handled
def create(
    name: Annotated[str, typer.Option(help="What the token is for (shown in `token list`).")],
    scope: Annotated[list[str], typer.Option(
        help="A scope the token may use (repeat for more; the first is its default).")],
    read_only: Annotated[bool, typer.Option(help="The token may only read.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Make a token for the given scopes and print it once: only its hash is kept."""
    with open_memory() as mem:
        made = mem.tokens.create(name=name, scopes=scope, read_only=read_only)
    emit(made.model_dump(mode="json"), as_json, lambda c: c.print(
        f"{made.token}\n(token {made.info.id} for {', '.join(made.info.scopes)}"
        f"{', read-only' if read_only else ''}: shown once, keep it safe)",
        markup=False, highlight=False))


@token_app.command("list")
@handled
def list_tokens(as_json: JsonOpt = False) -> None:
    """List every token (never a secret), live and revoked."""
    with open_memory() as mem:
        found = mem.tokens.listed()

    def table(c) -> None:
        t = Table("id", "name", "scopes", "read-only", "created", "revoked")
        for i in found:
            t.add_row(i.id, i.name, ", ".join(i.scopes), "yes" if i.read_only else "",
                      f"{i.created_at:%Y-%m-%d %H:%M}",
                      f"{i.revoked_at:%Y-%m-%d %H:%M}" if i.revoked_at else "")
        c.print(t)

    emit([i.model_dump(mode="json") for i in found], as_json, table)


@token_app.command("revoke")
@handled
def revoke(token_id: Annotated[str, typer.Argument(help="The token's id (`token list`).")],
           as_json: JsonOpt = False) -> None:
    """Revoke a token: every request from the next one on is refused."""
    with open_memory() as mem:
        mem.tokens.revoke(token_id)
    emit({"revoked": token_id}, as_json, lambda c: c.print(f"revoked {token_id}"))


@handled
def serve(
    host: Annotated[str, typer.Option(
        help="The address to listen on (beyond loopback only once a token exists).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8080,
    max_body: Annotated[int, typer.Option(help="Largest request body, in bytes.")
                        ] = 1_000_000,
    max_batch: Annotated[int, typer.Option(help="Most records one remember may carry.")
                         ] = 1_000,
    rate: Annotated[float, typer.Option(help="Requests a second per token.")] = 50.0,
    burst: Annotated[int, typer.Option(help="Requests a token may spend at once.")] = 100,
    public_url: Annotated[str | None, typer.Option(
        help="Where clients reach the service (default http://HOST:PORT).")] = None,
) -> None:
    """Serve the memory over HTTP to every agent holding a token: JSON endpoints under
    /v1 (remember, recall, update, forget, feedback, drop_scope, entities, session,
    context), /healthz, /readyz, OpenAPI docs at /docs, and MCP (streamable HTTP) at /mcp/.
    SIGTERM finishes the requests in flight, writes pending reinforcement, and exits 0
    (2, with one line, when Neo4j is unreachable then and the reinforcement is lost)."""
    from graphmem.base import http
    from graphmem.service.app import Limits, create_app

    limits = Limits(max_body_bytes=max_body, max_batch=max_batch, rate=rate, burst=burst)
    mem = open_memory()
    if host not in http.LOOPBACK and mem.tokens.live() == 0:
        mem.close()
        raise InputError(f"host {host!r}: no live token yet, so the service listens on "
                         "loopback only (make one with `graphmem token create`)",
                         field="--host")
    try:
        http.check_free(host, port)
    except InputError:
        mem.close()
        raise
    say(f"graphmem serves on http://{host}:{port} (docs at /docs)")
    # uvicorn stops gracefully on SIGTERM and then raises it again for the handler it
    # found: an ordinary end here, so that a stopped service exits 0.
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    app = create_app(mem, limits, public_url=public_url or f"http://{host}:{port}")
    http.run(app, host, port)  # the app closes `mem` as it stops
    if app.state.unwritten:  # logged as it stopped; Neo4j was unreachable
        raise typer.Exit(2)


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
    http://HOST:PORT/mcp): a tool for each verb the verb table gives MCP (memory_store,
    memory_recall, memory_context, …; docs/integrations.md says what each is for). The
    scope is fixed for the server's life (--scope or GRAPHMEM_SCOPE)."""
    from graphmem import mcp

    if transport not in ("stdio", "http"):
        raise InputError(f"unknown transport {transport!r} (stdio or http)",
                         field="--transport")
    mcp.serve(open_memory(scope, embeds=True), transport, host=host, port=port)
