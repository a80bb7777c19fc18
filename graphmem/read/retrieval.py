"""The read path: from a query to ranked memories, in two halves (docs/architecture.md,
"The read path"). Cypher finds; Python decides.

Retrieve (Cypher, `cypher/recall/`): the full-text lists (`text_lists`, asked on a thread
while the query embeds), then one `retrieve`: the vector list (the index, or an exact
scan of a small scope), the memories of the text lists, and the turn after each; every
memory with its facts (cosine with the query, the turn before it, decay and feedback
inputs, its neighbours in its session), in the caller's scope and filters only. `exact`
replaces both for exact recall. Association asks `expand` for the graph around the best
hits (and around what the query names) and around what that reached, in one round trip
unless the first hop reaches more than its width. `show` reads what the answer shows.

Rank (Python, `rank.py`): fusion of the lists (reciprocal rank, or an alpha blend),
context readings, relevance x temporal factor x layer factor x usefulness, spreading
activation and its bonus, the subject lift (`rank.final`), then conversation order
(`turns.rerank`) and type budgets (`budgets.select`).

Every recall reports where its time went and its round trips (`RecallResult.profile`).
"""

from __future__ import annotations

import math
import time
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.embed import EmbedsQueries
from graphmem.errors import InputError
from graphmem.graph.schema import FULLTEXT_INDEX, VECTOR_INDEX, entity_prefix, scope_key
from graphmem.graph.scope_indexes import SCAN_BELOW
from graphmem.graph.store import Store
from graphmem.options import RecallOptions
from graphmem.read import budgets, keywords, rank, turns
from graphmem.read.rows import to_hit
from graphmem.types import (
    MAX_QUERY_CHARS,
    Hit,
    PathStep,
    RecallProfile,
    RecallResult,
    as_utc,
    utcnow,
)
from graphmem.vocabulary import KINDS
from graphmem.write.extract import Extractor
from graphmem.write.gates import shown


def lucene_query(text: str, scopes: list[str] | None = None, field: str = "text") -> str | None:
    """The words of `text` as a Lucene OR-query over `field` (memory text, or a turn's
    context), required to be in one of `scopes` (a clause that adds nothing to the
    score); no syntax of the caller reaches Lucene."""
    kept = keywords.query_terms(text)
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


