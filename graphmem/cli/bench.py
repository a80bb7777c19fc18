"""`graphmem bench …`: benchmarks that print their figures with the machine's core count."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from graphmem import bench
from graphmem.api import GraphMem
from graphmem.cli.output import JsonOpt, emit, handled
from graphmem.settings import load_settings

app = typer.Typer(help="Benchmarks on real data; each prints its figures.",
                  no_args_is_help=True)


@app.command("ingest")
@handled
def ingest(
    paths: Annotated[list[Path], typer.Argument(
        help="LoCoMo conversations (or any file `ingest` reads).")],
    keep: Annotated[bool, typer.Option(help="Keep the benchmark's scope afterwards.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write-path throughput (gates, embedding, dedup, entities, tagging, storage) against
    embedding the same texts alone, in the same run."""
    with GraphMem(load_settings()) as mem:
        result = bench.ingest(mem, paths, keep=keep)

    def render(c) -> None:
        c.print(f"{result.memories} memories from {len(result.files)} files on "
                f"{result.cores} cores")
        c.print(f"embedding only  {result.embed_only_per_s:8.1f} memories/s")
        c.print(f"full ingest     {result.ingest_per_s:8.1f} memories/s  "
                f"(ratio {result.ratio:.2f}; target >= 0.80)")
        labels = {"wait": "waiting for writes", "write": "writing (in a thread, overlaps)"}
        for stage, share in result.shares.items():
            c.print(f"  {labels.get(stage, stage):<32} {result.seconds[stage]:7.2f} s  "
                    f"{share:6.1%}")
        c.print(f"outcomes {result.counts}, {result.entities} entities, "
                f"{result.synaptic_links} synaptic links")

    emit(result, as_json, render)
