"""What one recall reads, decided before anything is read: a pure, frozen plan made from
the query and its options (docs/architecture.md, "The read path"). Every stage takes it
and returns its own result with its round trips; none works a flag out again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graphmem.base.errors import InputError
from graphmem.base.gates import shown
from graphmem.base.models import Model
from graphmem.base.options import RecallOptions
from graphmem.base.types import META_KEY
from graphmem.base.vocabulary import KINDS
from graphmem.read import fusion, keywords, rank

#: Exact recall ranks the newest this many matches (every match is equally relevant).
EXACT_DEPTH = 1000
#: The window a recall without `since` or `until` reads: a datetime like a given one, so
#: the server's plan for the query serves both (fragments/visible).
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC)
#: The query vector a recall that reads none (keyword mode) passes, with `semantic` false:
#: a list of floats as a query's vector is, so one plan serves both (a null made a plan of
#: its own: the first keyword recall after a start took 3.6 s).
NO_VECTOR = [0.0]


@dataclass(frozen=True)
class RecallPlan:
    """One recall: its query and terms, where it reads, the sizes of its lists (each from
    one rule, `of`), and how it scores and spreads."""

    query: str
    #: The query's words as the full-text lists and BM25 take them (tokenised once).
    terms: tuple[str, ...]
    opts: RecallOptions
    #: The caller's scope, then the layers mounted under it.
    scopes: tuple[str, ...]
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
    scoring: rank.Scoring
    fusing: fusion.Fusing
    spreading: rank.Spreading

    @classmethod
    def of(cls, opts: RecallOptions, query: str, *, scope: str, now: datetime,
           model: Model) -> RecallPlan:
        """The plan of recalling `query` in `scope` at `now` with `opts`, scored with the
        embedding `model`'s numbers."""
        with_turns = opts.context.turn_weight > 0
        # Diversity picks from a deeper ranking than it returns.
        k = opts.top_k * opts.association.pool_factor if opts.diverse else opts.top_k
        deep = opts.hops > 0 or opts.diverse or with_turns
        fetch = max(opts.fusion.candidates, opts.top_k)
        pool_k = min(fetch, opts.top_k * opts.association.pool_factor) if deep else opts.top_k
        fields = (("text",) if opts.mode in ("keyword", "hybrid") else ()) + (
            ("context",) if opts.mode == "hybrid" and opts.context.enabled
            and opts.fusion.alpha is None else ())
        a = opts.association
        return cls(query=query, terms=tuple(keywords.query_terms(query)), opts=opts,
                   scopes=(scope, *opts.layers), k=k, fetch=fetch, pool_k=pool_k,
                   answer_k=max(pool_k, k) if with_turns else k,
                   exact_k=max(pool_k, k, EXACT_DEPTH),
                   needs_vector=opts.mode in ("vector", "hybrid") or opts.hops > 0,
                   with_turns=with_turns, fields=fields,
                   scoring=rank.Scoring(
                       scope=scope, now=now, decay=opts.decay,
                       temporal=opts.fusion.temporal_weight,
                       layer_factor=opts.fusion.layer_factor,
                       use_weight=opts.feedback.use_weight),
                   fusing=fusion.Fusing(
                       mode=opts.mode, alpha=opts.fusion.alpha, rrf=opts.fusion.rrf,
                       rrf_k=opts.fusion.rrf_k, context="context" in fields,
                       session_weight=opts.context.session_weight, fetch=fetch,
                       floor=model.cosine_floor, dense=model.dense_weight),
                   spreading=rank.Spreading(
                       seeds=a.seeds, hops=opts.hops, width=a.width, beta=a.weight,
                       link_tau=a.link_tau_days, entity_weight=a.entity_weight,
                       hop_decay=a.hop_decay, mention_weight=a.mention_weight,
                       subject_weight=a.subject_weight, floor=model.cosine_floor))

    @property
    def scope(self) -> str:
        """The caller's scope."""
        return self.scopes[0]

    def common(self) -> dict[str, Any]:
        """The parameters every recall query takes: where it reads, and which memories
        pass."""
        o = self.opts
        return {"scope": self.scope, "layers": o.layers, "lifecycles": o.lifecycles(),
                "kinds": list(o.kinds or KINDS), "filters": filters(o.filters),
                "since": o.since or EARLIEST, "until": o.until or LATEST,
                "turns": self.with_turns}

    def finding(self) -> dict[str, Any]:
        """`common()` for the direct hits' query: association's query reads each ranked
        memory's neighbours in its session for the pool it is given, so the candidates
        carry them only without it."""
        return {**self.common(), "turns": self.with_turns and self.opts.hops == 0}


def vector_params(vector: list[float] | None) -> dict[str, Any]:
    """The query's vector as recall's queries take it: `vector`, and whether they read it
    (`semantic`; not in keyword recall, which embeds no query)."""
    return {"vector": NO_VECTOR if vector is None else vector, "semantic": vector is not None}


def filters(given: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """Metadata filters as the recall queries take them; a key must be a plain name."""
    out = []
    for key, values in given.items():
        if not META_KEY.fullmatch(key):
            raise InputError(f"filter key {shown(key)} must be letters, digits or _",
                             field="--filter")
        out.append({"key": f"meta.{key}", "values": values})
    return out
