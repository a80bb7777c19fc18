"""`bench batch`: one input as big as asked, on the configured server: in one transaction,
or above the chunk size as a run of chunks with one outcome (graphmem.write.runs). Does
it land whole, or fail whole, how fast, and with what message? The baseline is the
smallest size, written in the same run."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.base.errors import GraphmemError
from graphmem.bench.cpu import Trips, neo4j_pid
from graphmem.bench.synthetic import made_records, noisy_vectors, texts_and_vectors
from graphmem.graph.trips import listening


class BatchRow(BaseModel):
    """One input of `records` records: what became of it."""

    records: int
    landed: bool
    stored: int  # memories in the scope afterwards: all of them, or none
    seconds: float
    rows_per_second: int
    transactions: int  # the chunks of its run and its last transaction, or 1
    error: str | None = None
    #: The local Neo4j's CPU ms a record by query ("commit": the commits), most first
    #: (empty where its counters cannot be read).
    queries: dict[str, float] = {}


class BatchBench(BaseModel):
    """`bench batch`: inputs of growing size, each one transaction."""

    cores: int
    server: str  # the server's version
    heap: str  # the server's maximum heap
    transaction_memory: str  # its memory pool for all transactions
    chunk_rows: int  # records one transaction writes at most
    rows: list[BatchRow]


def batch(mem: GraphMem, paths: Sequence[Path], *, sizes: Sequence[int],
          sigma: float = 0.02) -> BatchBench:
    """Write one input of each size (texts of `paths` numbered, in sessions of 20 turns,
    each vector its text's embedding plus noise) into a fresh scope, and count what is
    stored after it; every scope is dropped."""
    samples, vectors = texts_and_vectors(mem, paths)
    rng = np.random.default_rng(11)
    rows = []
    for size in sorted(sizes):
        scope = f"bench:batch:{uuid.uuid4().hex[:8]}"
        records = made_records(scope, samples, 0, size)
        memo = dict(zip((r.record.text for r in records),
                        noisy_vectors(samples, vectors, 0, size, rng, sigma), strict=True))
        started = time.perf_counter()
        error = None
        trips = Trips(neo4j_pid(mem))
        try:
            with listening(trips):
                mem.ops.write(records, mem.ops.write_options(scope=scope), vectors=memo,
                              contexts=False)  # noisy vectors: no model made them
        except GraphmemError as e:
            error = e.one_line()
        took = time.perf_counter() - started
        try:
            stored = mem.count(scope=scope)
        finally:
            mem.drop_scope(scope)
        chunk = mem.settings.write_chunk_rows
        rows.append(BatchRow(records=size, landed=error is None, stored=stored,
                             seconds=round(took, 1), rows_per_second=int(size / took),
                             transactions=1 if size <= chunk else -(-size // chunk) + 1,
                             error=error, queries=trips.per(size)))
    config = mem.ops.server_settings(["server.memory.heap.max_size",
                                     "dbms.memory.transaction.total.max"])
    return BatchBench(cores=os.cpu_count() or 1, server=mem.ops.server.version or "?",
                      heap=config.get("server.memory.heap.max_size", "?"),
                      transaction_memory=config.get("dbms.memory.transaction.total.max", "?"),
                      chunk_rows=mem.settings.write_chunk_rows, rows=rows)
