"""`graphmem demo`: the main job end to end on a fresh machine.

Brings up the local Neo4j when the configured one is local and not running, installs the
schema, remembers a realistic sample (a coding agent's notes on a project), and recalls
from it with questions that share few words with their answers.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlparse

import typer

from graphmem.cli.options import JsonOpt
from graphmem.cli.output import emit, handled, say

if TYPE_CHECKING:
    from graphmem.base.settings import Settings

QUESTIONS = (
    "who is on call for emergencies?",
    "how do deployments reach production?",
    "where are secrets like passwords kept?",
    "why did everyone get logged out in October?",
)


def sample_path() -> Path:
    """The sample that ships with graphmem."""
    return Path(str(resources.files("graphmem") / "samples" / "project_notes.jsonl"))


def ensure_server(settings: Settings) -> None:
    """Start the local server when NEO4J_URI names it and nothing listens there yet."""
    from graphmem.graph.server import LocalServer, listening

    uri = urlparse(settings.neo4j_uri)
    local = uri.hostname in ("127.0.0.1", "localhost") and (
        uri.port or 7687) == settings.server_bolt_port
    if not local:
        return
    if not listening(settings.server_bolt_port):
        LocalServer(settings).start(say)
    elif not LocalServer(settings).status().running:
        say(f"note: a Neo4j that `graphmem server start` did not start answers on "
            f"{settings.neo4j_uri}; the demo writes there (NEO4J_URI and "
            "GRAPHMEM_SERVER_BOLT_PORT choose another)")


@handled
def demo(
    sample: Annotated[Path | None,
                      typer.Option(help="NDJSON to load instead of the sample.")] = None,
    scope: Annotated[str, typer.Option(help="Scope to load the sample into.")] = "demo",
    top_k: Annotated[int, typer.Option("--top-k", "-k")] = 3,
    as_json: JsonOpt = False,
) -> None:
    """Bring up Neo4j if needed, load a real sample, and recall from it."""
    from graphmem.api import GraphMem
    from graphmem.base.settings import load_settings

    settings = load_settings(scope=scope)
    ensure_server(settings)
    path = sample or sample_path()
    with GraphMem(settings) as mem:
        mem.init()
        mem.ops.warm_embedder(say)
        written = mem.ingest([path], fmt="records")
        say(f"remembered {len(written.outcomes)} memories from {path} in scope {scope}")
        recalls = [mem.recall(q, top_k=top_k) for q in QUESTIONS]
    # What the demo wrote and what it recalled.
    result = {"sample": str(path), "written": written.model_dump(mode="json"),
              "recalls": [r.model_dump(mode="json") for r in recalls]}

    def render(c) -> None:
        for r in recalls:
            c.print(f"\n[bold]? {r.query}[/bold]")
            for rank, h in enumerate(r.hits, start=1):
                c.print(f"  {rank}. ({h.score:.2f}, {h.kind}) {h.text}", markup=False)

    emit(result, as_json, render)
