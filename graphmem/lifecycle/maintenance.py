"""Maintenance (`graphmem sweep`; docs/architecture.md): lifecycle, tiers, link pruning,
consolidation and reflection. It never deletes a memory.

Each transition is one named query in `cypher/maintenance/`, run in auto-commit batches
(`CALL … IN TRANSACTIONS`), so no transaction grows with the store. Each selects only
what still needs the transition, so a sweep interrupted half-way is finished by the next
one without counting anything twice. `dry_run` counts without writing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel

from graphmem.base.clock import as_utc
from graphmem.base.decay import Curve, cypher_params
from graphmem.base.types import MemoryIn, WriteReport
from graphmem.base.verbs import SweepOptions
from graphmem.embedding.embedders import Embedder
from graphmem.graph.kept import changes
from graphmem.graph.schema import VECTOR_INDEX
from graphmem.graph.store import Store
from graphmem.lifecycle.summarize import Summarizer, SummaryError, extractive

#: Writes records into a scope through the write path, with the signal gate off (what
#: consolidation and reflection write is made, not said).
Writer = Callable[[list[MemoryIn], str], WriteReport]

#: Transitions in the order a sweep runs them (lifecycle before tiers: what leaves the
#: active lifecycle goes cold in the same sweep).
TRANSITIONS = ("shadowed", "expired", "archived", "cold", "stub", "links_pruned",
               "consolidated", "consolidation_confirmed", "reflections")


class SweepReport(BaseModel):
    """What one sweep did (or, with dry_run, would do): memories per transition."""

    scope: str | None
    now: datetime
    dry_run: bool
    counts: dict[str, int]
    seconds: float
    #: What went wrong but did not stop the sweep (e.g. the summary endpoint failed).
    warnings: list[str] = []


class Consolidation(BaseModel):
    """What one consolidation did: semantic memories created, existing ones confirmed."""

    created: int
    confirmed: int
    #: Who wrote the summaries: "extractive" or the endpoint's model.
    summarized_by: list[str] = []
    warnings: list[str] = []


@changes()  # a scope may have become a small share of a grown store, and texts moved
def sweep(store: Store, *, embedder: Embedder, summarizer: Summarizer, write: Writer,
          scope: str | None, now: datetime, decay: dict[str, Curve],
          options: SweepOptions | None = None, dry_run: bool = False) -> SweepReport:
    """Run every maintenance transition over `scope` (None: all scopes) at `now`;
    consolidation embeds and summarises with `embedder` and `summarizer`, and what it and
    reflection make goes through `write`."""
    opts = options or SweepOptions()
    started = time.perf_counter()
    base: dict[str, Any] = {"scope": scope, "now": as_utc(now), "dry_run": dry_run,
                            "batch": opts.batch}
    table = cypher_params(decay)
    counts: dict[str, int] = {}
    # A dry run writes nothing, so each step hands on the ids it would change: a memory
    # shadowed, expired or archived in this sweep also goes cold, an archived one a stub.
    counts["shadowed"], shadowed = _run(store, "maintenance/shadow", **base)
    counts["expired"], expired = _run(store, "maintenance/expire", **base)
    archived: list[str] = []
    counts["archived"] = 0
    if opts.archive_after_days is not None or opts.archive_below is not None:
        counts["archived"], archived = _run(store, "maintenance/archive", **base, decay=table,
                                            max_age_days=opts.archive_after_days,
                                            archive_below=opts.archive_below)
    counts["cold"], cooling = _run(store, "maintenance/cool", **base, decay=table,
                                   cold_below=opts.cold_below,
                                   leaving=shadowed + expired + archived)
    counts["stub"] = _count(store, "maintenance/stub", **base, decay=table,
                            stub_below=opts.stub_below, summary_chars=opts.summary_chars,
                            cooling=cooling, archiving=expired + archived)
    counts["links_pruned"] = prune(store, scope=scope, now=as_utc(now), opts=opts,
                                   dry_run=dry_run)
    done = (consolidate(store, embedder=embedder, summarizer=summarizer, write=write,
                        scope=scope, now=as_utc(now), opts=opts, dry_run=dry_run)
            if opts.consolidate else Consolidation(created=0, confirmed=0))
    counts["consolidated"], counts["consolidation_confirmed"] = done.created, done.confirmed
    counts["reflections"] = (reflect(store, write=write, scope=scope, now=as_utc(now),
                                     opts=opts, dry_run=dry_run) if opts.reflect else 0)
    seconds = round(time.perf_counter() - started, 3)
    if not dry_run:
        store.write("maintenance/record_sweep", now=as_utc(now), scope=scope, seconds=seconds,
                    counts=counts)
    return SweepReport(scope=scope, now=as_utc(now), dry_run=dry_run, counts=counts,
                       seconds=seconds, warnings=done.warnings)


def prune(store: Store, *, scope: str | None, now: datetime, opts: SweepOptions,
          dry_run: bool = False) -> int:
    """Delete synaptic and co-retrieval links whose decayed weight fell under
    `prune_below` (manual links stay); returns how many (would) go."""
    return _count(store, "maintenance/prune_links", scope=scope, now=as_utc(now),
                  dry_run=dry_run, batch=opts.batch, link_tau=opts.link_tau_days,
                  prune_below=opts.prune_below)


def consolidate(store: Store, *, embedder: Embedder, summarizer: Summarizer, write: Writer,
                scope: str | None, now: datetime, opts: SweepOptions,
                dry_run: bool) -> Consolidation:
    """Sum up groups of ≥ 3 episodic memories that share an entity into one semantic
    memory each (CONSOLIDATED_FROM its members), or confirm the semantic memory that
    already covers the group."""
    groups = store.read(
        "maintenance/consolidation_groups", scope=scope,
        before=now - timedelta(days=opts.consolidate_after_days), hub_limit=opts.hub_limit,
        min_size=opts.group_min, max_members=opts.group_max, max_groups=opts.max_groups)
    taken: set[str] = set()
    plans = []
    for g in groups:  # largest first; a memory joins one group per sweep
        members = [m for m in g["members"] if m["id"] not in taken]
        if len(members) < opts.group_min:
            continue
        taken.update(m["id"] for m in members)
        plans.append((g, members))
    if dry_run or not plans:
        return Consolidation(created=len(plans), confirmed=0)
    texts, authors, warnings = _summaries(summarizer, [
        (g["name"], [m["text"] for m in members]) for g, members in plans])
    vectors = embedder.embed(texts)
    links: list[dict[str, Any]] = []
    new: dict[str, list[tuple[MemoryIn, dict[str, Any]]]] = {}
    for (g, members), text, author, vector in zip(plans, texts, authors, vectors,
                                                  strict=True):
        ids = sorted(m["id"] for m in members)
        importance = max(float(m.get("importance") or 0.5) for m in members)
        cover = store.read("maintenance/covering_semantic", vector_index=VECTOR_INDEX,
                           fetch=50, vector=vector.tolist(), scope=g["scope"],
                           visibility=g["visibility"], min_cosine=opts.covered_above)
        target = cover[0]["id"] if cover else "consolidated-" + _digest("\n".join(ids))
        link = {"id": target, "scope": g["scope"], "members": ids, "confirm": bool(cover),
                "importance": importance}
        links.append(link)
        if not cover:
            new.setdefault(g["scope"], []).append((MemoryIn(
                id=target, text=text, kind="semantic", source="consolidation",
                importance=importance, created_at=now, visibility=g["visibility"],
                metadata={"consolidated_entity": g["key"], "consolidated_count": len(ids),
                          "summarized_by": author}),
                link))
    for target_scope, pending in new.items():  # one write batch per scope
        report = write([r for r, _ in pending], target_scope)
        for (_, link), outcome in zip(pending, report.outcomes, strict=True):
            if outcome.status == "confirmed":  # two summaries of one batch said the same
                link["id"], link["confirm"] = outcome.id, True
    store.write("maintenance/consolidate_into", groups=links, now=now)
    confirmed = sum(1 for g in links if g["confirm"])
    return Consolidation(created=len(links) - confirmed, confirmed=confirmed,
                         summarized_by=sorted(set(authors)), warnings=warnings)


def _summaries(summarizer: Summarizer, groups: list[tuple[str, list[str]]]
               ) -> tuple[list[str], list[str], list[str]]:
    """Each group's summary and its author. After the summariser's first failure the
    rest fall back to the extractive summary, so a dead endpoint costs one timeout."""
    texts: list[str] = []
    authors: list[str] = []
    warnings: list[str] = []
    for topic, members in groups:
        if not warnings:
            try:
                texts.append(summarizer(topic, members))
                authors.append(summarizer.name)
                continue
            except SummaryError as e:
                warnings.append(f"{e.message}; extractive summaries used instead")
        texts.append(extractive(topic, members))
        authors.append("extractive")
    return texts, authors, warnings


def reflect(store: Store, *, write: Writer, scope: str | None, now: datetime,
            opts: SweepOptions, dry_run: bool) -> int:
    """Write a reflection in each scope whose importance since its last reflection passed
    `reflect_after`, naming the recurring themes (entities, tags, sessions)."""
    due = store.read("maintenance/reflection_due", scope=scope, now=now,
                         threshold=opts.reflect_after)
    if dry_run:
        return len(due)
    for r in due:
        since = r["since"].to_native()
        parts = [f"Reflection on {r['n']} memories since {since:%Y-%m-%d}"]
        if r["themes"]:
            parts.append("recurring themes: " + ", ".join(
                f"{t['name']} ({t['n']})" for t in r["themes"]))
        if r["tags"]:
            parts.append("tags: " + ", ".join(f"{t['name']} ({t['n']})" for t in r["tags"]))
        parts.append(f"across {r['sessions']} session{'s' if r['sessions'] != 1 else ''}")
        write([MemoryIn(
            id=f"reflection-{_digest(r['scope'] + now.isoformat())}",
            text="; ".join(parts) + ".", kind="reflection", source="reflection",
            importance=0.7, created_at=now, visibility=r["visibility"],
            metadata={"reflected_memories": r["n"]})], r["scope"])
    return len(due)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _count(store: Store, name: str, **params: Any) -> int:
    return _run(store, name, **params)[0]


def _run(store: Store, name: str, **params: Any) -> tuple[int, list[str]]:
    """Run a batched transition: how many memories it (would) change, and, in a dry run,
    which."""
    rows = store.autocommit(name, **params)
    return (int(rows[0]["n"]), list(rows[0].get("ids") or [])) if rows else (0, [])


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
