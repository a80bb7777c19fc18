"""Recall's ranking, in plain Python: the Cypher half (`recall/retrieve`, `recall/expand`,
`recall/show`) finds the memories and their facts; every rule that decides their
order is a function here (docs/architecture.md, "The read path"; the reasons for each
number are in docs/decisions.md).

score = relevance (the lists fused: `fusion`) x temporal factor x layer factor x
usefulness, for a direct hit;
association adds a bonus for what links to the best hits, what the query names lifts the
memories about it, and conversation order (`turns.rerank`) lifts a turn by its
neighbours.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.base.decay import Curve, retention_after
from graphmem.read.fusion import Candidate, Fusing, relevances, rescaled

#: The exponent of retention in the temporal factor: decay reorders memories of
#: comparable relevance and never buries a much better answer (docs/decisions.md,
#: "Decay reorders; it never buries").
RETENTION_EXPONENT = 0.3
#: Times travel as epoch milliseconds (fragments/rank_facts).
DAY_MS = 86_400_000.0

Key = tuple[str, str]  # (scope, id)


def key(memory: dict[str, Any]) -> Key:
    """A memory's identity across scopes."""
    return (memory["scope"], memory["id"])


# The factors of a direct hit's score


def retention(memory: dict[str, Any], decay: dict[str, Curve], now: datetime) -> float:
    """A memory's retention R at `now` from its kind's curve (1.0 for a kind without one),
    its age read from `accessed`, else `created` (epoch milliseconds: the driver makes a
    date object ten times slower than a number)."""
    curve = decay.get(memory.get("kind") or "episodic")
    if curve is None:
        return 1.0
    since = _or(memory.get("accessed"), memory.get("created"))
    if since is None:
        # Deleted while recall read it (a forget, a dropped scope): its properties read
        # as null, and `recall/show` will not find it to show.
        return 1.0
    return retention_after(curve, (now.timestamp() * 1000 - since) / DAY_MS,
                           stability=_or(memory.get("stability"), 1.0),
                           importance=_or(memory.get("importance"), 0.5),
                           confidence=_or(memory.get("confidence"), 0.5))


def temporal_factor(retention: float, weight: float) -> float:
    """(1 - w) + w * R^0.3: with a small w, decay only reorders comparable memories."""
    return (1 - weight) + weight * retention ** RETENTION_EXPONENT


def layer_factor(memory: dict[str, Any], scope: str, factor: float) -> float:
    """1 for the caller's own memories, `factor` for a mounted layer's."""
    return 1.0 if memory["scope"] == scope else factor


def usefulness(memory: dict[str, Any], weight: float) -> float:
    """1 + w * (used - unused) / (used + unused + 1): one report moves a memory by at most
    half the weight, many consistent ones by nearly all of it."""
    used = _or(memory.get("used_count"), 0)
    unused = _or(memory.get("unused_count"), 0)
    return 1 + weight * (used - unused) / (used + unused + 1.0)


@dataclass(frozen=True)
class Scoring:
    """What turns relevance into a score: the recall's scope, clock and weights."""

    scope: str
    now: datetime
    decay: dict[str, Curve]
    temporal: float
    layer_factor: float
    use_weight: float

    def factors(self, memory: dict[str, Any]) -> tuple[float, float, float]:
        """A memory's retention, layer factor, and the product of its factors besides
        relevance (temporal x layer x usefulness)."""
        r = retention(memory, self.decay, self.now)
        layer = layer_factor(memory, self.scope, self.layer_factor)
        return r, layer, temporal_factor(r, self.temporal) * layer * usefulness(
            memory, self.use_weight)


def direct(candidates: list[Candidate], scoring: Scoring, fusing: Fusing,
           k: int) -> list[Candidate]:
    """The candidates scored (relevance by `fusion.relevances`), best first (ties by id),
    at most `k`. A memory deleted while recall read it (its facts come back empty) is
    left out."""
    candidates = [c for c in candidates if c.memory.get("id") is not None]
    for c, relevance in zip(candidates, relevances(candidates, fusing), strict=True):
        c.relevance = relevance
        c.retention, c.layer, factor = scoring.factors(c.memory)
        c.score = (relevance or 0.0) * factor
    # Exact matches are equally relevant: the newer first among equal scores.
    newer = ((lambda c: -c.memory["created"]) if fusing.mode == "exact"
             else (lambda c: 0.0))
    ranked = sorted(candidates, key=lambda c: (-c.score, newer(c), c.memory["id"]))
    return [c for c in ranked if c.relevance is not None][:k]


# Association: spreading activation over the graph around the best hits


@dataclass
class Reached:
    """A memory association reached: summed activation, the part through what it is
    about, what the query's entities gave it, and its shortest path's last step."""

    key: Key
    hop: int
    source: str | None  # the memory id the step came from (None: the query)
    step: dict[str, Any]
    activation: float = 0.0
    subject: float = 0.0
    named: float = 0.0
    prev: dict[str, Any] | None = None  # a hop-2 path's first step
    bonus: float = 0.0


@dataclass(frozen=True)
class Spreading:
    """How activation spreads (RecallOptions' association fields)."""

    seeds: int
    hops: int
    width: int
    beta: float
    link_tau: float
    entity_weight: float
    hop_decay: float
    mention_weight: float
    subject_weight: float
    floor: float = 0.0  # the embedding model's (`fusion.rescaled`)


