"""What a batch's rows say of their sessions: which session each memory joins, the order
in which memories without a position arrive in theirs, and synaptic tagging (a new
memory is linked to the most similar recent memories of its session, cosine ≥
`synaptic_threshold`, at most `synaptic_max_links`)."""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from graphmem.base.clock import from_epoch_us
from graphmem.graph.store import Tx, run
from graphmem.write.plan import Row, WriteOptions

#: The most recent turns of its session a new memory is compared with for synaptic
#: tagging (docs/decisions.md, "Synaptic tagging looks at the last 100 turns").
SESSION_WINDOW = 100
#: Sessions whose windows' vectors a process keeps (the least recently written is dropped).
CACHED_SESSIONS = 64


#: A session's window: the scope and the session.
Window = tuple[str, str]


class SessionVectors:
    """The vectors of each session's last turns as Neo4j last gave them, keyed by memory
    id and content hash, so the next write of the session reads only the turns added
    since (reading a hundred vectors from the store was most of an agent's write, in
    Neo4j and in the driver alike). An embedding is the model's function of the text, so
    an id whose content hash is unchanged has the same vector; a window keeps only the
    turns it last held, so a forgotten turn leaves it with the next write. Kept per
    connection (`store.kept`): a process (the warm CLI process) may write the same scope
    and session names on two servers, whose vectors differ."""

    def __init__(self, sessions: int = CACHED_SESSIONS) -> None:
        self._windows: OrderedDict[Window, dict[str, np.ndarray]] = OrderedDict()
        self._sessions = sessions
        self._lock = threading.Lock()  # writers of many threads share one process's

    def known(self, window: Window) -> dict[str, np.ndarray]:
        """The vectors kept for a session's window, by `id|content hash`."""
        with self._lock:
            return dict(self._windows.get(window, {}))

    def keep(self, window: Window, vectors: dict[str, np.ndarray]) -> None:
        """A session's window as just read, replacing what was kept for it."""
        with self._lock:
            self._windows[window] = vectors
            self._windows.move_to_end(window)
            while len(self._windows) > self._sessions:
                self._windows.popitem(last=False)

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Drop the windows of `scopes`' sessions (None: every session's): a forgotten
        or dropped memory's vector stays in no process."""
        with self._lock:
            for window in [w for w in self._windows if scopes is None or w[0] in scopes]:
                del self._windows[window]


def _key(member: dict[str, Any]) -> str:
    return f"{member['id']}|{member['hash'] or ''}"


def synaptic_links(tx: Tx, kept: SessionVectors, written: list[Row],
                   opts: WriteOptions) -> list[dict[str, Any]]:
    """ASSOCIATED (synaptic) rows: each written memory to its most similar memories of the
    same session, cosine ≥ threshold, at most `synaptic_max_links` of them; `kept` holds
    the connection's recent vectors of sessions. Called before the batch writes anything
    (ingest/session_members says why)."""
    by_session: dict[str, list[Row]] = defaultdict(list)
    for row in written:
        if row.session:
            by_session[row.session].append(row)
    if not by_session:
        return []
    arriving = {a["session"]: a["ids"] for a in arrivals(written)}
    windows = {sid: (opts.scope, sid) for sid in by_session}
    known = {sid: kept.known(windows[sid]) for sid in by_session}
    members: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in run(tx, "ingest/session_members", scope=opts.scope,
                 rows=[{"session": sid, "new": len(rows),
                        "top": max((r.turn + 1 for r in rows if r.turn is not None),
                                   default=None),
                        "arrivals": arriving.get(sid, []), "known": sorted(known[sid])}
                       for sid, rows in sorted(by_session.items())],
                 window=SESSION_WINDOW, exclude=[r.id for r in written]):
        vector = (known[m["session"]][_key(m)] if m["embedding"] is None
                  else np.asarray(m["embedding"], dtype=np.float32))
        members[m["session"]].append({**m, "embedding": vector})
    for sid in by_session:
        kept.keep(windows[sid], {_key(m): m["embedding"] for m in members[sid]})
    links: dict[tuple[str, str], dict[str, Any]] = {}
    for sid, rows in by_session.items():
        ours = {r.id for r in rows}
        others = [m for m in members[sid] if m["id"] not in ours]
        pool_ids = [m["id"] for m in others] + [r.id for r in rows]
        pool_at = [from_epoch_us(m["created_us"]) for m in others] + [
            r.props["created_at"] for r in rows]
        if len(pool_ids) < 2:
            continue
        pool = np.vstack([np.asarray([m["embedding"] for m in others], dtype=np.float32)
                          .reshape(-1, rows[0].embedded.shape[0]),
                          np.stack([r.embedded for r in rows])])
        sims = np.stack([r.embedded for r in rows]) @ pool.T
        for i, row in enumerate(rows):
            sims[i, len(others) + i] = -1.0  # not with itself
            order = np.argsort(-sims[i])[:opts.synaptic_max_links]
            for j in order:
                if sims[i, j] < opts.synaptic_threshold:
                    break
                a, b = sorted((row.id, pool_ids[j]))
                links.setdefault((a, b), {
                    "a": a, "b": b, "kind": "synaptic", "weight": round(float(sims[i, j]), 4),
                    "at": max(row.props["created_at"], pool_at[j]), "by": row.id,
                })
    return list(links.values())


def session_rows(rows: list[Row]) -> list[dict[str, Any]]:
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


def arrivals(rows: list[Row]) -> list[dict[str, Any]]:
    """One row per session of the batch for `fragments/append_turns`: the memories written
    into it without an explicit position, in the order they take their places — by
    `created_at`, then as the input gave them (docs/decisions.md, "A session's order is
    the order of arrival"). Confirmations add no turn: the memory they confirm has its
    place already."""
    by_session: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        if r.session and r.turn is None and r.target is None \
                and r.status in ("created", "updated"):
            by_session[r.session].append(r)
    return [{"session": sid, "ids": list(dict.fromkeys(
                r.id for r in sorted(group, key=lambda r: (r.props["created_at"], r.index))))}
            for sid, group in sorted(by_session.items())]
