"""Benchmarks that print their figures, always next to a baseline measured in the same run
(these machines are noisy, so ratios say more than absolute numbers)."""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.base.options import RecallOptions
from graphmem.base.types import MemoryIn
from graphmem.bench import agent
from graphmem.bench.agent import AgentWrites, AgentWriteTimes
from graphmem.bench.reference import PlainReference
from graphmem.write import formats
from graphmem.write.ingest import Timing
from graphmem.write.records import Collector, Numbered


class IngestBench(BaseModel):
    """`bench ingest`: full write-path throughput against embedding alone."""

    cores: int
    files: list[str]
    memories: int
    embed_only_per_s: float
    ingest_per_s: float
    ratio: float  # ingest throughput / embedding-only throughput; the target is ≥ 0.80
    seconds: dict[str, float]  # the ingest's time per stage ("write" overlaps "embed")
    shares: dict[str, float]  # each stage's share of the ingest's wall time
    counts: dict[str, int]
    entities: int
    synaptic_links: int
    agent: AgentWriteTimes | None = None  # with --as-agent


def ingest(mem: GraphMem, paths: Sequence[Path], *, keep: bool = False,
           as_agent: bool = False) -> IngestBench:
    """Ingest the turns of `paths` into a fresh scope; compare with embedding them alone.
    With `as_agent`, also write them into another fresh scope one `remember` each, as an
    agent does, timing every call (`agent.timed`).

    Embedding-only is timed before and after the ingest and averaged, so drift in the
    machine's speed during the run does not favour either side.
    """
    collector = Collector()
    for path in paths:
        formats.read(path, "auto", collector)
    texts = [n.record.text for n in collector.records]
    embedder = mem.embedder
    embedder.embed(texts[:64])  # load the model and warm its kernels

    def embed_only() -> float:
        started = time.perf_counter()
        embedder.embed(texts)
        return time.perf_counter() - started

    before = embed_only()
    scope = f"bench:ingest:{uuid.uuid4().hex[:8]}"
    timing = Timing()
    opts = mem.ops.write_options(scope=scope)
    started = time.perf_counter()
    report = mem.ops.write(collector.records, opts, timing=timing)
    total = time.perf_counter() - started
    after = embed_only()
    if not keep:
        mem.drop_scope(scope)
    agent_times = None
    if as_agent:
        written_as_agent = f"bench:agent:{uuid.uuid4().hex[:8]}"
        agent_times = agent.timed(mem, collector.records, written_as_agent)
        if not keep:
            mem.drop_scope(written_as_agent)
    baseline = (before + after) / 2
    n = len(texts)
    # Writing runs in a thread behind embedding; `wait` is what it adds to the wall time.
    seconds = {"embed": timing.embed, "extract": timing.extract, "gates": timing.gates,
               "wait": timing.wait}
    seconds["other"] = max(0.0, total - sum(seconds.values()))
    seconds["write"] = timing.write
    return IngestBench(
        cores=os.cpu_count() or 1,
        files=[str(p) for p in paths],
        memories=n,
        embed_only_per_s=round(n / baseline, 1),
        ingest_per_s=round(n / total, 1),
        ratio=round(baseline / total, 3),
        seconds={k: round(v, 3) for k, v in seconds.items()},
        shares={k: round(v / total, 3) for k, v in seconds.items()},
        counts=report.counts,
        entities=report.entities,
        synaptic_links=report.synaptic_links,
        agent=agent_times,
    )


class ModeScores(BaseModel):
    """Evidence recall of one recall setting, overall and per question category."""

    mode: str
    recall_at_5: float
    recall_at_10: float
    by_category: dict[str, dict[str, float]]  # category -> {"@5", "@10", "n"}


class LocomoBench(BaseModel):
    """`bench locomo`: evidence recall@5/@10 per mode on LoCoMo conversations; with
    `--as-agent`, also rows for the same turns written one `remember` call each, and what
    became of those writes."""

    cores: int
    conversations: int
    questions: int
    modes: list[ModeScores]
    seconds: float
    agent_writes: list[AgentWrites] = []


#: Every structure step off: the plain modes, and the base each step is measured on.
_NO_STEPS = {"hops": 0, "turn_weight": 0.0, "context": False}
_PLAIN = {**_NO_STEPS, "reinforce": False}
LOCOMO_MODES: dict[str, dict[str, object]] = {
    "keyword": {**_PLAIN, "mode": "keyword"},
    "vector": {**_PLAIN, "mode": "vector"},
    "hybrid": {**_PLAIN, "mode": "hybrid"},
    "hybrid+assoc": {**_PLAIN, "hops": 2},
    "hybrid+context": {**_PLAIN, "context": True},
    "hybrid+turns": {**_PLAIN, "turn_weight": RecallOptions().context.turn_weight},
    "default": {"reinforce": False},  # hybrid, association, context and conversation order
}
#: With `--as-agent`: the rows asked of each agent-written copy (signal gate on, off).
AGENT_MODES: dict[bool, dict[str, dict[str, object]]] = {
    True: {"agent: hybrid": LOCOMO_MODES["hybrid"], "agent: default": LOCOMO_MODES["default"]},
    False: {"agent, no signal gate: default": LOCOMO_MODES["default"]},
}
#: The row of the plain reference (`graphmem.bench.reference`) in every recall benchmark.
REFERENCE = "plain reference"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_DIA = re.compile(r"D\d+:\d+")


