"""Recall's last stage: conversation order over the ranking (`turns.rerank`), what the
answer shows read for it alone (`recall/show`), the hits, and type budgets when it is
asked to be diverse (docs/architecture.md, "The read path")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeGuard, cast

from graphmem.base.rows import ShowRow, to_hit
from graphmem.base.types import QUERY, Hit, PathStep
from graphmem.graph.store import Store
from graphmem.read import budgets, rank, turns
from graphmem.read.plan import RecallPlan


@dataclass(frozen=True)
class Answered:
    """The hits, best first, and the round trips they took."""

    hits: list[Hit]
    trips: int


def answer(store: Store, plan: RecallPlan, ranked: list[rank.Ranked]) -> Answered:
    """The hits of `ranked`, in conversation order when it reranks, alive and shown."""
    opts = plan.opts
    weight = opts.context.turn_weight
    scored = [(rank.key(r.memory), r.score) for r in ranked]
    order = (turns.rerank(scored, {rank.key(r.memory): (r.memory.get("before"),
                                                       r.memory.get("after"))
                                   for r in ranked}, weight, plan.k)
             if plan.with_turns else [turns.Turn(key, score) for key, score in scored[:plan.k]])
    rows = cast(list[ShowRow], store.read("recall/show", lists={"rows": [
        {"id": t.key[1], "scope": t.key[0]} for t in order]})) if order else []
    # A memory a concurrent forget deleted since it was ranked is gone: not shown.
    shown = {(row["scope"], row["id"]): row["memory"] for row in rows
             if _alive(row["memory"])}
    by_key = {rank.key(r.memory): r for r in ranked}
    hits = [_hit(by_key[t.key], shown[t.key], t.score) if t.key in by_key
            else _arrival(t, shown[t.key], plan.scoring, weight)
            for t in order if t.key in shown]
    if opts.diverse:
        hits = sorted(budgets.select(hits, opts.top_k, kind=lambda h: h.kind),
                      key=lambda h: -h.score)
    return Answered(hits, 1 if order else 0)


def _hit(r: rank.Ranked, memory: dict[str, Any], score: float) -> Hit:
    """A hit of the ranking: what it shows (`memory`), its score (after conversation
    order), its score's parts, and the path association reached it by."""
    steps = [PathStep(**s) for s in path(r.reached)]
    activation = r.reached.bonus if r.reached else None
    c = r.candidate
    if c is not None:
        return to_hit({"memory": memory, "score": score, "relevance": c.relevance,
                       "cosine": c.cosine, "bm25": c.bm25, "vector_rank": c.vector_rank,
                       "text_rank": c.text_rank, "retention": c.retention, "layer": c.layer},
                      activation=activation, path=steps)
    return to_hit({"memory": memory, "score": score, "relevance": r.cosine,
                   "cosine": r.cosine, "retention": r.retention, "layer": r.layer},
                  via="association", activation=activation, path=steps)


def path(r: rank.Reached | None) -> list[dict[str, Any]]:
    """The steps that reached a memory ({source, target, kind, name, weight}); a memory
    the query names is reached from the query itself."""
    if r is None:
        return []
    steps = []
    if r.prev is not None:
        steps.append({"source": r.prev["from"], "target": r.source, **r.prev["step"]})
    steps.append({"source": r.source or QUERY, "target": r.key[1], **r.step})
    return steps


def _arrival(t: turns.Turn, memory: dict[str, Any], scoring: rank.Scoring,
             weight: float) -> Hit:
    """A neighbour the ranking did not hold, brought in by a turn next to it."""
    retention, layer, _ = scoring.factors(memory)
    return to_hit({"memory": memory, "score": t.score, "relevance": None,
                   "retention": retention, "layer": layer},
                  via="association", activation=t.score, path=t.path(weight))


def _alive(memory: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    return memory is not None and memory.get("id") is not None \
        and memory.get("text") is not None