def recall(store: Store, embedder: EmbedsQueries, query: str, *, scope: str, now: datetime,
           options: RecallOptions | None = None,
           extractor: Extractor | None = None) -> RecallResult:
    """The memories of `scope` (and mounted layers) that best answer `query`, best first;
    `extractor` finds the entities the query names (none without it)."""
    opts = options or RecallOptions()
    now = as_utc(now)
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
    scopes = [scope, *opts.layers]
    with_turns = opts.context.turn_weight > 0
    common = _common(scope, opts)
    # Diversity picks from a deeper ranking than it returns.
    k = opts.top_k * opts.association.pool_factor if opts.diverse else opts.top_k
    # Association, diversity and conversation order each rank a deeper pool than the answer.
    deep = opts.hops > 0 or opts.diverse or with_turns
    fetch = max(opts.fusion.candidates, opts.top_k)
    pool_k = min(fetch, opts.top_k * opts.association.pool_factor) if deep else opts.top_k
    fields = (["text"] if opts.mode in ("keyword", "hybrid") else []) + (
        ["context"] if opts.mode == "hybrid" and opts.context.enabled
        and opts.fusion.alpha is None else [])
    terms = keywords.query_terms(query)
    searches = [{"list": f, "scope": s, "q": lucene_query(query, [s], field=f),
                 "limit": fetch} for f in fields for s in dict.fromkeys(scopes)] if terms else []
    # The full-text lists need no vector: the server finds them while the query embeds.
    text_params = {**common, "text_index": FULLTEXT_INDEX, "fetch": fetch,
                   "small": keywords.SMALL_SCOPE, "searches": searches}
    texts = (store.submit("recall/text_lists", **text_params)
             if searches else None)
    vector = embedder.embed_query(query).tolist() if needs_vector else None
    profile.embed_ms = lap()
    named = query_entities(extractor, query, now, scopes) if opts.hops > 0 else []
    # Conversation order needs each ranked memory's neighbours: association's query reads
    # them for the pool it is given, so the candidates carry them only without it.
    finding = {**common, "turns": with_turns and opts.hops == 0}
    scoring = rank.Scoring(scope=scope, now=now, decay=opts.decay,
                           temporal=opts.fusion.temporal_weight,
                           layer_factor=opts.fusion.layer_factor,
                           use_weight=opts.feedback.use_weight)
    if opts.mode == "exact":
        rows = store.read("recall/exact", text=query, case_sensitive=opts.case_sensitive,
                          **finding, k=max(pool_k, k, EXACT_DEPTH))
        profile.round_trips += 1
        pool = rank.direct([rank.Candidate.of(_placed(r)) for r in rows], scoring, mode="exact",
                           alpha=None, rrf_k=opts.fusion.rrf_k, context=False, fetch=fetch,
                           k=max(pool_k, k))
    else:
        lists: dict[str, Any] = {"text": None, "context": None}
        if texts is not None:
            lists, trips = _text_lists(store, texts.result(), text_params, terms, fields)
            profile.round_trips += trips
        profile.text_ms = lap()
        use_vector = vector if opts.mode in ("vector", "hybrid") else None
        params = {**finding, "vector": use_vector, "lists": lists,
                  "vector_index": VECTOR_INDEX, "every_kind": list(KINDS),
                  "fetch": fetch, "index_fetch": fetch * INDEX_DEPTH, "scan": False,
                  "scan_below": SCAN_BELOW}
        if use_vector is None:
            rows = store.read("recall/retrieve", **params)
            profile.round_trips += 1
        else:
            key = (scope, tuple(opts.layers), tuple(opts.kinds or ()),
                   repr(sorted(opts.filters.items())), tuple(opts.lifecycles()),
                   opts.since, opts.until)
            rows, trips = _vector_candidates(store, "recall/retrieve", params, key)
            profile.round_trips += trips
        # Without a text list hybrid ranks by the vector alone; without a vector, by BM25.
        mode = ("keyword" if use_vector is None else "vector" if lists["text"] is None
                else opts.mode)
        pool = rank.direct([rank.Candidate.of(_placed(c))
                            for c in rows[0]["candidates"]], scoring,
                           mode=mode, alpha=opts.fusion.alpha, rrf_k=opts.fusion.rrf_k,
                           context=lists["context"] is not None, fetch=fetch, k=pool_k)
    profile.candidates_ms = lap()
    if opts.hops > 0:
        answer_k = max(pool_k, k) if with_turns else k
        # Keyword recall weighs what association reaches by links alone, as it ranks by
        # words alone; the other modes by each memory's closeness to the query too.
        closeness = None if opts.mode == "keyword" else vector
        ranked, trips = _associate(store, pool, {**common, "hub_limit": opts.association.hub_limit},
                                   closeness, named, scoring, _spreading(opts), answer_k)
        profile.round_trips += trips
    else:
        ranked = [rank.Ranked(memory=c.memory, score=c.score, candidate=c) for c in pool]
    profile.associate_ms = lap()
    weight = opts.context.turn_weight
    scored = [(rank.key(r.memory), r.score) for r in ranked]
    answer = (turns.rerank(scored, {rank.key(r.memory): (r.memory.get("before"),
                                                        r.memory.get("after"))
                                    for r in ranked}, weight, k)
              if with_turns else [turns.Turn(key, score) for key, score in scored[:k]])
    # What the answer shows, read for it alone.
    rows = store.read("recall/show", lists={"rows": [
        {"id": t.key[1], "scope": t.key[0]} for t in answer]}) if answer else []
    profile.round_trips += 1 if answer else 0
    # A memory a concurrent forget deleted since it was ranked is gone: not shown.
    shown = {(row["scope"], row["id"]): row["memory"] for row in rows
             if _alive(row["memory"])}
    by_key = {rank.key(r.memory): r for r in ranked}
    hits = [_hit(by_key[t.key], shown[t.key], t.score) if t.key in by_key
            else _arrival(t, shown[t.key], scoring, weight)
            for t in answer if t.key in shown]
    profile.turns_ms = lap()
    if opts.diverse:
        hits = sorted(budgets.select(hits, opts.top_k, kind=lambda h: h.kind),
                      key=lambda h: -h.score)
    took = (time.perf_counter() - started) * 1000
    return RecallResult(query=query, mode=opts.mode, scope=scope, hits=hits,
                        took_ms=round(took, 2), profile=profile)


