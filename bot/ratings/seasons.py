"""A server's seasons: a calendar month, quarter (the default) or year in its time zone.

A season's key sorts as text within one period: ``"2026-12"`` (a month), ``"2026-Q4"`` (a
quarter), ``"2026"`` (a year). A server that changes its period starts the new kind of key
at its next rated game; the rows of the old keys stay as they were.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final, Literal, TypeAlias, get_args
from zoneinfo import ZoneInfo

__all__ = [
    "DEFAULT_PERIOD",
    "PERIODS",
    "SeasonPeriod",
    "is_season_key",
    "next_season",
    "period_of",
    "previous_season",
    "season_bounds",
    "season_key",
    "season_label",
]

SeasonPeriod: TypeAlias = Literal["month", "quarter", "year"]
PERIODS: Final[tuple[SeasonPeriod, ...]] = get_args(SeasonPeriod)
DEFAULT_PERIOD: Final[SeasonPeriod] = "quarter"

_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
_YEAR = re.compile(r"^(\d{4})$")


def season_key(when: datetime, tz: ZoneInfo, period: SeasonPeriod = DEFAULT_PERIOD) -> str:
    """The key of the season holding the instant ``when`` (aware) in the time zone ``tz``."""
    if when.tzinfo is None:
        raise ValueError("season_key needs an aware datetime")
    local = when.astimezone(tz)
    if period == "month":
        return f"{local.year:04d}-{local.month:02d}"
    if period == "quarter":
        return f"{local.year:04d}-Q{(local.month - 1) // 3 + 1}"
    if period == "year":
        return f"{local.year:04d}"
    raise ValueError(f"unknown season period {period!r}")


def _parse(key: str) -> tuple[SeasonPeriod, int, int]:
    """``(period, year, index)``: index is the month (1-12), the quarter (1-4) or 1."""
    if match := _MONTH.match(key):
        return "month", int(match.group(1)), int(match.group(2))
    if match := _QUARTER.match(key):
        return "quarter", int(match.group(1)), int(match.group(2))
    if match := _YEAR.match(key):
        return "year", int(match.group(1)), 1
    raise ValueError(f"not a season key: {key!r}")


def is_season_key(key: str) -> bool:
    try:
        _parse(key)
    except ValueError:
        return False
    return True


def period_of(key: str) -> SeasonPeriod:
    return _parse(key)[0]


def _first_month(period: SeasonPeriod, index: int) -> int:
    return {"month": index, "quarter": 3 * index - 2, "year": 1}[period]


def _key(period: SeasonPeriod, year: int, index: int) -> str:
    if period == "month":
        return f"{year:04d}-{index:02d}"
    if period == "quarter":
        return f"{year:04d}-Q{index}"
    return f"{year:04d}"


def _shift(key: str, step: int) -> str:
    period, year, index = _parse(key)
    size = {"month": 12, "quarter": 4, "year": 1}[period]
    flat = year * size + (index - 1) + step
    return _key(period, flat // size, flat % size + 1)


def previous_season(key: str) -> str:
    """The season before ``key``, of the same period (``"2026-Q1"`` -> ``"2025-Q4"``)."""
    return _shift(key, -1)


def next_season(key: str) -> str:
    """The season after ``key``, of the same period (``"2026-12"`` -> ``"2027-01"``)."""
    return _shift(key, 1)


def season_bounds(key: str, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """``[start, end)`` of the season in UTC: local midnights of its first day and of the
    first day of the next season in ``tz``."""
    period, year, index = _parse(key)
    after_period, after_year, after_index = _parse(next_season(key))
    start = datetime(year, _first_month(period, index), 1, tzinfo=tz)
    end = datetime(after_year, _first_month(after_period, after_index), 1, tzinfo=tz)
    return start.astimezone(UTC), end.astimezone(UTC)


def season_label(key: str, locale: str | None = "en") -> str:
    """How a season reads: ``Q4 2026`` / ``T4 2026``, ``December 2026`` / ``décembre
    2026``, ``2026``."""
    from bot.i18n import t  # the catalogs: data, not I/O at call time

    period, year, index = _parse(key)
    if period == "month":
        return t("ratings.season.month", locale, month=t(f"spaye.cal.month.{index}", locale),
                 year=year)  # fmt: skip
    if period == "quarter":
        return t("ratings.season.quarter", locale, quarter=index, year=year)
    return str(year)
