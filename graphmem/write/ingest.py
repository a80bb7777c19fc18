"""The write path: records → gates → embedding → dedup/confirmation → entities →
sessions and synaptic tagging → one write transaction per input (docs/architecture.md).

Identity decides what a record can become:
- a caller's `id`, or a file format's stable key (a LoCoMo turn, a Markdown paragraph),
  names the memory within its scope: it is created, or updated in place when it exists;
- otherwise the text is the identity: the same normalised text, or cosine ≥
  `dedup_threshold` with an active memory of the same scope and kind, *confirms* that
  memory instead of creating a near copy.

Every input is validated and every id it references checked before the first write; the
whole input is then one transaction (written in batches of statements), so it lands
whole or not at all. Near-duplicates are found against what is stored and within each
batch: the vector index sees a transaction's new memories only once it commits.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from neo4j import ManagedTransaction, Transaction

from graphmem.embed import Embedder
from graphmem.errors import InputError
from graphmem.graph.schema import VECTOR_INDEX, entity_prefix, scope_key
from graphmem.graph.store import InputTransaction, Store, run
from graphmem.progress import bar
from graphmem.types import CONFIDENCE_BY_SOURCE, WriteOutcome, WriteReport
from graphmem.write.extract import Extractor, subject
from graphmem.write.gates import secret_reason, shown, signal_reason
from graphmem.write.records import Numbered, content_hash, generated_id, normalise

#: Vector-index neighbours fetched per new text when looking for a near duplicate.
DEDUP_FETCH = 10
#: Rows embedded together: the model sorts a call's texts by length, so bigger calls pad less.
EMBED_WINDOW = 2000
#: Recent members of a session a new memory is compared with for synaptic tagging.
SESSION_WINDOW = 1000


@dataclass(frozen=True)
class WriteOptions:
    """How a batch is written: the command's defaults and the write path's thresholds."""

    scope: str
    now: datetime
    added_by: str | None = None
    kind: str | None = None
    visibility: str | None = None
    session: str | None = None
    signal_gate: bool = True
    batch_size: int = 500
    dedup_threshold: float = 0.92
    synaptic_threshold: float = 0.5
    synaptic_max_links: int = 5
    #: Write records whose id or text a hard forget removed (refused otherwise).
    allow_forgotten: bool = False


@dataclass
class Row:
    """One memory to write, with what the write path learns about it on the way."""

    index: int  # position in the input, for outcomes
    item: Numbered
    id: str
    by_content: bool  # identity is the text (dedup applies), not an id or a format key
    props: dict[str, Any]
    session: str | None  # Session id ("<scope>#<name>")
    session_name: str | None
    turn: int | None = None  # position in its session (`metadata.turn`), for NEXT edges
    vector: np.ndarray | None = None
    status: str = "created"
    target: str | None = None  # for a confirmation: the memory confirmed
    entities: list[dict[str, str]] = field(default_factory=list)
    subjects: list[dict[str, str]] = field(default_factory=list)  # what it is about


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


def session_id(scope: str, name: str) -> str:
    """The Session node id of session `name` in `scope` (sessions never span scopes)."""
    return f"{scope}#{name}"


def resolve(item: Numbered, index: int, opts: WriteOptions) -> Row:
    """Apply defaults (record > flag > format > built-in) and compute the identity."""
    r = item.record
    given = r.model_fields_set

    def pick(name: str, flag: Any, builtin: Any) -> Any:
        if name in given:
            return getattr(r, name)
        return flag if flag is not None else item.defaults.get(name, builtin)

    if r.scope is not None and r.scope != opts.scope:
        raise InputError(f"scope {shown(r.scope)} differs from the batch's scope "
                         f"{shown(opts.scope)}",
                         source=item.source, line=item.line, field="scope")
    kind = pick("kind", opts.kind, "episodic")
    name = pick("session", opts.session, None)
    if r.id is not None:
        mid, by_content = r.id, False
    elif item.key is not None:
        mid, by_content = generated_id(opts.scope, item.key), False
    else:
        mid, by_content = generated_id(opts.scope, normalise(r.text)), True
    created = r.created_at or opts.now
    props = {
        "id": mid,
        "text": r.text,
        "kind": kind,
        "scope": opts.scope,
        "scope_key": scope_key(opts.scope),
        "visibility": pick("visibility", opts.visibility, "public"),
        "importance": r.importance,
        "confidence": r.confidence if r.confidence is not None
        else CONFIDENCE_BY_SOURCE[r.source],
        "source": r.source,
        "tags": list(r.tags),
        "meta": {f"meta.{k}": v for k, v in r.metadata.items()},
        "created_at": created,
        "valid_until": r.valid_until,
        "added_by": r.added_by or opts.added_by,
        "content_hash": content_hash(r.text),
    }
    turn = r.metadata.get("turn") if name else None
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or turn < 0):
        raise InputError("a turn's position is a whole number from 0", source=item.source,
                         line=item.line, field="metadata.turn")
    return Row(index=index, item=item, id=mid, by_content=by_content, props=props,
               session=session_id(opts.scope, name) if name else None, session_name=name,
               turn=turn)


def gate(row: Row, signal_gate: bool) -> str | None:
    """Why a record may not be stored, or None. Secrets (in any string the record
    carries) always; noise unless imported."""
    r = row.item.record
    for s in r.strings():
        reason = secret_reason(s)
        if reason:
            return f"secret scanner: {reason}"
    if signal_gate and r.source != "import":
        reason = signal_reason(r.text)
        if reason:
            return f"signal gate: {reason}"
    return None


class Turns:
    """Checks that a conversation's order is an order: no two turns of a session at one
    position, and no turn in two sessions."""

    def __init__(self) -> None:
        self.at: dict[tuple[str, int], Row] = {}
        self.session_of: dict[str, Row] = {}

    def check(self, row: Row) -> None:
        """Raise InputError naming the record if `row` breaks the order."""
        if row.session is None or row.turn is None:
            return  # the same text said in two sessions confirms; only turns are placed
        item = row.item
        first = self.session_of.setdefault(row.id, row)
        if first.session != row.session:
            raise InputError(f"this turn is also in session {shown(first.session_name)} "
                             f"({_where(first.item)})", source=item.source, line=item.line,
                             field="session")
        other = self.at.setdefault((row.session, row.turn), row)
        if other.id != row.id:
            raise InputError(f"session {shown(row.session_name)} already has turn {row.turn} "
                             f"({_where(other.item)})", source=item.source, line=item.line,
                             field="metadata.turn")


def _where(item: Numbered) -> str:
    return ":".join(str(p) for p in (item.source, item.line) if p is not None)


def plan(records: Sequence[Numbered], opts: WriteOptions
         ) -> tuple[list[Row], dict[int, WriteOutcome]]:
    """Resolve and gate every record. Returns the rows to write, in input order, and the
    outcomes already known (rejections)."""
    rows: list[Row] = []
    decided: dict[int, WriteOutcome] = {}
    given_on: dict[str, Numbered] = {}
    turns = Turns()
    for index, item in enumerate(records):
        row = resolve(item, index, opts)
        turns.check(row)
        if item.record.id is not None:
            first = given_on.get(row.id)
            if first is not None:
                raise InputError(f"id {shown(row.id)} is already used on line {first.line}",
                                 source=item.source, line=item.line, field="id")
            given_on[row.id] = item
        reason = gate(row, opts.signal_gate)
        if reason:
            decided[index] = WriteOutcome(id=None, status="rejected", source=item.source,
                                          line=item.line, reason=reason)
            continue
        rows.append(row)
    return rows, decided


def refuse_forgotten(store: Store, rows: list[Row], decided: dict[int, WriteOutcome],
                     opts: WriteOptions) -> list[Row]:
    """The rows a hard forget did not remove: a record whose id or text has a tombstone in
    the scope is rejected (so an old pack cannot bring it back), unless
    `opts.allow_forgotten`."""
    if not rows or opts.allow_forgotten:
        return rows
    found = store.read("ingest/tombstones", scope=opts.scope, ids=[r.id for r in rows],
                       hashes=[r.props["content_hash"] for r in rows])
    ids = {t["id"] for t in found}
    hashes = {t["content_hash"] for t in found}
    kept = []
    for row in rows:
        if row.id in ids or row.props["content_hash"] in hashes:
            decided[row.index] = WriteOutcome(
                id=None, status="rejected", source=row.item.source, line=row.item.line,
                reason="forgotten for good (a hard forget); allow_forgotten "
                       "(--allow-forgotten) writes it again")
        else:
            kept.append(row)
    return kept


def check_references(store: Store, rows: Sequence[Row], scope: str) -> None:
    """Before writing anything: supersedes and links must name memories of this scope
    (already stored, or in this input). An id names a memory within its scope, so what
    other scopes hold is neither seen nor told."""
    ours = {row.id for row in rows}
    wanted = {ref for row in rows for ref in _references(row)} - ours
    found = {r["id"] for r in store.read("ingest/find_ids", ids=sorted(wanted), scope=scope)
             } if wanted else set()
    for row in rows:
        item = row.item
        for field_name, ref in _labelled_references(row):
            if ref == row.id:
                raise InputError("a memory cannot refer to itself", source=item.source,
                                 line=item.line, field=field_name)
            if ref not in ours and ref not in found:
                raise InputError(f"no memory has id {shown(ref)}", source=item.source,
                                 line=item.line, field=field_name)


def _labelled_references(row: Row) -> list[tuple[str, str]]:
    r = row.item.record
    refs = [("supersedes", r.supersedes)] if r.supersedes else []
    return refs + [(f"links.{i}", link.id) for i, link in enumerate(r.link_list())]


def _references(row: Row) -> list[str]:
    return [ref for _, ref in _labelled_references(row)]


class Confirmations:
    """Seed 004's arithmetic: +0.1 confidence for a confirmation from a session the memory
    has not been seen in, +0.05 from one it has (or when no session is known)."""

    def __init__(self) -> None:
        self.sessions: dict[str, set[str]] = {}
        self.rows: dict[str, dict[str, Any]] = {}

    def known(self, mid: str, sessions: Sequence[str]) -> None:
        """Note the sessions an existing (or just-created) memory is already in."""
        self.sessions.setdefault(mid, set()).update(sessions)

    def confirm(self, mid: str, row: Row) -> None:
        """Count `row` as a confirmation of memory `mid`."""
        seen = self.sessions.setdefault(mid, set())
        fresh = row.session is not None and row.session not in seen
        if row.session is not None:
            seen.add(row.session)
        c = self.rows.setdefault(mid, {"id": mid, "count": 0, "delta": 0.0, "importance": 0.0,
                                       "tags": [], "at": row.props["created_at"]})
        c["count"] += 1
        c["delta"] = round(c["delta"] + (0.1 if fresh else 0.05), 6)
        c["importance"] = max(c["importance"], row.props["importance"])
        c["tags"] += [t for t in row.props["tags"] if t not in c["tags"]]
        c["at"] = max(c["at"], row.props["created_at"])


def _decide(tx: Any, rows: list[Row], opts: WriteOptions, conf: Confirmations,
            variant: str | None) -> None:
    """Mark each row created, updated or confirmed (reads inside the write transaction;
    `variant` is the server's, `Store.variant`)."""
    for row in rows:  # the driver may retry the transaction: decide afresh
        row.status, row.target = "created", None
    existing = {r["id"]: r for r in run(tx, "ingest/find_ids", ids=[r.id for r in rows],
                                         scope=opts.scope)}
    for mid, r in existing.items():
        conf.known(mid, r["sessions"])
    content = [r for r in rows if r.by_content and r.id not in existing]
    same = {r["content_hash"]: r for r in run(
        tx, "ingest/same_content", scope=opts.scope,
        hashes=sorted({r.props["content_hash"] for r in content}))} if content else {}
    for match in same.values():
        conf.known(match["id"], match["sessions"])
    need_vector = [r for r in content if r.props["content_hash"] not in same]
    near: dict[int, str] = {}
    if need_vector:
        min_score = (1.0 + opts.dedup_threshold) / 2.0  # the index reports (1 + cos) / 2
        found = run(tx, "ingest/near_duplicates", variant=variant, index=VECTOR_INDEX,
                    fetch=DEDUP_FETCH, scope=opts.scope, min_score=min_score,
                    rows=[{"i": r.index, "kind": r.props["kind"],
                           "embedding": r.vector.tolist()} for r in need_vector])
        for hit in found:
            if hit["i"] not in near:  # rows come best first per i
                near[hit["i"]] = hit["id"]
                conf.known(hit["id"], hit["sessions"])

    placed: dict[str, Row] = {}  # ids this batch writes, so later rows can confirm them
    fresh: list[Row] = []  # content rows created in this batch, for in-batch near copies
    for row in rows:
        if not row.by_content:
            if row.id in placed:
                row.status, row.target = "updated", row.id  # the same key twice
            else:
                row.status = "updated" if row.id in existing else "created"
                placed[row.id] = row
            continue
        target = None
        if row.id in existing or row.id in placed:
            target = row.id
        elif row.props["content_hash"] in same:
            target = same[row.props["content_hash"]]["id"]
        elif row.index in near:
            target = near[row.index]
        else:
            target = _near_in_batch(row, fresh, opts.dedup_threshold)
        if target is not None:
            row.status, row.target = "confirmed", target
            conf.confirm(target, row)
            continue
        row.status = "created"
        placed[row.id] = row
        fresh.append(row)
        conf.known(row.id, [row.session] if row.session else [])


def _near_in_batch(row: Row, fresh: list[Row], threshold: float) -> str | None:
    candidates = [f for f in fresh if f.props["kind"] == row.props["kind"]]
    if not candidates:
        return None
    sims = np.stack([f.vector for f in candidates]) @ row.vector
    best = int(np.argmax(sims))
    return candidates[best].id if sims[best] >= threshold else None


def synaptic_links(tx: Any, written: list[Row], opts: WriteOptions) -> list[dict[str, Any]]:
    """ASSOCIATED (synaptic) rows: each written memory to its most similar memories of the
    same session, cosine ≥ threshold, at most `synaptic_max_links` of them."""
    by_session: dict[str, list[Row]] = defaultdict(list)
    for row in written:
        if row.session:
            by_session[row.session].append(row)
    if not by_session:
        return []
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in run(tx, "ingest/session_members", sessions=sorted(by_session),
                 window=SESSION_WINDOW, exclude=[r.id for r in written]):
        members[m["session"]].append(m)
    links: dict[tuple[str, str], dict[str, Any]] = {}
    for sid, rows in by_session.items():
        ours = {r.id for r in rows}
        others = [m for m in members[sid] if m["id"] not in ours]
        pool_ids = [m["id"] for m in others] + [r.id for r in rows]
        pool_at = [_native(m["created_at"]) for m in others] + [
            r.props["created_at"] for r in rows]
        if len(pool_ids) < 2:
            continue
        pool = np.vstack([np.asarray([m["embedding"] for m in others], dtype=np.float32)
                          .reshape(-1, rows[0].vector.shape[0]),
                          np.stack([r.vector for r in rows])])
        sims = np.stack([r.vector for r in rows]) @ pool.T
        for i, row in enumerate(rows):
            sims[i, len(others) + i] = -1.0  # not with itself
            order = np.argsort(-sims[i])[:opts.synaptic_max_links]
            for j in order:
                if sims[i, j] < opts.synaptic_threshold:
                    break
                a, b = sorted((row.id, pool_ids[j]))
                links.setdefault((a, b), {
                    "a": a, "b": b, "kind": "synaptic", "weight": round(float(sims[i, j]), 4),
                    "at": max(row.props["created_at"], pool_at[j]),
                })
    return list(links.values())


def _session_rows(rows: list[Row]) -> list[dict[str, Any]]:
    """One row per session of the batch: its memories (confirmed ones by their target)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        if not r.session:
            continue
        s = out.setdefault(r.session, {"session": r.session, "name": r.session_name,
                                       "at": r.props["created_at"],
                                       "agent": r.props["added_by"], "ids": []})
        s["at"] = min(s["at"], r.props["created_at"])
        mid = r.target or r.id
        if mid not in s["ids"]:
            s["ids"].append(mid)
    return list(out.values())


def _native(value: Any) -> Any:
    return value.to_native() if hasattr(value, "to_native") else value


def write_batch(tx: Transaction | ManagedTransaction, rows: list[Row], opts: WriteOptions,
                referrers: Sequence[Row] = (), *, variant: str | None = None
                ) -> tuple[int, int]:
    """Decide, link and write one batch of embedded rows inside the input's transaction;
    `referrers` are the rows whose supersedes and links are written with this batch, and
    `variant` the server's query variant (`Store.variant`).

    Returns (entities mentioned, synaptic links created).
    """
    conf = Confirmations()
    _decide(tx, rows, opts, conf, variant)
    written = [r for r in rows if r.status in ("created", "updated") and r.target is None]
    for status, name in (("created", "ingest/create_memories"),
                         ("updated", "ingest/update_memories")):
        chosen = [{**r.props, "embedding": r.vector.tolist()} for r in written
                  if r.status == status]
        if chosen:
            run(tx, name, rows=chosen)
    if conf.rows:
        run(tx, "ingest/confirm_memories", scope=opts.scope, rows=list(conf.rows.values()))
    sessions = _session_rows(rows)
    if sessions:
        run(tx, "ingest/link_sessions", scope=opts.scope, rows=sessions)
    turns = sorted({r.session for r in rows if r.session and r.turn is not None})
    if turns:
        run(tx, "ingest/link_turns", sessions=turns)
    # After the chain: a turn's context is the turn before it. An update of a turn's text
    # (which names no session) refreshes its context and the next turn's too.
    placed = [r.id for r in written if r.item.record.metadata.get("turn") is not None]
    if placed:
        run(tx, "ingest/turn_context", scope=opts.scope, ids=placed)
    entities = {e["key"]: e for r in written for e in r.entities}
    if written:
        about = {e["key"]: e for r in written for e in r.subjects}
        run(tx, "ingest/link_entities", scope=opts.scope, prefix=entity_prefix(opts.scope),
            entities=list({**about, **entities}.values()),
            rows=[{"id": r.id, "replace": r.status == "updated",
                   "keys": [e["key"] for e in r.entities],
                   "subjects": [e["key"] for e in r.subjects]} for r in written])
    pairs = {(link["a"], link["b"]): link for link in synaptic_links(tx, written, opts)}
    for r in referrers:
        for link in r.item.record.link_list():
            a, b = sorted((r.target or r.id, link.id))
            pairs[(a, b)] = {"a": a, "b": b, "kind": "manual", "weight": link.weight,
                             "at": opts.now}
    made = 0
    if pairs:
        new = {r.id for r in written if r.status == "created"}
        fresh = [p for p in pairs.values() if p["a"] in new or p["b"] in new]
        known = [p for p in pairs.values() if p["a"] not in new and p["b"] not in new]
        made = run(tx, "ingest/associate", scope=opts.scope, fresh=fresh,
                   rows=known)[0]["created"]
    supersede = [{"id": r.target or r.id, "old": r.item.record.supersedes,
                  "at": r.props["created_at"]} for r in referrers
                 if r.item.record.supersedes]
    if supersede:
        run(tx, "ingest/supersede", scope=opts.scope, rows=supersede)
    return len(entities), made


def _embed_and_extract(embedder: Embedder, extractor: Extractor, rows: list[Row],
                       timing: Timing) -> None:
    started = time.perf_counter()
    vectors = embedder.embed([r.props["text"] for r in rows])
    timing.add("embed", started)
    started = time.perf_counter()
    found = extractor.extract_many([r.props["text"] for r in rows],
                                   [r.props["created_at"] for r in rows])
    for row, vector, refs in zip(rows, vectors, found, strict=True):
        row.vector = vector
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
            refs = _references(row)
            if refs:
                plan_[max([b, *(batch_of.get(ref, -1) for ref in refs)])].append(row)
    return plan_


#: Times an input's transaction is written again after a conflict with a concurrent
#: writer (a deadlock, or the same new memory created by another process first).
WRITE_ATTEMPTS = 4


def _write_again(transactions: InputTransaction, write_all: Callable[[], None],
                 totals: list[int]) -> None:
    """Write the whole input again in a fresh transaction after a conflict with a
    concurrent writer, a few times, backing off a little more each time."""
    for attempt in range(1, WRITE_ATTEMPTS + 1):
        time.sleep(random.uniform(0.05, 0.2) * attempt)
        try:
            write_all()
            transactions.commit()
            return
        except Exception as e:
            transactions.rollback()
            totals[:] = [0, 0]
            if attempt == WRITE_ATTEMPTS or not transactions.retryable(e):
                raise


def write(
    store: Store,
    embedder: Embedder,
    extractor: Extractor,
    records: Sequence[Numbered],
    opts: WriteOptions,
    *,
    skipped: Sequence[InputError] = (),
    progress: bool = False,
    timing: Timing | None = None,
) -> WriteReport:
    """Gate, embed, deduplicate, link and store `records` in one transaction: the whole
    input lands, or nothing of it does.

    `skipped` are records already found invalid (with `--skip-invalid`); they are reported
    as skipped. `progress` draws a bar on stderr.

    Embedding, which bounds ingest, runs in windows of EMBED_WINDOW rows; while one window
    is embedded, a single writer thread writes the previous one, batch by batch, in order,
    into the input's transaction. A conflict with a concurrent writer rolls it back, and
    the whole input is written again, deciding afresh what exists.
    """
    timing = timing or Timing()
    started = time.perf_counter()
    rows, decided = plan(records, opts)
    timing.add("gates", started)
    rows = refuse_forgotten(store, rows, decided, opts)
    if rows:
        check_references(store, rows, opts.scope)
    batches = [rows[i:i + opts.batch_size] for i in range(0, len(rows), opts.batch_size)]
    referrers = _reference_batches(batches)
    per_window = max(1, EMBED_WINDOW // opts.batch_size)
    totals = [0, 0]

    with bar("remembering", len(rows), progress) as advance, \
            store.transactions() as transactions, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-writer") as writer:

        def write_window(first: int, last: int) -> None:
            tx = transactions.current()
            for b in range(first, last):
                started = time.perf_counter()
                n_entities, n_links = write_batch(tx, batches[b], opts, referrers.get(b, []),
                                                  variant=store.variant)
                timing.add("write", started)
                totals[0] += n_entities
                totals[1] += n_links
                advance(len(batches[b]))

        def wait(job: Future[None]) -> None:
            started = time.perf_counter()
            job.result()
            timing.add("wait", started)

        pending: Future[None] | None = None
        try:
            for first in range(0, len(batches), per_window):
                last = min(first + per_window, len(batches))
                _embed_and_extract(embedder, extractor,
                                   [r for b in batches[first:last] for r in b], timing)
                if pending is not None:
                    wait(pending)  # one window in flight: order and errors stay simple
                pending = writer.submit(write_window, first, last)
            if pending is not None:
                wait(pending)
            wait(writer.submit(transactions.commit))
        except Exception as e:
            if pending is not None:
                futures.wait([pending])  # the writer must be idle before the rollback
            transactions.rollback()
            if not transactions.retryable(e):
                raise
            missing = [r for r in rows if r.vector is None]
            if missing:
                _embed_and_extract(embedder, extractor, missing, timing)
            totals[:] = [0, 0]
            _write_again(transactions, lambda: write_window(0, len(batches)), totals)

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
    return WriteReport(scope=opts.scope, outcomes=report, entities=totals[0],
                       synaptic_links=totals[1])
