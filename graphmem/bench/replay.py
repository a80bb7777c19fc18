"""`bench replay`: does memory get better with use? LoCoMo questions asked in order, the
way an agent would use graphmem, on fresh copies of one store per conversation.

Each conversation's questions are split in order into a first and a second half. Phase 1
asks the first half with the default recall (reinforcement on) and, in one copy, reports
feedback as an agent would: the returned memories that are evidence as used, the others
as unused. Phase 2 asks the second half (without reinforcement, so every row measures
the same thing). The rows, side by side:
- the second half on a copy nobody used (the baseline);
- after phase 1 with reinforcement only;
- after phase 1 with reinforcement and feedback;
- the first half on the copy nobody used, as phase 1 asked it (each question after the
  earlier ones' use), and the same questions asked again after phase 1.

An agent's reports are not an oracle: with `noise`, that share of them is wrong (used
for a memory that was not evidence, unused for one that was), drawn from a fixed seed so
the same command gives the same figures.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.base.options import RecallOptions
from graphmem.bench import (
    Found,
    ModeScores,
    conversations,
    evidence,
    mode_scores,
    score,
    turns_of,
)

UNUSED = "second half, no use"
REINFORCED = "second half after use: reinforcement"
FED_BACK = "second half after use: reinforcement + feedback"
FIRST_UNUSED = "first half, no use"
FIRST = "first half, as phase 1 asked it"
AGAIN = "first half, asked again"
ROWS = (UNUSED, REINFORCED, FED_BACK, FIRST_UNUSED, FIRST, AGAIN)
#: Each copy: whether phase 1 is asked on it, whether it reports feedback, and the row
#: its second half scores in.
COPIES = {"unused": (False, False, UNUSED), "reinforced": (True, False, REINFORCED),
          "fed-back": (True, True, FED_BACK)}


class ReplayBench(BaseModel):
    """`bench replay`: second-half recall with and without use, and the same questions
    asked again."""

    cores: int
    noise: float = 0.0  # the share of feedback reports that were wrong
    use_weight: float  # feedback's weight in the score (RecallOptions.feedback.use_weight)
    conversations: int
    first_half: int  # questions asked in phase 1
    second_half: int  # questions asked in phase 2
    rows: list[ModeScores]
    seconds: float


def replay(mem: GraphMem, paths: Sequence[Path], *, keep: bool = False,
           noise: float = 0.0, seed: int = 0, use_weight: float | None = None) -> ReplayBench:
    """Replay every conversation of `paths` on three fresh copies of its store; `noise`
    is the share of feedback reports that are wrong, `use_weight` feedback's weight in
    the score (default: RecallOptions')."""
    weight = RecallOptions().feedback.use_weight if use_weight is None else use_weight
    reports = random.Random(seed)
    started = time.perf_counter()
    found: dict[str, Found] = {row: {} for row in ROWS}
    asked = [0, 0]
    n = 0
    for path in paths:
        for conv in conversations(path):
            n += 1
            records = turns_of(conv, path)
            texts = [r.record.text for r in records]
            # Embedded once: the copies differ only in how they were used.
            vectors = dict(zip(texts, mem.embedder.embed(texts), strict=True))
            first, second = halves(conv.questions)
            asked[0] += len(first)
            asked[1] += len(second)
            with mem.at(conv.asked_at) as ask:
                for copy, (used, fed_back, row) in COPIES.items():
                    scope = f"bench:replay:{conv.name}:{copy}"
                    mem.drop_scope(scope)
                    mem.ops.write(records, mem.ops.write_options(scope=scope), vectors=vectors)
                    try:
                        if used:
                            _use(ask, scope, first, found[FIRST] if fed_back else None,
                                 noise=noise, draw=reports, weight=weight)
                        for q in second:
                            _ask(ask, scope, q, found[row], weight)
                        if fed_back or not used:  # the first half again, or with no use
                            for q in first:
                                _ask(ask, scope, q, found[AGAIN if used else FIRST_UNUSED],
                                     weight)
                    finally:
                        if not keep:
                            mem.drop_scope(scope)
    return ReplayBench(cores=os.cpu_count() or 1, noise=noise, use_weight=weight,
                       conversations=n, first_half=asked[0],
                       second_half=asked[1],
                       rows=[mode_scores(row, found[row]) for row in ROWS],
                       seconds=round(time.perf_counter() - started, 1))


def halves(questions: list[dict]) -> tuple[list[dict], list[dict]]:
    """A conversation's questions split in order: phase 1 asks the first half (the
    shorter one when they are odd), phase 2 the second."""
    middle = len(questions) // 2
    return questions[:middle], questions[middle:]


def _use(ask: GraphMem, scope: str, questions: list[dict], feedback: Found | None, *,
         noise: float, draw: random.Random, weight: float) -> None:
    """Phase 1: the questions asked with the default recall, as an agent asks them; with
    `feedback`, each is scored there and each returned memory reported used if it is
    evidence, else unused — a `noise` share of the reports the other way round."""
    for q in questions:
        hits = ask.recall(q["question"], scope=scope, top_k=10, use_weight=weight).hits
        if feedback is not None:
            score(feedback, q, [h.metadata.get("dia_id") for h in hits])
            wanted = evidence(q)
            for h in hits:
                used = h.metadata.get("dia_id") in wanted
                ask.feedback(h.id, used=used != (draw.random() < noise), scope=scope)
        ask.flush()  # the next question meets this one's reinforcement


def _ask(ask: GraphMem, scope: str, question: dict, found: Found, weight: float) -> None:
    """One measured question: the default recall, leaving no trace."""
    hits = ask.recall(question["question"], scope=scope, top_k=10, reinforce=False,
                      use_weight=weight).hits
    score(found, question, [h.metadata.get("dia_id") for h in hits])
