"""The one source of "now" for the bot runtime, and local-time helpers for guild time zones.

Nothing else in ``bot/`` reads the system time: the bot owns a :class:`Clock` (``bot.clock``),
production uses :class:`SystemClock`, tests use :class:`FakeClock` and move time by hand.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Protocol, runtime_checkable
from zoneinfo import ZoneInfo

__all__ = [
    "Clock",
    "FakeClock",
    "OffsetClock",
    "SystemClock",
    "at_local",
    "from_iso",
    "local_date",
    "month_of",
    "parse_hhmm",
    "to_iso",
]


@runtime_checkable
class Clock(Protocol):
    """Anything that tells the current time as an aware UTC datetime."""

    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The real time."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class OffsetClock(SystemClock):
    """The real time moved forward by ``offset``, which only grows (the sandbox's clock:
    ``python -m bot --sandbox`` moves it to a closing time or a month's end)."""

    def __init__(self, offset: timedelta = timedelta()) -> None:
        self.offset = offset

    def now(self) -> datetime:
        return super().now() + self.offset

    def advance_to(self, when: datetime) -> timedelta:
        """Move forward to ``when`` (never backwards); returns how far it moved."""
        step = _require_aware(when) - self.now()
        if step <= timedelta():
            return timedelta()
        self.offset += step
        return step


class FakeClock:
    """A clock that only moves when told to (tests).

    >>> clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    >>> clock.advance(minutes=10)
    """

    def __init__(self, start: datetime | None = None) -> None:
        self._now = _require_aware(start or datetime(2025, 1, 6, 9, 0, tzinfo=UTC))

    def now(self) -> datetime:
        return self._now

    def set(self, when: datetime) -> None:
        """Jump to ``when`` (aware; it may go backwards)."""
        self._now = _require_aware(when)

    def advance(
        self,
        delta: timedelta | None = None,
        *,
        days: float = 0,
        hours: float = 0,
        minutes: float = 0,
        seconds: float = 0,
    ) -> datetime:
        """Move forward by ``delta`` and/or the given amounts; returns the new now."""
        step = (delta or timedelta()) + timedelta(
            days=days, hours=hours, minutes=minutes, seconds=seconds
        )
        if step < timedelta():
            raise ValueError("a clock does not advance backwards; use set()")
        self._now += step
        return self._now


def _require_aware(when: datetime) -> datetime:
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("datetimes must be timezone-aware")
    return when.astimezone(UTC)


_HHMM = re.compile(r"^(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)$")


def parse_hhmm(text: str) -> time:
    """``"23:59"`` or ``"9:05"`` -> ``time``; anything else raises ``ValueError``."""
    match = _HHMM.match(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a time of day as HH:MM (00:00 to 23:59)")
    return time(int(match["h"]), int(match["m"]))


def local_date(when: datetime, tz: str | ZoneInfo) -> date:
    """The calendar date of the instant ``when`` in the time zone ``tz`` (a guild's day)."""
    zone = tz if isinstance(tz, ZoneInfo) else ZoneInfo(tz)
    return _require_aware(when).astimezone(zone).date()


def at_local(day: date, hhmm: str | time, tz: str | ZoneInfo) -> datetime:
    """The UTC instant of wall-clock ``hhmm`` on ``day`` in ``tz`` (e.g. a Späye closing time).

    On a DST gap the wall time is read with the offset before the change (PEP 495, fold=0),
    which lands just after the gap; on a repeated hour the first occurrence is used.
    """
    zone = tz if isinstance(tz, ZoneInfo) else ZoneInfo(tz)
    wall = hhmm if isinstance(hhmm, time) else parse_hhmm(hhmm)
    return datetime.combine(day, wall, tzinfo=zone).astimezone(UTC)


def month_of(day: date) -> str:
    """``date(2025, 3, 14)`` -> ``"2025-03"`` (the key of monthly scores and titles)."""
    return f"{day.year:04d}-{day.month:02d}"


def to_iso(when: datetime) -> str:
    """Aware datetime -> fixed-width UTC ISO 8601 text that sorts as it compares."""
    return _require_aware(when).isoformat(timespec="microseconds")


def from_iso(text: str) -> datetime:
    """Inverse of :func:`to_iso` (any ISO 8601 with an offset is accepted)."""
    return _require_aware(datetime.fromisoformat(text))
