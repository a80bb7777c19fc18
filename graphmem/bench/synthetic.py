"""Benchmarks over a synthetic store grown from real texts, each next to a baseline from
the same run: recall latency per mode and step (`bench latency`), against numpy brute
force over the same vectors, and one maintenance sweep over a year of memories
(`bench sweep`)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from pydantic import BaseModel, computed_field
from threadpoolctl import threadpool_limits

from graphmem.api import GraphMem
from graphmem.base import models
from graphmem.base.types import MemoryIn, RecallProfile
from graphmem.bench import LOCOMO_MODES, cpu
from graphmem.embedding.embedders import Embedder
from graphmem.write import formats
from graphmem.write.ingest import Timing
from graphmem.write.records import Collector, Numbered


class LatencyRow(BaseModel):
    """Recall latency at one store size, per mode, next to brute-force numpy cosine; and
    the default recall's time per step (p50/p95) and its round trips to the server."""

    memories: int
    p50_ms: dict[str, float]
    p95_ms: dict[str, float]
    steps_p50_ms: dict[str, float] = {}
    steps_p95_ms: dict[str, float] = {}
    round_trips: float = 0.0  # per default recall, on average
    #: The default recall's CPU milliseconds, on average: this process's (the query's
    #: embedding, ranking, the driver) and the local Neo4j's (None where /proc cannot
    #: tell); beside its p50, they say how much of the wait is the machine's cores.
    cpu_ms: dict[str, float | None] = {}
    #: Seconds waited after the build for the server to come to rest (`cpu.rest`).
    rested_seconds: float = 0.0
    #: Hybrid + association per query runtime, asked in turn in the same run:
    #: runtime -> [p50, p95, embed step p50].
    runtimes: dict[str, list[float]] = {}

    @computed_field  # type: ignore[prop-decorator]
    @property
    def vs_numpy(self) -> float:
        """Hybrid + association's p50 over numpy brute force's, embedding in both."""
        return round(self.p50_ms["hybrid+assoc"] / max(self.p50_ms["numpy brute force"],
                                                        1e-9), 2)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def default_vs_numpy(self) -> float:
        """The default recall's p50 over numpy brute force's, embedding in both."""
        return round(self.p50_ms["default"] / max(self.p50_ms["numpy brute force"], 1e-9), 2)


class LatencyBench(BaseModel):
    """`bench latency`: p50/p95 per mode and store size, query embedding included."""

    cores: int
    queries: int
    rows: list[LatencyRow]
    build_seconds: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def growth(self) -> list[tuple[int, int, float]]:
        """Hybrid + association's p50 from each size to the next: (smaller, bigger, ratio)."""
        return [(a.memories, b.memories, round(b.p50_ms["hybrid+assoc"]
                                               / max(a.p50_ms["hybrid+assoc"], 1e-9), 2))
                for a, b in zip(self.rows, self.rows[1:], strict=False)]


#: The brute-force row on every core (BLAS threads unlimited), as Neo4j runs; the plain
#: "numpy brute force" row runs on one BLAS thread.
NUMPY_ALL_CORES = "numpy, all cores"

#: Each structure step on its own over plain hybrid, then all of them: what each costs.
#: Reinforcement stays on (written outside the timed part), as in real use.
LATENCY_MODES: dict[str, dict[str, object]] = {
    name: {k: v for k, v in settings.items() if k != "reinforce"}
    for name, settings in LOCOMO_MODES.items()}


def latency(mem: GraphMem, paths: Sequence[Path], *, sizes: Sequence[int] = (1_000, 10_000,
            100_000), queries: int = 100, sigma: float = 0.02, settle: float = 10.0,
            rest_within: float | None = None) -> LatencyBench:
    """Grow one store through `sizes` from the texts of `paths` (any format `ingest` reads),
    and time recall per mode at each size against brute-force numpy cosine over the same
    vectors. Reinforcement is on, as in real use, and written outside the timed part.
    After each build it waits `settle` seconds, then for a local Neo4j to come to rest,
    at most `rest_within` seconds more (default `cpu.REST_WITHIN`).

    Each stored text's vector is the real embedding of the sample it was made from plus
    small noise: embedding 100k new texts would take ~15 minutes.
    """
    samples, vectors = texts_and_vectors(mem, paths)
    asked = [samples[i] for i in np.random.default_rng(7).choice(
        len(samples), size=min(queries, len(samples)), replace=False)]
    asked = [" ".join(q.split()[:12]) for q in asked]  # questions are short
    scope = f"bench:latency:{uuid.uuid4().hex[:8]}"
    rng = np.random.default_rng(11)
    stored: list[np.ndarray] = []
    rows: list[LatencyRow] = []
    build = 0.0
    try:
        for size in sorted(sizes):
            started = time.perf_counter()
            start = sum(len(v) for v in stored)
            stored += _grow(mem, scope, samples, vectors, start, size, rng, sigma)
            build += time.perf_counter() - started
            mem.ops.settle()
            rested = cpu.rest(cpu.neo4j_pid(mem), settle, settle + (
                cpu.REST_WITHIN if rest_within is None else rest_within))
            rows.append(_measure(mem, scope, asked, np.concatenate(stored), size)
                        .model_copy(update={"rested_seconds": rested}))
    finally:
        mem.drop_scope(scope)
    return LatencyBench(cores=os.cpu_count() or 1, queries=len(asked), rows=rows,
                        build_seconds=round(build, 1))


