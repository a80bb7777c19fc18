"""Group commit: small writes to one scope that arrive while another is being written
wait for it, then go into one transaction together (docs/decisions.md, "Writes of one
scope commit together").

Every write statement takes its scope's lock, so a scope's writers run one at a time
whatever their number: eight agents each paying a transaction's round trips, commit and
lock hand-off in turn made a queue of seconds. Grouped, the queue is written by whoever
is at its head (no thread of its own, no added wait: an uncontended write is a group of
one), in one transaction; each input comes embedded (concurrent ones in one run of the
model: `runtime.Together`), so one group embeds while another writes. Each caller
keeps its own outcome: its rows are its own, and a group that fails is written again
input by input, so one caller's failure is no other's.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphmem.graph.causal import MADE
from graphmem.write.plan import Row, WriteOptions

#: Writes the rows of one or more inputs, in one transaction, with the options given.
Writer = Callable[[list[Row], WriteOptions], None]


@dataclass(eq=False)
class _Entry:
    rows: list[Row]
    opts: WriteOptions
    tools: tuple[object, ...]
    woken: threading.Event = field(default_factory=threading.Event)
    finished: bool = False
    error: BaseException | None = None
    #: Where its caller collects the bookmarks of its writes (`causal.MADE`): whoever
    #: writes the group adds the group's.
    made: list[str] | None = field(default_factory=MADE.get)

    @property
    def key(self) -> tuple[object, ...]:
        """What must be equal for inputs to share a transaction: the scope, the write
        path's thresholds and the tools that embed and extract (the records' own defaults
        are in their rows already)."""
        o = self.opts
        return (o.scope, o.batch_size, o.dedup_threshold, o.synaptic_threshold,
                o.synaptic_max_links, *self.tools)

    def done(self, error: BaseException | None = None) -> None:
        """Finish this input (by the group's writer, in whose context MADE holds the
        bookmarks of the group's commits so far: its caller's answer names them)."""
        made = MADE.get()
        if self.made is not None and made:
            self.made.extend(made)
        self.finished, self.error = True, error
        self.woken.set()


def groupable(rows: list[Row], opts: WriteOptions) -> bool:
    """Whether an input may share a transaction: a small one (one statement batch) that
    places no turn at an explicit position (an importer's, which rebuilds its sessions'
    order)."""
    return 0 < len(rows) <= opts.batch_size and all(r.turn is None for r in rows)


class Groups:
    """The queues of one store's scopes: who waits to write, and who writes (kept per
    connection: `store.kept`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[tuple[object, ...], deque[_Entry]] = {}

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Nothing to drop: a queue holds writes in flight, which their callers wait for,
        and goes when it is empty."""

    def write(self, rows: list[Row], opts: WriteOptions, tools: tuple[object, ...],
              writer: Writer) -> None:
        """Write `rows` with whatever else of the scope is waiting (and embedded by the
        same `tools`), by `writer`; returns when they are committed, or raises what
        failed this input."""
        entry = _Entry(rows, opts, tools)
        with self._lock:
            queue = self._queues.setdefault(entry.key, deque())
            queue.append(entry)
            leads = len(queue) == 1
        if not leads:
            entry.woken.wait()  # written by the head of the queue, or made its head
        if not entry.finished:
            self._lead(entry.key, writer)
        if entry.error is not None:
            raise entry.error

    def _lead(self, key: tuple[object, ...], writer: Writer) -> None:
        """Write the group at the head of `key`'s queue, then wake the next head."""
        with self._lock:
            group = _take(self._queues[key])
        # The group's commits, collected here and handed to each caller (`_Entry.done`).
        token = MADE.set([])
        try:
            _write(group, writer)
        except BaseException as e:  # an interrupt: no caller may wait forever
            for entry in group:
                if not entry.finished:
                    entry.done(e)
            raise
        finally:
            MADE.reset(token)
            with self._lock:
                queue = self._queues[key]
                for _ in group:
                    queue.popleft()
                if queue:
                    queue[0].woken.set()
                else:
                    del self._queues[key]


def _take(queue: deque[_Entry]) -> list[_Entry]:
    """The entries at the head of `queue` that fit one statement batch and name no memory
    twice (two inputs writing one id are written one after the other), in order."""
    group = [queue[0]]
    size, ids = len(queue[0].rows), {r.id for r in queue[0].rows}
    for entry in list(queue)[1:]:
        mine = {r.id for r in entry.rows}
        if size + len(entry.rows) > entry.opts.batch_size or mine & ids:
            break
        group.append(entry)
        size, ids = size + len(entry.rows), ids | mine
    return group


def _write(group: list[_Entry], writer: Writer) -> None:
    """One transaction for the group; if it fails, each input alone, so that each caller
    gets its own outcome."""
    if len(group) > 1:
        try:
            writer([r for e in group for r in e.rows], group[0].opts)
        except Exception:  # someone's input failed: find whose, alone
            pass
        else:
            for entry in group:
                entry.done()
            return
    for entry in group:
        try:
            writer(entry.rows, entry.opts)
        except Exception as e:  # the caller's to raise
            entry.done(e)
        else:
            entry.done()

