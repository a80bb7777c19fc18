"""`bench crowded`: recall latency in a crowded multi-tenant store.

Memory is multi-tenant by nature, so at scale a scope's neighbours in the vector index
are mostly other scopes' memories. This builds 100k memories over 1,000 scopes of uneven
size (a long tail of small scopes, as users are) plus one 10k scope, and times recall in
the small scopes and in the big one, next to brute-force numpy cosine over the same
scope's vectors (query embedding included in both).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel
from threadpoolctl import threadpool_limits

from graphmem.api import GraphMem
from graphmem.base.types import MemoryIn
from graphmem.bench.synthetic import LATENCY_MODES, texts_and_vectors
from graphmem.write.records import Numbered

#: The modes timed: the old default (hybrid + association) and today's default.
MODES = ("hybrid+assoc", "default")
NUMPY = "numpy brute force"


class CrowdedRow(BaseModel):
    """Latency of one kind of scope (p50/p95 ms per mode) and the scopes it covers."""

    scopes: str
    memories: str  # the scope sizes asked
    p50_ms: dict[str, float]
    p95_ms: dict[str, float]
    round_trips: float  # per default recall, on average


class CrowdedBench(BaseModel):
    """`bench crowded` on one server: small scopes and one big scope among 1,000 scopes."""

    server: str  # e.g. "5.26.30" or "2026.08.1": the release line decides the vector path
    cores: int
    memories: int
    scope_count: int
    queries: int
    rows: list[CrowdedRow]
    build_seconds: float


class CrowdedRuns(BaseModel):
    """`bench crowded` on each server asked (one per release line, to compare them)."""

    runs: list[CrowdedBench]


def sizes(total: int, scopes: int, big: int, rng: np.random.Generator) -> list[int]:
    """Scope sizes: one of `big` and `scopes - 1` of a long tail (log-normal, at least 5),
    summing to `total`."""
    rest = total - big
    raw = rng.lognormal(mean=0.0, sigma=1.5, size=scopes - 1)
    shares = np.maximum(5, np.floor(raw / raw.sum() * rest)).astype(int)
    shares[np.argmax(shares)] += rest - int(shares.sum())  # exact total, on the largest
    return [big, *(int(s) for s in shares)]


def crowded(mem: GraphMem, paths: Sequence[Path], *, total: int = 100_000, scopes: int = 1000,
            big: int = 10_000, small: int = 50, queries: int = 100, sigma: float = 0.02,
            settle: float = 10.0) -> CrowdedBench:
    """Build the crowded store from the texts of `paths`, time `queries` recalls in scopes
    of at most `small` memories and `queries` in the big one, then drop it all."""
    samples, vectors = texts_and_vectors(mem, paths)
    rng = np.random.default_rng(13)
    run = f"bench:crowded:{uuid.uuid4().hex[:8]}"
    sized = sizes(total, scopes, big, rng)
    names = [f"{run}:{i}" for i in range(len(sized))]
    stored: dict[str, tuple[list[str], np.ndarray]] = {}
    started = time.perf_counter()
    try:
        first = 0
        for name, size in zip(names, sized, strict=True):
            picks = [(first + i) % len(samples) for i in range(size)]
            first += size
            base = np.stack([vectors[samples[p]] for p in picks])
            noisy = base + rng.normal(0, sigma, base.shape).astype(np.float32)
            vecs = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
            texts = [f"{samples[p]} (#{name}-{i})" for i, p in enumerate(picks)]
            records = [Numbered(i + 1, MemoryIn(id=f"m{i}", text=t, source="import"), "<bench>")
                       for i, t in enumerate(texts)]
            mem.ops.write(records, mem.ops.write_options(scope=name),
                          vectors=dict(zip(texts, vecs, strict=True)))
            stored[name] = (texts, vecs)
        mem.ops.settle()
        build = time.perf_counter() - started
        time.sleep(settle)  # the server's background work after a bulk write
        tail = [n for n, s in zip(names, sized, strict=True) if s <= small]
        asked_small = [tail[i] for i in rng.choice(len(tail), size=queries)]
        rows = [_time(mem, f"{len(tail)} scopes of <= {small}", f"{min(sized[1:])}-{small}",
                      asked_small, stored, rng),
                _time(mem, "the big scope", f"{big:,}", [names[0]] * queries, stored, rng)]
    finally:
        for name in names:
            mem.drop_scope(name)
    return CrowdedBench(server=mem.ops.server.version or "?", cores=os.cpu_count() or 1,
                        memories=sum(sized), scope_count=len(sized),
                        queries=queries, rows=rows, build_seconds=round(build, 1))


def _time(mem: GraphMem, label: str, memories: str, asked: list[str],
          stored: dict[str, tuple[list[str], np.ndarray]],
          rng: np.random.Generator) -> CrowdedRow:
    """Time one recall per entry of `asked` (a scope), its query a text of that scope."""
    plan = [(scope, " ".join(stored[scope][0][int(rng.integers(len(stored[scope][0])))]
                            .split()[:12])) for scope in asked]
    timings: dict[str, list[float]] = {m: [] for m in (*MODES, NUMPY)}
    trips: list[int] = []
    for scope, q in plan[:10]:  # warm the plans and caches
        for m in MODES:
            mem.recall(q, scope=scope, top_k=10, **LATENCY_MODES[m])  # type: ignore[arg-type]
    for scope, q in plan:
        for m in MODES:
            mem.embedder.forget_queries()  # query embedding included, every time
            mem.flush()  # the last recall's reinforcement, written before this one, untimed
            result = mem.recall(q, scope=scope, top_k=10, **LATENCY_MODES[m])  # type: ignore[arg-type]
            timings[m].append(result.took_ms)
            if m == "default":
                trips.append(result.profile.round_trips)
    with threadpool_limits(1, user_api="blas"):  # as in bench latency
        for scope, q in plan:
            mem.embedder.forget_queries()
            t = time.perf_counter()
            v = mem.embedder.embed_query(q)
            sims = stored[scope][1] @ v
            top = np.argpartition(-sims, min(10, len(sims) - 1))[:10]
            _ = top[np.argsort(-sims[top])]
            timings[NUMPY].append((time.perf_counter() - t) * 1000)
    return CrowdedRow(
        scopes=label, memories=memories,
        p50_ms={m: round(float(np.percentile(t, 50)), 1) for m, t in timings.items()},
        p95_ms={m: round(float(np.percentile(t, 95)), 1) for m, t in timings.items()},
        round_trips=round(float(np.mean(trips)), 2))
