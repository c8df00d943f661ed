"""Durable timers and periodic jobs on APScheduler 3.

A *timer* is a deadline kept in the ``timers`` table (a challenge expiring, a Späye day
closing). Cogs register one handler per kind and schedule timers by key::

    bot.timers.register("spaye.close_day", self.close_day)      # in cog_load
    await bot.timers.schedule("spaye.close_day", closing_instant(settings, day),
                              {"game_id": game_id}, key=f"spaye:{game_id}:close")

    async def close_day(self, payload: dict[str, Any]) -> None:
        await self.bot.store.games.act(payload["game_id"], SYSTEM, {"type": "close"})
        ...  # then tell the channel

How a timer runs. Every path goes through :meth:`TimerService.run_due`, which starts, soonest
first, each pending timer whose ``due_at`` has passed by ``bot.clock``, at most
``MAX_CONCURRENT`` handlers at a time (one slow handler never holds up the others), and
waits for them. Who calls it: one wake-up armed for the earliest due timer (an
``asyncio`` ``call_at`` over an in-memory heap of the pending timers' deadlines; scheduling
a timer costs no scheduler job and no log line), a sweep every minute (APScheduler),
start-up once the bot is ready (timers that fell due while the bot was down), and tests
after moving a ``FakeClock``.

Several processes on one database (the bot as shards) each run their sweep and wake-ups,
and a due timer runs once among them: before its handler, a process claims the row in the
database (one conditional ``UPDATE``: due, not done, no live lease), and only the process
whose claim changed the row runs it. The claim names the process (:attr:`TimerService.owner`)
and holds a lease of ``LEASE`` renewed every ``LEASE_RENEW_SECONDS`` while the handler runs;
it ends with the timer marked done (or given back for a retry). A process that dies holding
a timer leaves its lease to pass: then another process (or the same one restarted) takes it.

Delivery is *at least once*: a timer is marked done after its handler returns. If the bot
dies in between, the handler runs again once its lease has passed, so handlers must be
idempotent. For game actions that comes free: the payload names exactly what the timer ends
(the game, the challenge number), and the second run's ``act`` raises ``IllegalAction``,
which the runner takes as "already done". A handler that fails is retried (after 1, then 2 minutes) and given
up after 3 attempts, with the error kept in ``timers.last_error``; errors are logged and never
stop the loop. A timer whose kind has no handler (its cog is not loaded) stays pending.

Periodic jobs (:meth:`TimerService.add_cron`) take a cron trigger with an explicit
``timezone=ZoneInfo(...)`` (see :func:`cron`). Every process's APScheduler fires them, and
each fire runs once among the processes: it is named by its job id and the instant it was
scheduled for (the same in every process: the trigger's last fire time by the clock), and
the process whose ``INSERT`` into ``job_runs`` made that row runs it (leased and renewed like
a timer; a fire whose process died is taken over by another's sweep once its lease has
passed). APScheduler keeps them in memory only, so a job that must not miss a period claims
it in ``bot.store.runs`` and is also run at start-up (``catch_up=True``) as its last fire,
if no process ran that one, to do whatever periods it missed.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import os
import secrets
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeAlias
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.clock import Clock
from bot.engine import IllegalAction
from bot.storage.models import Timer
from bot.storage.timers import TimerStore

__all__ = [
    "CronFunc",
    "TimerHandler",
    "TimerService",
    "cron",
    "current_fire",
    "last_fire_time",
    "new_owner",
]

log = logging.getLogger("gamenight.timers")

UTC_ZONE = ZoneInfo("UTC")
TimerHandler: TypeAlias = Callable[[dict[str, Any]], Awaitable[None]]
"""``async (payload) -> None``: what happens when a timer of one kind falls due."""
CronFunc: TypeAlias = Callable[[], Awaitable[None]]
current_fire: ContextVar[datetime | None] = ContextVar("current_fire", default=None)
"""Inside a periodic job: the fire it runs for (``None`` in a manual :meth:`run_cron`)."""

MAX_ATTEMPTS = 3
MAX_CONCURRENT = 16
"""Timer handlers running at once (a rush of turn timers moves many games together)."""
RETRY_DELAY = timedelta(minutes=1)
HANDLER_TIMEOUT = 120.0
SWEEP_SECONDS = 60
KEEP_DONE = timedelta(days=30)
LEASE = timedelta(seconds=60)
"""How long a claim on a timer or a periodic job's fire holds without being renewed: a
process that dies holding one delays it by this much at most (plus a sweep)."""
LEASE_RENEW_SECONDS = 20.0
"""How often a process renews the leases of the work it is running (well within ``LEASE``)."""
_LOOKBACK = (
    timedelta(minutes=2),
    timedelta(hours=2),
    timedelta(days=2),
    timedelta(days=33),
    timedelta(days=400),
    timedelta(days=3 * 366),
)


def new_owner() -> str:
    """A token naming this process in claims: host, pid and a random part (a restarted
    process, even with the same pid, is another owner)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


