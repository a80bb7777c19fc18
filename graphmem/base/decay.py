"""Decay by kind: FadeMem curves with floors (docs/architecture.md, "The lifecycle").

    R = floor + (1 - floor) * exp(-ln2 * (dt / H_eff) ** shape)
    H_eff = H * stability * (0.5 + importance) * (0.5 + confidence)

dt is the time since the last reinforcement (last_accessed, else created_at). The same
formula runs in Cypher (`cypher/recall/*.cypher`) from `cypher_params()`, so Python and
the store always agree on a memory's retention.
"""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel, Field


class Curve(BaseModel):
    """One kind's decay: half-life in days (None never decays), shape, floor."""

    half_life: float | None = Field(gt=0)
    shape: float = Field(1.0, gt=0)
    floor: float = Field(0.0, ge=0, le=1)


#: graphmem's table: Ebbinghaus half-lives with floors, so no memory decays to nothing.
DEFAULT_CURVES = {
    "episodic": Curve(half_life=45, shape=1.0, floor=0.02),
    "semantic": Curve(half_life=120, shape=1.0, floor=0.02),
    "procedural": Curve(half_life=None, shape=1.0, floor=1.0),
    "core": Curve(half_life=120, shape=1.0, floor=0.60),
    "heuristic": Curve(half_life=730, shape=0.7, floor=0.05),
    "reflection": Curve(half_life=120, shape=1.0, floor=0.02),
}

#: A steeper profile (30/90/365/730 d, shapes 1.2/1.0/0.8/0.7): the `seed-000` preset.
STEEP_CURVES = DEFAULT_CURVES | {
    "episodic": Curve(half_life=30, shape=1.2, floor=0.02),
    "semantic": Curve(half_life=90, shape=1.0, floor=0.02),
    "procedural": Curve(half_life=365, shape=0.8, floor=0.05),
    "heuristic": Curve(half_life=730, shape=0.7, floor=0.05),
}

#: The presets `GRAPHMEM_DECAY_PRESET` names (the names are configuration values).
PRESETS = {"spec": DEFAULT_CURVES, "seed-000": STEEP_CURVES}


def retention(curve: Curve, *, created_at: datetime, now: datetime,
              last_accessed: datetime | None = None, stability: float = 1.0,
              importance: float = 0.5, confidence: float = 0.5) -> float:
    """R of one memory at `now` (1.0 when it was just reinforced, `floor` after long)."""
    since = last_accessed or created_at
    return retention_after(curve, (now - since).total_seconds() / 86400.0,
                           stability=stability, importance=importance, confidence=confidence)


def retention_after(curve: Curve, days: float, *, stability: float = 1.0,
                    importance: float = 0.5, confidence: float = 0.5) -> float:
    """R of one memory `days` after its last reinforcement (a negative age counts as 0)."""
    if curve.half_life is None:
        return 1.0
    h_eff = curve.half_life * stability * (0.5 + importance) * (0.5 + confidence)
    return curve.floor + (1 - curve.floor) * math.exp(
        -math.log(2) * (max(0.0, days) / h_eff) ** curve.shape)


def cypher_params(table: dict[str, Curve]) -> dict[str, dict[str, float | None]]:
    """The table as a Cypher parameter: kind -> {h, shape, floor} (h null: never decays)."""
    return {k: {"h": c.half_life, "shape": c.shape, "floor": c.floor} for k, c in table.items()}
