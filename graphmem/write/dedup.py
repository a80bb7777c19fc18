"""Dedup and confirmation: inside the input's transaction, each row is decided —
created, updated in place, or confirming a memory that already says it (the same
normalised text, or cosine ≥ `dedup_threshold` with an active memory of the same scope
and kind, in the store or earlier in the batch)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.graph.schema import VECTOR_INDEX
from graphmem.graph.scope_indexes import SCAN_BELOW
from graphmem.graph.store import Tx, run
from graphmem.write.plan import Row, WriteOptions

#: Vector-index neighbours fetched per new text when looking for a near duplicate.
DEDUP_FETCH = 10


class Confirmations:
    """Confirmation arithmetic: +0.1 confidence for a confirmation from a session the memory
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


def decide(tx: Tx, rows: list[Row], opts: WriteOptions, conf: Confirmations,
            variant: str | None) -> None:
    """Mark each row created, updated or confirmed (reads inside the write transaction;
    `variant` is the server's, `Store.variant`)."""
    for row in rows:  # the driver may retry the transaction: decide afresh
        row.status, row.target = "created", None
    # Rows are named by their place in this batch: a grouped write (write/group) holds
    # several inputs, whose `index`es (places in each input) repeat.
    place = {id(r): p for p, r in enumerate(rows)}
    by_content = [r for r in rows if r.by_content]
    if by_content:  # ids, copies and near copies in one read, each then taken in turn
        found = run(tx, "ingest/existing", variant=variant, scope=opts.scope,
                    index=VECTOR_INDEX, fetch=DEDUP_FETCH, scan_below=SCAN_BELOW,
                    min_score=(1.0 + opts.dedup_threshold) / 2.0,  # (1 + cos) / 2
                    lists={"ids": [r.id for r in rows],
                           "hashes": sorted({r.props["content_hash"] for r in by_content}),
                           "rows": [{"i": place[id(r)], "kind": r.props["kind"],
                                     "embedding": r.embedded.tolist()} for r in by_content]})[0]
    else:  # keyed rows: only what exists by id
        found = {"ids": run(tx, "ingest/find_ids", ids=[r.id for r in rows], scope=opts.scope),
                 "same": [], "near": []}
    existing = {r["id"]: r for r in found["ids"]}
    for mid, r in existing.items():
        conf.known(mid, r["sessions"])
    content = [r for r in by_content if r.id not in existing]
    hashes = {r.props["content_hash"] for r in content}
    same = {r["content_hash"]: r for r in found["same"] if r["content_hash"] in hashes}
    for match in same.values():
        conf.known(match["id"], match["sessions"])
    need_vector = {place[id(r)] for r in content if r.props["content_hash"] not in same}
    near: dict[int, str] = {}
    for hit in found["near"]:
        if hit["i"] in need_vector and hit["i"] not in near:  # best first per i
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
        elif place[id(row)] in near:
            target = near[place[id(row)]]
        else:
            target = near_in_batch(row, fresh, opts.dedup_threshold)
        if target is not None:
            row.status, row.target = "confirmed", target
            conf.confirm(target, row)
            continue
        row.status = "created"
        placed[row.id] = row
        fresh.append(row)
        conf.known(row.id, [row.session] if row.session else [])


def near_in_batch(row: Row, fresh: list[Row], threshold: float) -> str | None:
    candidates = [f for f in fresh if f.props["kind"] == row.props["kind"]]
    if not candidates:
        return None
    sims = np.stack([f.embedded for f in candidates]) @ row.embedded
    best = int(np.argmax(sims))
    return candidates[best].id if sims[best] >= threshold else None
