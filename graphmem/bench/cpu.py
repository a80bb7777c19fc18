"""CPU time from /proc: what this process and the local Neo4j spend, so that a bench can
say whether the machine, not a lock or a wait, is what a request queues on."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

from graphmem.api import GraphMem

#: Clock ticks per second of /proc's CPU counters.
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def seconds(pid: int | None) -> float | None:
    """User + system CPU seconds process `pid` has used, from /proc (None if unreadable)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def machine() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of every core since boot, from /proc/stat (None if
    unreadable): over a span, busy / total is how much of the machine was in use."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    total = sum(ticks[:8])  # guest time is counted in user already
    return (total - idle) / TICKS, total / TICKS


def neo4j_pid(mem: GraphMem) -> int | None:
    """The pid of the Neo4j graphmem started for these settings, if that is the one the
    bench talks to."""
    from graphmem.graph.server import LocalServer

    local = LocalServer(mem.settings)
    return local.pid() if local.uri == mem.settings.neo4j_uri else None


class Meter:
    """CPU milliseconds per call of this process (every thread) and of the local Neo4j,
    summed over the calls timed between `start` and `stop`. /proc counts Neo4j in clock
    ticks (10 ms): one call's share is coarse, the mean of a hundred is not."""

    def __init__(self, mem: GraphMem) -> None:
        self.pid = neo4j_pid(mem)
        self.calls = 0
        self.python = 0.0
        self.neo4j: float | None = 0.0 if seconds(self.pid) is not None else None
        self._at: tuple[float, float | None] = (0.0, None)

    def start(self) -> None:
        """Begin timing one call."""
        self._at = (time.process_time(), seconds(self.pid))

    def stop(self) -> None:
        """End timing the call `start` began."""
        python, neo4j = time.process_time(), seconds(self.pid)
        self.calls += 1
        self.python += python - self._at[0]
        if self.neo4j is not None and neo4j is not None and self._at[1] is not None:
            self.neo4j += neo4j - self._at[1]

    def per_call(self) -> dict[str, float | None]:
        """{"python": ms, "neo4j": ms or None where its counters cannot be read}, a call."""
        n = max(self.calls, 1)
        return {"python": round(self.python * 1000 / n, 1),
                "neo4j": None if self.neo4j is None else round(self.neo4j * 1000 / n, 1)}


class Trips:
    """A listener (`graph.trips`): the local Neo4j's CPU seconds by query name over the
    round trips it is told of, and how many. Meant for one caller: trips that overlap in
    time share what each counts."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.spent: dict[str, tuple[int, float]] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        """Around one round trip of query `name`."""
        before = seconds(self.pid)
        try:
            yield
        finally:
            after = seconds(self.pid)
            used = after - before if after is not None and before is not None else 0.0
            with self._lock:
                n, total = self.spent.get(name, (0, 0.0))
                self.spent[name] = (n + 1, total + used)

    def per(self, units: int) -> dict[str, float]:
        """Neo4j's ms by query over `units` (calls, records), most first; {} where its
        counters cannot be read."""
        if seconds(self.pid) is None:
            return {}
        return {q: round(spent * 1000 / units, 3) for q, (_, spent) in sorted(
            self.spent.items(), key=lambda kv: -kv[1][1]) if spent > 0}


#: A server is at rest when it uses less than this share of one core...
QUIET_SHARE = 0.1
#: ...over this many seconds.
QUIET_WINDOW = 5.0
#: The longest a bench waits for the server to come to rest.
REST_WITHIN = 600.0


def rest(pid: int | None, at_least: float, at_most: float = REST_WITHIN,
         window: float = QUIET_WINDOW) -> float:
    """Wait `at_least` seconds, then until process `pid` (the local Neo4j: its index merges
    after a bulk write can take a core for minutes) uses less than QUIET_SHARE of a core
    over `window` seconds, at most `at_most` seconds in all; where its CPU cannot be
    read, `at_least` alone. Returns the seconds waited."""
    started = time.monotonic()
    time.sleep(at_least)
    while time.monotonic() - started < at_most:
        before = seconds(pid)
        if before is None:
            break
        time.sleep(window)
        after = seconds(pid)
        if after is None or after - before < QUIET_SHARE * window:
            break
    return round(time.monotonic() - started, 1)
