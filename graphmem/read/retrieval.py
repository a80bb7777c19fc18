"""The read path: from a query to ranked memories (docs/architecture.md, "The read path").

1. Candidates (`cypher/recall/candidates.cypher`, or `exact.cypher`): the vector index
   (or an exact scan of a small scope) and/or the full-text lists (`text_lists.cypher`,
   asked on a thread while the query embeds), filtered to the caller's scope,
   visibility, lifecycle, kinds and metadata; fused by reciprocal rank or an alpha
   blend; scored as relevance x temporal factor x layer factor. Hybrid fusion also ranks
   every candidate, and the turn after each, as it reads with the turn before it (its
   context).
2. Associative expansion and ranking (`associate.cypher`: the candidates and up to two
   hops of association in one round trip; `associate_pool.cypher` after an exact
   search): activation spreads from the best direct hits and from the entities the query
   names over ASSOCIATED edges and shared entities, scope enforced at every hop; what it
   reaches earns a bonus in proportion to its own similarity to the query (not where it
   is what a hit or the query names), memories about what the query names rise by a
   factor, and linked memories come in, each with the path that reached it. The same
   round trip returns each ranked turn's neighbours in its session.
3. Conversation order (`turns.py`): each memory of the ranked pool is lifted by its
   better neighbour in its session, and the turn after (or before) a strong hit comes
   in, its path saying so (`turns.cypher` fetches the neighbours when association is
   off).

Every recall reports where its time went and its round trips (`RecallResult.profile`).
The temporal factor is `(1 - w) + w * R^0.3` with a small w, so decay only reorders
memories of comparable relevance (w = 1 buries old answers: docs/decisions.md).
"""

from __future__ import annotations

import math
import re
import time
from datetime import datetime
from typing import Any

from graphmem.embed import Embedder
from graphmem.errors import InputError
from graphmem.graph.model import KINDS
from graphmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX, entity_prefix, scope_key
from graphmem.graph.store import Store
from graphmem.lifecycle.decay import cypher_params
from graphmem.options import RecallOptions
from graphmem.read import budgets, turns
from graphmem.read.rows import to_hit
from graphmem.types import (
    MAX_QUERY_CHARS,
    QUERY,
    Hit,
    PathStep,
    RecallProfile,
    RecallResult,
    as_utc,
)
from graphmem.write.extract import Extractor
from graphmem.write.gates import shown

_WORD = re.compile(r"\w+", re.UNICODE)
_ALNUM = re.compile(r"[^\W_]", re.UNICODE)
_LUCENE_OPERATORS = {"and", "or", "not", "to"}
#: Lucene's English stop words and question words: the full-text index keeps stop words
#: (Neo4j's default analyzer), so the query leaves them out or BM25 rewards "the".
STOP_WORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
    "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
    "these", "they", "this", "to", "was", "will", "with", "who", "whom", "whose", "what",
    "when", "where", "which", "why", "how", "did", "does", "do", "i", "you", "he", "she",
    "we", "me", "my", "your", "his", "her", "our", "has", "have", "had", "been"
})


def lucene_query(text: str, scopes: list[str] | None = None, field: str = "text") -> str | None:
    """The words of `text` as a Lucene OR-query over `field` (memory text, or a turn's
    context), required to be in one of `scopes` (a clause that adds nothing to the
    score); no syntax of the caller reaches Lucene."""
    # A "word" of underscores alone is no word to Lucene's analyzer: searching it would
    # leave the scope clause alone and match the whole scope.
    words = [w.lower() for w in _WORD.findall(text) if _ALNUM.search(w)]
    kept = [w for w in words if w not in _LUCENE_OPERATORS and w not in STOP_WORDS]
    # A query of nothing but stop words still searches for them.
    kept = kept or [w for w in words if w not in _LUCENE_OPERATORS]
    if not kept:
        return None
    if field not in ("text", "context"):
        raise ValueError(f"no full-text field {field!r}")
    terms = f"{field}:({' '.join(dict.fromkeys(kept))})"
    if scopes is None:
        return terms
    keys = " ".join(scope_key(s) for s in dict.fromkeys(scopes))
    return f"+scope_key:({keys})^0 +{terms}"


def _filters(filters: dict[str, list[Any]]) -> list[dict[str, Any]]:
    from graphmem.types import META_KEY

    out = []
    for key, values in filters.items():
        if not META_KEY.fullmatch(key):
            raise InputError(f"filter key {shown(key)} must be letters, digits or _",
                             field="--filter")
        out.append({"key": f"meta.{key}", "values": values})
    return out


