"""Pure rules of maintenance and feedback: summaries, thresholds, decay configuration."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphmem.base.decay import DEFAULT_CURVES, STEEP_CURVES, Curve
from graphmem.base.settings import Settings
from graphmem.lifecycle.edits import ECHO, FIZZLE
from graphmem.lifecycle.maintenance import SweepOptions
from graphmem.lifecycle.summarize import extractive as summary


def test_summary_is_extractive_deterministic_and_bounded() -> None:
    texts = ["Priya approved the plan. Then she left.", "Load tests passed! Good.", "Ship it"]
    assert summary("Priya", texts) == (
        "Priya: Priya approved the plan. · Load tests passed! · Ship it")
    assert summary("Priya", texts) == summary("Priya", list(texts))
    long = summary("X", ["word " * 400])
    assert len(long) == 600 and long.endswith("…")


def test_feedback_numbers_are_the_specs() -> None:
    assert ECHO == {"importance": 0.05, "confidence": 0.1}
    assert FIZZLE == {"importance": -0.1, "confidence": -0.15}


@pytest.mark.parametrize("bad", [{"cold_below": 1.5}, {"prune_below": -0.1},
                                 {"group_min": 1}, {"archive_after_days": 0}])
def test_sweep_options_refuse_nonsense(bad: dict) -> None:
    with pytest.raises(ValidationError):
        SweepOptions(**bad)


def test_decay_table_is_a_preset_with_overrides() -> None:
    assert Settings().decay_table() == DEFAULT_CURVES
    assert Settings(decay_preset="seed-000").decay_table() == STEEP_CURVES
    custom = Settings(decay={"episodic": Curve(half_life=10, floor=0.1)}).decay_table()
    assert custom["episodic"].half_life == 10 and custom["semantic"] == DEFAULT_CURVES["semantic"]
    with pytest.raises(ValidationError, match="unknown decay preset"):
        Settings(decay_preset="fast")
    with pytest.raises(ValidationError, match="unknown kind"):
        Settings(decay={"gossip": Curve(half_life=1)})
