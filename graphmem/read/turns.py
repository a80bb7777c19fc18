"""Conversation order in recall: the turn after the one that matches a question's words
is often its answer, so a ranked memory lifts and is lifted by its neighbours in its
session (the NEXT edges `ingest` writes).

Each memory x of the ranking scores s(x) + w · max(s(prev x), s(next x)), s being the
scores before this step (0 for a memory outside the ranking); a neighbour outside the
ranking comes in with that lift alone, its path saying which turn brought it. Measured
on LoCoMo (docs/decisions.md, "Conversation order lifts by 0.1"): once contexts are
embedded and a turn's session scores with it, w = 0.1.

The ranking's neighbours come with its facts (`fragments/neighbours`), so this step
needs no round trip; what the answer shows is read after it, for the answer alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.base.types import PathStep

Key = tuple[str, str]  # (scope, id)


@dataclass(frozen=True)
class Turn:
    """A memory of the answer after conversation order: its score, and for a neighbour
    the ranking did not hold, the hit that brought it and which side of it it is."""

    key: Key
    score: float
    brought_by: str | None = None
    side: str | None = None  # "after": the turn after `brought_by`; "before"

    def path(self, weight: float) -> list[PathStep]:
        """How a neighbour came in ([] for a memory the ranking held)."""
        if self.brought_by is None:
            return []
        return [PathStep(source=self.brought_by, target=self.key[1], kind="turn",
                         name=f"the turn {self.side}", weight=weight)]


def rerank(scored: list[tuple[Key, float]],
           neighbours: dict[Key, tuple[str | None, str | None]],
           weight: float, k: int) -> list[Turn]:
    """The ranking `scored` (memory, score) re-ranked with the memories' neighbours
    (`neighbours`: the ids of the turns before and after each, or None), best first
    (ties: the turn after a hit before the turn before one, then by id), at most `k`."""
    held = dict(scored)
    best: dict[Key, float] = {}
    arrivals: dict[Key, Turn] = {}
    for key, score in scored:
        for side, other in zip(("before", "after"), neighbours.get(key, (None, None)),
                               strict=True):
            if other is None:
                continue
            near = (key[0], other)
            if near in held:
                best[near] = max(best.get(near, 0.0), score)
            elif weight * score > (arrivals[near].score if near in arrivals else 0.0):
                arrivals[near] = Turn(near, weight * score, brought_by=key[1], side=side)
    ranked = [Turn(key, score + weight * best.get(key, 0.0)) for key, score in scored]
    ranked += arrivals.values()
    ranked.sort(key=lambda t: (-t.score, t.side == "before", t.key[1]))
    return ranked[:k]
