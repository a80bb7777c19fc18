"""Dates in prose: absolute ones (2023-05-07, 7 May 2023, May 2023, in 2023) and relative
ones ("yesterday", "last week", "three days ago") resolved against a memory's own time,
as the values of `date:` entities."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

MONTHS = {m: i for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}
MONTH_ABBR = {m[:3]: i for m, i in MONTHS.items()} | {"sept": 9}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBER_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                 "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}

_MONTH_RE = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
             r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH_YEAR = re.compile(
    rf"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(
    rf"(?i)\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")
_MONTH_YEAR = re.compile(rf"(?i)\b({_MONTH_RE})\.?,?\s+(\d{{4}})\b")
_YEAR = re.compile(r"(?i)\b(?:in|since|during|of|by|until|from)\s+((?:19|20)\d{2})\b")
_RELATIVE = re.compile(
    r"(?i)\b(?:(today|tonight|this morning|this afternoon|this evening|yesterday|last night"
    r"|tomorrow)"
    r"|(last|this|next) (week|weekend|month|year|" + "|".join(WEEKDAYS) + r")"
    r"|(\d+|a couple of|a few|a|one|two|three|four|five|six|seven|eight|nine|ten)"
    r" (day|week|month|year)s? ago)\b"
)

#: What a text must hold for a pattern above to match, tested first (most texts name
#: no date).
_YEAR_HINT = re.compile(r"\d{4}")
_RELATIVE_HINTS = ("today", "tonight", "this ", "yesterday", "last ", "tomorrow", "next ",
                   " ago")


def _month(token: str) -> int:
    token = token.lower().rstrip(".")
    return MONTHS.get(token) or MONTH_ABBR[token[:4] if token[:4] == "sept" else token[:3]]


def _relative_date(match: re.Match[str], at: datetime) -> str | None:
    word, direction, unit, count, ago_unit = (g.lower() if g else None for g in match.groups())
    day = at.date()
    if word:
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1}.get(word, 0)
        return (day + timedelta(days=offset)).isoformat()
    if direction and unit:
        step = {"last": -1, "this": 0, "next": 1}[direction]
        if unit in WEEKDAYS:
            delta = (WEEKDAYS.index(unit) - day.weekday()) % 7
            if direction == "last":
                delta = delta - 7 if delta > 0 else -7
            elif direction == "next":
                delta = delta if delta > 0 else 7
            return (day + timedelta(days=delta)).isoformat()
        if unit in ("week", "weekend"):
            year, week, _ = (day + timedelta(weeks=step)).isocalendar()
            return f"{year}-W{week:02d}"
        if unit == "month":
            month0 = day.year * 12 + day.month - 1 + step
            return f"{month0 // 12}-{month0 % 12 + 1:02d}"
        return str(day.year + step)
    n = int(count) if count and count.isdigit() else NUMBER_WORDS.get(count or "", 1)
    if ago_unit == "day":
        return (day - timedelta(days=n)).isoformat()
    if ago_unit == "week":
        year, week, _ = (day - timedelta(weeks=n)).isocalendar()
        return f"{year}-W{week:02d}"
    if ago_unit == "month":
        month0 = day.year * 12 + day.month - 1 - n
        return f"{month0 // 12}-{month0 % 12 + 1:02d}"
    return str(day.year - n)


def find_dates(text: str, at: datetime | None) -> list[tuple[int, str]]:
    """The dates `text` names, as (position, value): `YYYY-MM-DD`, `YYYY-MM`, `YYYY` or
    `YYYY-Www`; relative ones ("yesterday", "last week") resolved against `at`."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(m: re.Match[str], value: str | None) -> None:
        if value and not any(s <= m.start() < e for s, e in taken):
            taken.append(m.span())
            found.append((m.start(), value))

    if _YEAR_HINT.search(text):  # every absolute date names its year
        for m in _ISO_DATE.finditer(text):
            add(m, m.group(0))
        for m in _DAY_MONTH_YEAR.finditer(text):
            add(m, f"{m.group(3)}-{_month(m.group(2)):02d}-{int(m.group(1)):02d}")
        for m in _MONTH_DAY_YEAR.finditer(text):
            add(m, f"{m.group(3)}-{_month(m.group(1)):02d}-{int(m.group(2)):02d}")
        for m in _MONTH_YEAR.finditer(text):
            add(m, f"{m.group(2)}-{_month(m.group(1)):02d}")
        for m in _YEAR.finditer(text):
            add(m, m.group(1))
    lower = text.lower()
    if at is not None and any(w in lower for w in _RELATIVE_HINTS):
        for m in _RELATIVE.finditer(text):
            try:
                add(m, _relative_date(m, at))
            except (OverflowError, ValueError):  # "999999999 days ago" names no calendar day
                continue
    return found