def hop(sources: dict[Key, float], edges: Sequence[Mapping[str, Any]], spreading: Spreading,
        now: datetime) -> list[Reached]:
    """One hop from `sources` (memory -> activation) over `recall/expand`'s edges: each
    edge carries source activation x link weight x exp(-age / tau), or x entity_weight /
    sqrt(degree - 1) through a shared entity, halved per hop; per memory reached, the
    sum, its strongest step (ties by the source's id, whatever order the edges came in),
    and the widest `width` by activation (ties by id)."""
    gathered: dict[Key, list[tuple[float, str, dict[str, Any]]]] = {}
    for e in edges:
        source = (e["from_scope"], e["from"])
        if source not in sources:
            continue
        if e["kind"] == "link":
            days = (now.timestamp() * 1000 - e["since"]) / DAY_MS
            act = sources[source] * e["weight"] * math.exp(-days / spreading.link_tau)
            step = {"kind": "link", "name": e["name"], "weight": e["weight"]}
        else:
            spread = 1.0 / math.sqrt(e["degree"] - 1)
            act = sources[source] * spreading.entity_weight * spread
            step = {"kind": e["kind"], "name": e["name"], "weight": spread}
        gathered.setdefault((e["to_scope"], e["to"]), []).append(
            (act * spreading.hop_decay, e["from"], step))
    reached = []
    for target, arrivals in gathered.items():
        best = min(arrivals, key=lambda a: (-a[0], a[1]))
        reached.append(Reached(
            key=target, hop=0, source=best[1], step=best[2],
            activation=sum(a[0] for a in arrivals),
            subject=sum(a[0] for a in arrivals if a[2]["kind"] == "subject")))
    reached.sort(key=lambda r: (-r.activation, r.key[1]))
    return reached[:spreading.width]


def named(rows: Sequence[Mapping[str, Any]], entities: int, width: int) -> list[Reached]:
    """The memories the query's entities reach: each entity's share (1 / `entities`)
    spread evenly over its memories (1 / degree), as a personalised PageRank's first step;
    the widest `width` (ties by id)."""
    gathered: dict[Key, list[tuple[float, str]]] = {}
    for r in rows:
        gathered.setdefault((r["to_scope"], r["to"]), []).append(
            (1.0 / r["degree"] / entities, r["name"]))
    reached = []
    for target, arrivals in gathered.items():
        act = sum(a for a, _ in arrivals)
        name = max(arrivals, key=lambda a: a[0])[1]
        reached.append(Reached(key=target, hop=0, source=None, named=act,
                               step={"kind": "query", "name": name, "weight": act}))
    reached.sort(key=lambda r: (-r.named, r.key[1]))
    return reached[:width]


def bonus(r: Reached, cosine: float | None, spreading: Spreading) -> float:
    """What being reached earns: beta x activation x cos^2 (cos clipped at 0; 1 without a
    vector), except through what a hit is about (counted as it is), plus what the query's
    entities gave."""
    cosine = rescaled(cosine, spreading.floor)
    on_topic = 1.0 if cosine is None else (0.0 if cosine < 0 else cosine ** 2)
    return (spreading.beta * (r.activation - r.subject) * on_topic
            + spreading.beta * r.subject + spreading.mention_weight * r.named)


def merge(by_query: list[Reached], hop1: list[Reached], hop2: list[Reached],
          cosines: dict[Key, float | None], spreading: Spreading) -> dict[Key, Reached]:
    """One entry per reached memory: activation summed over the hops, the shortest path
    kept (a hop-2 path with its first step), its bonus."""
    merged: dict[Key, Reached] = {}
    for depth, found in ((0, by_query), (1, hop1), (2, hop2)):
        for r in found:
            have = merged.get(r.key)
            if have is None:
                merged[r.key] = have = Reached(key=r.key, hop=depth, source=r.source,
                                               step=r.step)
            have.activation += r.activation
            have.subject += r.subject
            have.named += r.named
    first_hop = {r.key[1]: r for r in hop1}
    for r in merged.values():
        if r.hop == 2 and r.source in first_hop:
            via = first_hop[r.source]
            r.prev = {"from": via.source, "step": via.step}
        r.bonus = bonus(r, cosines.get(r.key), spreading)
    return merged


@dataclass
class Ranked:
    """A memory of the final ranking, with what made its score."""

    memory: dict[str, Any]
    score: float
    candidate: Candidate | None = None  # a direct hit
    reached: Reached | None = None
    cosine: float | None = None
    retention: float | None = None
    layer: float | None = None


def final(pool: list[Candidate], merged: dict[Key, Reached],
          memories: dict[Key, dict[str, Any]], cosines: dict[Key, float | None],
          scoring: Scoring, spreading: Spreading, entities: Sequence[str],
          k: int) -> list[Ranked]:
    """Direct hits with their bonus added, and memories association alone reached (bonus
    x temporal x layer x usefulness); a memory about what the query names x (1 +
    subject_weight); best first (ties by id), at most `k`."""
    ranked = []
    pooled = {key(c.memory) for c in pool}
    for c in pool:
        r = merged.get(key(c.memory))
        ranked.append(Ranked(memory=c.memory, score=c.score + (r.bonus if r else 0.0),
                             candidate=c, reached=r))
    for target, r in merged.items():
        if target in pooled:
            continue
        memory = memories[target]
        ret, layer, factor = scoring.factors(memory)
        ranked.append(Ranked(memory=memory, score=r.bonus * factor, reached=r,
                             cosine=cosines.get(target), retention=ret, layer=layer))
    named_keys = set(entities)
    for x in ranked:
        if named_keys and named_keys & set(x.memory.get("about") or []):
            x.score *= 1 + spreading.subject_weight
    ranked.sort(key=lambda x: (-x.score, x.memory["id"]))
    return ranked[:k]


def _or(value: Any, default: Any) -> Any:
    return default if value is None else value
