"""Späye calendar arithmetic and storage: closing instants across DST, months, month claims."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.clock import FakeClock
from bot.engine import SYSTEM, new_game
from bot.i18n import CATALOGS, LOCALES_DIR, placeholders, t
from bot.spaye_settings import SpayeSettings
from bot.storage import Database, GuildSettings, Store
from cogs.spaye._periods import (
    SpayeGuild,
    closing_instant,
    month_after,
    month_before,
    parse_month,
    wall_time_exists,
)

PARIS, NEW_YORK = "Europe/Paris", "America/New_York"


def settings(zone: str, close: str = "23:59") -> SpayeGuild:
    return SpayeGuild(GuildSettings(guild_id=1, timezone=zone), SpayeSettings(closing_time=close))


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_closing_is_the_local_wall_time_of_that_date() -> None:
    assert closing_instant(settings("UTC"), date(2025, 3, 14)) == utc(2025, 3, 14, 23, 59)
    # Winter and summer in Paris: the same 23:59 is an hour apart in UTC.
    assert closing_instant(settings(PARIS), date(2025, 1, 15)) == utc(2025, 1, 15, 22, 59)
    assert closing_instant(settings(PARIS), date(2025, 7, 15)) == utc(2025, 7, 15, 21, 59)


def test_closing_on_the_day_the_clocks_change() -> None:
    # New York springs forward on 2025-03-09 at 02:00: that evening is already EDT (UTC-4).
    assert closing_instant(settings(NEW_YORK), date(2025, 3, 9)) == utc(2025, 3, 10, 3, 59)
    # And falls back on 2025-11-02: that evening is EST (UTC-5).
    assert closing_instant(settings(NEW_YORK), date(2025, 11, 2)) == utc(2025, 11, 3, 4, 59)
    # Paris springs forward on 2025-03-30, falls back on 2025-10-26.
    assert closing_instant(settings(PARIS), date(2025, 3, 30)) == utc(2025, 3, 30, 21, 59)
    assert closing_instant(settings(PARIS), date(2025, 10, 26)) == utc(2025, 10, 26, 22, 59)


def test_a_skipped_closing_time_closes_when_the_clock_jumps_over_it() -> None:
    # 02:30 never shows in Paris on 2025-03-30 (02:00 -> 03:00 CEST = 01:00 UTC).
    assert not wall_time_exists(date(2025, 3, 30), "02:30", settings(PARIS).zone)
    assert closing_instant(settings(PARIS, "02:30"), date(2025, 3, 30)) == utc(2025, 3, 30, 1)
    assert closing_instant(settings(PARIS, "02:00"), date(2025, 3, 30)) == utc(2025, 3, 30, 1)
    assert closing_instant(settings(PARIS, "03:00"), date(2025, 3, 30)) == utc(2025, 3, 30, 1)
    assert closing_instant(settings(PARIS, "01:59"), date(2025, 3, 30)) == utc(2025, 3, 30, 0, 59)
    # New York: 02:00 -> 03:00 EDT = 07:00 UTC.
    assert closing_instant(settings(NEW_YORK, "02:30"), date(2025, 3, 9)) == utc(2025, 3, 9, 7)


def test_a_repeated_closing_time_closes_at_its_first_occurrence() -> None:
    # Paris 2025-10-26: 02:30 happens at 00:30 UTC (CEST) and again at 01:30 UTC (CET).
    assert wall_time_exists(date(2025, 10, 26), "02:30", settings(PARIS).zone)
    assert closing_instant(settings(PARIS, "02:30"), date(2025, 10, 26)) == utc(2025, 10, 26, 0, 30)
    # New York 2025-11-02: 01:30 EDT = 05:30 UTC comes first.
    assert closing_instant(settings(NEW_YORK, "01:30"), date(2025, 11, 2)) == utc(
        2025, 11, 2, 5, 30
    )


def test_months() -> None:
    assert parse_month(" 2025-03 ") == "2025-03"
    for bad in ("2025-3", "2025-13", "2025-00", "March", "25-03", "2025-03-01", ""):
        with pytest.raises(ValueError):
            parse_month(bad)
    assert month_before("2025-01") == "2024-12" and month_before("2025-03") == "2025-02"
    assert month_after("2024-12") == "2025-01" and month_after("2025-01") == "2025-02"


def test_calendar_texts_exist_in_both_languages_with_the_same_placeholders() -> None:
    en = {k: v for k, v in CATALOGS["en"].items() if k.startswith("spaye.cal.")}
    fr = {k: v for k, v in CATALOGS["fr"].items() if k.startswith("spaye.cal.")}
    assert en and set(en) == set(fr)
    assert all(placeholders(en[k]) == placeholders(fr[k]) for k in en)
    assert (LOCALES_DIR / "spaye_calendar.en.json").exists()
    for key in ("spaye.cal.column.daye", "spaye.cal.column.victory", "spaye.cal.column.reps"):
        assert any(name in t(key, "fr") for name in ("Grand Späyin", "Mastäye", "Tikäo"))


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    st = Store(Database(tmp_path / "cal.sqlite3"), FakeClock(utc(2025, 4, 1, 9)))
    await st.open()
    try:
        yield st
    finally:
        await st.close()


async def test_unsettled_months_lists_pairs_until_claimed(store: Store) -> None:
    def spaye():  # type: ignore[no-untyped-def]
        return new_game("spaye", ["101"], 1)

    await store.days.open_day(1, date(2025, 2, 27), 10, spaye())
    await store.days.open_day(1, date(2025, 3, 3), 10, spaye())
    voided = await store.days.open_day(2, date(2025, 3, 4), 20, spaye())
    await store.games.act(voided, SYSTEM, {"type": "close"})
    await store.days.open_day(1, date(2025, 4, 1), 10, spaye())
    job = "spaye.month_end"
    assert await store.days.unsettled_months(job, "2025-03") == [
        (1, "2025-02"),
        (1, "2025-03"),
        (2, "2025-03"),  # a voided day still makes a month to deal with
    ]
    assert await store.runs.claim(f"{job}:1", "2025-03")
    assert await store.runs.claim("other:2", "2025-03")
    assert await store.days.unsettled_months(job, "2025-04") == [
        (1, "2025-02"),
        (2, "2025-03"),
        (1, "2025-04"),
    ]
