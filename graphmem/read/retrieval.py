"""The read path, end to end: a query becomes ranked memories in five stages, each in its
own module (docs/architecture.md, "The read path"). Cypher finds; Python decides.

  plan          `plan.RecallPlan`: the query's terms, every list's size, the flags, the
                scoring and spreading settings, from the query and options alone
  candidates    `candidates`: full-text lists (asked while the query embeds), the vector
                list (index or scan) and each hit's facts; ranked by `rank.direct`
  association   `association`: the graph around the best hits and what the query names,
                ranked with them by `rank.final`
  answer        `answer`: conversation order (`turns.rerank`), what the answer shows,
                type budgets

Each stage takes the plan and what the one before returned, and returns a typed value
with its round trips (`TextLists`, `Direct`, `Associated`, `Answered`); this module adds
them up, so every recall reports where its time went and its round trips
(`RecallResult.profile`).
"""

from __future__ import annotations

import math
import time
from datetime import datetime

import numpy as np

from graphmem.base import models
from graphmem.base.clock import as_utc, utcnow
from graphmem.base.errors import InputError, whole_text
from graphmem.base.options import RecallOptions
from graphmem.base.types import MAX_QUERY_CHARS, RecallProfile, RecallResult
from graphmem.embedding.embedders import EmbedsQueries
from graphmem.graph import scope_model
from graphmem.graph.store import Store
from graphmem.read import answer, association, candidates, rank
from graphmem.read.plan import RecallPlan
from graphmem.write.extract import Extractor


def recall(store: Store, embedder: EmbedsQueries, query: str, *, scope: str, now: datetime,
           options: RecallOptions | None = None,
           extractor: Extractor | None = None) -> RecallResult:
    """The memories of `scope` (and mounted layers) that best answer `query`, best first;
    `extractor` finds the entities the query names (none without it)."""
    opts = options or RecallOptions()
    _check(query)
    plan = RecallPlan.of(opts, query, scope=scope, now=as_utc(now),
                         model=models.numbers(embedder.name))
    if plan.needs_vector:
        embedder.warm()  # the clock below measures the query's embedding, not model loading
    started = time.perf_counter()
    lap, profile = _Laps(started), RecallProfile()
    texts = candidates.TextSearch(store, plan)
    vector = embedder.embed_query(query).tolist() if plan.needs_vector else None
    profile.embed_ms = lap()
    named = (association.query_entities(extractor, query, plan.scoring.now,
                                        list(plan.scopes)) if opts.hops > 0 else [])
    lists = texts.lists(store)
    profile.text_ms = lap()
    direct = candidates.direct(store, plan, vector, lists)
    # Read with the candidates, never kept: another process may have moved a scope to
    # another model since this one last recalled (graph/scope_model).
    scope_model.refuse_other(direct.models, embedder.recorded)
    profile.candidates_ms = lap()
    if opts.hops > 0:
        # Keyword recall weighs what association reaches by links alone, as it ranks by
        # words alone; the other modes by each memory's closeness to the query too.
        closeness = None if opts.mode == "keyword" else vector
        associated = association.associate(store, plan, direct.pool, closeness, named)
    else:
        associated = association.Associated(
            [rank.Ranked(memory=c.memory, score=c.score, candidate=c) for c in direct.pool], 0)
    profile.associate_ms = lap()
    answered = answer.answer(store, plan, associated.ranked)
    profile.turns_ms = lap()
    profile.round_trips = lists.trips + direct.trips + associated.trips + answered.trips
    took = (time.perf_counter() - started) * 1000
    return RecallResult(query=query, mode=opts.mode, scope=scope, hits=answered.hits,
                        took_ms=round(took, 2), profile=profile)


def _check(query: str) -> None:
    if not query.strip():
        raise InputError("the query is empty", field="query")
    whole_text(query, "query")
    if len(query) > MAX_QUERY_CHARS:
        raise InputError(f"the query is {len(query)} characters; the limit is "
                         f"{MAX_QUERY_CHARS}", field="query")


def plan_ahead(store: Store, dimensions: int) -> None:
    """Have the server plan the default recall's queries now, so that the first recall
    after it starts does not wait for that (seconds on a server just started:
    docs/results.md, "Plans made ahead"). Neo4j keeps a plan per query text and parameter
    types (and, on a server graphmem did not start, per size class of each string and
    list: docs/decisions.md, "A plan is not made per batch size"): each query runs with
    parameters of the types every recall passes, for scope names of the common lengths,
    over scopes no one can hold (nothing is found, nothing is written)."""
    query, text = _Planning(dimensions), "what recall plans ahead"
    opts = RecallOptions()
    for scope in PLANNING_SCOPES:
        recall(store, query, text, scope=scope, now=utcnow(), options=opts)
        # Finding nothing ends a recall before association and its answer: asked apart.
        plan = RecallPlan.of(opts, text, scope=scope, now=utcnow(),
                             model=models.numbers(query.name))
        association.expand(store, {}, {**plan.common(),
                                       "hub_limit": opts.association.hub_limit},
                           query.embed_query("").tolist(), [], [],
                           second_within=opts.association.width)
    store.read("recall/show", lists={"rows": []})


#: The scopes `plan_ahead` reads: no scope name holds a space, so no memory is in them.
#: On its default Neo4j tells a string's length apart as 0, 1, 2-10, 11-100, 101-1000
#: (measured): one name of 2-10 characters, one of 11-100; a scope named in 1 or in over
#: 100 characters is planned by its first recall. (The server graphmem starts tells no
#: lengths apart: the second costs a cache hit there.)
PLANNING_SCOPES = ("plan ahead", "where recall plans ahead")


class _Planning:
    """A query vector for planning: the plan depends on a vector's type, not its values."""

    name = recorded = "planning"  # a model the registry does not know: no floor

    def __init__(self, dimensions: int) -> None:
        self.vector = np.full(dimensions, 1 / math.sqrt(dimensions), dtype=np.float32)

    def warm(self) -> None:
        """Nothing to load."""

    def embed_query(self, text: str) -> np.ndarray:
        """The same unit vector for every text."""
        return self.vector.copy()


class _Laps:
    """Milliseconds between successive calls, from `start`."""

    def __init__(self, start: float) -> None:
        self.last = start

    def __call__(self) -> float:
        now = time.perf_counter()
        took, self.last = (now - self.last) * 1000, now
        return round(took, 2)
