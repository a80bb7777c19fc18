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

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphmem.base.batching import Batches
from graphmem.graph.causal import MADE
from graphmem.write.plan import Row, WriteOptions

#: Writes the rows of one or more inputs, in one transaction, with the options given.
Writer = Callable[[list[Row], WriteOptions], None]


@dataclass(eq=False)
class _Input:
    rows: list[Row]
    opts: WriteOptions
    writer: Writer


def key(opts: WriteOptions, tools: tuple[object, ...]) -> tuple[object, ...]:
    """What must be equal for inputs to share a transaction: the scope, the write path's
    thresholds and the tools that embed and extract (the records' own defaults are in
    their rows already)."""
    return (opts.scope, opts.batch_size, opts.dedup_threshold, opts.synaptic_threshold,
            opts.synaptic_max_links, *tools)


def groupable(rows: list[Row], opts: WriteOptions) -> bool:
    """Whether an input may share a transaction: a small one (one statement batch) that
    places no turn at an explicit position (an importer's, which rebuilds its sessions'
    order)."""
    return 0 < len(rows) <= opts.batch_size and all(r.turn is None for r in rows)


class Groups:
    """The queues of one store's scopes: who waits to write, and who writes (kept per
    connection: `store.kept`)."""

    def __init__(self) -> None:
        self.batches: Batches[_Input, list[str]] = Batches(_write, _fits)

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Nothing to drop: a queue holds writes in flight, which their callers wait for,
        and goes when it is empty."""

    def write(self, rows: list[Row], opts: WriteOptions, tools: tuple[object, ...],
              writer: Writer) -> None:
        """Write `rows` with whatever else of the scope is waiting (and embedded by the
        same `tools`), by the writer of whoever heads the queue; returns when they are
        committed, or raises what failed this input."""
        made = self.batches(_Input(rows, opts, writer), key(opts, tools))
        if (mine := MADE.get()) is not None:  # its caller's answer names the commits
            mine.extend(made)


def _fits(group: list[_Input], later: _Input) -> bool:
    """Whether `later` joins `group`: it fits one statement batch, and names no memory the
    group does (two inputs writing one id are written one after the other)."""
    ids = {r.id for g in group for r in g.rows}
    return (sum(len(g.rows) for g in group) + len(later.rows) <= later.opts.batch_size
            and not ids & {r.id for r in later.rows})


def _write(group: list[_Input]) -> list[list[str]]:
    """One transaction for the group, by its head's writer; each input gets the bookmarks
    of the commit."""
    token = MADE.set([])
    try:
        group[0].writer([r for g in group for r in g.rows], group[0].opts)
        return [list(MADE.get() or [])] * len(group)
    finally:
        MADE.reset(token)
