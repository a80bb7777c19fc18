"""What one memory and everything under it share: its settings, embedder, summarizer
and entity extractor, its clock, its reinforcement writer and its connection, made on
first use. The facade (`GraphMem`), its operations (`GraphMem.ops`) and the service's
token book each receive the one Core; what a connection keeps between calls is the
Store's (`store.kept`, graph/kept.py)."""

from __future__ import annotations

import threading
from datetime import datetime

from graphmem.base.clock import as_utc, utcnow
from graphmem.base.errors import InputError
from graphmem.base.settings import Settings, valid_scope
from graphmem.embedding.embedders import Embedder
from graphmem.graph.store import Store
from graphmem.lifecycle.summarize import Summarizer
from graphmem.read.reinforcement import Reinforcer
from graphmem.write import runs
from graphmem.write.extract import Extractor, load_extractor


class Core:
    """One memory's parts. Safe across threads: the connection and the extractor are
    made once, under a lock."""

    def __init__(self, settings: Settings, embedder: Embedder, summarizer: Summarizer, *,
                 now: datetime | None = None, store: Store | None = None,
                 reinforce_every: float = 0.5) -> None:
        """`store` shares a connection its owner opened (and closes); `now` fixes the
        clock; `reinforce_every` is how many seconds recall's reinforcement waits to be
        written in a batch."""
        self.settings, self.embedder, self.summarizer = settings, embedder, summarizer
        self.fixed_now = as_utc(now) if now else None
        self.reinforce_every = reinforce_every
        self._store = store
        self._owns_store = store is None
        self._extractor: Extractor | None = None
        self._lock = threading.Lock()
        #: Recall's reinforcement, written in the background in batches.
        self.reinforcer = Reinforcer(lambda: self.store, interval=reinforce_every)

    @property
    def store(self) -> Store:
        """The connected Store (connects on first use, and then undoes any run whose
        writer died before it was done: graphmem.write.runs)."""
        with self._lock:
            if self._store is None:
                store = Store.connect(self.settings)
                runs.recover(store, None)
                self._store = store
            return self._store

    @property
    def connected(self) -> Store | None:
        """The Store if this Core has connected already, else None (nothing is opened)."""
        return self._store

    @property
    def extractor(self) -> Extractor:
        """The entity extractor named by configuration (loaded on first use)."""
        with self._lock:
            if self._extractor is None:
                self._extractor = load_extractor(self.settings.entity_extractor)
            return self._extractor

    def now(self) -> datetime:
        """The clock every time-dependent rule reads: fixed if given, else the wall clock."""
        return self.fixed_now or utcnow()

    def scope(self, scope: str | None) -> str:
        """`scope` checked, or this memory's own."""
        return valid_scope(scope) or self.settings.scope

    def scopes(self, scope: str | None, all_scopes: bool) -> str | None:
        """One scope (default: this one), or None for every scope."""
        if all_scopes and scope:
            raise InputError("give a scope or all scopes, not both", field="all_scopes")
        return None if all_scopes else self.scope(scope)

    def close(self) -> None:
        """Write pending reinforcement and release the connection pool this Core opened
        (also when the write fails, which then raises)."""
        try:
            self.reinforcer.close()
        finally:
            if self._owns_store:
                with self._lock:
                    store, self._store = self._store, None
                if store is not None:
                    store.close()
