"""Recall's first stage: the direct hits. The full-text lists (`recall/text_lists`, asked
while the query embeds), then one `recall/retrieve`: the vector list (the index, or an
exact scan of a small scope), the memories of the text lists and each one's facts, in the
caller's scope and filters only; `recall/exact` instead for exact recall. Ranked by
`rank.direct` (docs/architecture.md, "The read path")."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any, cast

from graphmem.base.rows import CandidateRow, RetrieveRow, TextListRow, placed
from graphmem.graph import scope_model
from graphmem.graph.keys import scope_key
from graphmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX
from graphmem.graph.scope_indexes import SCAN_BELOW
from graphmem.graph.store import Store
from graphmem.read import keywords, rank
from graphmem.read.fusion import Candidate
from graphmem.read.plan import RecallPlan, vector_params

#: Recalls that reuse the vector depth another needed before starting from the top again.
DEPTH_REUSE = 100
#: How deep an index is asked first, in multiples of `fetch`: its neighbours are
#: approximate, and the exact top `fetch` of twice as many is the true one nearly always
#: (docs/decisions.md, "Similarities are exact").
INDEX_DEPTH = 2
#: The deepest the 5.26 index is asked, in multiples of `fetch`; a scope rarer than that
#: among the index's neighbours is scanned.
MAX_DEPTH = 20
#: How many more neighbours than the pass rate says are asked, so one trip suffices.
MARGIN = 1.5
#: Scope-and-filter combinations whose vector depth is remembered (least recent go first).
DEPTH_KEYS = 1024


def deeper(depth: int, wanted: int, found: int, deepest: int) -> int:
    """How deep to ask a search again whose first `depth` gave `found` of the `wanted`:
    as deep as that pass rate says fills the list, with a margin, at most `deepest`
    (at once when none passed). The one deepening rule: the vector and full-text lists
    here, and the LangGraph store's filtered search."""
    if not found:
        return deepest
    return min(deepest, math.ceil(depth * wanted / found * MARGIN))


class DepthCache:
    """How deep recall had to ask the vector index last time, and how often that depth
    was reused, per scope and filters: other scopes crowd a scope's neighbours on 5.26, and
    asking deep at once saves a trip. Least recently used go first; safe across threads
    (the service and the LangGraph store recall from many)."""

    def __init__(self, size: int = DEPTH_KEYS) -> None:
        self._depths: OrderedDict[tuple[Any, ...], tuple[int, int]] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...], first: int) -> tuple[int, int]:
        """The depth to start `key`'s search at and its uses so far (`first`, 0 if none,
        or after DEPTH_REUSE uses: a scope that grows may no longer need it)."""
        with self._lock:
            depth, uses = self._depths.get(key, (first, 0))
        return (first, 0) if uses >= DEPTH_REUSE else (depth, uses)

    def put(self, key: tuple[Any, ...], depth: int, uses: int) -> None:
        """Remember that `depth` sufficed for `key`, used `uses` times."""
        with self._lock:
            self._depths[key] = (depth, uses)
            self._depths.move_to_end(key)
            while len(self._depths) > self._size:  # a long-lived server sees many filters
                self._depths.popitem(last=False)

    def forget(self, scopes: Sequence[str] | None) -> None:
        """Drop what is remembered for `scopes` (None: every scope; one got its own index,
        or was dropped)."""
        with self._lock:
            for key in [k for k in self._depths if scopes is None or k[0] in scopes]:
                del self._depths[key]

    def items(self) -> list[tuple[tuple[Any, ...], tuple[int, int]]]:
        """What is remembered, least recent first."""
        with self._lock:
            return list(self._depths.items())



def lucene_query(text: str, scopes: list[str] | None = None, field: str = "text") -> str | None:
    """The words of `text` as a Lucene OR-query over `field` (memory text, or a turn's
    context), required to be in one of `scopes` (a clause that adds nothing to the
    score); no syntax of the caller reaches Lucene."""
    return lucene_terms(keywords.query_terms(text), scopes, field)


def lucene_terms(terms: Sequence[str], scopes: Sequence[str] | None = None,
                 field: str = "text") -> str | None:
    """`lucene_query` of words already taken from a query (`keywords.query_terms`)."""
    if not terms:
        return None
    if field not in ("text", "context"):
        raise ValueError(f"no full-text field {field!r}")
    words = f"{field}:({' '.join(dict.fromkeys(terms))})"
    if scopes is None:
        return words
    keys = " ".join(scope_key(s) for s in dict.fromkeys(scopes))
    return f"+scope_key:({keys})^0 +{words}"


