"""The clock's conversions: pure, so tested without a server."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from graphmem.base.clock import EPOCH, MAX_TIME, MIN_TIME, from_epoch_us


def test_epoch_microseconds_name_the_instant_on_both_sides_of_1970() -> None:
    assert from_epoch_us(0) == EPOCH
    assert from_epoch_us(-499_999) == datetime(1969, 12, 31, 23, 59, 59, 500_001, tzinfo=UTC)
    assert from_epoch_us(1_795_773_662_345_678) == datetime(
        2026, 11, 27, 10, 1, 2, 345_678, tzinfo=UTC)


@given(st.datetimes(min_value=MIN_TIME.replace(tzinfo=None),
                    max_value=(MAX_TIME - timedelta(microseconds=1)).replace(tzinfo=None)))
def test_every_accepted_time_survives_the_trip_as_microseconds(naive: datetime) -> None:
    # What ingest/session_members computes: epochMillis * 1000 + microsecond % 1000.
    value = naive.replace(tzinfo=UTC)
    millis = (value - EPOCH) // timedelta(milliseconds=1)  # rounds down, as Neo4j's
    assert from_epoch_us(millis * 1000 + value.microsecond % 1000) == value
