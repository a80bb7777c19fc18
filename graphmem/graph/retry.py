"""One retry policy for everything graphmem runs on the server (an input's transaction, a
named write, an auto-commit command, a read): which failures are worth another try, and
how long to keep trying — a time budget, not a count, so a server that is away for a
leader election or a restart is waited for (docs/decisions.md, "One input, one outcome"
and "A server that went away is waited for")."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from neo4j import exceptions as nx

from graphmem.base.settings import RETRY_SECONDS

T = TypeVar("T")

#: Driver error codes that mean "a concurrent writer got there first": running the same
#: work again, deciding afresh, succeeds.
CONFLICT_CODES = frozenset({"Neo.ClientError.Schema.ConstraintValidationFailed"})
#: The server ran out of memory for a transaction: the same input fails the same way
#: again, so it is never retried.
MEMORY_CODES = frozenset({"Neo.TransientError.General.MemoryPoolOutOfMemoryError",
                          "Neo.TransientError.General.OutOfMemoryError",
                          "Neo.ClientError.General.TransactionOutOfMemoryError"})
#: The first pause and the longest one: pauses double from the first up to the longest.
FIRST_PAUSE = 0.1
LONGEST_PAUSE = 2.0
#: After this many seconds of waiting, the wait is said once on stderr (a CLI call that
#: seems to hang should say why).
SAY_AFTER = 2.0

log = logging.getLogger("graphmem.retry")


def retryable(e: BaseException) -> bool:
    """Whether running the work again may succeed: a transient failure (a deadlock, a
    lost connection, a leader switch, a commit whose answer was lost) or a conflict with
    a concurrent writer; never a transaction out of memory."""
    if isinstance(e, nx.Neo4jError) and e.code in MEMORY_CODES:
        return False
    if isinstance(e, nx.ClientError) and e.code in CONFLICT_CODES:
        return True
    if isinstance(e, nx.IncompleteCommit):
        # The connection broke after the commit was sent: it may have landed. A write that
        # counts asked its receipt first (Store.commit) and is here only if it did not
        # land; the others set rather than add, and decide against stable ids, so running
        # them again stores nothing twice (docs/decisions.md, "A server that went away is
        # waited for").
        return True
    return isinstance(e, nx.Neo4jError | nx.DriverError) and e.is_retryable()


def pause(attempt: int) -> float:
    """Seconds to wait before try `attempt` (2, 3, …): doubling from FIRST_PAUSE up to
    LONGEST_PAUSE, with jitter (half to all of it) so writers that met each other do not
    meet again."""
    return random.uniform(0.5, 1.0) * min(LONGEST_PAUSE, FIRST_PAUSE * 2 ** (attempt - 2))


def retried(work: Callable[[], T], *, undo: Callable[[], None] = lambda: None,
            failed: BaseException | None = None, budget: float = RETRY_SECONDS) -> T:
    """`work()`, tried again after a retryable failure (`undo()` first, so each try starts
    clean) for as long as the next try would start within `budget` seconds of the first;
    then the last failure is raised. `failed` is a failure an earlier try, made
    elsewhere, already met."""
    started = time.monotonic()
    attempt = 1 if failed is None else 2
    wait = 0.0 if failed is None else pause(attempt)
    said = False
    while True:
        if wait:
            waited = time.monotonic() - started
            if not said and waited + wait >= SAY_AFTER:
                said = True
                log.warning("graphmem: waiting for Neo4j to answer (up to %.0f s, "
                            "GRAPHMEM_RETRY_S)", budget)
            time.sleep(wait)
        try:
            return work()
        except Exception as e:
            undo()
            attempt += 1
            wait = pause(attempt)
            if not retryable(e) or time.monotonic() - started + wait > budget:
                raise
