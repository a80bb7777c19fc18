"""The verb table (`graphmem.base.verbs.VERBS`) is the one list of graphmem's verbs: each
door offers a verb exactly where the table says, under the name it gives, and every
public method of the facade is a verb or says why it is not."""

from __future__ import annotations

import inspect

import anyio
import typer.main

from graphmem.api import GraphMem
from graphmem.base.verbs import VERBS
from graphmem.cli import app
from graphmem.mcp import build
from graphmem.operations import Operations
from graphmem.service.app import create_app

#: The facade's public members that are not verbs: its clock, its parts and its life.
NOT_VERBS = {"at", "now", "flush", "close", "settings", "embedder", "ops", "tokens",
             "count", "scopes", "recent"}
#: The CLI's commands that are not the facade's verbs: the doors themselves, the local
#: server, the warm process, tokens, benchmarks, and the sweep's other name.
NOT_VERB_COMMANDS = {"bench", "browse", "demo", "mcp", "serve", "server", "token", "warm",
                     "tick"}


def test_every_public_facade_method_is_a_verb_or_named_as_not_one() -> None:
    public = {n for n, _ in inspect.getmembers(GraphMem) if not n.startswith("_")}
    verbs = {v.name for v in VERBS}
    assert public - NOT_VERBS == {n for n in verbs if not n.startswith("ops.")}
    assert all(hasattr(Operations, n.removeprefix("ops.")) for n in verbs
               if n.startswith("ops."))
    assert len(verbs) == len(VERBS)  # a verb is declared once


def test_the_mcp_tools_are_the_tables() -> None:
    tools = anyio.run(build(GraphMem()).list_tools)
    assert [t.name for t in tools] == [v.mcp for v in VERBS if v.mcp]
    for t, v in zip(tools, (v for v in VERBS if v.mcp), strict=True):
        hints = t.annotations
        assert (t.title, hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint) \
            == (v.title, v.effect == "read", v.effect == "destructive", v.idempotent)


def test_the_http_routes_are_the_tables() -> None:
    schema = create_app(GraphMem()).openapi()
    routes = {f"{method.upper()} {path}": op.get("summary")
              for path, ops in schema["paths"].items() if path.startswith("/v1/")
              for method, op in ops.items()}
    assert routes == {v.http: v.title for v in VERBS if v.http}


def test_the_cli_commands_are_the_tables() -> None:
    commands = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert commands - NOT_VERB_COMMANDS == {v.cli for v in VERBS if v.cli}