def recall(store: Store, embedder: Embedder, query: str, *, scope: str, now: datetime,
           options: RecallOptions | None = None,
           extractor: Extractor | None = None) -> RecallResult:
    """The memories of `scope` (and mounted layers) that best answer `query`, best first;
    `extractor` finds the entities the query names (none without it)."""
    opts = options or RecallOptions()
    if not query.strip():
        raise InputError("the query is empty", field="query")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query is {len(query)} characters; the limit is "
                         f"{MAX_QUERY_CHARS}", field="query")
    needs_vector = opts.mode in ("vector", "hybrid") or opts.hops > 0
    if needs_vector:
        embedder.warm()  # the clock below measures the query's embedding, not model loading
    started = time.perf_counter()
    lap = _Laps(started)
    profile = RecallProfile()
    common: dict[str, Any] = {
        "scope": scope, "layers": opts.layers, "lifecycles": opts.lifecycles(),
        "kinds": opts.kinds, "filters": _filters(opts.filters),
        "since": opts.since, "until": opts.until,
        "temporal": opts.temporal_weight, "layer_factor": opts.layer_factor,
        "use_weight": opts.use_weight,
        "decay": cypher_params(opts.decay), "now": as_utc(now),
        # Diversity picks from a deeper ranking than it returns.
        "k": opts.top_k * opts.pool_factor if opts.diverse else opts.top_k,
    }
    # Association, diversity and conversation order each rank a deeper pool than the answer.
    deep = opts.hops > 0 or opts.diverse or opts.turn_weight > 0
    fetch = max(opts.candidates, opts.top_k)
    pool = min(fetch, opts.top_k * opts.pool_factor) if deep else opts.top_k
    lucene = (lucene_query(query, [scope, *opts.layers])
              if opts.mode in ("keyword", "hybrid") else None)
    context_lucene = (lucene_query(query, [scope, *opts.layers], field="context")
                      if opts.mode == "hybrid" and opts.context and opts.alpha is None
                      else None)
    # The full-text lists need no vector: the server finds them while the query embeds.
    text_params = {**common, "text_index": FULLTEXT_INDEX, "fetch": fetch,
                   "lucene": {"text": lucene, "context": context_lucene}}
    texts = (store.submit("recall/text_lists", **text_params, text_fetch=fetch)
             if lucene is not None else None)
    vector = embedder.embed_query(query).tolist() if needs_vector else None
    profile.embed_ms = lap()
    with_turns = opts.turn_weight > 0
    named = (query_entities(extractor, query, now, [scope, *opts.layers])
             if opts.hops > 0 else [])
    association = (_association_params(
        opts, answer_k=max(pool, common["k"]) if with_turns else common["k"],
        turns=with_turns) if opts.hops > 0 else None)
    if opts.mode == "exact":
        rows = store.read("recall/exact", text=query, case_sensitive=opts.case_sensitive,
                          **{**common, "k": max(pool, common["k"])})
        profile.round_trips += 1
        if association is not None:
            rows = store.read("recall/associate_pool", **common, **association,
                              vector=vector, pool=[_candidate(r) for r in rows],
                              lists={"entities": named})
            profile.round_trips += 1
    else:
        lists: dict[str, Any] = {"text": None, "context": None}
        if texts is not None:
            lists, trips = _text_lists(store, texts.result()[0], text_params)
            profile.round_trips += trips
        profile.text_ms = lap()
        params = {
            **common,
            "k": pool, "hydrate": association is None,
            "vector": vector if opts.mode in ("vector", "hybrid") else None,
            # Lists whose size varies per query travel in one map: Neo4j keys a cached
            # plan on each list parameter's size, and planning this query takes ~1.3 s
            # (docs/decisions.md, "Lists that vary travel in one map").
            "lists": {**lists, "entities": named},
            "vector_index": VECTOR_INDEX, "every_kind": list(KINDS),
            "fetch": fetch, "index_fetch": fetch, "alpha": opts.alpha,
            "rrf_k": opts.rrf_k, "scan": False, "scan_below": SCAN_BELOW,
            **(association or {}),
        }
        # With association on, candidates and association are one query, one round trip.
        name = "recall/candidates" if association is None else "recall/associate"
        if params["vector"] is None:
            rows = store.read(name, **params)
            profile.round_trips += 1
        else:
            key = (scope, tuple(opts.layers), tuple(opts.kinds or ()),
                   repr(sorted(opts.filters.items())), tuple(opts.lifecycles()),
                   opts.since, opts.until)
            rows, trips = _vector_candidates(store, name, params, key)
            profile.round_trips += trips
    profile.candidates_ms = lap()
    neighbours: list[dict[str, Any]] = []
    if association is not None:
        hits, neighbours = ranked(rows[0])
    else:
        hits = [to_hit(r) for r in rows]
    profile.associate_ms = lap()
    if with_turns and opts.hops > 0:
        hits = turns.rerank(hits, neighbours, opts.turn_weight, common["k"])
    elif with_turns:
        hits, trips = turns.lift(store, hits, common, opts.turn_weight, k=common["k"])
        profile.round_trips += trips
    profile.turns_ms = lap()
    if opts.diverse:
        hits = sorted(budgets.select(hits, opts.top_k, kind=lambda h: h.kind),
                      key=lambda h: -h.score)
    took = (time.perf_counter() - started) * 1000
    return RecallResult(query=query, mode=opts.mode, scope=scope, hits=hits,
                        took_ms=round(took, 2), profile=profile)


