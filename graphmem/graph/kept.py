"""What a process keeps between calls, per connection to Neo4j (a Store): the vector
index depths recall needed, group commit's write queues, the scopes flagged due an index
of their own, the scopes' embedding models, the sessions' recent vectors and the word
counts of scored texts. One owner, the Store; one way to say a scope's memories changed
(`forget`), which every edit that can take a text away declares (`changes`)."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast


class Forgets(Protocol):
    """A kind of thing kept: made with no arguments, safe across threads, and told when
    scopes' memories changed."""

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Drop what is kept of `scopes` (None: of every scope)."""


K = TypeVar("K", bound=Forgets)


class Kept:
    """One instance of each kind kept, made on first use."""

    def __init__(self) -> None:
        self._kinds: dict[type, Forgets] = {}
        self._lock = threading.Lock()

    def get(self, kind: type[K]) -> K:
        """This connection's `kind`, made the first time it is asked for."""
        with self._lock:
            found = self._kinds.get(kind)
            if found is None:
                found = self._kinds[kind] = kind()
            return cast(K, found)

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Tell every kind kept that `scopes` (None: every scope) lost or changed
        memories: a forget, an update, a dropped or re-embedded scope, a sweep."""
        with self._lock:
            kinds = list(self._kinds.values())
        for kind in kinds:
            kind.forget(scopes)


F = TypeVar("F", bound=Callable[..., Any])


def changes(param: str = "scope") -> Callable[[F], F]:
    """Declare that a function of a `store` changes or takes away memories of the scopes
    its `param` names (a scope, a list of them, or None: every scope): once it returns or
    fails, what the store keeps of them is dropped (`Kept.forget`), so no word or vector
    of an edited or forgotten memory stays in the process."""
    def wrap(fn: F) -> F:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def changed(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            try:
                return fn(*args, **kwargs)
            finally:
                scopes = bound.arguments.get(param)
                bound.arguments["store"].kept.forget(
                    [scopes] if isinstance(scopes, str) else scopes)
        return cast(F, changed)
    return wrap
