"""Tiered loading: what an agent pastes into its system prompt.

L0 is one identity line with counts per kind; L1 the best memories by static score,
packed under a token budget with type budgets so one kind cannot fill it; L2 is recall.
"""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel

from graphmem.base.vocabulary import (
    CONTEXT_TOKENS,
    CONTEXT_TOP,
)
from graphmem.graph.store import Store
from graphmem.read import budgets

LETTERS = {"semantic": "S", "episodic": "E", "procedural": "P", "heuristic": "H",
           "core": "C", "reflection": "R"}
MAX_LINE_CHARS = 200


class ContextLine(BaseModel):
    """One L1 memory as it is pasted."""

    id: str
    kind: str
    line: str


class Context(BaseModel):
    """L0 and L1 for one scope, and the token estimate of the whole block."""

    scope: str
    identity: str
    lines: list[ContextLine]
    tokens: int

    @property
    def text(self) -> str:
        """The block to paste: the identity line, then one line per memory."""
        return "\n".join([self.identity, *(c.line for c in self.lines)])


def estimate_tokens(text: str) -> int:
    """A conservative token count for English text (about 4 characters or 0.75 words per
    token, whichever says more), so the budget holds for common LLM tokenizers."""
    return math.ceil(max(len(text) / 4, len(text.split()) * 4 / 3))


def line_for(kind: str, text: str) -> str:
    """`[S] text`, one line, cut at MAX_LINE_CHARS."""
    flat = " ".join(text.split())
    if len(flat) > MAX_LINE_CHARS:
        flat = flat[:MAX_LINE_CHARS - 1].rstrip() + "…"
    return f"[{LETTERS.get(kind, '?')}] {flat}"


def build(store: Store, scope: str, now: datetime, *, top: int = CONTEXT_TOP,
          max_tokens: int = CONTEXT_TOKENS) -> Context:
    """L0 and L1 of `scope` at `now`: at most `top` memories within `max_tokens` (held to
    their bounds by the facade, `verbs.ContextArgs`)."""
    counts = {r["kind"]: r["memories"] for r in store.read("context/kind_counts", scope=scope)}
    total = sum(counts.values())
    parts = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    identity = f"[Memory: {total} entries{', ' + parts if parts else ''}]"
    rows = store.read("context/top", scope=scope, now=now, limit=max(top * 10, 100))
    # Type budgets first, so a tight token budget still holds every kind.
    chosen = budgets.select(rows, top, kind=lambda r: r["kind"])
    # Packed in the order chosen, so the budgeted kinds get their room before the extras;
    # shown best first.
    packed: list[tuple[float, ContextLine]] = []
    used = estimate_tokens(identity)
    for row in chosen:
        line = line_for(row["kind"], row["text"])
        cost = estimate_tokens(line) + 1  # the newline
        if used + cost > max_tokens:
            continue
        used += cost
        packed.append((row["score"], ContextLine(id=row["id"], kind=row["kind"], line=line)))
    packed.sort(key=lambda p: -p[0])
    return Context(scope=scope, identity=identity, lines=[c for _, c in packed], tokens=used)