class _Laps:
    """Milliseconds between successive calls, from `start`."""

    def __init__(self, start: float) -> None:
        self.last = start

    def __call__(self) -> float:
        now = time.perf_counter()
        took, self.last = (now - self.last) * 1000, now
        return round(took, 2)


#: A scope (with its layers) of fewer memories is scanned exactly instead of asking the
#: vector index, in the same round trip: a scan of 500 costs about what the index costs
#: at 100k (docs/decisions.md, "Small scopes are scanned").
SCAN_BELOW = 500
#: Recalls that reuse the vector depth another needed before starting from the top again.
DEPTH_REUSE = 100
#: The deepest the 5.26 index is asked, in multiples of `fetch`; a scope rarer than that
#: among the index's neighbours is scanned.
MAX_DEPTH = 20
#: How many more neighbours than the pass rate says are asked, so one trip suffices.
MARGIN = 1.5
#: Scope-and-filter combinations whose vector depth is remembered (least recent go first).
DEPTH_KEYS = 1024


def _vector_candidates(store: Store, name: str, params: dict[str, Any],
                       key: tuple[Any, ...]) -> tuple[list[dict[str, Any]], int]:
    """The rows of query `name` (recall/candidates, or recall/associate: the candidates
    with association) whose vector list is this scope's true top `fetch`.

    A scope smaller than SCAN_BELOW is scanned exactly in the first round trip (the query
    counts it). Neo4j 2026's index filters inside itself (the "search" variant): one
    round trip, unless metadata filters, which it cannot hold, leave its list short. On
    5.26 the index cannot filter, and other scopes fill its neighbours: when fewer than
    `fetch` pass, it is asked again as deep as the pass rate seen says fills the list
    (with a margin), up to MAX_DEPTH x `fetch`; a scope rarer than that is scanned. The
    depth that sufficed is where the next recall with the same scope and filters starts,
    for DEPTH_REUSE recalls; then it starts from the top again, since a scope that grows
    may no longer need it. Returns the rows and the round trips.
    """
    if store.variant == "search" and not params["filters"]:
        # The index filters by everything else itself: its list is the scope's own top.
        return store.read(name, **params), 1
    fetch = params["fetch"]
    deepest = fetch * MAX_DEPTH
    depth, uses = store.vector_depth.get(key, (fetch, 0))
    if uses >= DEPTH_REUSE:
        depth, uses = fetch, 0
    trips = 0
    while True:
        trips += 1
        scan = depth > deepest
        rows = store.read(name, **{**params, "index_fetch": min(depth, deepest), "scan": scan})
        first = rows[0] if rows else {}
        found = first.get("vector_found") or 0
        # A scan (asked, or for a small scope) returns no index neighbours: nothing more.
        # No row, or no candidate (associate's one row): none passed, or the scope is empty.
        returned = first.get("index_returned")
        returned = depth if returned is None else returned
        if scan or found >= fetch or returned < depth:
            store.vector_depth.pop(key, None)  # re-inserted last: the dict stays LRU
            store.vector_depth[key] = (depth, uses + 1)
            if len(store.vector_depth) > DEPTH_KEYS:  # a long-lived server sees many filters
                store.vector_depth.pop(next(iter(store.vector_depth)))
            return rows, trips
        # Deep enough that this pass rate fills the list with a margin; none passed: scan.
        depth = (math.ceil(depth * fetch / found * MARGIN) if found else deepest + 1)
        depth = min(depth, deepest + 1)


