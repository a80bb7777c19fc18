"""Neo4j Browser as graphmem's window on the graph: its URL, the style (GRASS) that
colours memories by kind and sizes them by tier, and the exploration queries in
`cypher/explore/`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from urllib.parse import urlparse

from graphmem.base.settings import Settings
from graphmem.graph.queries import cypher_dir, query


def url(settings: Settings) -> str:
    """Where Browser is served for the configured server (the local server's HTTP port)."""
    host = urlparse(settings.neo4j_uri).hostname or "127.0.0.1"
    return f"http://{host}:{settings.server_http_port}/browser/"


def style() -> str:
    """The GRASS style sheet: kind colours (Episodic, Semantic, …), tier sizes (Cold,
    Stub smaller), memory text as caption."""
    return (cypher_dir() / "explore" / "graphmem.grass").read_text(encoding="utf-8")


def style_command() -> str:
    """The style as one `:style` command to paste into Browser's editor."""
    return ":style " + re.sub(r"\s+", " ", style()).strip()


def paste(name: str, params: Mapping[str, object]) -> str:
    """An exploration query with its `:param` lines, ready to paste into Browser."""
    body = "\n".join(line for line in query(name).splitlines() if not line.startswith("//"))
    lines = [f":param {k} => {json.dumps(v)}" for k, v in params.items()]
    return "\n".join([*lines, body])
