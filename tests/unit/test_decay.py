"""The decay curves (pure functions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.base.decay import DEFAULT_CURVES, PRESETS, STEEP_CURVES, Curve, retention

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def test_half_life_halves_what_is_above_the_floor() -> None:
    curve = DEFAULT_CURVES["episodic"]  # 45 d, floor 0.02
    r = retention(curve, created_at=T0, now=T0 + timedelta(days=45))
    assert r == pytest.approx(0.02 + 0.98 * 0.5)


def test_procedural_never_decays_and_core_keeps_its_floor() -> None:
    never = T0 + timedelta(days=9999)
    assert retention(DEFAULT_CURVES["procedural"], created_at=T0, now=never) == 1.0
    assert retention(DEFAULT_CURVES["core"], created_at=T0, now=T0 + timedelta(days=9999)) == (
        pytest.approx(0.60, abs=1e-6))


def test_reinforcement_and_confidence_slow_decay() -> None:
    later = T0 + timedelta(days=60)
    base = retention(DEFAULT_CURVES["semantic"], created_at=T0, now=later)
    assert retention(DEFAULT_CURVES["semantic"], created_at=T0, now=later, stability=2.0) > base
    assert retention(DEFAULT_CURVES["semantic"], created_at=T0, now=later, confidence=0.9) > base
    assert retention(DEFAULT_CURVES["semantic"], created_at=T0, now=later,
                     last_accessed=T0 + timedelta(days=50)) > base


def test_presets() -> None:
    assert set(PRESETS) == {"spec", "seed-000"}
    assert STEEP_CURVES["episodic"] == Curve(half_life=30, shape=1.2, floor=0.02)


@given(days=st.floats(0, 5000), importance=st.floats(0, 1), confidence=st.floats(0, 0.95),
       stability=st.floats(1, 20), kind=st.sampled_from(sorted(DEFAULT_CURVES)))
def test_retention_stays_between_floor_and_one(days: float, importance: float,
                                                confidence: float, stability: float,
                                                kind: str) -> None:
    curve = DEFAULT_CURVES[kind]
    r = retention(curve, created_at=T0, now=T0 + timedelta(days=days), stability=stability,
                  importance=importance, confidence=confidence)
    assert curve.floor - 1e-9 <= r <= 1.0 + 1e-9