def evidence(qa: dict) -> set[str]:
    """The dia_ids a LoCoMo question's answer rests on."""
    return {m.group(0) for e in qa.get("evidence", []) for m in _DIA.finditer(str(e))}


class Conversation(BaseModel):
    """One LoCoMo conversation of a file: its name, the raw item, and the questions of
    categories 1-4 that have evidence, in order."""

    name: str
    item: dict
    questions: list[dict]
    #: The day after its last session: when its questions are asked.
    asked_at: datetime


def conversations(path: Path) -> list[Conversation]:
    """The conversations of a LoCoMo file (one, or the original locomo10.json list)."""
    doc = json.loads(formats.read_text(path))
    items = doc if isinstance(doc, list) else [doc]
    found = []
    for n, item in enumerate(items):
        conv = item.get("conversation", item)
        qa = item.get("qa", doc.get("qa", []) if isinstance(doc, dict) else [])
        last = formats.locomo_sessions(conv)[-1]
        at = formats.locomo_date(conv[f"session_{last}_date_time"], str(path), "")
        found.append(Conversation(
            name=path.stem if len(items) == 1 else f"{path.stem}-{n}", item=item,
            questions=[q for q in qa if q.get("category") in CATEGORIES and evidence(q)],
            asked_at=at + timedelta(days=1)))
    return found


def turns_of(conversation: Conversation, path: Path) -> list[Numbered]:
    """A conversation's turns as records, as `ingest` reads them."""
    collector = Collector()
    formats.read_locomo(conversation.item, str(path), conversation.name, collector)
    return collector.records


Found = dict[int, list[tuple[float, float]]]  # category -> (recall@5, recall@10) per question


def score(found: Found, question: dict, got: Sequence[object]) -> None:
    """Add one question's evidence recall@5 and @10 for the ranked dia_ids `got`."""
    wanted = evidence(question)
    found.setdefault(question["category"], []).append(
        (len(wanted & set(got[:5])) / len(wanted), len(wanted & set(got[:10])) / len(wanted)))


def mode_scores(name: str, per_cat: Found) -> ModeScores:
    """Overall and per-category recall of one row of a benchmark."""
    every = [x for xs in per_cat.values() for x in xs]
    return ModeScores(
        mode=name,
        recall_at_5=_pct(a for a, _ in every), recall_at_10=_pct(b for _, b in every),
        by_category={CATEGORIES[c]: {"@5": _pct(a for a, _ in xs),
                                     "@10": _pct(b for _, b in xs), "n": len(xs)}
                     for c, xs in sorted(per_cat.items())})


def locomo(mem: GraphMem, paths: Sequence[Path], *, keep: bool = False,
           modes: dict[str, dict[str, object]] | None = None,
           as_agent: bool = False, late: float = 0.0) -> LocomoBench:
    """Each conversation in its own scope with its real dates; every question of
    categories 1-4 recalled, without reinforcement, in every mode, at "now" = the day
    after the conversation's last session. With `as_agent`, two more copies of each
    conversation are written one `remember` call per turn (signal gate on, and off) and
    asked in AGENT_MODES (`graphmem.bench.agent`); a `late` share of each session's
    turns then arrives after the rest of its session."""
    modes = modes or LOCOMO_MODES
    started = time.perf_counter()
    copies = AGENT_MODES if as_agent else {}
    rows = [*modes, REFERENCE, *(name for c in copies.values() for name in c)]
    found: dict[str, Found] = {m: {} for m in rows}
    writes = {gate: agent.AgentWrites(signal_gate=gate) for gate in copies}
    questions = asked_in = 0
    for path in paths:
        for conv in conversations(path):
            asked_in += 1
            scope = f"bench:locomo:{conv.name}"
            records = turns_of(conv, path)
            texts = [r.record.text for r in records]
            vectors = mem.embedder.embed(texts)
            _load(mem, records, scope, texts, vectors)
            scopes = {gate: f"bench:locomo-agent:{conv.name}:{'gate' if gate else 'nogate'}"
                      for gate in copies}
            for gate, copy in scopes.items():
                mem.drop_scope(copy)
                writes[gate].add(agent.write(
                    mem, records, copy, signal_gate=gate, late=late,
                    evidence={e for q in conv.questions for e in evidence(q)}))
            plain = PlainReference(texts, mem.embedder, vectors=vectors)
            dia_ids = [r.record.metadata.get("dia_id") for r in records]
            with mem.at(conv.asked_at) as ask:
                for q in conv.questions:
                    questions += 1
                    asked = [(scope, modes), *((scopes[g], copies[g]) for g in copies)]
                    for where, settings_of in asked:
                        for name, settings in settings_of.items():
                            hits = ask.recall(q["question"], scope=where, top_k=10,
                                              **settings).hits  # type: ignore[arg-type]
                            score(found[name], q, [h.metadata.get("dia_id") for h in hits])
                    score(found[REFERENCE], q,
                          [dia_ids[i] for i in plain.rank(q["question"], 10)])
            if not keep:
                for where in [scope, *scopes.values()]:
                    mem.drop_scope(where)
    return LocomoBench(cores=os.cpu_count() or 1, conversations=asked_in,
                       questions=questions,
                       modes=[mode_scores(name, found[name]) for name in rows],
                       seconds=round(time.perf_counter() - started, 1),
                       agent_writes=list(writes.values()))


