"""The Python API: one facade over the store, the embedder and the read and write paths.

    from graphmem import GraphMem
    with GraphMem() as mem:
        mem.remember("The cache layer is Redis")
        print(mem.recall("what do we use for caching?").hits[0].text)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Unpack

from graphmem.base.errors import InputError
from graphmem.base.options import RecallOptions, RecallSettings, WriteSettings, parse
from graphmem.base.settings import Settings, load_settings, valid_scope
from graphmem.base.types import (
    DoctorReport,
    EmbedderInfo,
    EntityOut,
    Link,
    MemoryIn,
    MemoryOut,
    RecallResult,
    WriteReport,
)
from graphmem.base.verbs import ContextArgs, EntitiesArgs, SessionArgs
from graphmem.base.vocabulary import CONTEXT_TOKENS, CONTEXT_TOP, ENTITIES, SESSION_TURNS
from graphmem.core import Core
from graphmem.embedding import chosen
from graphmem.embedding.embedders import Embedder
from graphmem.graph import schema
from graphmem.graph.schema import IndexInfo
from graphmem.graph.store import Store
from graphmem.graph.tokens import TokenBook
from graphmem.lifecycle import edits, maintenance, packs, summarize
from graphmem.lifecycle.maintenance import SweepOptions, SweepReport
from graphmem.lifecycle.summarize import Summarizer
from graphmem.operations import Operations
from graphmem.read import context, find, reinforcement, retrieval
from graphmem.read.context import Context
from graphmem.write import formats, runs
from graphmem.write.records import Collector


class GraphMem:
    """A memory graph on Neo4j. Connects on first use; close it (or use `with`) when done."""

    #: What doors, operators and benchmarks ask beyond the verbs (graphmem.operations).
    ops: Operations

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None,
                 now: datetime | None = None, summarizer: Summarizer | None = None,
                 store: Store | None = None, reinforce_every: float = 0.5) -> None:
        """`store` shares a connection its owner opened (and closes); `reinforce_every`
        is how many seconds recall's reinforcement waits to be written in a batch;
        `summarizer` writes consolidation summaries (extractive unless
        GRAPHMEM_SUMMARY_URL is set)."""
        settings = settings or load_settings()
        self._core = Core(settings, embedder or chosen.from_settings(settings),
                          summarizer or summarize.from_settings(settings), now=now,
                          store=store, reinforce_every=reinforce_every)
        self.ops = Operations(self._core)
        #: The service's tokens (graphmem.graph.tokens).
        self.tokens = TokenBook(lambda: self._core.store, self._core.now)

    @property
    def settings(self) -> Settings:
        """What this memory was configured with (its Core's)."""
        return self._core.settings

    @property
    def embedder(self) -> Embedder:
        """The model that embeds for this memory (its Core's)."""
        return self._core.embedder

    def __enter__(self) -> GraphMem:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def remember(self, records: str | MemoryIn | dict[str, Any]
                 | Iterable[str | MemoryIn | dict[str, Any]], *, source: str = "<api>",
                 **options: Unpack[WriteSettings]) -> WriteReport:
        """Store one text, one record or many records as one all-or-nothing batch;
        `options` are those of `ops.write_options` (scope, kind, session, …).

        Records the gates refuse come back as `rejected` with the reason; the rest land.
        A record a hard forget removed is refused unless `allow_forgotten`. Records that
        name no session join `session`, else the configured one (GRAPHMEM_SESSION), in
        order of arrival.
        """
        collector = Collector()
        collector.extend([records] if isinstance(records, str | MemoryIn | dict) else records,
                         source)
        options["session"] = options.get("session") or self.settings.session
        return self.ops.write(collector.records, self.ops.write_options(**options))

    def ingest(
        self,
        paths: Sequence[str | Path],
        *,
        fmt: str = "auto",
        split: str = "paragraph",
        skip_invalid: bool = False,
        progress: bool = False,
        **options: Unpack[WriteSettings],
    ) -> WriteReport:
        """Read files or folders (records, text, Markdown, LoCoMo, chat) and store them.

        Everything is read and validated before anything is written; `options` are those
        of `write_options` (scope, kind, session, …).
        """
        collector = formats.collect(paths, fmt, split, skip_invalid)
        return self.ops.write(collector.records, self.ops.write_options(**options),
                              skipped=collector.skipped, progress=progress)

    def recall(self, query: str, *, scope: str | None = None,
               options: RecallOptions | None = None,
               **settings: Unpack[RecallSettings]) -> RecallResult:
        """The memories of a scope that best answer `query`, best first.

        `settings` are RecallOptions fields (mode, top_k, hops, kinds, filters, …) or a
        knob's short name (alpha, rrf_k, turn_weight, …).
        What it returns is reinforced in the background (see `flush`), unless
        `reinforce=False`.
        """
        if options is not None and not settings:  # checked already: not parsed again
            opts = options if "decay" in options.model_fields_set else options.model_copy(
                update={"decay": self.settings.decay_table()})  # the configured curves
        else:
            base = options.model_dump() if options else {}
            if options is None or "decay" not in options.model_fields_set:
                base["decay"] = self.settings.decay_table()
            opts = parse(RecallOptions, {**base, **settings})
        now = self.now()
        target = self._core.scope(scope)
        result = retrieval.recall(self._core.store, self.embedder, query, scope=target, now=now,
                                  options=opts, extractor=self._core.extractor)
        if opts.feedback.reinforce and (item := reinforcement.plan(
                result.hits, scope=target, now=now, opts=opts, embedder=self.embedder)):
            self._core.reinforcer.submit(item)
        return result

    def context(self, *, scope: str | None = None, top: int = CONTEXT_TOP,
                max_tokens: int = CONTEXT_TOKENS) -> Context:
        """L0 (counts per kind) and L1 (the best memories, type-budgeted, under
        `max_tokens`), ready for an agent's system prompt."""
        args = ContextArgs.check(top=top, max_tokens=max_tokens)
        return context.build(self._core.store, self._core.scope(scope), self.now(),
                             top=args.top, max_tokens=args.max_tokens)

    def get(self, ids: Sequence[str] | None = None, *, meta: tuple[str, Any] | None = None,
            scope: str | None = None, limit: int = 100) -> list[MemoryOut]:
        """Memories of a scope by id, or by one metadata value (`("dia_id", "D1:3")`).

        A value given as text also matches the number or boolean it spells ("3" finds 3).
        """
        return find.find(self._core.store, self._core.scope(scope), ids, meta=meta, limit=limit)

    def links(self, ids: Sequence[str], *, scope: str | None = None) -> list[Link]:
        """The graph around some memories of a scope: every edge from one of them to a
        memory, entity or session (at most 500), to draw or inspect."""
        return find.links(self._core.store, self._core.scope(scope), ids)

    def recent(self, scope: str | None = None, *, layers: Sequence[str] = (),
               order: str | None = None, offset: int = 0,
               limit: int = 100) -> list[MemoryOut]:
        """The live memories of a scope (default: this one) and the public ones of its
        `layers`, newest first: by the ISO-8601 time in metadata `order` if given, else
        by when they were written."""
        core = self._core
        return find.recent(core.store, core.scope(scope), [core.scope(s) for s in layers],
                           order=order, offset=offset, limit=limit)

    def session_turns(self, session: str | None = None, *, scope: str | None = None,
                      last: int = SESSION_TURNS, every: bool = False) -> list[MemoryOut]:
        """The last `last` live turns of a session (default: the configured one), in
        order; with `every`, archived and shadowed turns too."""
        args = SessionArgs.check(session=session or self.settings.session or "", last=last)
        return find.session_turns(self._core.store, self._core.scope(scope), args.session,
                                  args.last, every=every)

    def entities(self, *, scope: str | None = None,
                 limit: int = ENTITIES) -> list[EntityOut]:
        """What a scope's memories name, those named by most memories first."""
        return find.entities(self._core.store, self._core.scope(scope),
                             EntitiesArgs.check(limit=limit).limit)

    def scopes(self, prefix: str = "") -> list[str]:
        """The scopes whose names start with `prefix` that hold a live memory, sorted."""
        return find.scopes_under(self._core.store, prefix)

    def count(self, *, scope: str | None = None, all_scopes: bool = False) -> int:
        """How many memories a scope holds (every lifecycle), or the whole graph."""
        return find.count(self._core.store, None if all_scopes else self._core.scope(scope))

    def feedback(self, memory_id: str, *, used: bool,
                 scope: str | None = None) -> edits.FeedbackResult:
        """Tell graphmem a recalled memory helped (`used`, an echo) or did not (a fizzle)."""
        return edits.feedback(self._core.store, memory_id, used=used, scope=self._core.scope(scope),
                              now=self.now())

    def update(self, memory_id: str, *, scope: str | None = None, text: str | None = None,
               kind: str | None = None, importance: float | None = None,
               tags: list[str] | None = None,
               metadata: dict[str, Any] | None = None) -> WriteReport:
        """Change a memory in place; a new text is re-embedded and the old one kept."""
        target = self._core.scope(scope)
        return edits.update(self._core.store, memory_id, scope=target,
                            current=lambda: self.get([memory_id], scope=target)[0],
                            write=lambda record: self.ops.write_made([record], target),
                            text=text, kind=kind, importance=importance, tags=tags,
                            metadata=metadata)

    def history(self, memory_id: str, *, scope: str | None = None) -> list[edits.HistoryEntry]:
        """A memory's supersession chain, newest first."""
        return edits.history(self._core.store, memory_id, scope=self._core.scope(scope))

    def add_link(self, a: str, b: str, *, weight: float = 0.5,
                 scope: str | None = None) -> edits.LinkResult:
        """Link two memories of one scope by hand (never pruned by sweep)."""
        return edits.link(self._core.store, a, b, weight=weight, scope=self._core.scope(scope),
                          now=self.now())

    def forget(self, memory_id: str, *, hard: bool = False,
               scope: str | None = None) -> edits.ForgetResult:
        """Archive a memory (soft), or delete it leaving a text-free tombstone (hard)."""
        return edits.forget(self._core.store, memory_id, scope=self._core.scope(scope),
                            now=self.now(), by=self.settings.added_by, hard=hard)

    def sweep(self, *, scope: str | None = None, all_scopes: bool = False,
              dry_run: bool = False, options: SweepOptions | None = None) -> SweepReport:
        """Run maintenance (lifecycle, tiers, link pruning, consolidation, reflection) over
        one scope, or every scope with `all_scopes`; never deletes a memory (but first
        undoes a run whose writer died: graphmem.write.runs)."""
        target = self._core.scopes(scope, all_scopes)
        if not dry_run:  # a long-lived process connected before the run's writer died
            runs.recover(self._core.store, target)
        report = maintenance.sweep(self._core.store, embedder=self.embedder,
                                   summarizer=self._core.summarizer, write=self.ops.write_made,
                                   scope=target, now=self.now(),
                                   decay=self.settings.decay_table(), options=options,
                                   dry_run=dry_run)
        if not dry_run:  # a scope may have become a small share of a grown store
            self.ops.tune_indexes()
        return report

    def overview(self, *, scope: str | None = None,
                 all_scopes: bool = False) -> maintenance.Overview:
        """Counts per kind, scope, tier and lifecycle, links, contributors, last sweep."""
        return maintenance.overview(self._core.store, self._core.scopes(scope, all_scopes))

    def export(self, *, scope: str | None = None, include_shadowed: bool = False,
               include_archived: bool = False, versions: bool = False) -> Iterator[MemoryIn]:
        """A scope's memories as pack records (JSONL lines `remember` and `import_pack`
        accept), oldest first: active ones, plus shadowed or archived ones if asked."""
        return packs.export(self._core.store, self._core.scope(scope), shadowed=include_shadowed,
                            archived=include_archived, versions=versions)

    def export_pack(self, out: Path, *, scope: str | None = None,
                    include_shadowed: bool = False, include_archived: bool = False) -> int:
        """Write a scope's pack (`export`) to the file `out`, whole or not at all; returns
        how many memories it holds."""
        return packs.write_pack(self.export(scope=scope, include_shadowed=include_shadowed,
                                            include_archived=include_archived), out)

    def import_pack(self, source: str | Path | Iterable[MemoryIn | dict[str, Any]], *,
                    scope: str | None = None, id_prefix: str | None = None,
                    skip_invalid: bool = False, progress: bool = False,
                    allow_forgotten: bool = False) -> WriteReport:
        """Write a pack (a JSONL file, or records) into a scope as one all-or-nothing
        batch. The signal gate is off (a pack was gated when it was made); the secret
        scanner still runs. `id_prefix` renames its ids, so a pack fits several scopes."""
        records, skipped = packs.read_pack(source, id_prefix=id_prefix,
                                           skip_invalid=skip_invalid)
        opts = self.ops.write_options(scope=scope, signal_gate=False,
                                      allow_forgotten=allow_forgotten)
        return self.ops.write(records, opts, skipped=skipped, progress=progress)

    def drop_scope(self, scope: str) -> int:
        """Delete a whole scope: its memories, sessions, entities, sweep records and
        tombstones, leaving nothing behind (unlike `forget`); returns the memories deleted.
        The scope is always named: there is no default to drop by accident."""
        target = valid_scope(scope)
        if not target:
            raise InputError("name the scope to drop", field="scope")
        self.flush()  # reinforcement still being written would deadlock with the delete
        return self.ops.drop_scope(target)

    def doctor(self) -> DoctorReport:
        """Check the server, the indexes and the embedder; never raises for a sick server."""
        e = self.embedder
        return schema.doctor(self._core.store, EmbedderInfo(model=e.name, path=e.path,
                                                    dimensions=e.dimensions))

    def init(self) -> list[IndexInfo]:
        """Install the schema (idempotent), give each big scope its own indexes, and return
        the indexes, all ONLINE."""
        schema.install(self._core.store, self.embedder.dimensions)
        self.ops.tune_indexes()  # big scopes written before they were due one, e.g. upgrades
        return schema.indexes(self._core.store)

    def at(self, now: datetime | None = None, *, embedder: Embedder | None = None) -> GraphMem:
        """The same memory on the same connection, with its clock fixed at `now` (recall or
        maintenance as of another day) or another embedder; close it before this one."""
        core = self._core
        return GraphMem(self.settings, embedder=embedder or self.embedder,
                        now=now or core.fixed_now, summarizer=core.summarizer,
                        store=core.store, reinforce_every=core.reinforce_every)

    def now(self) -> datetime:
        """The clock every time-dependent rule reads: fixed if given, else the wall clock."""
        return self._core.now()

    def flush(self) -> None:
        """Write the reinforcement of past recalls now (else: in the background, and on close)."""
        self._core.reinforcer.flush()

    def close(self) -> None:
        """Write pending reinforcement and release the connection pool (also when the
        write fails, which then raises)."""
        self._core.close()
