"""Clock, logs, and the process: a signal stops the bot cleanly."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.__main__ import run
from bot.client import GamenightBot
from bot.clock import (
    FakeClock,
    SystemClock,
    at_local,
    from_iso,
    local_date,
    month_of,
    parse_hhmm,
    to_iso,
)
from bot.logging import JsonFormatter, KeyValueFormatter
from bot.settings import Settings
from tests.fakediscord import FakeDiscord


def test_system_clock_is_aware_utc() -> None:
    now = SystemClock().now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)


def test_fake_clock() -> None:
    clock = FakeClock(datetime(2025, 3, 14, 9, tzinfo=UTC))
    assert clock.advance(minutes=90) == datetime(2025, 3, 14, 10, 30, tzinfo=UTC)
    clock.advance(timedelta(days=1), seconds=1)
    assert clock.now() == datetime(2025, 3, 15, 10, 30, 1, tzinfo=UTC)
    clock.set(datetime(2025, 1, 1, 1, tzinfo=UTC))
    assert clock.now().year == 2025 and clock.now().month == 1
    with pytest.raises(ValueError):
        clock.advance(seconds=-1)
    with pytest.raises(ValueError):
        clock.set(datetime(2025, 1, 1))


def test_local_time_helpers() -> None:
    assert parse_hhmm("9:05") == time(9, 5)
    for bad in ("24:00", "12:60", "noon", "1200"):
        with pytest.raises(ValueError):
            parse_hhmm(bad)
    assert local_date(datetime(2025, 3, 14, 23, 30, tzinfo=UTC), "Europe/Paris") == date(
        2025, 3, 15
    )
    # The night clocks go forward in Paris: 02:30 does not exist, it reads as 03:30 CEST.
    assert at_local(date(2025, 3, 30), "02:30", "Europe/Paris") == datetime(
        2025, 3, 30, 1, 30, tzinfo=UTC
    )
    assert at_local(date(2025, 10, 26), "23:59", "Europe/Paris") == datetime(
        2025, 10, 26, 22, 59, tzinfo=UTC
    )
    assert month_of(date(2025, 3, 14)) == "2025-03"
    stamp = datetime(2025, 3, 14, 9, 0, 0, 5, tzinfo=UTC)
    assert to_iso(stamp) == "2025-03-14T09:00:00.000005+00:00"
    assert from_iso(to_iso(stamp)) == stamp
    assert to_iso(stamp) < to_iso(stamp + timedelta(microseconds=1))


def test_nothing_else_reads_the_system_time() -> None:
    root = Path(__file__).resolve().parents[2]
    for path in [*root.joinpath("bot").rglob("*.py"), *root.joinpath("cogs").rglob("*.py")]:
        if path.name == "clock.py" and path.parent.name == "bot":
            continue
        if "fakediscord" in path.parts:  # the imitation of Discord's servers has their clock
            continue
        text = path.read_text(encoding="utf-8")
        for call in ("datetime.now(", "datetime.utcnow(", "date.today(", "time.time("):
            assert call not in text, f"{path.relative_to(root)} calls {call}"


def record(**extra: object) -> logging.LogRecord:
    rec = logging.LogRecord("gamenight.test", logging.INFO, __file__, 1, "game %s", (4,), None)
    for key, value in extra.items():
        setattr(rec, key, value)
    return rec


def test_log_formats() -> None:
    line = KeyValueFormatter().format(record(game_id=4, note="two words"))
    assert "level=INFO" in line and "logger=gamenight.test" in line
    assert 'msg="game 4"' in line and "game_id=4" in line and 'note="two words"' in line
    data = json.loads(JsonFormatter().format(record(game_id=4)))
    assert data["msg"] == "game 4" and data["game_id"] == 4 and data["ts"].endswith("Z")


@pytest.mark.e2e
async def test_sigterm_stops_the_bot_cleanly(fake_discord: FakeDiscord, db_path: Path) -> None:
    fake_discord.add_guild("Office")
    settings = Settings(database_path=db_path, discord_token=SecretStr("fake-token"))
    bot = GamenightBot(settings, cogs=["cogs.help"])
    # As fake.run_client does: not discord.py's 2 s wait for more GUILD_CREATEs.
    bot._connection.guild_ready_timeout = 0.05
    task = asyncio.create_task(run(settings, "fake-token", bot))
    await fake_discord.wait_for(bot.is_ready, timeout=10)
    assert bot.timers.running and bot.db.is_open
    os.kill(os.getpid(), signal.SIGTERM)
    assert await asyncio.wait_for(task, timeout=10) == 0
    assert not bot.timers.running and not bot.db.is_open and bot.is_closed()


@pytest.mark.e2e
async def test_the_bot_run_by_python_m_bot_freezes_start_up_and_collects_less_often(
    fake_discord: FakeDiscord, db_path: Path
) -> None:
    import gc

    from bot.client import GC_THRESHOLDS

    before = gc.get_threshold()
    fake_discord.add_guild("Office")
    bot = GamenightBot(Settings(database_path=db_path), cogs=["cogs.help"], freeze_startup=True)
    try:
        async with fake_discord.run_client(bot):
            await fake_discord.wait_for(lambda: gc.get_freeze_count() > 0, timeout=10)
            assert gc.get_threshold() == GC_THRESHOLDS
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
