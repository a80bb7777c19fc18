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
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from graphmem.api import GraphMem
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
    conversations: int
    first_half: int  # questions asked in phase 1
    second_half: int  # questions asked in phase 2
    rows: list[ModeScores]
    seconds: float


def replay(mem: GraphMem, paths: Sequence[Path], *, keep: bool = False) -> ReplayBench:
    """Replay every conversation of `paths` on three fresh copies of its store."""
    started = time.perf_counter()
    found: dict[str, Found] = {row: {} for row in ROWS}
    halves = [0, 0]
    n = 0
    for path in paths:
        for conv in conversations(path):
            n += 1
            records = turns_of(conv, path)
            texts = [r.record.text for r in records]
            # Embedded once: the copies differ only in how they were used.
            vectors = dict(zip(texts, mem.embedder.embed(texts), strict=True))
            middle = len(conv.questions) // 2
            first, second = conv.questions[:middle], conv.questions[middle:]
            halves[0] += len(first)
            halves[1] += len(second)
            with mem.at(conv.asked_at) as ask:
                for copy, (used, fed_back, row) in COPIES.items():
                    scope = f"bench:replay:{conv.name}:{copy}"
                    mem.drop_scope(scope)
                    mem.write(records, mem.write_options(scope=scope), vectors=vectors)
                    try:
                        if used:
                            _use(ask, scope, first, found[FIRST] if fed_back else None)
                        for q in second:
                            _ask(ask, scope, q, found[row])
                        if fed_back or not used:  # the first half again, or with no use
                            for q in first:
                                _ask(ask, scope, q, found[AGAIN if used else FIRST_UNUSED])
                    finally:
                        if not keep:
                            mem.drop_scope(scope)
    return ReplayBench(cores=os.cpu_count() or 1, conversations=n, first_half=halves[0],
                       second_half=halves[1],
                       rows=[mode_scores(row, found[row]) for row in ROWS],
                       seconds=round(time.perf_counter() - started, 1))


def _use(ask: GraphMem, scope: str, questions: list[dict], feedback: Found | None) -> None:
    """Phase 1: the questions asked with the default recall, as an agent asks them; with
    `feedback`, each is scored there and each returned memory reported used if it is
    evidence, else unused."""
    for q in questions:
        hits = ask.recall(q["question"], scope=scope, top_k=10).hits
        if feedback is not None:
            score(feedback, q, [h.metadata.get("dia_id") for h in hits])
            wanted = evidence(q)
            for h in hits:
                ask.feedback(h.id, used=h.metadata.get("dia_id") in wanted, scope=scope)
        ask.flush()  # the next question meets this one's reinforcement


def _ask(ask: GraphMem, scope: str, question: dict, found: Found) -> None:
    """One measured question: the default recall, leaving no trace."""
    hits = ask.recall(question["question"], scope=scope, top_k=10, reinforce=False).hits
    score(found, question, [h.metadata.get("dia_id") for h in hits])
