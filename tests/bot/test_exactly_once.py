"""Exactly once across processes, on the database: two (or more) timer services, each on its
own connections to one SQLite file, with one fake clock. A due timer runs once; a timer or a
periodic job's fire held by a process that died is taken by another once its lease has
passed; a cron fire runs once; a cached game is never answered stale and a move valid on the
newest state is applied whichever process receives it. Then a simulated month of day
closings and hourly jobs with random kills: no run duplicated, none missed."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.interval import IntervalTrigger

from bot import timers as timers_module
from bot.clock import FakeClock, to_iso
from bot.engine import IllegalAction
from bot.storage import Database, Store, StoredGame
from bot.timers import LEASE, TimerService, cron, last_fire_time
from tests.bot.conftest import new_counter

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class Process:
    """One bot process as far as the database knows: its own connections and services."""

    def __init__(self, db_path: Path, clock: FakeClock, name: str) -> None:
        self.name = name
        self.store = Store(Database(db_path), clock)
        self.store.games.shared = True
        self.timers = TimerService(self.store.timers, clock, autorun=False, owner=name)
        self.tasks: list[asyncio.Task[Any]] = []
        self.dead = False

    async def open(self) -> Process:
        await self.store.open()
        await self.timers.start()
        return self

    def spawn(self, work: Awaitable[Any]) -> None:
        self.tasks.append(asyncio.ensure_future(work))

    async def settle(self) -> None:
        """Wait for the work this process was given (errors fail the test)."""
        tasks, self.tasks = self.tasks, []
        for result in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(result, BaseException):
                raise result

    async def kill(self) -> None:
        """Die where it stands: its work is cancelled and nothing more is written for it (its
        claims stay in the database until their leases pass)."""
        self.dead = True
        work = [*self.tasks, *self.timers._running.values(), *self.timers._wake_tasks]
        for task in work:
            task.cancel()
        await asyncio.gather(*work, return_exceptions=True)
        self.tasks = []
        await self.store.close()

    async def close(self) -> None:
        await self.timers.shutdown(grace=1.0)
        await self.store.close()


@pytest.fixture
async def pair(db_path: Path, clock: FakeClock) -> AsyncIterator[tuple[Process, Process]]:
    a = await Process(db_path, clock, "a").open()
    b = await Process(db_path, clock, "b").open()
    try:
        yield a, b
    finally:
        for process in (a, b):
            if not process.dead:
                await process.close()


def recorder(calls: list[tuple[str, Any]], name: str) -> Handler:
    async def handler(payload: dict[str, Any]) -> None:
        calls.append((name, payload.get("n")))
        await asyncio.sleep(0)  # let the other process try meanwhile

    return handler


# -- timers -------------------------------------------------------------------------------------


async def test_a_due_timer_runs_once_across_two_processes(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    calls: list[tuple[str, Any]] = []
    a.timers.register("expire", recorder(calls, "a"))
    b.timers.register("expire", recorder(calls, "b"))
    for n in range(40):
        await a.timers.schedule("expire", clock.now() + timedelta(minutes=1), {"n": n}, f"t{n}")
    assert await asyncio.gather(a.timers.run_due(), b.timers.run_due()) == [0, 0]
    clock.advance(minutes=1)
    ran = await asyncio.gather(a.timers.run_due(), b.timers.run_due())
    assert sum(ran) == 40
    assert sorted(n for _, n in calls) == list(range(40))
    assert await a.timers.pending() == []
    assert await asyncio.gather(a.timers.run_due(), b.timers.run_due()) == [0, 0]
    done = await b.store.timers.get("t7")
    assert done is not None and done.done and done.claimed_by in ("a", "b")
    assert done.lease_until is None


async def test_a_timer_claimed_by_a_dead_process_is_taken_once_its_lease_passed(
    pair: tuple[Process, Process], db_path: Path, clock: FakeClock
) -> None:
    a, b = pair
    started = asyncio.Event()
    calls: list[str] = []

    async def stuck(payload: dict[str, Any]) -> None:
        calls.append("a")
        started.set()
        await asyncio.Event().wait()  # A dies before this returns

    a.timers.register("close", stuck)
    b.timers.register("close", lambda payload: _append(calls, "b"))
    await a.timers.schedule("close", clock.now(), {"day": 1}, key="close:1")
    a.spawn(a.timers.run_due())
    await started.wait()
    held = await b.store.timers.get("close:1")
    assert held is not None and held.claimed_by == "a" and not held.done
    await a.kill()

    # Its lease still holds: nobody runs it, not even a new process.
    clock.advance(seconds=LEASE.total_seconds() - 1)
    assert await b.timers.run_due() == 0
    again = await Process(db_path, clock, "a2").open()
    again.timers.register("close", lambda payload: _append(calls, "a2"))
    await again.timers.catch_up()
    # Past the lease: one of the live processes takes it, once.
    clock.advance(seconds=2)
    ran = await asyncio.gather(b.timers.run_due(), again.timers.run_due())
    assert sum(ran) == 1 and len(calls) == 2 and calls[0] == "a"
    after = await b.store.timers.get("close:1")
    assert after is not None and after.done and after.claimed_by == calls[1]
    assert await asyncio.gather(b.timers.run_due(), again.timers.run_due()) == [0, 0]
    await again.close()


async def _append(calls: list[str], name: str) -> None:
    calls.append(name)


async def test_a_long_handler_renews_its_lease(
    pair: tuple[Process, Process], clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While A's handler runs (minutes of the fake clock), A renews its claim: B never takes
    the timer, however long it takes; once done, the lease is gone."""
    monkeypatch.setattr(timers_module, "LEASE_RENEW_SECONDS", 0.01)
    a, b = pair
    release, started = asyncio.Event(), asyncio.Event()
    calls: list[str] = []

    async def slow(payload: dict[str, Any]) -> None:
        calls.append("a")
        started.set()
        await release.wait()

    a.timers.register("slow", slow)
    b.timers.register("slow", lambda payload: _append(calls, "b"))
    await a.timers.schedule("slow", clock.now(), {}, key="s")
    a.spawn(a.timers.run_due())
    await started.wait()
    first = await b.store.timers.get("s")
    assert first is not None and first.lease_until is not None
    for _ in range(5):  # 5 minutes of fake time, a lease of one: renewed all along
        clock.advance(minutes=1)
        renewed = first.lease_until
        for _ in range(200):
            await asyncio.sleep(0.01)
            held = await b.store.timers.get("s")
            assert held is not None and held.lease_until is not None
            if held.lease_until > renewed and held.lease_until > clock.now():
                break
        else:
            pytest.fail("the lease was not renewed")
        assert await b.timers.run_due() == 0
        first = held
    release.set()
    await a.settle()
    done = await b.store.timers.get("s")
    assert done is not None and done.done and done.lease_until is None
    assert calls == ["a"]


