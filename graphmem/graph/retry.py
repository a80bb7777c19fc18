"""One retry policy for every write graphmem runs (an input's transaction, a named write,
an auto-commit command): which failures are worth another try, how many tries, and how
long to wait between them (docs/decisions.md, "One input, one outcome")."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import TypeVar

from neo4j import exceptions as nx

T = TypeVar("T")

#: Driver error codes that mean "a concurrent writer got there first": running the same
#: work again, deciding afresh, succeeds.
CONFLICT_CODES = frozenset({"Neo.ClientError.Schema.ConstraintValidationFailed"})
#: The server ran out of memory for a transaction: the same input fails the same way
#: again, so it is never retried.
MEMORY_CODES = frozenset({"Neo.TransientError.General.MemoryPoolOutOfMemoryError",
                          "Neo.TransientError.General.OutOfMemoryError",
                          "Neo.ClientError.General.TransactionOutOfMemoryError"})
#: Tries of one piece of work: the first and four more.
ATTEMPTS = 5


def retryable(e: BaseException) -> bool:
    """Whether running the work again may succeed: a transient failure (a deadlock, a
    lost connection, a leader switch) or a conflict with a concurrent writer; never a
    transaction out of memory."""
    if isinstance(e, nx.Neo4jError) and e.code in MEMORY_CODES:
        return False
    if isinstance(e, nx.ClientError) and e.code in CONFLICT_CODES:
        return True
    return isinstance(e, nx.Neo4jError | nx.DriverError) and e.is_retryable()


def pause(attempt: int) -> float:
    """Seconds to wait before try `attempt` (2, 3, …): doubling, with jitter so writers
    that met each other do not meet again."""
    return random.uniform(0.05, 0.2) * 2 ** (attempt - 2)


def retried(work: Callable[[], T], *, undo: Callable[[], None] = lambda: None,
            failed: BaseException | None = None) -> T:
    """`work()`, tried again after a retryable failure (`undo()` first, so each try starts
    clean), up to ATTEMPTS in all; `failed` is a failure an earlier try, made elsewhere,
    already met."""
    attempt = 1 if failed is None else 2
    while True:
        if attempt > 1:
            time.sleep(pause(attempt))
        try:
            return work()
        except Exception as e:
            undo()
            attempt += 1
            if attempt > ATTEMPTS or not retryable(e):
                raise