def _common(scope: str, opts: RecallOptions) -> dict[str, Any]:
    """The parameters every recall query takes: where it reads, and which memories pass."""
    return {"scope": scope, "layers": opts.layers, "lifecycles": opts.lifecycles(),
            "kinds": opts.kinds, "filters": _filters(opts.filters), "since": opts.since,
            "until": opts.until, "turns": opts.context.turn_weight > 0}


def plan_ahead(store: Store, dimensions: int) -> None:
    """Have the server plan the default recall's queries now, so that the first recall
    after it starts does not wait for that (seconds on a server just started:
    docs/results.md, "Plans made ahead"). Neo4j keeps a plan per query text and parameter
    types, a string's or list's size counted by its order of magnitude: each query runs
    with parameters of the types a default recall passes, for scope names of the common
    lengths, over scopes no one can hold (nothing is found, nothing is written)."""
    query = _Planning(dimensions)
    opts = RecallOptions()
    for scope in PLANNING_SCOPES:
        recall(store, query, "what recall plans ahead", scope=scope, now=utcnow(),
               options=opts)
        # Finding nothing ends a recall before association and its answer: asked apart.
        _expand(store, {}, {**_common(scope, opts), "hub_limit": opts.association.hub_limit},
                query.embed_query("").tolist(), [], [],
                second_within=opts.association.width)
    store.read("recall/show", lists={"rows": []})


#: The scopes `plan_ahead` reads: no scope name holds a space, so no memory is in them.
#: Neo4j tells a string's length apart as 0, 1, 2-10, 11-100, 101-1000 (measured): one
#: name of 2-10 characters, one of 11-100; a scope named in 1 or in over 100 characters
#: is planned by its first recall.
PLANNING_SCOPES = ("plan ahead", "where recall plans ahead")


class _Planning:
    """A query vector for planning: the plan depends on a vector's type, not its values."""

    def __init__(self, dimensions: int) -> None:
        self.vector = np.full(dimensions, 1 / math.sqrt(dimensions), dtype=np.float32)

    def warm(self) -> None:
        """Nothing to load."""

    def embed_query(self, text: str) -> np.ndarray:
        """The same unit vector for every text."""
        return self.vector.copy()


def _spreading(opts: RecallOptions) -> rank.Spreading:
    a = opts.association
    return rank.Spreading(seeds=a.seeds, hops=opts.hops, width=a.width, beta=a.weight,
                          link_tau=a.link_tau_days, entity_weight=a.entity_weight,
                          hop_decay=a.hop_decay, mention_weight=a.mention_weight,
                          subject_weight=a.subject_weight)


def _associate(store: Store, pool: list[rank.Candidate], common: dict[str, Any],
               vector: list[float] | None, entities: list[str], scoring: rank.Scoring,
               spreading: rank.Spreading, k: int) -> tuple[list[rank.Ranked], int]:
    """Association over the direct hits: the graph around the best of them (and what the
    query names), then around what that reached, in one `recall/expand` (two when the
    first hop reaches more than `width`); ranked by `rank.final`. Returns the ranking and
    the round trips."""
    if not pool:
        return [], 0
    seeds = {rank.key(c.memory): c.score for c in pool[:spreading.seeds]}
    first = _expand(store, seeds, common, vector, entities, pool,
                    second_within=spreading.width if spreading.hops >= 2 else 0)
    _pooled(pool, first["pool"])
    memories, cosines = _reached(first)
    by_query = (rank.named(first["named"], first["named_entities"], spreading.width)
                if first["named_entities"] else [])
    hop1 = rank.hop(seeds, first["edges"], spreading, scoring.now)
    hop2: list[rank.Reached] = []
    trips = 1
    if spreading.hops >= 2 and hop1:
        sources = {r.key: r.activation for r in hop1}
        edges = first["second_edges"]
        if not first["second"]:
            # The first hop reached more than `width`: the second spreads from its widest.
            again = _expand(store, sources, common, vector, [], [])
            trips += 1
            edges = again["edges"]
            more, closer = _reached(again)
            memories |= more
            cosines |= closer
        hop2 = rank.hop(sources, edges, spreading, scoring.now)
    merged = rank.merge(by_query, hop1, hop2, cosines, spreading)
    return rank.final(pool, merged, memories, cosines, scoring, spreading, entities, k), trips


