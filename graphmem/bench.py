"""Benchmarks that print their figures, always next to a baseline measured in the same run
(these machines are noisy, so ratios say more than absolute numbers)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from graphmem import formats
from graphmem.api import GraphMem
from graphmem.ingest import Timing
from graphmem.records import Collector


class IngestBench(BaseModel):
    """`bench ingest`: full write-path throughput against embedding alone."""

    cores: int
    files: list[str]
    memories: int
    embed_only_per_s: float
    ingest_per_s: float
    ratio: float  # ingest throughput / embedding-only throughput; the target is ≥ 0.80
    seconds: dict[str, float]  # the ingest's time per stage ("write" overlaps "embed")
    shares: dict[str, float]  # each stage's share of the ingest's wall time
    counts: dict[str, int]
    entities: int
    synaptic_links: int


def ingest(mem: GraphMem, paths: Sequence[Path], *, keep: bool = False) -> IngestBench:
    """Ingest the turns of `paths` into a fresh scope; compare with embedding them alone.

    Embedding-only is timed before and after the ingest and averaged, so drift in the
    machine's speed during the run does not favour either side.
    """
    collector = Collector()
    for path in paths:
        formats.read(path, "auto", collector)
    texts = [n.record.text for n in collector.records]
    embedder = mem.embedder
    embedder.embed(texts[:64])  # load the model and warm its kernels

    def embed_only() -> float:
        started = time.perf_counter()
        embedder.embed(texts)
        return time.perf_counter() - started

    before = embed_only()
    scope = f"bench:ingest:{uuid.uuid4().hex[:8]}"
    timing = Timing()
    opts = mem.write_options(scope=scope)
    started = time.perf_counter()
    report = mem.write(collector.records, opts, timing=timing)
    total = time.perf_counter() - started
    after = embed_only()
    if not keep:
        mem.store.autocommit("admin/delete_scope", scope=scope)
    baseline = (before + after) / 2
    n = len(texts)
    # Writing runs in a thread behind embedding; `wait` is what it adds to the wall time.
    seconds = {"embed": timing.embed, "extract": timing.extract, "gates": timing.gates,
               "wait": timing.wait}
    seconds["other"] = max(0.0, total - sum(seconds.values()))
    seconds["write"] = timing.write
    return IngestBench(
        cores=os.cpu_count() or 1,
        files=[str(p) for p in paths],
        memories=n,
        embed_only_per_s=round(n / baseline, 1),
        ingest_per_s=round(n / total, 1),
        ratio=round(baseline / total, 3),
        seconds={k: round(v, 3) for k, v in seconds.items()},
        shares={k: round(v / total, 3) for k, v in seconds.items()},
        counts=report.counts,
        entities=report.entities,
        synaptic_links=report.synaptic_links,
    )
