"""Timers: due by the fake clock, once, retried on error, durable across restarts."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger

from bot.clock import FakeClock, SystemClock
from bot.engine import IllegalAction
from bot.storage import Database, Store
from bot.timers import MAX_ATTEMPTS, TimerService, cron


class Recorder:
    def __init__(self, fail: int = 0, error: type[Exception] = RuntimeError) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail = fail
        self.error = error

    async def __call__(self, payload: dict[str, Any]) -> None:
        self.calls.append(payload)
        if self.fail:
            self.fail -= 1
            raise self.error("not now")


@pytest.fixture
def timers(store: Store, clock: FakeClock) -> TimerService:
    return TimerService(store.timers, clock, autorun=False)


async def test_timer_runs_once_when_due(timers: TimerService, clock: FakeClock) -> None:
    handler = Recorder()
    timers.register("expire", handler)
    key = await timers.schedule("expire", clock.now() + timedelta(minutes=10), {"game_id": 4})
    assert key.startswith("expire:")
    assert await timers.run_due() == 0
    clock.advance(minutes=9, seconds=59)
    assert await timers.run_due() == 0
    clock.advance(seconds=1)
    assert await timers.run_due() == 1
    assert handler.calls == [{"game_id": 4}]
    clock.advance(hours=1)
    assert await timers.run_due() == 0
    assert await timers.pending() == []


async def test_overdue_timer_fires_after_restart(db_path: Path, clock: FakeClock) -> None:
    first = Store(Database(db_path), clock)
    await first.open()
    before = TimerService(first.timers, clock, autorun=False)
    await before.schedule("close", clock.now() + timedelta(hours=1), {"day": "2025-03-14"}, "k")
    await first.close()

    clock.advance(hours=5)  # the bot was down past the deadline
    second = Store(Database(db_path), clock)
    await second.open()
    after = TimerService(second.timers, clock, autorun=False)
    handler = Recorder()
    after.register("close", handler)
    await after.start()
    await after.catch_up()
    assert handler.calls == [{"day": "2025-03-14"}]
    await second.close()


async def test_failures_retry_then_give_up(
    timers: TimerService, clock: FakeClock, store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    handler = Recorder(fail=10)
    timers.register("flaky", handler)
    await timers.schedule("flaky", clock.now(), {}, key="f")
    with caplog.at_level(logging.ERROR, logger="gamenight.timers"):
        for _ in range(MAX_ATTEMPTS):
            assert await timers.run_due() == 1
            clock.advance(minutes=5)
    assert len(handler.calls) == MAX_ATTEMPTS
    assert await timers.run_due() == 0
    timer = await store.timers.get("f")
    assert timer is not None and timer.done and timer.attempts == MAX_ATTEMPTS
    assert timer.last_error == "RuntimeError: not now"
    assert "timer given up" in caplog.text


async def test_retry_succeeds(timers: TimerService, clock: FakeClock) -> None:
    handler = Recorder(fail=1)
    timers.register("flaky", handler)
    await timers.schedule("flaky", clock.now(), {}, key="f")
    await timers.run_due()
    assert await timers.run_due() == 0  # retry is a minute away
    clock.advance(minutes=1)
    assert await timers.run_due() == 1
    assert len(handler.calls) == 2 and await timers.pending() == []


async def test_illegal_action_means_already_done(timers: TimerService, clock: FakeClock) -> None:
    handler = Recorder(fail=1, error=IllegalAction)
    timers.register("expire", handler)
    await timers.schedule("expire", clock.now(), {})
    assert await timers.run_due() == 1
    assert await timers.pending() == []


async def test_kind_without_handler_waits(timers: TimerService, clock: FakeClock) -> None:
    await timers.schedule("later", clock.now(), {"x": 1})
    assert await timers.run_due() == 0
    assert len(await timers.pending()) == 1
    handler = Recorder()
    timers.register("later", handler)
    assert await timers.run_due() == 1
    assert handler.calls == [{"x": 1}]


async def test_reschedule_and_cancel(timers: TimerService, clock: FakeClock) -> None:
    handler = Recorder()
    timers.register("expire", handler)
    await timers.schedule("expire", clock.now() + timedelta(minutes=1), {"v": 1}, key="c")
    await timers.schedule("expire", clock.now() + timedelta(minutes=2), {"v": 2}, key="c")
    clock.advance(minutes=1)
    assert await timers.run_due() == 0
    clock.advance(minutes=1)
    assert await timers.run_due() == 1
    assert handler.calls == [{"v": 2}]
    await timers.schedule("expire", clock.now() + timedelta(minutes=1), {}, key="d")
    assert await timers.cancel("d")
    assert not await timers.cancel("d")
    clock.advance(minutes=5)
    assert await timers.run_due() == 0


async def test_handler_rescheduling_its_own_key(timers: TimerService, clock: FakeClock) -> None:
    calls: list[int] = []

    async def turn(payload: dict[str, Any]) -> None:
        calls.append(payload["n"])
        if payload["n"] < 3:
            await timers.schedule("turn", clock.now(), {"n": payload["n"] + 1}, key="t")

    timers.register("turn", turn)
    await timers.schedule("turn", clock.now(), {"n": 1}, key="t")
    assert await timers.run_due() == 3
    assert calls == [1, 2, 3]
    assert await timers.pending() == []


async def test_naive_deadline_refused(timers: TimerService, clock: FakeClock) -> None:
    with pytest.raises(ValueError):
        await timers.schedule("x", clock.now().replace(tzinfo=None), {})


async def test_cron_needs_explicit_zone_and_logs_errors(
    timers: TimerService, caplog: pytest.LogCaptureFixture
) -> None:
    runs: list[str] = []

    async def month_end() -> None:
        runs.append("ran")
        raise RuntimeError("boom")

    with pytest.raises(ValueError):
        timers.add_cron("bad", month_end, CronTrigger(hour=0, timezone="UTC"))
    timers.add_cron("month", month_end, cron("Europe/Paris", day=1, hour=0))
    with caplog.at_level(logging.ERROR):
        assert not await timers.run_cron("month")
        await timers.catch_up()
    assert runs == ["ran", "ran"]
    assert "periodic job failed" in caplog.text
    timers.remove_cron("month")
    with pytest.raises(KeyError):
        await timers.run_cron("month")


async def test_apscheduler_fires_real_jobs(store: Store) -> None:
    service = TimerService(store.timers, SystemClock(), autorun=True)
    fired = asyncio.Event()

    async def handler(payload: dict[str, Any]) -> None:
        fired.set()

    service.register("now", handler)
    ticks = asyncio.Event()

    async def tick() -> None:
        ticks.set()

    await service.start()
    assert service.running
    service.add_cron("tick", tick, CronTrigger(second="*", timezone=ZoneInfo("UTC")))
    assert service.scheduler.get_job("cron:tick") is not None
    await service.schedule("now", SystemClock().now() - timedelta(seconds=1), {}, key="n")
    assert "n" in service.armed() and service.scheduler.get_job("timer:n") is None
    await asyncio.wait_for(fired.wait(), timeout=5)
    await service.cancel("n")
    await service.shutdown()
    assert not service.running


async def test_start_arms_only_future_timers(store: Store) -> None:
    clock = SystemClock()
    service = TimerService(store.timers, clock, autorun=True)
    await store.timers.put("x", clock.now() - timedelta(hours=1), {}, "overdue")
    await store.timers.put("x", clock.now() + timedelta(hours=1), {}, "future")
    await service.start()
    try:
        assert set(service.armed()) == {"future"}
        assert service.scheduler.get_job("timers:sweep") is not None
    finally:
        await service.shutdown()
