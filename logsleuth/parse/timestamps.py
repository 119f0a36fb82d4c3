"""Timestamps in the formats training stacks print.

Year-less clocks (glog ``I1121 10:00:00.123``, vLLM ``01-22 20:05:19``) get ``YEARLESS`` as their year so they
still order within a job; reports print them as ``--MM-DDTHH:MM:SS``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

YEARLESS = 1900


def full(date: str, clock: str) -> datetime | None:
    """``2024-05-01`` + ``10:00:00,123`` (or ``.123456``) -> datetime; None when out of range."""
    try:
        y, mo, d = int(date[0:4]), int(date[5:7]), int(date[8:10])
        return datetime(y, mo, d, *_clock(clock))
    except ValueError:
        return None


def yearless(month: str, day: str, clock: str) -> datetime | None:
    """``11``, ``21``, ``10:00:00.123`` -> datetime in year ``YEARLESS``; None when out of range."""
    try:
        return datetime(YEARLESS, int(month), int(day), *_clock(clock))
    except ValueError:
        return None


def on_day_of(anchor: datetime, clock: str) -> datetime | None:
    """A date-less wall clock (``15:22:53``) dated from ``anchor``, the last dated time before it in the same file.

    The clock's day is ``anchor``'s, or the next day when the clock reads more than 12 hours before it (the log went
    past midnight). None when the clock is out of range.
    """
    try:
        h, m, s, micro = _clock(clock)
        t = anchor.replace(hour=h, minute=m, second=s, microsecond=micro, tzinfo=None)
    except ValueError:
        return None
    if (anchor.replace(tzinfo=None) - t).total_seconds() > 12 * 3600:
        t += timedelta(days=1)
    return t.replace(tzinfo=anchor.tzinfo)


def one_clock(a: datetime | None, b: datetime | None) -> tuple[datetime, datetime] | None:
    """``a`` and ``b`` on one clock, to compare or subtract: None when either is missing or only one carries a time
    zone; two times of different years (a year-less clock beside a dated one) by month, day and time of day."""
    if a is None or b is None or (a.tzinfo is None) != (b.tzinfo is None):
        return None
    if a.year != b.year:
        return a.replace(year=2000), b.replace(year=2000)  # 2000 has a Feb 29
    return a, b


def _clock(clock: str) -> tuple[int, int, int, int]:
    h, m, rest = clock.split(":", 2)
    if "." in rest or "," in rest:
        s, frac = rest.replace(",", ".").split(".", 1)
        micro = int((frac + "000000")[:6])
    else:
        s, micro = rest, 0
    return int(h), int(m), int(s), micro


def iso(time: datetime | None) -> str | None:
    """ISO 8601 text; ``--MM-DDTHH:MM:SS`` for year-less times."""
    if time is None:
        return None
    if time.year == YEARLESS:
        return "--" + time.isoformat()[5:]
    return time.isoformat()


def iso_dated(time: datetime | None) -> str | None:
    """ISO 8601 text of a time that has its year; None for None and for a year-less clock (the JSON contract)."""
    return None if time is None or time.year == YEARLESS else time.isoformat()