@dataclass(frozen=True)
class TextLists:
    """Each full-text field's best `fetch` as {id, scope, bm25} (None where it was not
    searched), and the round trips they took."""

    text: list[dict[str, Any]] | None = None
    context: list[dict[str, Any]] | None = None
    trips: int = 0


@dataclass(frozen=True)
class Direct:
    """The direct hits, best first, the round trips they took, and the embedding model of
    each scope searched ({scope, model}: fragments/scope_models; none for exact recall,
    which compares no vectors)."""

    pool: list[Candidate]
    trips: int
    models: list[dict[str, Any]] = field(default_factory=list)


class TextSearch:
    """The full-text lists of one recall, asked before the query is embedded."""

    def __init__(self, store: Store, plan: RecallPlan) -> None:
        searches = [{"list": f, "scope": s, "q": lucene_terms(plan.terms, [s], field=f),
                     "limit": plan.fetch}
                    for f in plan.fields for s in dict.fromkeys(plan.scopes)
                    ] if plan.terms else []
        self.params = {**plan.common(), "text_index": FULLTEXT_INDEX, "fetch": plan.fetch,
                       "small": keywords.SMALL_SCOPE, "searches": searches,
                       "own_indexes": True}
        self.plan = plan
        # The server finds them while the query embeds.
        self.pending = cast("Future[list[TextListRow]]", store.submit(
            "recall/text_lists", **self.params)) if searches else None

    def lists(self, store: Store) -> TextLists:
        """The lists, once the server has them (asked again deeper where one came short)."""
        if self.pending is None:
            return TextLists()
        return _text_lists(store, self.pending.result(), self.params, self.plan)


def direct(store: Store, plan: RecallPlan, vector: list[float] | None,
           lists: TextLists) -> Direct:
    """The direct hits of the plan's query (with the full-text `lists` of `TextSearch`),
    ranked by `rank.direct`, best `plan.pool_k` first."""
    opts = plan.opts
    if opts.mode == "exact":
        exact = cast(list[CandidateRow], store.read(
            "recall/exact", text=plan.query, case_sensitive=opts.case_sensitive,
            **plan.finding(), k=plan.exact_k))
        return Direct(rank.direct([Candidate.of(placed(r)) for r in exact], plan.scoring,
                                  replace(plan.fusing, mode="exact", context=False),
                                  max(plan.pool_k, plan.k)), 1)
    use_vector = vector if opts.mode in ("vector", "hybrid") else None
    params = retrieve_params(plan, use_vector, lists)
    if use_vector is None:
        rows, trips = cast(list[RetrieveRow], store.read("recall/retrieve", **params)), 1
    else:
        key = (plan.scope, tuple(opts.layers), tuple(opts.kinds or ()),
               repr(sorted(opts.filters.items())), tuple(opts.lifecycles()),
               opts.since, opts.until)
        rows, trips = vector_candidates(store, "recall/retrieve", params, key)
    # Without a text list hybrid ranks by the vector alone; without a vector, by BM25.
    mode = ("keyword" if use_vector is None else "vector" if lists.text is None
            else opts.mode)
    fusing = replace(plan.fusing, mode=mode, context=lists.context is not None)
    return Direct(rank.direct([Candidate.of(placed(c)) for c in rows[0]["candidates"]],
                              plan.scoring, fusing, plan.pool_k), trips, rows[0]["models"])


def retrieve_params(plan: RecallPlan, vector: list[float] | None,
                    lists: TextLists) -> dict[str, Any]:
    """`recall/retrieve`'s parameters for the plan's direct hits, the query's `vector`
    (None: no vector list) and the full-text `lists`."""
    return {**plan.finding(), **vector_params(vector),
            "lists": {"text": lists.text, "context": lists.context},
            "vector_index": VECTOR_INDEX, "fetch": plan.fetch,
            "index_fetch": plan.fetch * INDEX_DEPTH, "scan": False, "scan_below": SCAN_BELOW,
            "own_indexes": True, "legacy": scope_model.LEGACY}