async def test_a_failed_timer_is_given_back_for_its_retry(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    calls: list[str] = []

    async def fails(payload: dict[str, Any]) -> None:
        calls.append("a")
        raise RuntimeError("Discord is down")

    a.timers.register("x", fails)
    b.timers.register("x", lambda payload: _append(calls, "b"))
    await a.timers.schedule("x", clock.now(), {}, key="x")
    assert await a.timers.run_due() == 1
    row = await b.store.timers.get("x")
    assert row is not None and not row.done and row.claimed_by is None and row.attempts == 1
    clock.advance(minutes=1)  # the retry: whoever claims it first
    assert await b.timers.run_due() == 1
    assert calls == ["a", "b"]


async def test_a_failure_after_the_claim_moved_on_leaves_the_row_to_its_new_holder(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    """A's run outlives its lease and B takes the timer over: A's failure, recorded late,
    neither gives B's claim back (a third process could run it too) nor counts an attempt."""
    a, b = pair
    await a.timers.schedule("x", clock.now(), {}, key="x")
    row = await a.store.timers.get("x")
    assert row is not None
    assert await a.store.timers.claim(row.id, "a", clock.now(), clock.now() + LEASE)
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert await b.store.timers.claim(row.id, "b", clock.now(), clock.now() + LEASE)
    retry = clock.now() + timedelta(minutes=1)
    assert not await a.store.timers.record_failure(row.id, "late", retry, "a")
    held = await b.store.timers.get("x")
    assert held is not None and held.claimed_by == "b" and held.attempts == 0
    assert await b.store.timers.record_failure(row.id, "down", retry, "b")
    given_back = await b.store.timers.get("x")
    assert given_back is not None and given_back.claimed_by is None and given_back.attempts == 1


async def test_a_kind_without_a_handler_here_is_left_to_a_process_that_has_one(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    calls: list[str] = []
    b.timers.register("only_b", lambda payload: _append(calls, "b"))
    await a.timers.schedule("only_b", clock.now(), {}, key="k")
    assert await a.timers.run_due() == 0
    row = await a.store.timers.get("k")
    assert row is not None and row.claimed_by is None
    assert await b.timers.run_due() == 1 and calls == ["b"]


# -- periodic jobs ------------------------------------------------------------------------------


def hourly() -> Any:
    return cron("UTC", minute=5)


async def test_a_cron_fire_runs_once_across_two_processes(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    runs: list[str] = []

    async def job_of(name: str) -> None:
        runs.append(name)
        await asyncio.sleep(0)

    a.timers.add_cron("month", lambda: job_of("a"), hourly())
    b.timers.add_cron("month", lambda: job_of("b"), hourly())
    fire = last_fire_time(hourly(), clock.now())
    assert fire == clock.now().replace(hour=8, minute=5)
    # Both schedulers fire (APScheduler's call), and both processes start up (catch-up).
    results = await asyncio.gather(
        a.timers._fired("month"), b.timers._fired("month"), a.timers.catch_up()
    )
    assert results == [None, None, None] and len(runs) == 1
    row = await a.store.timers.jobs.get("month", fire)
    assert row is not None and row["done_at"] is not None and row["claimed_by"] == runs[0]
    # The next hour: one run again.
    clock.advance(hours=1)
    await asyncio.gather(b.timers._fired("month"), a.timers._fired("month"))
    assert len(runs) == 2
    # A restart in the same hour finds that fire done: no catch-up run.
    await asyncio.gather(a.timers.catch_up(), b.timers.catch_up())
    assert len(runs) == 2
    # run_cron is the manual, unclaimed run (tests, the sandbox).
    assert await a.timers.run_cron("month")
    assert len(runs) == 3


async def test_a_cron_fire_claimed_by_a_dead_process_is_taken_over(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    runs: list[str] = []
    b.timers.add_cron("month", lambda: _append(runs, "b"), hourly())
    fire = last_fire_time(hourly(), clock.now())
    assert fire is not None
    # A claimed that fire and died.
    assert await a.store.timers.jobs.claim("month", fire, "a", clock.now(), clock.now() + LEASE)
    await a.kill()
    assert not await b.timers.fire_cron("month", fire)
    assert await b.timers.run_abandoned_crons() == 0
    clock.advance(seconds=LEASE.total_seconds() + 1)
    assert await b.timers.run_abandoned_crons() == 1
    assert runs == ["b"]
    assert await b.timers.run_abandoned_crons() == 0
    assert not await b.timers.fire_cron("month", fire)


async def test_a_failed_fire_is_forgotten_and_caught_up_later(
    pair: tuple[Process, Process], clock: FakeClock
) -> None:
    a, b = pair
    runs: list[str] = []

    async def boom() -> None:
        runs.append("a")
        raise RuntimeError("boom")

    a.timers.add_cron("month", boom, hourly())
    b.timers.add_cron("month", lambda: _append(runs, "b"), hourly())
    fire = last_fire_time(hourly(), clock.now())
    assert fire is not None
    assert not await a.timers.fire_cron("month", fire)
    assert await a.store.timers.jobs.get("month", fire) is None
    await b.timers.catch_up()
    assert runs == ["a", "b"]


def test_periodic_jobs_need_a_cron_trigger(store: Store, clock: FakeClock) -> None:
    service = TimerService(store.timers, clock, autorun=False)
    with pytest.raises(ValueError, match="cron trigger"):
        service.add_cron("x", _noop, IntervalTrigger(hours=1, timezone=ZoneInfo("UTC")))


async def _noop() -> None:
    return None


def test_the_last_fire_time_of_a_trigger(clock: FakeClock) -> None:
    now = clock.now()  # 2025-03-14 09:00 UTC
    assert last_fire_time(cron("UTC", minute=5), now) == now.replace(hour=8, minute=5)
    assert last_fire_time(cron("UTC", minute=0), now) == now
    monthly = last_fire_time(cron("Europe/Paris", day=1, hour=0), now)
    assert monthly is not None and monthly.isoformat() == "2025-03-01T00:00:00+01:00"
    yearly = last_fire_time(cron("UTC", month=2, day=29, hour=0), now)
    assert yearly is not None and yearly.year == 2024


# -- games --------------------------------------------------------------------------------------


@pytest.mark.usefixtures("counter_kind")
async def test_no_process_answers_from_a_stale_game(pair: tuple[Process, Process]) -> None:
    """Both processes hold the game; A plays. B reads the newest state, and a move that is
    valid only on the newest state is applied by B (not refused from its stale copy)."""
    a, b = pair
    game_id = await a.store.games.create("counter", 1, 2, new_counter(target=10))
    await a.store.games.require(game_id)
    await b.store.games.require(game_id)
    assert b.store.games.cached() == 1
    await a.store.games.act(game_id, "111", {"type": "inc"})  # now 222's turn
    seen = await b.store.games.require(game_id)
    assert seen.version == 2 and seen.game.public_view()["total"] == 1

    await a.store.games.act(game_id, "222", {"type": "inc"})  # 111's turn, B holds v2
    stored, _ = await b.store.games.act(game_id, "111", {"type": "inc"})
    assert stored.version == 4 and stored.game.public_view()["total"] == 3

    # A holds v2; a move that is valid on v2 but not on v4 is refused (by the newest state).
    with pytest.raises(IllegalAction):
        await a.store.games.act(game_id, "111", {"type": "inc"})
    # The guard of a seated click is checked on the newest state: still that decision, so
    # the move is applied after the reload.
    await b.store.games.act(game_id, "222", {"type": "inc"})  # v5, A holds v4 at most

    def same_turn(now: StoredGame) -> None:
        if now.game.public_view().get("turn", "111") != "111":
            raise IllegalAction("this control is from an earlier turn", "seated.stale")

    stored, _ = await a.store.games.act(game_id, "111", {"type": "inc"}, guard=same_turn)
    assert stored.version == 6
    # Meta merged from both processes keeps both entries.
    await a.store.games.merge_meta(game_id, "hands", {"111": 1})
    await b.store.games.merge_meta(game_id, "hands", {"222": 2})
    assert (await a.store.games.require(game_id)).meta["hands"] == {"111": 1, "222": 2}


@pytest.mark.usefixtures("counter_kind")
async def test_one_process_keeps_its_cache_without_reads(store: Store) -> None:
    """Not shared (one process): a cached game is returned without a database read."""
    assert not store.games.shared
    game_id = await store.games.create("counter", 1, 2, new_counter())
    await store.games.require(game_id)
    reads = 0
    fetchval = store.db.fetchval

    async def counted(sql: str, params: Any = ()) -> Any:
        nonlocal reads
        reads += 1
        return await fetchval(sql, params)

    store.db.fetchval = counted  # type: ignore[method-assign]
    for _ in range(5):
        await store.games.require(game_id)
    assert reads == 0
    store.games.shared = True
    await store.games.require(game_id)
    assert reads == 1


# -- a month of closings with random kills ------------------------------------------------------

DAYS = 30
START = datetime.fromisoformat("2025-03-01T00:00:00+00:00")


def closing(day: int) -> datetime:
    return START + timedelta(days=day - 1, hours=23, minutes=59)


@dataclass
class Month:
    """What the processes did: handler starts per timer key and per cron fire, and the runs
    that started while the same work was done or running in a live process."""

    clock: FakeClock
    rng: random.Random
    in_flight: dict[str, str] = field(default_factory=dict)
    starts: dict[str, list[str]] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    fires: set[datetime] = field(default_factory=set)

    async def pause(self) -> None:
        if self.rng.random() < 0.5:
            await asyncio.sleep(self.rng.random() * 0.002)
        else:
            await asyncio.sleep(0)


class MonthProcess(Process):
    def __init__(self, db_path: Path, clock: FakeClock, name: str, month: Month) -> None:
        super().__init__(db_path, clock, name)
        self.month = month
        self.timers.register("close", self.close_day)
        self.timers.add_cron("titles", self.titles, hourly())

    async def start_work(self, what: str, done: bool) -> None:
        month = self.month
        month.starts.setdefault(what, []).append(self.name)
        holder = month.in_flight.get(what)
        if done or holder is not None:
            month.duplicates.append(f"{what} by {self.name} (done={done}, running in {holder})")
        month.in_flight[what] = self.name

    def end_work(self, what: str) -> None:
        if self.month.in_flight.get(what) == self.name:
            del self.month.in_flight[what]

    async def close_day(self, payload: dict[str, Any]) -> None:
        day: int = payload["day"]
        key = f"close:{day}"
        row = await self.store.timers.get(key)
        await self.start_work(key, row is None or row.done)
        try:
            await self.month.pause()  # killed here: claimed, nothing done
            async with self.store.db.transaction() as conn:
                async with conn.execute(
                    "INSERT INTO closings (day, closed_by) VALUES (?, ?)"
                    " ON CONFLICT (day) DO NOTHING",
                    (day, self.name),
                ) as cur:
                    if cur.rowcount == 0:
                        raise IllegalAction("that day is closed")
                if day < DAYS:
                    await self.timers.schedule(
                        "close", closing(day + 1), {"day": day + 1}, key=f"close:{day + 1}"
                    )
            await self.month.pause()  # killed here: done, not marked done
        finally:
            self.end_work(key)

    async def titles(self) -> None:
        fire = timers_module.current_fire.get()
        assert fire is not None
        row = await self.store.timers.jobs.get("titles", fire)
        what = f"titles:{fire.isoformat()}"
        await self.start_work(what, row is None or row["done_at"] is not None)
        try:
            await self.month.pause()
        finally:
            self.end_work(what)


async def play_month(db_path: Path, seed: int) -> Month:
    rng = random.Random(seed)
    clock = FakeClock(START)
    month = Month(clock, rng)
    born = 0

    async def new_process() -> MonthProcess:
        nonlocal born
        born += 1
        return await MonthProcess(db_path, clock, f"p{born}", month).open()

    live = [await new_process(), await new_process()]
    await live[0].store.db.execute(
        "CREATE TABLE closings (day INTEGER PRIMARY KEY, closed_by TEXT NOT NULL)"
    )
    await live[0].timers.schedule("close", closing(1), {"day": 1}, key="close:1")
    kills = 0
    end = closing(DAYS) + timedelta(hours=3)
    while clock.now() < end:
        clock.advance(minutes=rng.choice([0, 1, 7, 30, 59, 60, 61, 120, 300, 600, 1439, 1440]))
        fire = last_fire_time(hourly(), clock.now())
        assert fire is not None
        month.fires.add(fire)
        for process in live:
            process.spawn(process.timers.run_due())
            process.spawn(process.timers._fired("titles"))  # both schedulers fire
            if rng.random() < 0.3:
                process.spawn(process.timers._sweep())
        if rng.random() < 0.35:
            await month.pause()
            for _ in range(rng.randint(0, 6)):
                await asyncio.sleep(0)
            victim = rng.choice(live)
            await victim.kill()
            kills += 1
            successor = await new_process()  # the restarted process catches up
            successor.spawn(successor.timers.catch_up())
            live = [successor if p is victim else p for p in live]
        for process in live:
            await process.settle()
    # After the month: past every lease, the sweeps of the live processes finish the rest.
    clock.advance(seconds=LEASE.total_seconds() + 1)
    for _ in range(3):
        for process in live:
            process.spawn(process.timers._sweep())
        for process in live:
            await process.settle()
    db = live[0].store.db
    closed = [row[0] for row in await db.fetchall("SELECT day FROM closings ORDER BY day")]
    assert closed == list(range(1, DAYS + 1)), f"seed {seed}: missed closings"
    assert await live[0].timers.pending() == []
    unfinished = await db.fetchall("SELECT fire_time FROM job_runs WHERE done_at IS NULL")
    assert [tuple(r) for r in unfinished] == [], f"seed {seed}: fires left claimed"
    done_fires = {
        row[0]
        for row in await db.fetchall("SELECT fire_time FROM job_runs WHERE job_id = ?", ("titles",))
    }
    missed = sorted(f.isoformat() for f in month.fires if to_iso(f) not in done_fires)
    assert missed == [], f"seed {seed}: missed fires"
    assert month.duplicates == [], f"seed {seed}: duplicated runs"
    assert kills > 5, "the seed should kill processes along the way"
    for process in live:
        await process.close()
    return month


@pytest.mark.parametrize("seed", range(4))
async def test_a_month_of_closings_with_kills_runs_everything_once(
    tmp_path: Path, seed: int
) -> None:
    month = await play_month(tmp_path / f"month{seed}.sqlite3", seed)
    # Every day closed; a day ran more than once only after a kill interrupted its run.
    days = [k for k in month.starts if k.startswith("close:")]
    assert len(days) == DAYS
    assert len(month.fires) > DAYS * 2
    # Kills landed in the middle of work (claimed, or done but not marked): taken over.
    assert sum(len(runs) - 1 for runs in month.starts.values()) > 0