def _pct(values: Iterable[float]) -> float:
    xs = list(values)
    return round(100 * sum(xs) / len(xs), 1) if xs else 0.0


def _load(mem: GraphMem, records: list[Numbered], scope: str, texts: list[str],
          vectors: np.ndarray) -> None:
    """Write `records` (whose texts are `texts`) into `scope` with the texts' `vectors`
    (the bench's reference reads the same ones: each text is embedded once), unless a
    kept earlier run left them there."""
    if mem.count(scope=scope) != len(records):
        mem.ops.write(records, mem.ops.write_options(scope=scope),
                      vectors=dict(zip(texts, vectors, strict=True)))


class MultihopBench(BaseModel):
    """`bench multihop`: Recall@2/@5 of supporting passages per mode (MuSiQue format)."""

    cores: int
    passages: int
    questions: int
    modes: dict[str, dict[str, float]]  # mode -> {"@2", "@5"}
    seconds: float


def multihop(mem: GraphMem, questions_path: Path, corpus_path: Path | None = None, *,
             keep: bool = False, modes: dict[str, dict[str, object]] | None = None,
             limit: int | None = None) -> MultihopBench:
    """Index the corpus (every passage a memory, `title` as metadata and text prefix;
    passages sharing entities are linked through them) and ask every question (the
    first `limit`, if given)."""
    modes = modes or LOCOMO_MODES
    started = time.perf_counter()
    corpus_path = corpus_path or questions_path.with_name(
        questions_path.stem + "_corpus" + questions_path.suffix)
    corpus = json.loads(formats.read_text(corpus_path))
    questions = json.loads(formats.read_text(questions_path))[:limit]
    scope = f"bench:multihop:{questions_path.stem}"
    ids = {(p["title"], p["text"]): f"mh-{i}" for i, p in enumerate(corpus)}
    texts = [f"{p['title']}: {p['text']}" for p in corpus]
    vectors = mem.embedder.embed(texts)
    _load(mem, [Numbered(i + 1, MemoryIn(
        id=f"mh-{i}-{scope}", text=text, kind="semantic", source="import",
        metadata={"title": p["title"], "passage": f"mh-{i}"}), str(corpus_path))
        for i, (p, text) in enumerate(zip(corpus, texts, strict=True))], scope, texts, vectors)
    found: dict[str, list[tuple[float, float]]] = {m: [] for m in [*modes, REFERENCE]}
    plain = PlainReference(texts, mem.embedder, vectors=vectors)
    asked = 0
    for q in questions:
        wanted = {ids.get((p["title"], p["paragraph_text"])) for p in q["paragraphs"]
                  if p.get("is_supporting")} - {None}
        if not wanted:
            continue
        asked += 1
        for name, settings in modes.items():
            hits = mem.recall(q["question"], scope=scope, top_k=5,
                              **settings).hits  # type: ignore[arg-type]
            got = [h.metadata.get("passage") for h in hits]
            found[name].append((len(wanted & set(got[:2])) / len(wanted),
                                len(wanted & set(got[:5])) / len(wanted)))
        got = [f"mh-{i}" for i in plain.rank(q["question"], 5)]
        found[REFERENCE].append((len(wanted & set(got[:2])) / len(wanted),
                                 len(wanted & set(got)) / len(wanted)))
    if not keep:
        mem.drop_scope(scope)
    return MultihopBench(
        cores=os.cpu_count() or 1, passages=len(corpus), questions=asked,
        modes={m: {"@2": _pct(a for a, _ in xs), "@5": _pct(b for _, b in xs)}
               for m, xs in found.items()},
        seconds=round(time.perf_counter() - started, 1))