def vector_candidates(store: Store, name: str, params: dict[str, Any],
                      key: tuple[Any, ...]) -> tuple[list[RetrieveRow], int]:
    """The rows of query `name` (recall/retrieve) whose vector list is this scope's true
    top `fetch`.

    A scope smaller than SCAN_BELOW is scanned exactly in the first round trip (the query
    counts it). An index is asked for INDEX_DEPTH x `fetch` neighbours, of which the
    query keeps the `fetch` of the highest exact similarity. Neo4j 2026's index filters
    inside itself (the "search" variant): one round trip, unless metadata filters, which
    it cannot hold, leave its list short. On 5.26 the index cannot filter, and other
    scopes fill its neighbours: when fewer than `fetch` pass, it is asked again as deep as
    the pass rate seen says fills the list (`deeper`), up to MAX_DEPTH x `fetch`; a scope
    rarer than that is scanned, as is one whose index answer came back short of what was
    asked (vectors deleted meanwhile can hide some). The depth that sufficed is where the
    next recall with the same scope and filters starts (`DepthCache`). Returns the rows
    and the round trips.
    """
    if store.variant == "search" and not params["filters"]:
        # The index filters by everything else itself: its list is the scope's own top.
        return cast(list[RetrieveRow], store.read(name, **params)), 1
    fetch = params["fetch"]
    deepest = fetch * MAX_DEPTH
    cache = store.kept.get(DepthCache)
    depth, uses = cache.get(key, params["index_fetch"])
    trips = 0
    while True:
        trips += 1
        scan = depth > deepest
        rows = cast(list[RetrieveRow], store.read(
            name, **{**params, "index_fetch": min(depth, deepest), "scan": scan}))
        # A scan (asked, or for a small scope) returns no index neighbours: nothing more.
        found = (rows[0]["vector_found"] or 0) if rows else 0
        returned = rows[0]["index_returned"] if rows else None
        returned = depth if returned is None else returned
        # 5.26's index gave some, short of what was asked: it holds no more, or vectors
        # other scopes' writes deleted meanwhile hid some (a CI run's recall came back
        # with 6 of 10 beside another worker): only a scan is sure. (0: the query
        # scanned a small scope itself.)
        short = 0 < returned < depth and store.variant != "search"
        if scan or found >= fetch or (returned < depth and not short):
            cache.put(key, depth, uses + 1)
            return rows, trips
        # Deep enough that this pass rate fills the list; none passed, or short: scan.
        depth = deepest + 1 if short else deeper(depth, fetch, found, deepest + 1)


def _text_lists(store: Store, rows: list[TextListRow], params: dict[str, Any],
                plan: RecallPlan) -> TextLists:
    """The full-text lists from `recall/text_lists`' rows (one per scope and field), each
    the best `fetch` of its field over every scope searched, as {id, scope, bm25}.

    A small scope's matches are scored by its own statistics (`keywords.bm25`). A big
    scope's search that came back short although Lucene gave all it was asked for
    (archived, private or other kinds crowding its top) is asked again as deep as its
    pass rate says fills it (`deeper`), up to MAX_DEPTH x `fetch`."""
    fetch = params["fetch"]
    deepest, trips = fetch * MAX_DEPTH, 1
    found: dict[str, list[dict[str, Any]]] = {f: [] for f in plan.fields}
    while rows:
        again = []
        for row in rows:
            search = next(s for s in params["searches"]
                          if (s["list"], s["scope"]) == (row["list"], row["scope"]))
            # A match a concurrent forget deleted reads with null properties: gone.
            row = {**row, "found": [h for h in row["found"] if h["id"] is not None
                                    and (not row["small"] or h["text"] is not None)]}
            if row["small"]:
                texts = {h["id"]: h["text"] or "" for h in row["found"] if h["id"]}
                scores = keywords.bm25(plan.terms, texts, docs=row["docs"] or 0,
                                       chars=row["chars"] or 0,
                                       counts=store.kept.get(keywords.WordCounts))
                found[row["list"]] += [{"id": i, "scope": row["scope"], "bm25": score}
                                       for i, score in scores.items() if score > 0]
            elif (len(row["found"]) < fetch and row["returned"] >= search["limit"]
                  and search["limit"] < deepest):
                again.append({**search, "limit": deeper(search["limit"], fetch,
                                                        len(row["found"]), deepest)})
            else:
                found[row["list"]] += [{k: h[k] for k in ("id", "scope", "bm25")}
                                       for h in row["found"]]
        if not again:
            break
        params = {**params, "searches": again}
        rows = cast(list[TextListRow], store.read("recall/text_lists", **params))
        trips += 1
    best = {field: sorted(hits, key=lambda h: (-h["bm25"], h["scope"], h["id"]))[:fetch]
            for field, hits in found.items()}
    return TextLists(text=best.get("text"), context=best.get("context"), trips=trips)
