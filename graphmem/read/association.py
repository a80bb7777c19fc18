"""Recall's association stage: the graph around the best direct hits (and around the
entities the query names), then around what that reached, in one `recall/expand` round
trip unless the first hop reaches more than its width; ranked with the direct hits by
`rank.final` (docs/architecture.md, "The read path")."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from graphmem.base.rows import ExpandRow, PoolRow, placed
from graphmem.graph.keys import entity_prefix
from graphmem.graph.store import Store
from graphmem.read import fusion, rank
from graphmem.read.plan import RecallPlan, vector_params
from graphmem.write.extract import Extractor


def query_entities(extractor: Extractor | None, query: str, now: datetime,
                   scopes: list[str]) -> list[str]:
    """The graph keys, in each of `scopes`' entity spaces, of the entities `query` names."""
    if extractor is None:
        return []
    refs = {e.key for e in extractor.extract(query, now)}
    return [entity_prefix(s) + ref for s in dict.fromkeys(scopes) for ref in sorted(refs)]


@dataclass(frozen=True)
class Associated:
    """The ranking association made, best first, and the round trips it took."""

    ranked: list[rank.Ranked]
    trips: int


def associate(store: Store, plan: RecallPlan, pool: list[fusion.Candidate],
              vector: list[float] | None, entities: list[str]) -> Associated:
    """Association over the direct hits: the graph around the best of them (and what the
    query names), then around what that reached, in one `recall/expand` (two when the
    first hop reaches more than `width`); ranked by `rank.final`, best `plan.answer_k`."""
    if not pool:
        return Associated([], 0)
    spread, now = plan.spreading, plan.scoring.now
    common = {**plan.common(), "hub_limit": plan.opts.association.hub_limit}
    seeds = {rank.key(c.memory): c.score for c in pool[:spread.seeds]}
    first = expand(store, seeds, common, vector, entities, pool,
                   second_within=spread.width if spread.hops >= 2 else 0, named=entities)
    pool = _pooled(pool, first["pool"])
    memories, cosines = _reached(first)
    by_query = (rank.named(first["named"], first["named_entities"], spread.width)
                if first["named_entities"] else [])
    hop1 = rank.hop(seeds, first["edges"], spread, now)
    hop2: list[rank.Reached] = []
    trips = 1
    if spread.hops >= 2 and hop1:
        sources = {r.key: r.activation for r in hop1}
        edges = first["second_edges"]
        if not first["second"]:
            # The first hop reached more than `width`: the second spreads from its widest.
            again = expand(store, sources, common, vector, [], [], named=entities)
            trips += 1
            edges = again["edges"]
            more, closer = _reached(again)
            memories |= more
            cosines |= closer
        hop2 = rank.hop(sources, edges, spread, now)
    merged = rank.merge(by_query, hop1, hop2, cosines, spread)
    return Associated(rank.final(pool, merged, memories, cosines, plan.scoring, spread,
                                 entities, plan.answer_k), trips)


def expand(store: Store, sources: dict[tuple[str, str], float], common: dict[str, Any],
           vector: list[float] | None, entities: list[str], pool: list[fusion.Candidate],
           second_within: int = 0, named: list[str] | None = None) -> ExpandRow:
    """`recall/expand` from `sources`: one step, and the step after it in the same round
    trip when the first reaches at most `second_within` memories (`second`); from
    `entities` too. Each memory reached says which of `named` (what the query names)
    it is about."""
    # Lists whose sizes vary travel in one map (docs/decisions.md).
    rows = cast(list[ExpandRow], store.read("recall/expand", **common, **vector_params(vector),
                      two_hops=second_within > 0, width=second_within,
                      lists={"sources": [{"scope": s, "id": i} for s, i in sources],
                             "entities": entities, "named": named or [],
                             "pool": [{"scope": c.memory["scope"], "id": c.memory["id"]}
                                      for c in pool]}))
    row = rows[0]
    # What a concurrent forget deleted while this was read has null properties: gone, and
    # so are the edges to it, and a link deleted with the memory at its other end.
    row["memories"] = [m for m in row["memories"] if m["memory"].get("id") is not None]
    alive = {rank.key(m["memory"]) for m in row["memories"]}
    for edges in ("edges", "second_edges"):
        row[edges] = [e for e in row[edges] if (e["to_scope"], e["to"]) in alive
                      and (e["kind"] != "link" or None not in (e["weight"], e["since"]))]
    row["named"] = [n for n in row["named"] if (n["to_scope"], n["to"]) in alive]
    return row


def _reached(found: ExpandRow) -> tuple[dict[rank.Key, dict[str, Any]],
                                            dict[rank.Key, float | None]]:
    """The memories a `recall/expand` reached, with their facts, and their cosines with
    the query."""
    return ({rank.key(m["memory"]): placed(m)["memory"] for m in found["memories"]},
            {rank.key(m["memory"]): fusion.cosine(m["similarity"]) for m in found["memories"]})


def _pooled(pool: list[fusion.Candidate], rows: list[PoolRow]) -> list[fusion.Candidate]:
    """The direct hits with what each is about, of what the query names, and its
    neighbours in its session (`recall/expand`'s pool) added to its facts."""
    found = {(r["scope"], r["id"]): r for r in rows}
    out = []
    for c in pool:
        row = found.get(rank.key(c.memory))
        facts = ({"about": [], "before": None, "after": None} if row is None else
                 {"about": row["about"], "before": row["before"], "after": row["after"]})
        out.append(replace(c, memory={**c.memory, **facts}))
    return out
