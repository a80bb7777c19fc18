"""Things a process keeps per connection to Neo4j (the candidates' depth memory, the
write queues of group commit): one each per Store, made on first use, gone with it."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from graphmem.graph.store import Store

T = TypeVar("T")


class PerStore(Generic[T]):
    """`per(store)` is this store's T, made by `make()` the first time it is asked for."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._made: weakref.WeakKeyDictionary[Store, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def __call__(self, store: Store) -> T:
        """The T of `store`."""
        with self._lock:
            found = self._made.get(store)
            if found is None:
                found = self._made[store] = self._make()
            return found
