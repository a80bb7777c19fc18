"""The write path: records → gates → embedding → dedup/confirmation → entities →
sessions and synaptic tagging → one outcome per input (docs/architecture.md).

Identity decides what a record can become:
- a caller's `id`, or a file format's stable key (a LoCoMo turn, a Markdown paragraph),
  names the memory within its scope: it is created, or updated in place when it exists;
- otherwise the text is the identity: the same normalised text, or cosine ≥
  `dedup_threshold` with an active memory of the same scope and kind, *confirms* that
  memory instead of creating a near copy.

Every input is validated and every id it references checked before the first write
(`plan`); the whole input is then one transaction (written in batches of statements), so
it lands whole or not at all — or, above `chunk_rows` records, a run of chunks with one
outcome all the same (`runs`). Near-duplicates are found against what is stored and within
each batch (`dedup`): the vector index sees a transaction's new memories only once it
commits. Synaptic links are `links`. This module runs the pipeline: embedding in windows
while a writer thread writes the last one, and the retry of a whole input or chunk. Small
inputs of one scope that arrive together share a transaction (`group`), each keeping its
own outcome.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent import futures
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from graphmem.base.errors import InputError, Neo4jBusy
from graphmem.base.progress import bar
from graphmem.base.types import WriteOutcome, WriteReport
from graphmem.embedding.embedders import Embeds
from graphmem.graph import retry
from graphmem.graph.keys import entity_prefix
from graphmem.graph.store import InputTransaction, Store, Tx, run
from graphmem.write import group, runs
from graphmem.write.contexts import embed_contexts, embed_rows, foresee
from graphmem.write.dedup import Confirmations, decide
from graphmem.write.extract import Extractor, subject
from graphmem.write.links import SessionVectors, arrivals, session_rows, synaptic_links
from graphmem.write.plan import (
    Row,
    WriteOptions,
    check_references,
    plan,
    references,
    refuse_forgotten,
)
from graphmem.write.records import Numbered
from graphmem.write.written import store_rows

#: Rows embedded together: the model sorts a call's texts by length, so bigger calls pad less.
EMBED_WINDOW = 2000


@dataclass
class Timing:
    """Seconds spent per stage of a write, for `bench ingest`."""

    gates: float = 0.0
    embed: float = 0.0
    extract: float = 0.0
    write: float = 0.0  # in the writer thread, mostly hidden behind embedding
    wait: float = 0.0  # the main thread waiting for the writer: what writing really costs

    def add(self, stage: str, started: float) -> None:
        """Add the time since `started` (a perf_counter reading) to `stage`."""
        setattr(self, stage, getattr(self, stage) + time.perf_counter() - started)


def write_batch(tx: Tx, store: Store, rows: list[Row], opts: WriteOptions,
                referrers: Sequence[Row] = (), *, embedder: Embeds,
                chunk_of: runs.Run | None = None, last: bool = True) -> None:
    """Decide, link and write one batch of embedded rows inside the input's transaction
    (of `store`); `referrers` are the rows whose supersedes and links are written with
    this batch, `embedder` makes the vectors of the contexts it sets (`contexts`), and
    `chunk_of` is the run this batch is part of (it then holds back rows that touch
    memories stored before the run). Each row learns its status and the links
    its write created (`Row.links`); a scope the batch makes due an index of its own is
    flagged (`scope_indexes.flagged`) when it is the transaction's `last`.
    """
    for r in rows:  # a retried input writes its batches again, in order
        r.links = 0
    conf = Confirmations()
    decide(tx, rows, opts, conf, store.variant)
    if chunk_of is not None:
        rows = chunk_of.keep(rows, conf)
    written = [r for r in rows if r.written]
    # Read before the first write takes the scope's lock: reading the session's last turns'
    # embeddings is most of a write's time, and writers of the scope queue on that lock.
    synaptic = synaptic_links(tx, store.kept.get(SessionVectors), written, opts)
    # An update that changes the text keeps the text it had as a version (`history`).
    changed = [{"id": r.id, "text": r.props["text"]} for r in written if r.status == "updated"]
    if changed:
        run(tx, "ingest/snapshot", scope=opts.scope, now=opts.now, rows=changed)
    store_rows(tx, store, written, conf, opts, chunk_of, due=last)
    # Conversation order: explicit positions (importers) rebuild their sessions' chains,
    # then every other memory written into a session joins the end of its chain; after
    # the chain, a turn's context is the turn before it. An update of a turn's text (which
    # names no session) refreshes its context and the next turn's too.
    placed = [r for r in written if r.session or r.status == "updated"]
    placing = {"sessions": session_rows(rows),
               "chains": sorted({r.session for r in written
                                 if r.session and r.turn is not None}),
               "arrivals": arrivals(written),
               "placed": [r.id for r in placed]}
    if any(placing.values()):
        unembedded = run(tx, "ingest/place", scope=opts.scope, lists=placing)
        embed_contexts(tx, embedder, opts.scope, placed, unembedded)
    if written:
        entities = {e["key"]: e for r in written for e in r.entities}
        about = {e["key"]: e for r in written for e in r.subjects}
        run(tx, "ingest/link_entities", scope=opts.scope, prefix=entity_prefix(opts.scope),
            entities=list({**about, **entities}.values()),
            rows=[{"id": r.id, "replace": r.status == "updated",
                   "keys": [e["key"] for e in r.entities],
                   "subjects": [e["key"] for e in r.subjects]} for r in written])
    pairs = {(link["a"], link["b"]): link for link in synaptic}
    for r in referrers:
        for link in r.item.record.link_list():
            a, b = sorted((r.target or r.id, link.id))
            pairs[(a, b)] = {"a": a, "b": b, "kind": "manual", "weight": link.weight,
                             "at": opts.now, "by": r.id}
    if pairs:
        new = {r.id for r in written if r.status == "created"}
        fresh = [p for p in pairs.values() if p["a"] in new or p["b"] in new]
        known = [p for p in pairs.values() if p["a"] not in new and p["b"] not in new]
        asked = Counter(run(tx, "ingest/associate", scope=opts.scope, fresh=fresh,
                            rows=known)[0]["by"])
        for r in {id(r): r for r in (*rows, *referrers)}.values():
            r.links += asked.pop(r.id, 0)  # a row's id is counted once, if in both
    supersede = [{"id": r.target or r.id, "old": r.item.record.supersedes,
                  "at": r.props["created_at"]} for r in referrers
                 if r.item.record.supersedes]
    if supersede:
        run(tx, "ingest/supersede", scope=opts.scope, rows=supersede)


def _embed_and_extract(embedder: Embeds, extractor: Extractor, rows: list[Row],
                       timing: Timing) -> None:
    if not rows:  # nothing to ask the model (a remote one may charge a call)
        return
    started = time.perf_counter()
    embed_rows(embedder, rows)
    timing.add("embed", started)
    started = time.perf_counter()
    found = extractor.extract_many([r.props["text"] for r in rows],
                                   [r.props["created_at"] for r in rows])
    for row, refs in zip(rows, found, strict=True):
        row.entities = [{"key": e.key, "name": e.name, "type": e.type} for e in refs]
        about = subject(row.item.record.metadata)
        row.subjects = [{"key": about.key, "name": about.name, "type": about.type}
                        ] if about else []
    timing.add("extract", started)


def _reference_batches(batches: list[list[Row]]) -> dict[int, list[Row]]:
    """For each batch, the rows whose supersedes/links it writes: a reference to a memory
    that a later batch of the same input creates waits for that batch."""
    batch_of: dict[str, int] = {}
    for b, batch in enumerate(batches):
        for row in batch:
            batch_of.setdefault(row.id, b)
    plan_: dict[int, list[Row]] = defaultdict(list)
    for b, batch in enumerate(batches):
        for row in batch:
            refs = references(row)
            if refs:
                plan_[max([b, *(batch_of.get(ref, -1) for ref in refs)])].append(row)
    return plan_


T = TypeVar("T")
P = TypeVar("P")  # a part of a pipelined write: a window of batches, a chunk


def _retried(transactions: InputTransaction, work: Callable[[], T], *,
             failed: BaseException | None = None) -> T:
    """`work()` (which writes in `transactions.current()`) committed, rolled back and run
    again in a fresh transaction after a retryable failure (`retry.retried`)."""
    def committed() -> T:
        result = work()
        transactions.commit()
        return result

    return retry.retried(committed, undo=transactions.rollback, failed=failed,
                         budget=transactions.store.settings.retry_s)


def _waited(job: Future[Any], timing: Timing) -> Any:
    """The writer thread's `job` done, the main thread's wait for it counted."""
    started = time.perf_counter()
    try:
        return job.result()
    finally:
        timing.add("wait", started)


def _pipelined(writer: Executor, parts: Sequence[P], embed: Callable[[P], None],
               write: Callable[[P], None], timing: Timing) -> None:
    """The write pipeline of a whole input and of a run: each part embedded in this
    thread while `writer` writes the one before, one part in flight (so order and errors
    stay simple); returns when the last is written."""
    pending: Future[None] | None = None
    try:
        for part in parts:
            embed(part)
            if pending is not None:
                _waited(pending, timing)
            pending = writer.submit(write, part)
        if pending is not None:
            _waited(pending, timing)
    except BaseException:
        if pending is not None:
            futures.wait([pending])  # the writer must be idle before the caller undoes
        raise


class _Inline(Executor):
    """Runs what is submitted at once, in the calling thread."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """`fn(*args, **kwargs)` run now; its result or exception in a done Future."""
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except Exception as e:  # the caller meets it where it waits, as with a thread
            done.set_exception(e)
        return done


def _write_whole(store: Store, embedder: Embeds, extractor: Extractor, rows: list[Row],
                 opts: WriteOptions, progress: bool, timing: Timing) -> None:
    """Write `rows` in one transaction: embedding runs in windows of EMBED_WINDOW rows;
    while one window is embedded, a single writer thread writes the previous one, batch
    by batch, in order. A conflict with a concurrent writer rolls it back, and the whole
    input is written again, deciding afresh what exists."""
    batches = [rows[i:i + opts.batch_size] for i in range(0, len(rows), opts.batch_size)]
    referrers = _reference_batches(batches)
    per_window = max(1, EMBED_WINDOW // opts.batch_size)

    # One window has nothing to overlap: written in this thread (most writes are an
    # agent's few records, and a thread of their own cost more than their statements).
    overlap = len(batches) > per_window
    with bar("remembering", len(rows), progress) as advance, \
            store.transactions(receipt=opts.scope) as transactions, \
            (ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-writer")
             if overlap else _Inline()) as writer:

        def write_window(first: int, last: int) -> None:
            tx = transactions.current()
            for b in range(first, last):
                started = time.perf_counter()
                write_batch(tx, store, batches[b], opts, referrers.get(b, []),
                            embedder=embedder, last=b == len(batches) - 1)
                timing.add("write", started)
                advance(len(batches[b]))

        windows = [(first, min(first + per_window, len(batches)))
                   for first in range(0, len(batches), per_window)]
        try:
            _pipelined(writer, windows, lambda w: _embed_and_extract(
                embedder, extractor,  # a grouped input's rows came embedded
                [r for b in batches[w[0]:w[1]] for r in b if r.vector is None], timing),
                lambda w: write_window(*w), timing)
            _waited(writer.submit(transactions.commit), timing)
        except Exception as e:
            transactions.rollback()
            if not retry.retryable(e):
                raise
            missing = [r for r in rows if r.vector is None]
            if missing:
                _embed_and_extract(embedder, extractor, missing, timing)

            _retried(transactions, lambda: write_window(0, len(batches)), failed=e)


def _write_run(store: Store, embedder: Embeds, extractor: Extractor, rows: list[Row],
               opts: WriteOptions, progress: bool, timing: Timing) -> None:
    """Write `rows` as a run (graphmem.write.runs): chunks of `opts.chunk_rows` that each
    commit, the next chunk embedded while the writer thread writes the last; then one
    transaction with what touches memories stored before the run, every link and
    supersede the input asks for, and the run marked done. A failure anywhere undoes
    the run whole."""
    chunks = [rows[i:i + opts.chunk_rows] for i in range(0, len(rows), opts.chunk_rows)]

    def batches(part: list[Row]) -> list[list[Row]]:
        return [part[i:i + opts.batch_size] for i in range(0, len(part), opts.batch_size)]

    with bar("remembering", len(rows), progress) as advance, \
            runs.started(store, opts.scope, len(rows)) as job, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-writer") as writer:

        def write_chunk(chunk: list[Row]) -> None:
            def attempt(tx: Tx) -> None:
                job.begin_chunk()
                parts = batches(chunk)
                for i, batch in enumerate(parts):
                    started = time.perf_counter()
                    write_batch(tx, store, batch, opts, embedder=embedder, chunk_of=job,
                                last=i == len(parts) - 1)
                    timing.add("write", started)
                # Last: renewing locks the run until this commits, and the heartbeat
                # waits on that lock; taken first, a chunk that wrote for longer than
                # a lease let the run look abandoned to another process's `recover`.
                runs.renew(tx, store, job.id)

            _committed(store, opts.scope, attempt)
            job.commit_chunk()
            advance(len(chunk))

        _pipelined(writer, chunks, lambda chunk: _embed_and_extract(
            embedder, extractor, chunk, timing), write_chunk, timing)

        referrers = [r for r in rows if references(r)]

        def last(tx: Tx) -> None:
            parts = batches(job.deferred) or [[]]
            for i, batch in enumerate(parts):
                write_batch(tx, store, batch, opts, referrers if i == len(parts) - 1 else (),
                            embedder=embedder, last=i == len(parts) - 1)
            if not run(tx, "runs/done", run=job.id):
                raise Neo4jBusy(f"run {job.id} was undone by another process while it was "
                                "written", "run it again")

        _waited(writer.submit(_committed, store, opts.scope, last), timing)


def _committed(store: Store, scope: str, work: Callable[[Tx], T]) -> T:
    """Run `work` in one transaction of its own (that counts in `scope`: its receipt) and
    commit it, again after a conflict with a concurrent writer (`_retried`)."""
    with store.transactions(receipt=scope) as transactions:
        return _retried(transactions, lambda: work(transactions.current()))


def write(
    store: Store,
    embedder: Embeds,
    extractor: Extractor,
    records: Sequence[Numbered],
    opts: WriteOptions,
    *,
    skipped: Sequence[InputError] = (),
    progress: bool = False,
    timing: Timing | None = None,
) -> WriteReport:
    """Gate, embed, deduplicate, link and store `records`: the whole input lands, or
    nothing of it does — in one transaction, or above `opts.chunk_rows` rows as a run of
    chunks undone whole if any part fails (docs/decisions.md, "One input, one outcome").

    `skipped` are records already found invalid (with `--skip-invalid`); they are reported
    as skipped. `progress` draws a bar on stderr.
    """
    timing = timing or Timing()
    started = time.perf_counter()
    rows, decided = plan(records, opts)
    timing.add("gates", started)
    rows = refuse_forgotten(store, rows, decided, opts)
    foresee(rows)
    if rows:
        check_references(store, rows, opts.scope)
    if len(rows) > opts.chunk_rows:
        runs.recover(store, opts.scope)
        _write_run(store, embedder, extractor, rows, opts, progress, timing)
    elif not progress and group.groupable(rows, opts):
        # Embedded before it queues: while one group is written, the next is embedded
        # (concurrent callers' texts in one run of the model: runtime.Together).
        _embed_and_extract(embedder, extractor, rows, timing)
        store.kept.get(group.Groups).write(
            rows, opts, (embedder, extractor), lambda rows, opts: _write_whole(
                store, embedder, extractor, rows, opts, False, timing))
    else:
        _write_whole(store, embedder, extractor, rows, opts, progress, timing)

    outcomes: list[WriteOutcome | None] = [None] * len(records)
    for index, outcome in decided.items():
        outcomes[index] = outcome
    for row in rows:
        outcomes[row.index] = WriteOutcome(
            id=row.target or row.id, status=row.status, source=row.item.source,
            line=row.item.line)
    report = [o for o in outcomes if o is not None]
    if skipped:
        report += [WriteOutcome(id=None, status="skipped", source=e.source, line=e.line,
                                field=e.field, reason=e.reason) for e in skipped]
        # Back in input order: by file, then line (a stable sort keeps the rest in place).
        files = {o.source: i for i, o in reversed(list(enumerate(report)))}
        report.sort(key=lambda o: (files[o.source], o.line if o.line is not None else 1 << 30))
    written = [r for r in rows if r.written]
    return WriteReport(scope=opts.scope, outcomes=report,
                       entities=len({e["key"] for r in written for e in r.entities}),
                       synaptic_links=sum(r.links for r in rows))
