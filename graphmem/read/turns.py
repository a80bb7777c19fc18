"""Conversation order in recall: the turn after the one that matches a question's words
is often its answer, so a ranked memory lifts and is lifted by its neighbours in its
session (the NEXT edges `ingest` writes).

Each memory x of the ranking scores s(x) + w · max(s(prev x), s(next x)), s being the
scores before this step (0 for a memory outside the ranking); a neighbour outside the
ranking comes in with that lift alone, its path saying which turn brought it. Measured
on LoCoMo (README, "Recall, measured"): with context in the candidates, w = 0.3.
"""

from __future__ import annotations

from typing import Any

from graphmem.read.rows import to_hit
from graphmem.types import Hit, PathStep


def rerank(hits: list[Hit], rows: list[dict[str, Any]], weight: float, k: int) -> list[Hit]:
    """`hits` re-ranked with their conversation neighbours, best first, at most `k`:
    `rows` are each hit's neighbours ({id, scope, prev, next}, each null or {memory,
    retention, layer}: `recall/neighbours` with the factors rank.py gives them)."""
    by_key = {(h.scope, h.id): h for h in hits}
    best: dict[tuple[str, str], float] = {}
    arrivals: dict[tuple[str, str], tuple[float, Hit, str, dict[str, Any]]] = {}
    for r in rows:
        hit = by_key[(r["scope"], r["id"])]
        for side in ("prev", "next"):
            found = r[side]
            if found is None:
                continue
            key = (found["memory"]["scope"], found["memory"]["id"])
            if key in by_key:
                best[key] = max(best.get(key, 0.0), hit.score)
            elif weight * hit.score > arrivals.get(key, (0.0,))[0]:
                arrivals[key] = (weight * hit.score, hit, side, found)
    ranked = [h.model_copy(update={"score": h.score + weight * best.get((h.scope, h.id), 0.0)})
              for h in hits]
    ranked += [_arrival(score, hit, side, found, weight)
               for score, hit, side, found in arrivals.values()]
    ranked.sort(key=lambda h: (-h.score, h.id))
    return ranked[:k]


def _arrival(score: float, hit: Hit, side: str, found: dict[str, Any], weight: float) -> Hit:
    """A neighbour outside the ranking, brought in by `hit` (it is the turn after `hit`
    when `side` is "next")."""
    step = PathStep(source=hit.id, target=found["memory"]["id"], kind="turn",
                    name="the turn after" if side == "next" else "the turn before",
                    weight=weight)
    return to_hit({"memory": found["memory"], "score": score, "relevance": None,
                   "retention": found["retention"], "layer": found["layer"]},
                  via="association", activation=score, path=[step])
