"""The facade's second half: what the doors, operators and benchmarks ask of a memory
beyond its verbs (`GraphMem.ops`): the write path for records a door parsed itself,
warming up and planning ahead, index upkeep, the server's facts. A memory's users need
none of it; it shares the facade's connection, clock and settings."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Unpack

import numpy as np

from graphmem.base import models
from graphmem.base.errors import GraphmemError, InputError
from graphmem.base.options import WriteOptions, WriteSettings, parse
from graphmem.base.types import MemoryIn, WriteReport
from graphmem.core import Core
from graphmem.embedding import embedders
from graphmem.graph import schema, scope_indexes
from graphmem.graph.features import Features
from graphmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX
from graphmem.lifecycle import edits, maintenance, reembed
from graphmem.lifecycle.maintenance import SweepOptions
from graphmem.read import candidates, retrieval
from graphmem.write import ingest
from graphmem.write.ingest import Timing
from graphmem.write.records import Collector, Numbered, parse_records


class Operations:
    """`GraphMem.ops`: the memory's write path, upkeep and facts for doors, operators and
    benchmarks."""

    def __init__(self, core: Core) -> None:
        #: The memory's parts this serves: its connection, settings, embedder, clock.
        self.core = core

    def write_options(
        self,
        *,
        scope: str | None = None,
        added_by: str | None = None,
        kind: str | None = None,
        visibility: str | None = None,
        session: str | None = None,
        signal_gate: bool = True,
        allow_forgotten: bool = False,
    ) -> WriteOptions:
        """The write path's options: the call's values, then configuration, then the
        embedding model's own cosines (graphmem.base.models)."""
        s = self.core.settings
        model = models.numbers(self.core.embedder.name)
        return parse(WriteOptions, {
            "scope": scope or s.scope, "now": self.core.now(),
            "model": self.core.embedder.recorded, "added_by": added_by or s.added_by,
            "kind": kind, "visibility": visibility, "session": session,
            "signal_gate": signal_gate, "allow_forgotten": allow_forgotten,
            "batch_size": s.write_batch_size, "chunk_rows": s.write_chunk_rows,
            "dedup_threshold": s.dedup_threshold or model.dedup_threshold,
            "synaptic_threshold": s.synaptic_threshold or model.synaptic_threshold,
            "synaptic_max_links": s.synaptic_max_links})

    def write(self, records: Sequence[Numbered], opts: WriteOptions, *,
              skipped: Sequence[InputError] = (), progress: bool = False,
              timing: Timing | None = None,
              vectors: Mapping[str, np.ndarray] | None = None,
              contexts: bool = True) -> WriteReport:
        """Store records already parsed and validated (keeps their sources and lines).
        `vectors` gives each text's embedding instead of the model (bulk loads); the
        model still embeds the turns' contexts unless `contexts` is False (vectors that
        are not the model's: they then read as their two turns' vectors until
        `graphmem reembed` makes them)."""
        embedder = (self.core.embedder if vectors is None
                    else embedders.Given(vectors, self.core.embedder.dimensions,
                                         contexts=self.core.embedder if contexts else None))
        report = ingest.write(self.core.store, embedder, self.core.extractor, records, opts,
                              skipped=skipped, progress=progress, timing=timing)
        self.tune_indexes([opts.scope])
        return report

    def remember_json(self, data: str, *, source: str = "<stdin>",
                      skip_invalid: bool = False, progress: bool = False,
                      **options: Unpack[WriteSettings]) -> WriteReport:
        """Store records given as JSON text (one object, an array of objects, or NDJSON)
        as one all-or-nothing batch, as a door reads them (the CLI's stdin); errors name
        `source` and the line. `options` and the session's default are `remember`'s."""
        collector = Collector(skip_invalid)
        parse_records(data, source, collector=collector)
        options["session"] = options.get("session") or self.core.settings.session
        return self.write(collector.records, self.write_options(**options),
                          skipped=collector.skipped, progress=progress)

    def write_made(self, records: list[MemoryIn], scope: str) -> WriteReport:
        """Write what graphmem made (a consolidation, a reflection, a new version): the
        write path without the signal gate, in no session (nobody said it)."""
        collector = Collector()
        collector.extend(records)
        return self.write(collector.records, self.write_options(scope=scope, signal_gate=False))

    def drop_scope(self, scope: str) -> int:
        """Delete a whole scope with its own indexes and remembered depths (what
        `GraphMem.drop_scope` does once reinforcement is written); returns the memories."""
        return edits.drop(self.core.store, scope=scope)

    def reembed(self, scope: str | None = None) -> list[reembed.Reembedded]:
        """Move a scope's vectors (`scope`; None: every scope) to this process's embedding
        model, one transaction a scope; a scope of this model already is skipped."""
        self.core.reinforcer.flush()  # reinforcement being written would wait on the scope's lock
        only = None if scope is None else [self.core.scope(scope)]
        return reembed.reembed(self.core.store, self.core.embedder, only)

    def tune_indexes(self, scopes: Sequence[str] | None = None) -> list[str]:
        """Give each scope big enough to need them (of `scopes`, if given) its own
        full-text index, and (not most of the store, on a server whose shared index cannot
        filter) its own vector index; after every write (its scope) and sweep (every
        scope). Returns the scopes that got one."""
        made = scope_indexes.ensure(self.core.store, self.core.embedder.dimensions, scopes)
        # Depths remembered for the shared index are far deeper than a scope's own needs.
        self.core.store.kept.get(candidates.DepthCache).forget(made)
        return made

    def await_bookmarks(self, given: tuple[str, ...]) -> None:
        """Return once the server holds the writes a client's bookmarks name (the
        service's Graphmem-Bookmark; the server bounds the wait, the service its own)."""
        self.core.store.await_bookmarks(given)

    def bookmark(self) -> str:
        """What a client sends back to see every write this process has made, on any
        replica (docs/service.md, "Scale out"); empty before anything was connected."""
        store = self.core.connected
        return store.bookmark() if store is not None else ""

    def check(self, ids: Sequence[str], *, scope: str | None = None) -> None:
        """Raise NotFoundError naming the first of `ids` that is no memory of the scope
        (a hard-forgotten one as such, with when and by whom)."""
        edits.check(self.core.store, list(ids), self.core.scope(scope))

    def plan_ahead(self) -> float | None:
        """Have the server plan recall's queries now, so that the first recall after it
        starts does not wait for that; returns the ms taken, or None before `init`."""
        names = {i.name for i in schema.indexes(self.core.store) if i.state == "ONLINE"}
        if not {VECTOR_INDEX, FULLTEXT_INDEX} <= names:
            return None  # nothing to plan against: recall needs `init` first
        started = time.perf_counter()
        retrieval.plan_ahead(self.core.store, self.core.embedder.dimensions)
        return round((time.perf_counter() - started) * 1000, 1)

    def warm_up(self, warn: Callable[[str], None]) -> None:
        """Get a long-lived door ready before its first call, as every such door does
        (the service, the MCP server): the embedder loaded, then recall's queries planned.
        What fails (a Neo4j down or not set up, a missing model) is passed to `warn`, and
        the first call that needs it says so again."""
        try:
            self.core.embedder.warm()
        except GraphmemError as e:
            warn(f"the embedder is not loaded: {e}")
        try:
            self.plan_ahead()
        except GraphmemError as e:
            warn(f"recall's queries not planned ahead: {e}")

    def warm_embedder(self, say: Callable[[str], None] | None = None) -> str:
        """Load the embedder now, first making the model's ONNX export if this machine has
        none (once, a few seconds), so later processes start without torch; returns what
        embeds ("onnxruntime", "torch" or "remote")."""
        if say is not None and (first := self.core.embedder.preparing()):
            say(first)
        self.core.embedder.warm()
        return self.core.embedder.runtime

    def settle(self, seconds: int = 600) -> None:
        """Wait until every index has caught up with what was written (before timing
        reads after a bulk load)."""
        self.core.store.autocommit("admin/await_indexes", seconds=seconds)

    @property
    def server(self) -> Features:
        """What the connected server is (version, release line) and what it offers."""
        return self.core.store.features

    def server_settings(self, names: Sequence[str]) -> dict[str, str]:
        """The values of the named server settings the server knows (e.g. its heap)."""
        return {r["name"]: r["value"] for r in self.core.store.read("admin/server_settings",
                                                             names=list(names))}

    def consolidate(self, *, scope: str | None = None,
                    options: SweepOptions | None = None) -> maintenance.Consolidation:
        """Consolidate related episodic memories now (the sweep's consolidation step
        alone): how many semantic memories were created and confirmed."""
        core = self.core
        return maintenance.consolidate(core.store, embedder=core.embedder,
                                       summarizer=core.summarizer, write=self.write_made,
                                       scope=core.scope(scope), now=core.now(),
                                       opts=options or SweepOptions(), dry_run=False)

    def prune(self, *, scope: str | None = None, options: SweepOptions | None = None) -> int:
        """Delete dead links now (the sweep's link-pruning step alone); returns how many."""
        opts = options or SweepOptions()
        return maintenance.prune(self.core.store, scope=self.core.scope(scope), now=self.core.now(),
                                 opts=opts)