def _expand(store: Store, sources: dict[tuple[str, str], float], common: dict[str, Any],
            vector: list[float] | None, entities: list[str], pool: list[rank.Candidate],
            second_within: int = 0) -> dict[str, Any]:
    """`recall/expand` from `sources`: one step, and the step after it in the same round
    trip when the first reaches at most `second_within` memories (`second`)."""
    # Lists whose sizes vary travel in one map (docs/decisions.md).
    rows = store.read("recall/expand", **common, vector=vector,
                      two_hops=second_within > 0, width=second_within,
                      lists={"sources": [{"scope": s, "id": i} for s, i in sources],
                             "entities": entities,
                             "pool": [{"scope": c.memory["scope"], "id": c.memory["id"]}
                                      for c in pool]})
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


def _reached(found: dict[str, Any]) -> tuple[dict[rank.Key, dict[str, Any]],
                                            dict[rank.Key, float | None]]:
    """The memories a `recall/expand` reached, with their facts, and their cosines with
    the query."""
    return ({rank.key(m["memory"]): _placed(m)["memory"] for m in found["memories"]},
            {rank.key(m["memory"]): rank.cosine(m["similarity"]) for m in found["memories"]})


def _placed(row: dict[str, Any]) -> dict[str, Any]:
    """A row of `recall/retrieve`, `exact` or `expand` whose memory's facts hold its
    neighbours in its session (conversation order reads them there) and what it is
    about, where the row says."""
    extra = {k: row[k] for k in ("before", "after", "about") if k in row}
    return {**row, "memory": row["memory"] | extra}


def _pooled(pool: list[rank.Candidate], rows: list[dict[str, Any]]) -> None:
    """What each direct hit is about, of what the query names, and its neighbours in its
    session (`recall/expand`'s pool), set on its facts."""
    found = {(r["scope"], r["id"]): r for r in rows}
    for c in pool:
        row = found.get(rank.key(c.memory), {})
        c.memory.update(about=row.get("about", []), before=row.get("before"),
                        after=row.get("after"))


def _hit(r: rank.Ranked, memory: dict[str, Any], score: float) -> Hit:
    """A hit of the ranking: what it shows (`memory`), its score (after conversation
    order), its score's parts, and the path association reached it by."""
    steps = [PathStep(**s) for s in rank.path(r.reached)]
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


def _arrival(t: turns.Turn, memory: dict[str, Any], scoring: rank.Scoring,
             weight: float) -> Hit:
    """A neighbour the ranking did not hold, brought in by a turn next to it."""
    retention, layer, _ = scoring.factors(memory)
    return to_hit({"memory": memory, "score": t.score, "relevance": None,
                   "retention": retention, "layer": layer},
                  via="association", activation=t.score, path=t.path(weight))


def _alive(memory: dict[str, Any] | None) -> bool:
    return memory is not None and memory.get("id") is not None \
        and memory.get("text") is not None


class _Laps:
    """Milliseconds between successive calls, from `start`."""

    def __init__(self, start: float) -> None:
        self.last = start

    def __call__(self) -> float:
        now = time.perf_counter()
        took, self.last = (now - self.last) * 1000, now
        return round(took, 2)


#: Exact recall ranks the newest this many matches (every match is equally relevant).
EXACT_DEPTH = 1000
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


