"""Neo4j's round trips by query name, for a benchmark that asks where a call's server
time goes (`bench verbs`): nothing is told unless a benchmark listens, and then every
thread's round trips are (a write's pipeline and group commit run on threads of their
own), so it is one listener for the process."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

Listener = Callable[[str], AbstractContextManager[object]]

_LISTENING: list[Listener] = []


def trip(name: str) -> AbstractContextManager[object]:
    """Around one round trip of query `name` (or "commit"): the listener's, if any."""
    return _LISTENING[0](name) if _LISTENING else contextlib.nullcontext()


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """`listener` is told of every round trip of this process while this is open."""
    if _LISTENING:
        raise RuntimeError("one listener at a time")
    _LISTENING.append(listener)
    try:
        yield
    finally:
        _LISTENING.clear()
