"""What a process makes once and shares, by key: the loaded embedding models (one per
model file, whatever the number of Embedders) and the warm process's connections (one per
configuration). Each key is made under a lock of its own, so a model that loads for
seconds holds up no other key."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

V = TypeVar("V")

_KEPT: dict[Hashable, Any] = {}
_LOCKS: dict[Hashable, threading.Lock] = {}
_LOCK = threading.Lock()  # guards the two dicts, never a making


def made(key: Hashable, make: Callable[[], V | None]) -> V | None:
    """This process's one `make()` for `key`: made on its first use (two threads never
    make it twice) and kept, unless it made None (tried again on the next use)."""
    with _LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:
        found: V | None = _KEPT.get(key)
        if found is None and (found := make()) is not None:
            with _LOCK:
                _KEPT[key] = found
        return found


def take(kind: str) -> list[Any]:
    """Take out everything kept under keys `(kind, …)`, to be closed (the process is
    stopping)."""
    with _LOCK:
        keys = [k for k in _KEPT if isinstance(k, tuple) and k[:1] == (kind,)]
        return [_KEPT.pop(k) for k in keys]
