"""The MCP server (`graphmem mcp`): graphmem's verbs as tools any agent host can call, over
stdio or streamable HTTP, with the official `mcp` SDK. One server instance serves one
scope, fixed by flag or environment, so an agent cannot read or write another scope's
memories. The tools themselves are in `tools.py`; what each is for: docs/integrations.md.

Every tool validates its arguments (the SDK checks them against the JSON schema made from
the signature) and answers a graphmem error, an unreachable Neo4j included, as a tool
error the agent can read, never as a crash.
"""

from __future__ import annotations

import inspect
import sys
import threading
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from graphmem.api import GraphMem
from graphmem.base.errors import InputError, invalid
from graphmem.base.verbs import VERBS, Verb
from graphmem.mcp.tools import (
    MAX_CONNECTIONS,
    Access,
    Kind,
    Tools,
    connection_session,
)

__all__ = ["MAX_CONNECTIONS", "Access", "Kind", "Tools", "build",
           "connection_session", "serve", "warm_up_meanwhile"]

INSTRUCTIONS = """\
graphmem is your long-term memory. Call memory_context once at the start for what you
already know. Call memory_recall before answering anything that may depend on the past
(it also returns memories linked to the best hits, with the path that linked them).
Call memory_store for facts, decisions, preferences and procedures worth keeping, one
self-contained statement each. After using recalled memories, call memory_feedback
(used or not): it is how memory learns what matters. memory_session gives a
conversation's last turns, memory_entities what your memories name, memory_links why a
memory is connected to others. Nothing is ever lost silently: memory_forget archives
unless asked to delete for good."""


def _refuse_unknown_arguments(server: MCPServer, name: str) -> None:
    """Make tool `name` refuse an argument it does not take, naming it (the SDK drops
    them silently: a misspelt `top_k` would be a silent default), and say so in its
    input schema."""
    from pydantic import ConfigDict

    tool = server._tool_manager.get_tool(name)  # the SDK has no public hook for this
    assert tool is not None
    loose = tool.fn_metadata.arg_model
    tool.fn_metadata.arg_model = type(loose.__name__, (loose,), {
        "model_config": ConfigDict(**{**loose.model_config, "extra": "forbid"})})
    tool.parameters["additionalProperties"] = False


class _Server(MCPServer):
    """The SDK's server, but a tool's arguments refused read as every door says it:
    `field 'top_k': …` on one line, not pydantic's report of several."""

    async def call_tool(self, name: str, arguments: dict[str, Any],
                        context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError(f"Error executing tool {name}: {invalid(e.__cause__).said()}"
                            ) from e.__cause__


def build(mem: GraphMem, session: str | None = None, *,
          access: Callable[[], Access] | None = None, table: tuple[Verb, ...] = VERBS,
          **server_options: Any) -> MCPServer:
    """An MCP server whose tools act on `mem`'s scope, or on the scope `access` gives for
    each call (the service's, from the caller's token), a tool for each verb of `table` MCP
    offers. What the agent stores without
    naming a session joins `session` (default: the configured one, else one of this
    connection's own), in order of arrival, so its conversation gets its order."""
    from importlib import metadata

    server = _Server(name="graphmem", instructions=INSTRUCTIONS,
                     version=metadata.version("graphmem"),
                     description="Associative long-term memory", **server_options)
    tools = Tools(mem, access, session)
    # Each tool's hints to a host (read-only, destructive, idempotent) are its verb's, so
    # a host can run recall without asking and warn before a hard forget.
    for v in table:
        if not v.mcp:
            continue
        fn = getattr(tools, v.mcp, None) or tools.made(v)
        # The docstring as a description, without the source's indentation.
        server.tool(name=v.mcp, title=v.title, description=inspect.cleandoc(fn.__doc__ or ""),
                    annotations=ToolAnnotations(
                        title=v.title, read_only_hint=v.effect == "read",
                        destructive_hint=v.effect == "destructive",
                        idempotent_hint=v.idempotent, open_world_hint=False))(fn)
        _refuse_unknown_arguments(server, v.mcp)
    return server


#: Where `graphmem mcp --transport http` listens unless told otherwise.
HTTP_HOST, HTTP_PORT, HTTP_PATH = "127.0.0.1", 8765, "/mcp"


def serve(mem: GraphMem, transport: str = "stdio", *, host: str = HTTP_HOST,
          port: int = HTTP_PORT) -> None:
    """Serve `mem`'s scope over stdio until the client hangs up, or over streamable HTTP
    at http://host:port/mcp until stopped; pending reinforcement is written before
    returning. HTTP listens on a loopback address only: it has no credentials yet."""
    from graphmem.base.http import LOOPBACK

    if transport == "http" and host not in LOOPBACK:
        raise InputError(f"host {host!r}: the MCP HTTP server has no tokens yet, so it "
                         "listens on 127.0.0.1, localhost or ::1 only", field="--host")
    planning = warm_up_meanwhile(mem)
    try:
        if transport == "http":
            _serve_http(build(mem), host, port)
        else:
            build(mem).run("stdio")
    finally:
        planning.join(timeout=PLANNING_WAIT)
        mem.close()


#: How long a door that stops waits for its warm-up before closing the connection.
PLANNING_WAIT = 10.0


def warm_up_meanwhile(mem: GraphMem) -> threading.Thread:
    """`GraphMem.ops.warm_up` on a thread while the door starts serving (an MCP host waits
    for `initialize`, not for the model), its warnings on stderr."""
    def warm() -> None:
        mem.ops.warm_up(lambda message: print(f"graphmem: {message}", file=sys.stderr))

    thread = threading.Thread(target=warm, name="graphmem-warm-up", daemon=True)
    thread.start()
    return thread


def _serve_http(server: MCPServer, host: str, port: int) -> None:
    """Run the streamable-HTTP app under uvicorn, its logs on stderr."""
    from graphmem.base import http

    http.check_free(host, port)
    print(f"graphmem MCP serves on http://{host}:{port}{HTTP_PATH}", file=sys.stderr)
    http.run(server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host), host, port)
