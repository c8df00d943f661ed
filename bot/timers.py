"""Durable timers and periodic jobs on APScheduler 3.

A *timer* is a deadline kept in the ``timers`` table (a challenge expiring, a Späye day
closing). Cogs register one handler per kind and schedule timers by key::

    bot.timers.register("spaye.close_day", self.close_day)      # in cog_load
    await bot.timers.schedule("spaye.close_day", settings.closing_at(day),
                              {"game_id": game_id}, key=f"spaye:{game_id}:close")

    async def close_day(self, payload: dict[str, Any]) -> None:
        await self.bot.store.games.act(payload["game_id"], SYSTEM, {"type": "close"})
        ...  # then tell the channel

How a timer runs. Every path goes through :meth:`TimerService.run_due`, which runs, in
order, each pending timer whose ``due_at`` has passed by ``bot.clock``: the APScheduler job
armed for the timer (``DateTrigger``, job id ``timer:<key>``) calls it, a sweep every minute
calls it, start-up calls it once the bot is ready (timers that fell due while the bot was
down), and tests call it after moving a ``FakeClock``.

Delivery is *at least once*: a timer is marked done after its handler returns. If the bot
dies in between, the handler runs again after restart, so handlers must be idempotent. For
game actions that comes free: the payload names exactly what the timer ends (the game, the
challenge number), and the second run's ``act`` raises ``IllegalAction``, which the runner
takes as "already done". A handler that fails is retried (after 1, then 2 minutes) and given
up after 3 attempts, with the error kept in ``timers.last_error``; errors are logged and never
stop the loop. A timer whose kind has no handler (its cog is not loaded) stays pending.

Periodic jobs (:meth:`TimerService.add_cron`) take a trigger with an explicit
``timezone=ZoneInfo(...)`` (see :func:`cron`). APScheduler keeps them in memory only, so a
job that must not miss a period claims it in ``bot.store.runs`` and is also run once at
start-up (``catch_up=True``) to do whatever periods it missed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeAlias
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.clock import Clock
from bot.engine import IllegalAction
from bot.storage.models import Timer
from bot.storage.timers import TimerStore

__all__ = ["CronFunc", "TimerHandler", "TimerService", "cron"]

log = logging.getLogger("gamenight.timers")

UTC_ZONE = ZoneInfo("UTC")
TimerHandler: TypeAlias = Callable[[dict[str, Any]], Awaitable[None]]
"""``async (payload) -> None``: what happens when a timer of one kind falls due."""
CronFunc: TypeAlias = Callable[[], Awaitable[None]]

MAX_ATTEMPTS = 3
RETRY_DELAY = timedelta(minutes=1)
HANDLER_TIMEOUT = 120.0
SWEEP_SECONDS = 60
KEEP_DONE = timedelta(days=30)


def cron(timezone: str | ZoneInfo, **fields: Any) -> CronTrigger:
    """A ``CronTrigger`` with an explicit zone: ``cron("Europe/Paris", day=1, hour=0)``."""
    zone = timezone if isinstance(timezone, ZoneInfo) else ZoneInfo(timezone)
    return CronTrigger(timezone=zone, **fields)


@dataclass(frozen=True, slots=True)
class _Cron:
    job_id: str
    func: CronFunc
    trigger: BaseTrigger
    catch_up: bool


class TimerService:
    """Runs timers (``bot.timers``). See the module docstring for the guarantees.

    ``autorun=False`` (tests with a ``FakeClock``) never starts APScheduler: time is the
    test's, and it calls :meth:`run_due` or :meth:`run_cron` itself.
    """

    def __init__(self, store: TimerStore, clock: Clock, *, autorun: bool = True) -> None:
        self._store = store
        self._clock = clock
        self.autorun = autorun
        self.scheduler = AsyncIOScheduler(
            timezone=UTC_ZONE,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        self._handlers: dict[str, TimerHandler] = {}
        self._crons: dict[str, _Cron] = {}
        self._run_lock = asyncio.Lock()
        self._warned: set[str] = set()
        self._started = False

    # -- registration ---------------------------------------------------------------------

    def register(self, kind: str, handler: TimerHandler) -> None:
        """Set the handler of ``kind`` (a cog does it in ``cog_load``)."""
        self._handlers[kind] = handler
        self._warned.discard(kind)

    def unregister(self, kind: str) -> None:
        self._handlers.pop(kind, None)

    # -- lifecycle ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return bool(self.scheduler.running)

    async def start(self) -> None:
        """Start APScheduler (needs the running loop) and arm the timers still in the future.

        Timers that fell due while the bot was down run in :meth:`catch_up`, which the bot
        calls once its cogs are loaded and it is connected.
        """
        if self._started:
            return
        self._started = True
        if not self.autorun:
            return
        self.scheduler.start()
        self.scheduler.add_job(
            self.run_due,
            IntervalTrigger(seconds=SWEEP_SECONDS, timezone=UTC_ZONE),
            id="timers:sweep",
            replace_existing=True,
        )
        self.scheduler.add_job(
            self._purge,
            cron(UTC_ZONE, hour=4, minute=17),
            id="timers:purge",
            replace_existing=True,
        )
        for job in self._crons.values():
            self._add_cron_job(job)
        now = self._clock.now()
        for timer in await self._store.pending():
            if timer.due_at > now:  # overdue ones wait for catch_up(): their cogs load later
                self._arm(timer.key, timer.due_at)
        log.info("scheduler started", extra={"jobs": len(self.scheduler.get_jobs())})

    async def shutdown(self, grace: float = 5.0) -> None:
        """Stop APScheduler and wait (up to ``grace`` s) for a timer being run to finish."""
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        self._started = False
        try:
            async with asyncio.timeout(grace), self._run_lock:
                pass
        except TimeoutError:
            log.warning("a timer was still running at shutdown; it will run again")
        log.info("scheduler stopped")

    async def catch_up(self) -> None:
        """Run what fell due while the bot was down, then every ``catch_up`` periodic job."""
        await self.run_due()
        for job in list(self._crons.values()):
            if job.catch_up:
                await self.run_cron(job.job_id)

    # -- timers ---------------------------------------------------------------------------

    async def schedule(
        self,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any] | None = None,
        key: str | None = None,
    ) -> str:
        """Persist a timer and arm it; returns its key.

        ``due_at`` must be timezone-aware. Scheduling an existing ``key`` replaces that timer
        (done or not). Inside a transaction (e.g. ``act(..., in_tx=...)``) the row commits with
        it; a job armed for a row that was rolled back finds nothing and does nothing.
        """
        if due_at.tzinfo is None:
            raise ValueError("due_at must be timezone-aware")
        key = key or f"{kind}:{uuid.uuid4().hex}"
        timer = await self._store.put(kind, due_at, payload or {}, key)
        self._arm(timer.key, timer.due_at)
        return key

    async def cancel(self, key: str) -> bool:
        """Drop a pending timer; returns whether there was one."""
        self._disarm(key)
        return await self._store.cancel(key)

    async def pending(self) -> list[Timer]:
        return await self._store.pending()

    async def run_due(self) -> int:
        """Run every pending timer that is due by the clock; returns how many handlers ran."""
        async with self._run_lock:
            ran = 0
            seen: set[int] = set()
            while True:
                batch = [t for t in await self._store.due(self._clock.now()) if t.id not in seen]
                if not batch:
                    return ran
                for timer in batch:
                    seen.add(timer.id)
                    ran += await self._run_one(timer)

    async def _run_one(self, timer: Timer) -> int:
        handler = self._handlers.get(timer.kind)
        if handler is None:
            if timer.kind not in self._warned:
                self._warned.add(timer.kind)
                log.warning("no handler for timer kind; left pending", extra={"kind": timer.kind})
            return 0
        context = {"timer": timer.key, "kind": timer.kind}
        try:
            async with asyncio.timeout(HANDLER_TIMEOUT):
                await handler(dict(timer.payload))
        except IllegalAction as err:
            log.info("timer found its work already done", extra={**context, "reason": str(err)})
        except Exception as err:
            log.exception("timer handler failed", extra={**context, "attempt": timer.attempts + 1})
            await self._failed(timer, f"{type(err).__name__}: {err}")
            return 1
        await self._store.mark_done(timer.id)
        return 1

    async def _failed(self, timer: Timer, error: str) -> None:
        attempts = timer.attempts + 1
        retry_at = None
        if attempts < MAX_ATTEMPTS:
            retry_at = self._clock.now() + RETRY_DELAY * attempts
        try:
            await self._store.record_failure(timer.id, error, retry_at)
        except Exception:
            log.exception("could not record a timer failure", extra={"timer": timer.key})
            return
        if retry_at is not None:
            self._arm(timer.key, retry_at)
        else:
            log.error("timer given up", extra={"timer": timer.key, "attempts": attempts})

    async def _job(self, key: str) -> None:
        """What the APScheduler job of one timer runs."""
        try:
            await self.run_due()
            timer = await self._store.get(key)
            if timer is not None and not timer.done and timer.due_at > self._clock.now():
                self._arm(key, timer.due_at)  # fired early (clock skew) or rescheduled
        except Exception:
            log.exception("timer job failed", extra={"timer": key})

    def _arm(self, key: str, due_at: datetime) -> None:
        if not self.scheduler.running:
            return
        self.scheduler.add_job(
            self._job,
            DateTrigger(run_date=due_at, timezone=UTC_ZONE),
            args=[key],
            id=f"timer:{key}",
            replace_existing=True,
        )

    def _disarm(self, key: str) -> None:
        if self.scheduler.running and self.scheduler.get_job(f"timer:{key}") is not None:
            self.scheduler.remove_job(f"timer:{key}")

    async def _purge(self) -> None:
        try:
            await self._store.purge_done(self._clock.now() - KEEP_DONE)
        except Exception:
            log.exception("could not purge old timers")

    # -- periodic jobs --------------------------------------------------------------------

    def add_cron(
        self, job_id: str, func: CronFunc, trigger: BaseTrigger, *, catch_up: bool = True
    ) -> None:
        """Run ``func`` on ``trigger`` (replacing a job with the same id).

        The trigger needs an explicit ``timezone=ZoneInfo(...)`` (use :func:`cron`).
        With ``catch_up`` the job also runs once when the bot is ready after start-up.
        """
        if not isinstance(getattr(trigger, "timezone", None), ZoneInfo):
            raise ValueError(f"{job_id}: give the trigger an explicit timezone=ZoneInfo(...)")
        job = _Cron(job_id, func, trigger, catch_up)
        self._crons[job_id] = job
        if self.scheduler.running:
            self._add_cron_job(job)

    def remove_cron(self, job_id: str) -> None:
        self._crons.pop(job_id, None)
        if self.scheduler.running and self.scheduler.get_job(f"cron:{job_id}") is not None:
            self.scheduler.remove_job(f"cron:{job_id}")

    def _add_cron_job(self, job: _Cron) -> None:
        self.scheduler.add_job(
            self.run_cron,
            job.trigger,
            args=[job.job_id],
            id=f"cron:{job.job_id}",
            replace_existing=True,
        )

    async def run_cron(self, job_id: str) -> bool:
        """Run a periodic job now; errors are logged. Returns whether it succeeded."""
        job = self._crons.get(job_id)
        if job is None:
            raise KeyError(f"no periodic job {job_id!r}")
        try:
            await job.func()
        except Exception:
            log.exception("periodic job failed", extra={"job": job_id})
            return False
        return True
