"""How big each list of one recall is: a pure, frozen plan made from its options before
anything is read (docs/architecture.md, "The read path")."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.options import RecallOptions

#: Exact recall ranks the newest this many matches (every match is equally relevant).
EXACT_DEPTH = 1000


@dataclass(frozen=True)
class RecallPlan:
    """The sizes of one recall, each from one rule (`of`)."""

    #: What the answer ranks before diversity picks `top_k` of it.
    k: int
    #: How long each candidate list is (vector, full-text, context).
    fetch: int
    #: How many direct hits are ranked: deeper than the answer when association, diversity
    #: or conversation order ranks a pool.
    pool_k: int
    #: How many association ranks: the pool too when conversation order reorders it.
    answer_k: int
    #: How many newest matches exact recall reads.
    exact_k: int
    #: Whether the query is embedded (vector or hybrid lists, or association's closeness).
    needs_vector: bool
    #: Whether conversation order reranks (each hit's turn before and after is read).
    with_turns: bool
    #: The full-text fields searched: memory text, and a turn's context in hybrid.
    fields: tuple[str, ...]

    @classmethod
    def of(cls, opts: RecallOptions) -> RecallPlan:
        """The plan of a recall with `opts`."""
        with_turns = opts.context.turn_weight > 0
        # Diversity picks from a deeper ranking than it returns.
        k = opts.top_k * opts.association.pool_factor if opts.diverse else opts.top_k
        deep = opts.hops > 0 or opts.diverse or with_turns
        fetch = max(opts.fusion.candidates, opts.top_k)
        pool_k = min(fetch, opts.top_k * opts.association.pool_factor) if deep else opts.top_k
        fields = (("text",) if opts.mode in ("keyword", "hybrid") else ()) + (
            ("context",) if opts.mode == "hybrid" and opts.context.enabled
            and opts.fusion.alpha is None else ())
        return cls(k=k, fetch=fetch, pool_k=pool_k,
                   answer_k=max(pool_k, k) if with_turns else k,
                   exact_k=max(pool_k, k, EXACT_DEPTH),
                   needs_vector=opts.mode in ("vector", "hybrid") or opts.hops > 0,
                   with_turns=with_turns, fields=fields)