def texts_and_vectors(mem: GraphMem, paths: Sequence[Path]
                      ) -> tuple[list[str], dict[str, np.ndarray]]:
    """The distinct texts of `paths` and their real embeddings."""
    collector = Collector()
    for path in paths:
        formats.read(path, "auto", collector)
    samples = list(dict.fromkeys(n.record.text for n in collector.records))
    return samples, dict(zip(samples, mem.embedder.embed(samples), strict=True))


def _grow(mem: GraphMem, scope: str, samples: list[str], vectors: dict[str, np.ndarray],
          start: int, size: int, rng: np.random.Generator, sigma: float,
          created: Callable[[int], datetime] | None = None) -> list[np.ndarray]:
    """Write memories start..size-1 into `scope` through the write path (gates, entities,
    sessions of 20 turns in order, synaptic links), each a sample's text and its vector
    plus noise."""
    records = made_records(scope, samples, start, size, created)
    timing = Timing()
    out = []
    for first in range(0, len(records), 5000):
        chunk = records[first:first + 5000]
        vecs = noisy_vectors(samples, vectors, start + first, len(chunk), rng, sigma)
        memo = dict(zip((r.record.text for r in chunk), vecs, strict=True))
        out.append(vecs)
        mem.ops.write(chunk, mem.ops.write_options(scope=scope), timing=timing, vectors=memo,
                      contexts=False)  # noisy vectors: no model made them
    return out


def made_records(scope: str, samples: list[str], start: int, size: int,
                 created: Callable[[int], datetime] | None = None) -> list[Numbered]:
    """Records start..size-1 of a synthetic store: each a sample's text numbered, in
    sessions of 20 turns in order."""
    return [Numbered(i + 1, MemoryIn(
        id=f"{scope}-{i}", text=f"{samples[i % len(samples)]} (#{i})",
        session=f"s{i // 20}", metadata={"turn": i % 20}, source="import",
        created_at=created(i) if created else None), "<bench>") for i in range(start, size)]