def last_fire_time(trigger: BaseTrigger, now: datetime) -> datetime | None:
    """The latest instant at or before ``now`` that ``trigger`` fires at (``None``: none in
    the last three years). Every process computes the same one for a cron trigger."""
    zone = getattr(trigger, "timezone", UTC_ZONE)
    for span in _LOOKBACK:
        fire: datetime | None = trigger.get_next_fire_time(None, (now - span).astimezone(zone))
        if fire is None or fire > now:
            continue
        while True:
            later: datetime | None = trigger.get_next_fire_time(
                fire, fire + timedelta(microseconds=1)
            )
            if later is None or later > now:
                return fire
            fire = later
    return None


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
    test's, and it calls :meth:`run_due`, :meth:`fire_cron` or :meth:`run_cron` itself.
    ``owner`` names this process in the claims (default: :func:`new_owner`).
    """

    def __init__(
        self, store: TimerStore, clock: Clock, *, autorun: bool = True, owner: str | None = None
    ) -> None:
        self._store = store
        self._jobs = store.jobs
        self._clock = clock
        self.autorun = autorun
        self.owner = owner or new_owner()
        """This process in the claims it makes (``timers.claimed_by``, ``job_runs``)."""
        self.scheduler = AsyncIOScheduler(
            timezone=UTC_ZONE,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        self._handlers: dict[str, TimerHandler] = {}
        self._crons: dict[str, _Cron] = {}
        self._warned: set[str] = set()
        self._started = False
        self._slots = asyncio.Semaphore(MAX_CONCURRENT)
        self._running: dict[int, asyncio.Task[int]] = {}
        self._armed: dict[str, datetime] = {}
        self._heap: list[tuple[datetime, str]] = []
        self._wakeup: asyncio.TimerHandle | None = None
        self._wake_at: datetime | None = None
        self._wake_tasks: set[asyncio.Task[None]] = set()

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
            self._sweep,
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
            await asyncio.sleep(0)  # AsyncIOScheduler stops on the loop's next turn
        self._started = False
        if self._wakeup is not None:
            self._wakeup.cancel()
        self._wakeup, self._wake_at = None, None
        self._armed.clear()
        self._heap.clear()
        running = list(self._running.values())
        if running:
            _, late = await asyncio.wait(running, timeout=grace)
            if late:
                log.warning("a timer was still running at shutdown; it will run again")
        log.info("scheduler stopped")

    async def catch_up(self) -> None:
        """Run what fell due while the bot was down, then every ``catch_up`` periodic job as
        its last fire (unless a process already ran that one)."""
        await self.run_due()
        for job in list(self._crons.values()):
            if job.catch_up:
                fire = last_fire_time(job.trigger, self._clock.now())
                if fire is not None:
                    await self.fire_cron(job.job_id, fire)

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
        await self._store.put(kind, due_at, payload or {}, key)
        self._arm(key, due_at)
        return key

    async def schedule_once(
        self,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any],
        key: str,
        *,
        again_if_done: bool = False,
    ) -> bool:
        """Persist and arm the timer ``key`` unless it exists already (pending, running
        anywhere, or done and not purged yet; with ``again_if_done``, a done one is replaced):
        whether it was created. For work that several processes may each ask for but that
        must run once (:meth:`schedule` would replace a row another process is running)."""
        if due_at.tzinfo is None:
            raise ValueError("due_at must be timezone-aware")
        created = await self._store.add(kind, due_at, payload, key, again_if_done=again_if_done)
        if created:
            self._arm(key, due_at)
        return created

    async def cancel(self, key: str) -> bool:
        """Drop a pending timer; returns whether there was one."""
        self._disarm(key)
        return await self._store.cancel(key)

    async def pending(self) -> list[Timer]:
        return await self._store.pending()

    async def run_due(self) -> int:
        """Run every pending timer that is due by the clock (concurrently, bounded); returns
        how many handlers ran here. Timers another call or another process is running are
        left to it; a timer whose kind has no handler here is left to a process that has one."""
        ran = 0
        seen: set[int] = set()
        while True:
            due = await self._store.due(self._clock.now())
            batch = [t for t in due if t.id not in seen and t.id not in self._running]
            if not batch:
                return ran
            tasks = []
            for timer in batch:
                seen.add(timer.id)
                if timer.kind not in self._handlers:
                    self._no_handler(timer)
                    continue
                task = asyncio.create_task(self._run_bounded(timer), name=f"timer:{timer.key}")
                self._running[timer.id] = task
                task.add_done_callback(self._finished(timer.id))
                tasks.append(task)
            ran += sum(await asyncio.gather(*tasks))

    def _finished(self, timer_id: int) -> Callable[[asyncio.Task[int]], None]:
        def done(task: asyncio.Task[int]) -> None:
            self._running.pop(timer_id, None)

        return done

    def _no_handler(self, timer: Timer) -> None:
        if timer.kind not in self._warned:
            self._warned.add(timer.kind)
            log.warning("no handler for timer kind; left pending", extra={"kind": timer.kind})

    def _lease_end(self, now: datetime | None = None) -> datetime:
        return (now or self._clock.now()) + LEASE

    async def _run_bounded(self, timer: Timer) -> int:
        async with self._slots:
            try:
                now = self._clock.now()
                claimed = await self._store.claim(timer.id, self.owner, now, self._lease_end(now))
            except Exception:
                log.exception("could not claim a timer", extra={"timer": timer.key})
                return 0
            if not claimed:  # another process has it, or it was done or moved meanwhile
                return 0
            return await self._run_one(timer)

    async def _run_one(self, timer: Timer) -> int:
        """Run a timer this process has claimed."""
        handler = self._handlers.get(timer.kind)
        if handler is None:  # unregistered since it was claimed: left to another process
            self._no_handler(timer)
            await self._store.release(timer.id, self.owner)
            return 0
        context = {"timer": timer.key, "kind": timer.kind}

        async def renew() -> bool:
            return await self._store.renew(timer.id, self.owner, self._lease_end())

        try:
            async with self._holding(renew, context), asyncio.timeout(HANDLER_TIMEOUT):
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
            held = await self._store.record_failure(timer.id, error, retry_at, self.owner)
        except Exception:
            log.exception("could not record a timer failure", extra={"timer": timer.key})
            return
        if not held:  # its lease passed and another process runs it now: that run decides
            log.warning("timer failed after its claim moved on", extra={"timer": timer.key})
            return
        if retry_at is not None:
            self._arm(timer.key, retry_at)
        else:
            log.error("timer given up", extra={"timer": timer.key, "attempts": attempts})

    @asynccontextmanager
    async def _holding(
        self, renew: Callable[[], Awaitable[bool]], context: Mapping[str, Any]
    ) -> AsyncIterator[None]:
        """Renew a claim every ``LEASE_RENEW_SECONDS`` while the block runs. A process that
        dies stops renewing: its lease passes and another process takes the work."""
        stop = asyncio.Event()

        async def keep() -> None:
            while True:
                try:
                    await asyncio.wait_for(stop.wait(), LEASE_RENEW_SECONDS)
                    return
                except TimeoutError:
                    pass
                try:
                    if not await renew():
                        log.warning("a claim was lost while its work ran", extra=dict(context))
                        return
                except Exception:
                    log.exception("could not renew a claim", extra=dict(context))

        keeper = asyncio.create_task(keep(), name="timers:lease")
        try:
            yield
        finally:
            stop.set()
            await asyncio.shield(keeper)

    # -- the wake-up ------------------------------------------------------------------------

    def armed(self) -> dict[str, datetime]:
        """The deadlines the wake-up knows (key -> due), for tests and benchmarks."""
        return dict(self._armed)

    def next_wakeup(self) -> datetime | None:
        """When the wake-up will next run the due timers (``None``: nothing armed)."""
        return self._wake_at

    def _arm(self, key: str, due_at: datetime) -> None:
        if not self._started or not self.autorun:
            return
        self._armed[key] = due_at
        heapq.heappush(self._heap, (due_at, key))
        if len(self._heap) > 2 * len(self._armed) + 64:  # drop stale entries now and then
            self._heap = [(due, k) for k, due in self._armed.items()]
            heapq.heapify(self._heap)
        if self._wake_at is None or due_at < self._wake_at:
            self._set_wakeup(due_at)

    def _disarm(self, key: str) -> None:
        self._armed.pop(key, None)  # its heap entry is skipped when it comes up

    def _set_wakeup(self, due_at: datetime) -> None:
        if self._wakeup is not None:
            self._wakeup.cancel()
        loop = asyncio.get_running_loop()
        delay = max(0.0, (due_at - self._clock.now()).total_seconds())
        self._wake_at = due_at
        self._wakeup = loop.call_at(loop.time() + delay, self._wake)

    def _wake(self) -> None:
        self._wakeup, self._wake_at = None, None
        now = self._clock.now()
        fired = False
        while self._heap and self._heap[0][0] <= now:
            due_at, key = heapq.heappop(self._heap)
            if self._armed.get(key) == due_at:
                del self._armed[key]
                fired = True
        while self._heap and self._armed.get(self._heap[0][1]) != self._heap[0][0]:
            heapq.heappop(self._heap)  # cancelled or rescheduled
        if self._heap:
            self._set_wakeup(self._heap[0][0])
        if fired:
            task = asyncio.get_running_loop().create_task(self._sweep(), name="timers:wakeup")
            self._wake_tasks.add(task)
            task.add_done_callback(self._wake_tasks.discard)

    async def _sweep(self) -> None:
        try:
            await self.run_due()
        except Exception:
            log.exception("running due timers failed")
        try:
            await self.run_abandoned_crons()
        except Exception:
            log.exception("taking over periodic jobs failed")

    async def _purge(self) -> None:
        try:
            before = self._clock.now() - KEEP_DONE
            await self._store.purge_done(before)
            await self._jobs.purge_done(before)
        except Exception:
            log.exception("could not purge old timers")

    # -- periodic jobs --------------------------------------------------------------------

    def add_cron(
        self, job_id: str, func: CronFunc, trigger: BaseTrigger, *, catch_up: bool = True
    ) -> None:
        """Run ``func`` on ``trigger`` (replacing a job with the same id), each fire in one
        process only.

        The trigger is a ``CronTrigger`` (its fire times are the calendar's, the same in every
        process) with an explicit ``timezone=ZoneInfo(...)`` (use :func:`cron`). With
        ``catch_up`` the job also runs when the bot is ready after start-up, as its last fire
        if no process ran that one.
        """
        if not isinstance(getattr(trigger, "timezone", None), ZoneInfo):
            raise ValueError(f"{job_id}: give the trigger an explicit timezone=ZoneInfo(...)")
        if not isinstance(trigger, CronTrigger):
            raise ValueError(f"{job_id}: a periodic job needs a cron trigger (see cron())")
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
            self._fired,
            job.trigger,
            args=[job.job_id],
            id=f"cron:{job.job_id}",
            replace_existing=True,
        )

    async def _fired(self, job_id: str) -> None:
        """APScheduler's call: the fire it is for is the trigger's last one by the clock."""
        job = self._crons.get(job_id)
        if job is None:
            return
        fire = last_fire_time(job.trigger, self._clock.now())
        if fire is not None:
            await self.fire_cron(job_id, fire)

    async def fire_cron(self, job_id: str, fire_time: datetime) -> bool:
        """Run the fire ``fire_time`` of a periodic job if this process claims it (no process
        ran it, or the one that claimed it died). Returns whether it ran here and succeeded.

        A fire that fails is forgotten (a later catch-up may run it again); errors are logged.
        """
        job = self._crons.get(job_id)
        if job is None:
            raise KeyError(f"no periodic job {job_id!r}")
        try:
            now = self._clock.now()
            if not await self._jobs.claim(job_id, fire_time, self.owner, now, self._lease_end(now)):
                return False
        except Exception:
            log.exception("could not claim a periodic job", extra={"job": job_id})
            return False

        async def renew() -> bool:
            return await self._jobs.renew(job_id, fire_time, self.owner, self._lease_end())

        token = current_fire.set(fire_time)
        try:
            async with self._holding(renew, {"job": job_id}):
                ok = await self.run_cron(job_id)
        finally:
            current_fire.reset(token)
        try:
            if ok:
                await self._jobs.finish(job_id, fire_time, self.owner)
            else:
                await self._jobs.forget(job_id, fire_time, self.owner)
        except Exception:
            log.exception("could not record a periodic job's run", extra={"job": job_id})
        return ok

    async def run_abandoned_crons(self) -> int:
        """Run the fires of this process's periodic jobs that a dead process had claimed and
        not finished (their lease has passed); returns how many ran here."""
        ran = 0
        for job_id, fire in await self._jobs.abandoned(set(self._crons), self._clock.now()):
            if job_id in self._crons:
                log.warning("taking over a periodic job", extra={"job": job_id})
                ran += await self.fire_cron(job_id, fire)
        return ran

    async def run_cron(self, job_id: str) -> bool:
        """Run a periodic job now, here, whatever other processes do (no claim: tests, the
        sandbox); errors are logged. Returns whether it succeeded."""
        job = self._crons.get(job_id)
        if job is None:
            raise KeyError(f"no periodic job {job_id!r}")
        try:
            await job.func()
        except Exception:
            log.exception("periodic job failed", extra={"job": job_id})
            return False
        return True
