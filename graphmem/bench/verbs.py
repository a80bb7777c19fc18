"""What each verb of `bench serve`'s mix costs on its own (`bench verbs`): one caller, a
scope written the way `bench serve`'s clients write it (one session, short notes), each
verb called in turn, with the CPU of this process (the service's side of a request:
embedding, ranking, the driver) and of the local Neo4j per call, and recall's stages.
`bench serve` says what a request costs under load; this says which verb, which side and
which query it is, so that the biggest piece is the one taken apart next."""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Callable

from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.base.types import RecallProfile
from graphmem.bench.cpu import Meter, Trips
from graphmem.bench.serve import MIX, WORDS, note
from graphmem.graph.trips import listening


class VerbCost(BaseModel):
    """One verb's mean cost a call."""

    verb: str
    calls: int
    python_ms: float  # this process: the service's side of a request
    neo4j_ms: float | None  # the local Neo4j (None where its counters cannot be read)
    wall_ms: float
    #: The local Neo4j's ms a call by query ("commit": the commits), most first.
    queries: dict[str, float] = {}


class VerbsBench(BaseModel):
    """Each verb's cost, the mix's weighted sum, and recall's stages (ms, round trips)."""

    cores: int
    memories: int  # in the scope when the verbs ran
    verbs: list[VerbCost]
    #: Per request of `bench serve`'s mix (its cross-token attempts left out), by side.
    mix_ms: dict[str, float | None]
    recall_stages: RecallProfile


def verbs(mem: GraphMem, *, memories: int = 300, calls: int = 100,
          seed: int = 7) -> VerbsBench:
    """Write `memories` notes into a fresh scope (one session, as `bench serve`'s clients
    do), then call each verb `calls` times after five unmeasured calls; the scope is
    dropped at the end."""
    rng = random.Random(seed)
    scope = f"bench:verbs:{uuid.uuid4().hex[:8]}"
    ids: list[str] = []

    def remember() -> None:
        records = [{"id": f"m-{uuid.uuid4().hex[:12]}", "text": "", "session": "s"}
                   for _ in range(rng.choice((1, 1, 1, 3)))]
        for r in records:
            r["text"] = note(rng, 0, r["id"])
        mem.remember(records, scope=scope)
        ids.extend(r["id"] for r in records)

    profiles: list[RecallProfile] = []

    def recall() -> None:
        query = " ".join(rng.choice(WORDS) for _ in range(3))
        profiles.append(mem.recall(query, scope=scope, top_k=5).profile)

    def update() -> None:
        target = rng.choice(ids)
        mem.update(target, scope=scope, text=note(rng, 0, target + " again"))

    def feedback() -> None:
        mem.feedback(rng.choice(ids), used=rng.random() < 0.5, scope=scope)

    def forget() -> None:
        target, hard = rng.choice(ids), rng.random() < 0.5
        mem.forget(target, scope=scope, hard=hard)
        if hard:
            ids.remove(target)

    try:
        while len(ids) < memories:
            remember()
        costs = [_cost(mem, name, fn, calls) for name, fn in (
            ("remember", remember), ("recall", recall), ("update", update),
            ("feedback", feedback), ("forget", forget))]
        stored = mem.count(scope=scope)
    finally:
        mem.flush()
        mem.drop_scope(scope)
    weights = {v: w for v, w in MIX.items() if v != "cross"}
    total = sum(weights.values())

    def mixed(side: Callable[[VerbCost], float | None]) -> float | None:
        parts = [(weights[c.verb], side(c)) for c in costs]
        if any(p is None for _, p in parts):
            return None
        return round(sum(w * (p or 0.0) for w, p in parts) / total, 1)

    measured = profiles[-calls:]
    stages = RecallProfile(**{
        f: round(sum(getattr(p, f) for p in measured) / len(measured), 2)
        for f in RecallProfile.model_fields if f != "round_trips"},
        round_trips=round(sum(p.round_trips for p in measured) / len(measured)))
    return VerbsBench(cores=os.cpu_count() or 1, memories=stored, verbs=costs,
                      mix_ms={"python": mixed(lambda c: c.python_ms),
                              "neo4j": mixed(lambda c: c.neo4j_ms)},
                      recall_stages=stages)


def _cost(mem: GraphMem, name: str, call: Callable[[], None], calls: int) -> VerbCost:
    """`call` five times unmeasured, then `calls` times, each timed."""
    for _ in range(5):
        call()
    meter, began = Meter(mem), time.perf_counter()
    trips = Trips(meter.pid)
    with listening(trips):
        for _ in range(calls):
            meter.start()
            call()
            meter.stop()
    took = time.perf_counter() - began
    cost = meter.per_call()
    return VerbCost(verb=name, calls=calls, python_ms=cost["python"] or 0.0,
                    neo4j_ms=cost["neo4j"], wall_ms=round(took * 1000 / calls, 1),
                    queries=trips.per(calls))