def noisy_vectors(samples: list[str], vectors: dict[str, np.ndarray], start: int, n: int,
                  rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Unit vectors for records start..start+n-1: their sample's embedding plus noise."""
    base = np.stack([vectors[samples[i % len(samples)]] for i in range(start, start + n)])
    noisy = base + rng.normal(0, sigma, base.shape).astype(np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


class SweepBench(BaseModel):
    """`bench sweep`: one maintenance sweep over a store of a year of memories."""

    cores: int
    memories: int
    dry_run_seconds: float  # the baseline: the same selections, nothing written
    sweep_seconds: float
    ratio: float  # sweep / dry run
    counts: dict[str, int]
    second_sweep_seconds: float  # nothing left to do: the cost of a routine tick
    build_seconds: float


def sweep(mem: GraphMem, paths: Sequence[Path], *, size: int = 100_000,
          sigma: float = 0.02) -> SweepBench:
    """Build `size` memories spread over a year, then time a dry run, a sweep and a second
    sweep a year later, in one run."""
    samples, vectors = texts_and_vectors(mem, paths)
    scope = f"bench:sweep:{uuid.uuid4().hex[:8]}"
    start = datetime(2024, 1, 1, tzinfo=UTC)
    started = time.perf_counter()
    try:
        _grow(mem, scope, samples, vectors, 0, size, np.random.default_rng(11), sigma,
              created=lambda i: start + timedelta(days=365 * i / size))
        mem.ops.settle()
        build = time.perf_counter() - started
        with mem.at(start + timedelta(days=730)) as sweeper:
            dry = sweeper.sweep(scope=scope, dry_run=True)
            real = sweeper.sweep(scope=scope)
            again = sweeper.sweep(scope=scope)
    finally:
        mem.drop_scope(scope)
    return SweepBench(cores=os.cpu_count() or 1, memories=size,
                      dry_run_seconds=dry.seconds, sweep_seconds=real.seconds,
                      ratio=round(real.seconds / max(dry.seconds, 1e-9), 2),
                      counts=real.counts, second_sweep_seconds=again.seconds,
                      build_seconds=round(build, 1))


def _measure(mem: GraphMem, scope: str, asked: list[str], matrix: np.ndarray,
             size: int) -> LatencyRow:
    embedder = mem.embedder
    timings: dict[str, list[float]] = {m: [] for m in LATENCY_MODES}
    timings["numpy brute force"] = []
    profiles: list[RecallProfile] = []
    meter = cpu.Meter(mem)
    for q in asked[:20]:  # warm the plans and caches
        for settings in LATENCY_MODES.values():
            mem.recall(q, scope=scope, top_k=10, **settings)  # type: ignore[arg-type]
    for q in asked:
        for name, settings in LATENCY_MODES.items():
            mem.embedder.forget_queries()  # query embedding included, every time
            # The last recall's reinforcement is written before this one is timed, as an
            # agent's is while it reads its answer: not by the server meanwhile.
            mem.flush()
            if name == "default":
                meter.start()
            result = mem.recall(q, scope=scope, top_k=10, **settings)  # type: ignore[arg-type]
            timings[name].append(result.took_ms)
            if name == "default":
                meter.stop()
                profiles.append(result.profile)
    # Apart from the recalls, first on one BLAS thread (OpenBLAS threads spin after a
    # product and would take a core from the server, and from the model's own threads),
    # then on every core, as Neo4j runs: both rows are printed.
    timings[NUMPY_ALL_CORES] = []
    with threadpool_limits(1, user_api="blas"):
        for q in asked:
            timings["numpy brute force"].append(_brute_force(embedder, matrix, q))
    for q in asked:
        timings[NUMPY_ALL_CORES].append(_brute_force(embedder, matrix, q))
    steps = {step: [getattr(p, f"{step}_ms") for p in profiles] for step in STEPS}
    runtimes = _runtimes(mem, scope, asked)
    return LatencyRow(
        memories=size,
        p50_ms={m: round(float(np.percentile(t, 50)), 1) for m, t in timings.items()},
        p95_ms={m: round(float(np.percentile(t, 95)), 1) for m, t in timings.items()},
        steps_p50_ms={s: round(float(np.percentile(t, 50)), 1) for s, t in steps.items()},
        steps_p95_ms={s: round(float(np.percentile(t, 95)), 1) for s, t in steps.items()},
        round_trips=round(float(np.mean([p.round_trips for p in profiles])), 2),
        cpu_ms=meter.per_call(),
        runtimes=runtimes)


def _brute_force(embedder: Embedder, matrix: np.ndarray, query: str) -> float:
    """Milliseconds to embed `query` afresh and rank every row of `matrix` by it."""
    embedder.forget_queries()
    started = time.perf_counter()
    sims = matrix @ embedder.embed_query(query)
    top = np.argpartition(-sims, 10)[:10]
    _ = top[np.argsort(-sims[top])]
    return (time.perf_counter() - started) * 1000


def _runtimes(mem: GraphMem, scope: str, asked: list[str]) -> dict[str, list[float]]:
    """Hybrid + association with queries embedded by ONNX Runtime and by torch, the two
    asked in turn for every query, so both meet the same server."""
    settings = LATENCY_MODES["hybrid+assoc"]
    spec = models.find(mem.embedder.name)
    if spec is not None and spec.fetched:  # ONNX Runtime alone runs it: no torch twin
        return {}
    cache = mem.settings.cache_dir / "onnx"
    twins = {"onnxruntime": Embedder(mem.embedder.name, runtime="onnx", cache=cache),
             "torch": Embedder(mem.embedder.name, runtime="torch", cache=cache)}
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in twins}
    for name, embedder in twins.items():
        embedder.warm()
        if embedder.runtime != name:  # no ONNX Runtime here: nothing to compare
            return {}
    mems = {name: mem.at(embedder=e) for name, e in twins.items()}
    try:
        for i, q in enumerate(asked):
            order = list(mems.items())[::1 if i % 2 else -1]
            for name, twin in order:
                twin.embedder.forget_queries()
                r = twin.recall(q, scope=scope, top_k=10, reinforce=False,
                                **settings)  # type: ignore[arg-type]
                found[name].append((r.took_ms, r.profile.embed_ms))
    finally:
        for twin in mems.values():
            twin.close()
    return {name: [round(float(np.percentile([t for t, _ in xs], q)), 1) for q in (50, 95)]
            + [round(float(np.percentile([e for _, e in xs], 50)), 1)]
            for name, xs in found.items()}


#: The default recall's steps, as `RecallProfile` times them.
STEPS = ("embed", "text", "candidates", "associate", "turns")