def _vector_candidates(store: Store, name: str, params: dict[str, Any],
                       key: tuple[Any, ...]) -> tuple[list[dict[str, Any]], int]:
    """The rows of query `name` (recall/retrieve) whose vector list is this scope's true
    top `fetch`.

    A scope smaller than SCAN_BELOW is scanned exactly in the first round trip (the query
    counts it). An index is asked for INDEX_DEPTH x `fetch` neighbours, of which the
    query keeps the `fetch` of the highest exact similarity. Neo4j 2026's index filters
    inside itself (the "search" variant): one round trip, unless metadata filters, which
    it cannot hold, leave its list short. On 5.26 the index cannot filter, and other
    scopes fill its neighbours: when fewer than `fetch` pass, it is asked again as deep as
    the pass rate seen says fills the list (with a margin), up to MAX_DEPTH x `fetch`; a
    scope rarer than that is scanned. The depth that sufficed is where the next recall
    with the same scope and filters starts, for DEPTH_REUSE recalls; then it starts from
    the top again, since a scope that grows may no longer need it. Returns the rows and
    the round trips.
    """
    if store.variant == "search" and not params["filters"]:
        # The index filters by everything else itself: its list is the scope's own top.
        return store.read(name, **params), 1
    fetch, first = params["fetch"], params["index_fetch"]
    deepest = fetch * MAX_DEPTH
    depth, uses = store.vector_depth.get(key, (first, 0))
    if uses >= DEPTH_REUSE:
        depth, uses = first, 0
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
        # Deep enough that this pass rate fills the list; none passed: scan.
        depth = _deeper(depth, fetch, found) if found else deepest + 1
        depth = min(depth, deepest + 1)


def _deeper(depth: int, fetch: int, found: int) -> int:
    """How deep to ask an index again whose first `depth` gave `found` of the `fetch`
    wanted: as deep as that pass rate says fills the list, with a margin."""
    return math.ceil(depth * fetch / found * MARGIN)


def _text_lists(store: Store, rows: list[dict[str, Any]], params: dict[str, Any],
                terms: list[str], fields: list[str]) -> tuple[dict[str, Any], int]:
    """The full-text lists from `recall/text_lists`' rows (one per scope and field), each
    the best `fetch` of its field over every scope searched, as {id, scope, bm25}.

    A small scope's matches are scored by its own statistics (`keywords.bm25`). A big
    scope's search that came back short although Lucene gave all it was asked for
    (archived, private or other kinds crowding its top) is asked again as deep as its
    pass rate says fills it (with a margin), up to MAX_DEPTH x `fetch`. Returns the lists
    and the round trips."""
    fetch = params["fetch"]
    deepest, trips = fetch * MAX_DEPTH, 1
    found: dict[str, list[dict[str, Any]]] = {f: [] for f in fields}
    while rows:
        again = []
        for row in rows:
            search = next(s for s in params["searches"]
                          if (s["list"], s["scope"]) == (row["list"], row["scope"]))
            # A match a concurrent forget deleted reads with null properties: gone.
            row = {**row, "found": [h for h in row["found"] if h["id"] is not None
                                    and (not row["small"] or h["text"] is not None)]}
            if row["small"]:
                scores = keywords.bm25(terms, {h["id"]: h["text"] for h in row["found"]},
                                       docs=row["docs"], chars=row["chars"])
                found[row["list"]] += [{"id": i, "scope": row["scope"], "bm25": score}
                                       for i, score in scores.items() if score > 0]
            elif (len(row["found"]) < fetch and row["returned"] >= search["limit"]
                  and search["limit"] < deepest):
                passed = len(row["found"])
                again.append({**search, "limit": min(deepest, _deeper(
                    search["limit"], fetch, passed) if passed else deepest)})
            else:
                found[row["list"]] += [{k: h[k] for k in ("id", "scope", "bm25")}
                                       for h in row["found"]]
        if not again:
            break
        params = {**params, "searches": again}
        rows = store.read("recall/text_lists", **params)
        trips += 1
    lists: dict[str, Any] = {"text": None, "context": None}
    for field, hits in found.items():
        lists[field] = sorted(hits, key=lambda h: (-h["bm25"], h["scope"], h["id"]))[:fetch]
    return lists, trips


def query_entities(extractor: Extractor | None, query: str, now: datetime,
                   scopes: list[str]) -> list[str]:
    """The graph keys, in each of `scopes`' entity spaces, of the entities `query` names."""
    if extractor is None:
        return []
    refs = {e.key for e in extractor.extract(query, now)}
    return [entity_prefix(s) + ref for s in dict.fromkeys(scopes) for ref in sorted(refs)]
