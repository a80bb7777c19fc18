"""A framework's memory slot against the transcript importer: one LoCoMo conversation
imported as a transcript into one scope and written through the slot (an adapter of
`graphmem.integrations`) into another, every question asked of both as `bench locomo`
asks them (the default recall, no reinforcement, the day after the last session). A slot
should recall as well as the transcript does (docs/integrations.md)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from graphmem.api import GraphMem
from graphmem.bench import (
    LOCOMO_MODES,
    Conversation,
    Found,
    ModeScores,
    conversations,
    mode_scores,
    score,
    turns_of,
)
from graphmem.write.records import Numbered

#: Writes a conversation's turns through a framework's slot; returns the scope written.
SlotWriter = Callable[[list[Numbered]], str]


class SlotRecall(BaseModel):
    """Recall of one conversation as a transcript and as written through a slot."""

    cores: int
    slot: str
    questions: int
    transcript: ModeScores
    through_slot: ModeScores

    def line(self) -> str:
        """One line a test prints: both rows' R@5 / R@10 and the questions asked."""
        t, w = self.transcript, self.through_slot
        return (f"{self.slot}, {self.questions} questions: transcript R@5/R@10 "
                f"{t.recall_at_5}/{t.recall_at_10}, through the slot "
                f"{w.recall_at_5}/{w.recall_at_10}")

    def gap(self) -> float:
        """How much R@10 the slot loses against the transcript (negative: it gains)."""
        return round(self.transcript.recall_at_10 - self.through_slot.recall_at_10, 1)


def transcript_recall(mem: GraphMem, path: Path) -> ModeScores:
    """The first conversation of `path` imported as a transcript and asked every question;
    its scope is dropped afterwards. The row every slot of that conversation is held to
    (the same whichever slot is measured: asked once, it serves them all)."""
    conv = conversations(path)[0]
    records = turns_of(conv, path)
    # A scope of this call's own: two runs on one server (pytest's workers) never meet.
    scope = f"bench:slot:{conv.name}:transcript:{uuid.uuid4().hex[:8]}"
    mem.ops.write(records, mem.ops.write_options(scope=scope))
    try:
        return mode_scores("transcript", _asked(mem, conv, scope, records, by_text=False))
    finally:
        mem.drop_scope(scope)


def slot_recall(mem: GraphMem, path: Path, slot: str, write: SlotWriter, *,
                by_text: bool = False, transcript: ModeScores | None = None) -> SlotRecall:
    """The first conversation of `path` written by `write` and asked every question,
    beside `transcript` (`transcript_recall` of the same `path`, asked here when not
    given); the scope written is dropped afterwards. A hit is the turn whose dia_id its
    metadata carries, or (`by_text`, for a slot that keeps no metadata of the caller's)
    the first turn that says its text."""
    conv = conversations(path)[0]
    records = turns_of(conv, path)
    baseline = transcript or transcript_recall(mem, path)
    written = write(records)
    try:
        found = _asked(mem, conv, written, records, by_text=by_text)
    finally:
        mem.drop_scope(written)
    return SlotRecall(cores=os.cpu_count() or 1, slot=slot, questions=len(conv.questions),
                      transcript=baseline, through_slot=mode_scores(slot, found))


def _asked(mem: GraphMem, conv: Conversation, scope: str, records: list[Numbered], *,
           by_text: bool) -> Found:
    """Every question of `conv` asked of `scope` as `bench locomo` asks it (the default
    recall, no reinforcement, the day after the last session), each hit scored by the
    dia_id its metadata carries, or with `by_text` by the first turn that says its text."""
    said: dict[str, object] = {}
    for n in records:
        said.setdefault(n.record.text, n.record.metadata.get("dia_id"))
    found: Found = {}
    with mem.at(conv.asked_at) as ask:
        for q in conv.questions:
            hits = ask.recall(q["question"], scope=scope, top_k=10,
                              **LOCOMO_MODES["default"]).hits  # type: ignore[arg-type]
            score(found, q, [said.get(h.text) if by_text else h.metadata.get("dia_id")
                             for h in hits])
    return found