def _text_lists(store: Store, row: dict[str, Any],
                params: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The full-text lists of `recall/text_lists` (its first answer is `row`), each the
    scope's true top `fetch`: a list that came back short although the index gave all it
    was asked for (archived, private or other kinds crowding its top) is asked again as
    deep as its pass rate says fills it (with a margin), up to MAX_DEPTH x `fetch`.
    Returns the lists and the round trips."""
    fetch = params["fetch"]
    depth, deepest, trips = fetch, fetch * MAX_DEPTH, 1
    while True:
        short = [len(row[name]) for name in ("text", "context")
                 if row[name] is not None and len(row[name]) < fetch
                 and row["returned"][name] >= depth]
        if not short or depth >= deepest:
            return {"text": row["text"], "context": row["context"]}, trips
        found = min(short)
        depth = min(deepest, math.ceil(depth * fetch / found * MARGIN) if found else deepest)
        row = store.read("recall/text_lists", **params, text_fetch=depth)[0]
        trips += 1


def query_entities(extractor: Extractor | None, query: str, now: datetime,
                   scopes: list[str]) -> list[str]:
    """The graph keys, in each of `scopes`' entity spaces, of the entities `query` names."""
    if extractor is None:
        return []
    refs = {e.key for e in extractor.extract(query, now)}
    return [entity_prefix(s) + ref for s in dict.fromkeys(scopes) for ref in sorted(refs)]


def _association_params(opts: RecallOptions, *, answer_k: int,
                        turns: bool) -> dict[str, Any]:
    """The parameters `fragments/association` adds to a recall's (besides the entities
    the query names, `$lists.entities`): how activation spreads from the best direct
    candidates and from those entities, how much what it reaches earns, and how many
    ranked hits come back."""
    return {"seeds": opts.seeds, "hops": opts.hops, "width": opts.width,
            "beta": opts.association, "link_tau": opts.link_tau_days,
            "entity_weight": opts.entity_weight, "hub_limit": opts.hub_limit,
            "hop_decay": opts.hop_decay,
            "mention_weight": opts.mention_weight, "subject_weight": opts.subject_weight,
            "answer_k": answer_k, "turns": turns}


_CANDIDATE = ("id", "scope", "score", "relevance", "cosine", "bm25", "vector_rank",
              "text_rank", "retention", "layer")


def _candidate(row: dict[str, Any]) -> dict[str, Any]:
    """A direct candidate's row as association's pool holds it."""
    return {k: row.get(k) for k in _CANDIDATE}


def ranked(row: dict[str, Any]) -> tuple[list[Hit], list[dict[str, Any]]]:
    """The hits of `recall/associate`'s row (association's ranking of the direct
    candidates and the memories it reached), best first, and the ranked turns'
    neighbours (`turns.rerank` reads them).

    A bonus from spreading is weighted by the memory's own similarity to the query, so a
    link lifts what is both connected and on topic; what the query names counts as it is,
    and a memory about it (its subject) rises by a factor. Memories reached only by
    association come back with the path that reached them.
    """
    hits = []
    # The server ranked them; an aggregate does not promise to keep that order.
    for r in sorted(row["hits"], key=lambda h: (-h["score"], h["id"])):
        # A memory association reached, also a direct hit it lifted, shows how.
        steps = []
        if r["step"] is not None:
            steps = ([_step(r["prev_step"]["from"], r["from"], r["prev_step"]["step"])]
                     if r["prev_step"] else [])
            # A memory the query names is reached from the query itself.
            steps.append(_step(r["from"] or QUERY, r["id"], r["step"]))
        if r["direct"]:
            hit = to_hit({**r["candidate"], "memory": r["memory"], "score": r["score"]},
                         activation=r["activation"], path=steps)
        else:
            hit = to_hit(r, via="association", activation=r["activation"], path=steps)
        hits.append((hit, r))
    neighbours = [{"id": r["id"], "scope": r["memory"]["scope"], "prev": r["prev"],
                   "next": r["next"]} for _, r in hits if r["prev"] or r["next"]]
    return [h for h, _ in hits], neighbours


def _step(source: str, target: str, step: dict[str, Any]) -> PathStep:
    return PathStep(source=source, target=target, kind=step["kind"], name=step["name"],
                    weight=step["weight"])
