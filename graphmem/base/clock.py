"""graphmem's clock and the times it accepts: every time is timezone-aware UTC, within
a range decay arithmetic in days cannot overflow."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

#: The times graphmem accepts (after conversion to UTC): wide enough for any record, and
#: far enough from Python's year 1 and 9999 that decay arithmetic in days cannot overflow.
MIN_TIME = datetime(1000, 1, 1, tzinfo=UTC)
MAX_TIME = datetime(9000, 1, 1, tzinfo=UTC)
DATE_RANGE = "in years 1000-8999 (UTC)"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_epoch_us(micros: int) -> datetime:
    """The UTC datetime `micros` microseconds after the Unix epoch (a stored time read as
    a number: cheaper to carry over Bolt than a datetime)."""
    return EPOCH + timedelta(microseconds=micros)


def as_utc(value: datetime) -> datetime:
    """A timezone-aware datetime in UTC; naive values are taken to be UTC already.

    ValueError if it lies outside [MIN_TIME, MAX_TIME) (a time zone can push 9999-12-31
    past Python's last year).
    """
    try:
        utc = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"date-time is out of range: only {DATE_RANGE}") from None
    if not MIN_TIME <= utc < MAX_TIME:
        raise ValueError(f"date-time is out of range: only {DATE_RANGE}")
    return utc


def utcnow() -> datetime:
    """The wall clock in UTC (the default for every `--now`)."""
    return datetime.now(UTC)
