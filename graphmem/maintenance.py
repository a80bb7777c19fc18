"""Maintenance (`graphmem sweep`, SPEC "Maintenance"): lifecycle, tiers, link pruning,
consolidation and reflection. It never deletes a memory.

Each transition is one named query in `cypher/maintenance/`, run in auto-commit batches
(`CALL … IN TRANSACTIONS`), so no transaction grows with the store. Each selects only
what still needs the transition, so a sweep interrupted half-way is finished by the next
one without counting anything twice. `dry_run` counts without writing.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from graphmem.decay import Curve, cypher_params
from graphmem.store import Store
from graphmem.types import as_utc

if TYPE_CHECKING:
    from graphmem.api import GraphMem

#: Transitions in the order a sweep runs them (lifecycle before tiers: what leaves the
#: active lifecycle goes cold in the same sweep).
TRANSITIONS = ("shadowed", "expired", "archived", "cold", "stub", "links_pruned")


class SweepOptions(BaseModel):
    """Thresholds of one sweep; the defaults are graphmem's defaults."""

    #: Retention under which a memory goes cold (drops out of the vector index).
    cold_below: float = Field(0.3, ge=0.0, le=1.0)
    #: Retention under which a cold memory becomes a stub (gains a summary).
    stub_below: float = Field(0.1, ge=0.0, le=1.0)
    #: Archive active memories older than this many days (None: never by age).
    max_age_days: float | None = Field(None, gt=0)
    #: Archive active memories with retention below this (None: never by retention).
    #: Off by default: FINDINGS.md shows decay-driven forgetting burying old answers.
    archive_below: float | None = Field(None, ge=0.0, le=1.0)
    summary_chars: int = Field(160, ge=20)
    link_tau_days: float = Field(90.0, gt=0)
    prune_below: float = Field(0.02, ge=0.0, le=1.0)
    batch: int = Field(1000, ge=1)
    consolidate: bool = True
    reflect: bool = True


class SweepReport(BaseModel):
    """What one sweep did (or, with dry_run, would do): memories per transition."""

    scope: str | None
    now: datetime
    dry_run: bool
    counts: dict[str, int]
    seconds: float


def sweep(mem: GraphMem, *, scope: str | None, now: datetime, decay: dict[str, Curve],
          options: SweepOptions | None = None, dry_run: bool = False) -> SweepReport:
    """Run every maintenance transition over `scope` (None: all scopes) at `now`."""
    opts = options or SweepOptions()
    store = mem.store
    started = time.perf_counter()
    base: dict[str, Any] = {"scope": scope, "now": as_utc(now), "dry_run": dry_run,
                            "batch": opts.batch}
    table = cypher_params(decay)
    counts: dict[str, int] = {}
    counts["shadowed"] = _count(store, "maintenance/shadow", **base)
    counts["expired"] = _count(store, "maintenance/expire", **base)
    counts["archived"] = 0
    if opts.max_age_days is not None or opts.archive_below is not None:
        counts["archived"] = _count(store, "maintenance/archive", **base, decay=table,
                                    max_age_days=opts.max_age_days,
                                    archive_below=opts.archive_below)
    counts["cold"] = _count(store, "maintenance/cool", **base, decay=table,
                            cold_below=opts.cold_below)
    counts["stub"] = _count(store, "maintenance/stub", **base, decay=table,
                            stub_below=opts.stub_below, summary_chars=opts.summary_chars)
    counts["links_pruned"] = _count(store, "maintenance/prune_links", **base,
                                    link_tau=opts.link_tau_days, prune_below=opts.prune_below)
    seconds = round(time.perf_counter() - started, 3)
    if not dry_run:
        store.write("maintenance/record_sweep", now=as_utc(now), scope=scope, seconds=seconds,
                    counts=counts)
    return SweepReport(scope=scope, now=as_utc(now), dry_run=dry_run, counts=counts,
                       seconds=seconds)


def _count(store: Store, name: str, **params: Any) -> int:
    rows = store.autocommit(name, **params)
    return int(rows[0]["n"]) if rows else 0


class Overview(BaseModel):
    """The graph at a glance (`graphmem overview`)."""

    scope: str | None
    kinds: dict[str, int]
    scopes: dict[str, int]
    tiers: dict[str, int]
    lifecycles: dict[str, int]
    links: dict[str, int]
    contributors: dict[str, dict[str, int]]  # scope -> added_by -> memories
    tombstones: int
    last_sweep: dict[str, Any] | None


def overview(store: Store, scope: str | None) -> Overview:
    """Counts per kind, scope, tier, lifecycle and link kind, contributors, last sweep."""
    row = store.read("admin/overview", scope=scope)[0]
    contributors: dict[str, dict[str, int]] = {}
    for c in row["contributors"]:
        contributors.setdefault(c["scope"], {})[c["added_by"]] = c["n"]
    last = store.read("maintenance/last_sweep", scope=scope)
    sweep_row = None
    if last:
        sweep_row = {k: (v.to_native() if hasattr(v, "to_native") else v)
                     for k, v in last[0]["sweep"].items()}
    return Overview(
        scope=scope,
        **{k: {x["key"] or "none": x["n"] for x in row[k]}
           for k in ("kinds", "scopes", "tiers", "lifecycles", "links")},
        contributors=contributors, tombstones=row["tombstones"], last_sweep=sweep_row)
