"""Type budgets (recall's `diverse`, and `context`): a share of the slots per kind,
so one kind cannot fill a recall or an L1 block. Pure; used by `recall --diverse` and by
`context`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: Share of the slots per kind; what a kind leaves unused goes to the best of any kind.
BUDGETS = {"semantic": 0.40, "episodic": 0.25, "procedural": 0.20, "heuristic": 0.075,
           "core": 0.075}


def select(items: Sequence[T], top: int, kind: Callable[[T], str]) -> list[T]:
    """At most `top` of `items` (best first), each budgeted kind first given its share,
    round-robin across kinds, then the unused slots to the best remaining of any kind.
    Returned in the order chosen: the budgeted picks before the extras."""
    quota = {k: max(1, round(share * top)) for k, share in BUDGETS.items()}
    by_kind: dict[str, list[T]] = {}
    for item in items:
        by_kind.setdefault(kind(item), []).append(item)
    chosen: list[T] = []
    while len(chosen) < top and any(quota.get(k, 0) > 0 and xs for k, xs in by_kind.items()):
        for k, xs in by_kind.items():
            if len(chosen) < top and quota.get(k, 0) > 0 and xs:
                quota[k] -= 1
                chosen.append(xs.pop(0))
    taken = {id(x) for x in chosen}
    rest = [x for x in items if id(x) not in taken]
    return chosen + rest[:max(0, top - len(chosen))]
