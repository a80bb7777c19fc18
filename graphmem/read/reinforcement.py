"""Two-tier boosting, written behind recall (docs/architecture.md, "The read path").

A recall returns as soon as it has ranked; what it returned is reinforced by a
background writer that batches the recalls of the last moment into one transaction.
`flush()` writes what is pending at once, and `close()` (GraphMem.close, or interpreter
exit) flushes, so a clean exit loses nothing. Every update is an atomic increment
(`SET n.x = n.x + …`), so concurrent recalls and processes lose nothing either.
"""

from __future__ import annotations

import atexit
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.base.types import Hit
from graphmem.graph import scope_model
from graphmem.graph.store import Store, Tx, run

if TYPE_CHECKING:

    from graphmem.base.options import RecallOptions
    from graphmem.embedding.embedders import Embedder


@dataclass(frozen=True)
class Reinforcement:
    """The writes one recall asks for: boosts per memory and co-retrieval pairs."""

    scope: str
    now: datetime
    boosts: list[dict[str, Any]]
    strengthen: list[dict[str, str]]
    create: list[dict[str, str]]
    options: dict[str, Any]
    #: Cold or stub memories returned ({id, text}): embedded again when the reinforcement
    #: is written (by `embedder`), off the caller's time, they come back hot.
    rehydrate: list[dict[str, str]] = field(default_factory=list)
    embedder: Embedder | None = None


def plan(hits: list[Hit], *, scope: str, now: datetime, opts: RecallOptions,
         embedder: Embedder | None = None) -> Reinforcement | None:
    """What reinforcing `hits` writes (only memories of `scope`, the caller's own: layers
    are read-only, whatever their score factor); None when there is nothing to write.
    With `embedder`, cold and stub hits are re-embedded when it is written (not on the
    recall's time), so that they come back hot."""
    own = [h for h in hits if h.scope == scope]
    if not own:
        return None
    f = opts.feedback
    ids = [h.id for h in own]
    top = [h.id for h in own if h.via == "direct"][:f.co_retrieval_top]
    rehydrate = ([{"id": h.id, "text": h.text} for h in own if h.tier != "hot"]
                 if embedder is not None else [])
    return Reinforcement(
        scope=scope, now=now,
        boosts=[{"id": h.id, "boost": f.direct_boost if h.via == "direct"
                 else f.associative_boost} for h in own],
        strengthen=[{"a": a, "b": b} for i, a in enumerate(ids) for b in ids[i + 1:]],
        create=[{"a": a, "b": b} for i, a in enumerate(top) for b in top[i + 1:]],
        options={"promote_accesses": f.promote_accesses,
                 "promote_confidence": f.promote_confidence,
                 "step": f.co_retrieval_step, "initial": f.co_retrieval_initial},
        rehydrate=rehydrate, embedder=embedder,
    )


def write(store: Store, items: list[Reinforcement]) -> None:
    """Write `items` one scope at a time, each scope's in a transaction of its own (each
    statement locks its scope first, so a transaction holds one scope's lock, never all
    of the batch's: writers of other scopes do not wait on it), in the order the recalls
    happened within a scope; the cold hits they bring back are embedded first, outside
    the transaction."""
    by_scope: dict[str, list[Reinforcement]] = {}
    for r in items:  # a scope's recalls keep their order
        by_scope.setdefault(r.scope, []).append(r)
    for scope in sorted(by_scope):
        _write_scope(store, by_scope[scope])


def _write_scope(store: Store, items: list[Reinforcement]) -> None:
    embedded = [_embedded(r) for r in items]

    def work(tx: Tx) -> None:
        for r, rows in zip(items, embedded, strict=True):
            o = r.options
            run(tx, "recall/reinforce", scope=r.scope, hits=r.boosts, now=r.now,
                promote_accesses=o["promote_accesses"],
                promote_confidence=o["promote_confidence"])
            if r.strengthen:
                run(tx, "recall/co_retrieval", scope=r.scope, strengthen=r.strengthen,
                    create=r.create,
                    step=o["step"], initial=o["initial"], now=r.now)
            if rows and r.embedder is not None:
                run(tx, "recall/rehydrate", scope=r.scope, rows=rows, now=r.now,
                    model=r.embedder.recorded, legacy=scope_model.LEGACY)

    # A receipt: a retry after a lost answer to the commit must not count each access twice.
    store.write_tx(work, receipt=items[0].scope)


def _embedded(r: Reinforcement) -> list[dict[str, Any]]:
    """The fresh embeddings of the cold hits `r` brings back ({id, embedding})."""
    if not r.rehydrate or r.embedder is None:
        return []
    vectors = r.embedder.embed([c["text"] for c in r.rehydrate])
    return [{"id": c["id"], "embedding": v.tolist()}
            for c, v in zip(r.rehydrate, vectors, strict=True)]


class Reinforcer:
    """Batches reinforcements and writes them from a background thread every `interval`
    seconds; `flush` and `close` write what is pending in the caller's thread (and a
    closed one starts again on the next `submit`)."""

    def __init__(self, store: Callable[[], Store], interval: float = 0.5) -> None:
        self._store = store  # connects on first write: a memory that never recalls never does
        self.interval = interval
        self._pending: list[Reinforcement] = []
        self._lock = threading.Lock()  # guards _pending
        self._writing = threading.Lock()  # one writer at a time keeps recall order
        self._stop = threading.Event()  # the running writer's; each writer gets its own
        self._thread: threading.Thread | None = None

    def submit(self, item: Reinforcement) -> None:
        """Queue one recall's reinforcement; the background writer picks it up."""
        with self._lock:
            self._pending.append(item)
            if self._thread is None:
                self._stop = threading.Event()
                self._thread = threading.Thread(target=self._loop, args=(self._stop,),
                                                name="graphmem-reinforce", daemon=True)
                self._thread.start()
                atexit.register(self.close)

    def flush(self) -> None:
        """Write everything pending now; errors (an unreachable server) propagate."""
        with self._writing:
            with self._lock:
                items, self._pending = self._pending, []
            if not items:
                return
            try:
                write(self._store(), items)
            except BaseException:
                with self._lock:  # keep them for the next attempt
                    self._pending[:0] = items
                raise

    def close(self) -> None:
        """Stop the background writer and write what is left."""
        with self._lock:
            thread, self._thread = self._thread, None
            self._stop.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        atexit.unregister(self.close)
        self.flush()

    def _loop(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            try:
                self.flush()
            except Exception as e:  # kept and retried; close() reports what still fails
                print(f"graphmem: reinforcement deferred: {e}", file=sys.stderr)
