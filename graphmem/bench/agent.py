"""LoCoMo written the way an agent writes it (`bench locomo --as-agent`): one `remember`
call per turn, in order, with the turn's text, session, speaker and time and no
position, through the gates an agent's writes meet. The transcript importer writes the
same turns in one batch with their positions; recall should not care which wrote them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.write.records import Numbered


class AgentWrites(BaseModel):
    """What became of a conversation's turns written one call each."""

    signal_gate: bool
    turns: int = 0
    counts: dict[str, int] = {}  # outcome status -> records
    evidence_turns: int = 0  # turns some question's answer rests on
    evidence_refused: int = 0  # of those, refused by a gate

    def add(self, other: AgentWrites) -> None:
        """Add another conversation's figures to these."""
        self.turns += other.turns
        for status, n in other.counts.items():
            self.counts[status] = self.counts.get(status, 0) + n
        self.evidence_turns += other.evidence_turns
        self.evidence_refused += other.evidence_refused


def as_agent(record: Numbered) -> dict[str, object]:
    """An importer's turn as an agent hands it to `remember`: the same text, session,
    time, speaker and ids, no position (`metadata.turn`), written by the agent."""
    r = record.record
    return {"text": r.text, "session": r.session, "created_at": r.created_at,
            "kind": r.kind, "source": "agent",
            "metadata": {k: v for k, v in r.metadata.items() if k != "turn"}}


def arriving(records: list[Numbered], late: float, seed: int = 0) -> list[Numbered]:
    """`records` in the order they arrive when a `late` share of each session's turns
    (drawn from `seed`) arrives after the rest of its session, in their own order."""
    if late <= 0:
        return list(records)
    draw = random.Random(seed)
    sessions: dict[str | None, tuple[list[Numbered], list[Numbered]]] = {}
    for r in records:
        on_time, delayed = sessions.setdefault(r.record.session, ([], []))
        (delayed if draw.random() < late else on_time).append(r)
    return [r for on_time, delayed in sessions.values() for r in on_time + delayed]


def write(mem: GraphMem, records: list[Numbered], scope: str, *, signal_gate: bool,
          evidence: Iterable[str], late: float = 0.0) -> AgentWrites:
    """Write `records` into `scope` one `remember` call each, in order (a `late` share of
    each session's turns after the rest of it, `arriving`); `evidence` are the dia_ids
    the conversation's questions rest on."""
    wanted = set(evidence)
    out = AgentWrites(signal_gate=signal_gate, turns=len(records))
    for record in arriving(records, late):
        report = mem.remember(as_agent(record), scope=scope, signal_gate=signal_gate)
        for o in report.outcomes:
            out.counts[o.status] = out.counts.get(o.status, 0) + 1
            if record.record.metadata.get("dia_id") in wanted:
                out.evidence_turns += 1
                out.evidence_refused += o.status == "rejected"
    return out


class AgentWriteTimes(BaseModel):
    """`bench ingest --as-agent`: one `remember` call per turn, timed at the library call,
    next to embedding each text alone in the same run."""

    writes: int
    p50_ms: float
    p95_ms: float
    cpu_ms_per_write: float  # this process's CPU (every thread) over the writes, a write
    embed_one_p50_ms: float  # embedding one text alone: the part no write can skip
    ratio_to_embed: float  # p50_ms / embed_one_p50_ms


def timed(mem: GraphMem, records: list[Numbered], scope: str) -> AgentWriteTimes:
    """Write `records` into `scope` one `remember` call each, in order, timing each call;
    then embed each text alone (the write's own floor)."""
    walls: list[float] = []
    cpu = time.process_time()
    for record in records:
        started = time.perf_counter()
        mem.remember(as_agent(record), scope=scope)
        walls.append((time.perf_counter() - started) * 1000)
    cpu = (time.process_time() - cpu) * 1000
    embeds: list[float] = []
    for record in records:
        started = time.perf_counter()
        mem.embedder.embed([record.record.text])
        embeds.append((time.perf_counter() - started) * 1000)
    # The ratio of the figures as printed, so a reader can check it.
    p50, embed = round(float(np.median(walls)), 1), round(float(np.median(embeds)), 2)
    return AgentWriteTimes(
        writes=len(walls), p50_ms=p50, p95_ms=round(float(np.percentile(walls, 95)), 1),
        cpu_ms_per_write=round(cpu / max(len(walls), 1), 1),
        embed_one_p50_ms=embed, ratio_to_embed=round(p50 / embed, 2))
