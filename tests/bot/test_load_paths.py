"""The paths that carry the load: the cache of active games, the trips of a transaction,
reads beside a write, a briefly locked database, the timers' wake-up and concurrency."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import IllegalAction
from bot.storage import Store
from bot.storage import db as db_module
from bot.timers import MAX_CONCURRENT, TimerService
from tests.bot.conftest import new_counter

pytestmark = pytest.mark.usefixtures("counter_kind")


async def test_an_active_game_is_read_from_memory_and_shared(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    first = await store.games.require(game_id)
    assert await store.games.require(game_id) is first
    moved, _ = await store.games.act(game_id, "111", {"type": "inc"})
    assert await store.games.require(game_id) is moved
    assert first.game.to_dict()["total"] == 0  # the move went to a fresh copy


async def test_a_failed_commit_leaves_the_cached_game_as_committed(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    before = await store.games.require(game_id)
    text = before.game.dumps()

    async def fail(stored: Any, events: Any) -> None:
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError):
        await store.games.act(game_id, "111", {"type": "inc"}, in_tx=fail)
    with pytest.raises(IllegalAction):
        await store.games.act(game_id, "222", {"type": "inc"})
    now = await store.games.require(game_id)
    assert now is before and now.game.dumps() == text and now.version == 1
    assert await store.db.fetchval("SELECT version FROM games WHERE id = ?", (game_id,)) == 1
    moved, _ = await store.games.act(game_id, "111", {"type": "inc"})
    assert moved.version == 2 and moved.game.to_dict()["total"] == 1


async def test_nothing_is_cached_from_inside_a_transaction_rolled_back(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    await store.games.require(game_id)
    with pytest.raises(ZeroDivisionError):
        async with store.db.transaction():
            await store.games.act(game_id, "111", {"type": "inc"})
            raise ZeroDivisionError
    stored = await store.games.require(game_id)
    assert stored.version == 1 and stored.game.to_dict()["total"] == 0


async def test_a_move_is_one_trip_to_sqlite(
    store: Store, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    await store.games.require(game_id)
    trips = 0
    original = db_module._run_in_thread

    def counted(*args: Any) -> Any:
        nonlocal trips
        trips += 1
        return original(*args)

    monkeypatch.setattr(db_module, "_run_in_thread", counted)
    threads = 0
    conn = store.db._connection()
    original_execute = conn._execute

    async def in_thread(fn: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal threads
        threads += 1
        return await original_execute(fn, *args, **kwargs)

    conn._execute = in_thread  # type: ignore[method-assign]

    async def two_timers(stored: Any, events: Any) -> None:
        for key in ("turn", "warn"):
            await store.timers.put("t", clock.now() + timedelta(minutes=1), {}, key)

    await store.games.act(game_id, "111", {"type": "inc"}, in_tx=two_timers)
    assert trips == 1  # BEGIN, the save, each timer (savepoint, delete, insert), COMMIT
    assert threads == 0  # on the event loop: nothing waited for the write lock
    assert {t.key for t in await store.timers.pending()} == {"turn", "warn"}


async def test_a_move_on_a_stale_game_in_memory_is_rolled_back_and_made_on_the_saved_one(
    store: Store, clock: FakeClock, db_path: Path
) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    await store.games.require(game_id)  # cached at version 1
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("UPDATE games SET version = 7 WHERE id = ?", (game_id,))  # another writer
    other.close()
    tries: list[int] = []

    async def timer(stored: Any, events: Any) -> None:
        tries.append(stored.version)
        await store.timers.put("t", clock.now() + timedelta(minutes=1), {}, "turn")

    moved, _ = await store.games.act(game_id, "111", {"type": "inc"}, in_tx=timer)
    assert tries == [2, 8]  # on the stale copy (its save refused), then on the saved game
    assert moved.version == 8 and moved.game.to_dict()["total"] == 1
    assert [t.key for t in await store.timers.pending()] == ["turn"]  # the first try's: gone
    assert not store.db._connection()._conn.in_transaction
    assert (await store.games.require(game_id)) is moved


async def test_a_read_that_a_move_overtook_does_not_replace_the_newer_game_in_memory(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read from the database that began before a move was saved returns the older
    state; the newer one, saved meanwhile, stays the one in memory."""
    import contextlib

    game_id = await store.games.create("counter", 1, 2, new_counter())
    store.games._cache.clear()  # as after a restart: nothing in memory yet
    fetched, release = asyncio.Event(), asyncio.Event()
    read = store.db.read
    first = [True]

    class Gated:  # the first read's row arrives only once the test says so
        def __init__(self, cur: Any) -> None:
            self.cur = cur

        async def fetchone(self) -> Any:
            row = await self.cur.fetchone()
            fetched.set()
            await release.wait()
            return row

    class Conn:
        def __init__(self, conn: Any) -> None:
            self.conn = conn

        @contextlib.asynccontextmanager
        async def execute(self, sql: str, params: Any = ()) -> Any:
            async with self.conn.execute(sql, params) as cur:
                yield Gated(cur)

    @contextlib.asynccontextmanager
    async def gated_read() -> Any:
        async with read() as conn:
            if first[0]:
                first[0] = False
                yield Conn(conn)
            else:
                yield conn

    monkeypatch.setattr(store.db, "read", gated_read)
    slow = asyncio.create_task(store.games.get(game_id))
    await fetched.wait()  # it holds version 1
    moved, _ = await store.games.act(game_id, "111", {"type": "inc"})
    release.set()
    assert (await slow).version == 1  # what it read
    assert (await store.games.require(game_id)) is moved  # what is in memory: the move
    again, _ = await store.games.act(game_id, "222", {"type": "inc"})
    assert again.version == 3


async def test_a_block_rolled_back_before_its_trip_sends_none_of_its_statements(
    store: Store, clock: FakeClock
) -> None:
    async with store.db.transaction() as conn:
        conn.defer("INSERT INTO scheduler_runs VALUES ('kept', '1', 'x')")
        with pytest.raises(ZeroDivisionError):
            async with store.db.transaction():
                await store.timers.put("t", clock.now(), {}, "dropped")
                raise ZeroDivisionError
    assert await store.timers.pending() == []
    assert await store.db.fetchval("SELECT COUNT(*) FROM scheduler_runs") == 1


async def test_reads_do_not_wait_for_a_write_and_see_only_commits(store: Store) -> None:
    inside, release = asyncio.Event(), asyncio.Event()

    async def writer() -> None:
        async with store.db.transaction() as conn:
            await conn.execute("INSERT INTO scheduler_runs VALUES ('w', '1', 'x')")
            inside.set()
            await release.wait()

    task = asyncio.create_task(writer())
    await inside.wait()
    assert await store.db.fetchval("SELECT COUNT(*) FROM scheduler_runs") == 0
    release.set()
    await task
    assert await store.db.fetchval("SELECT COUNT(*) FROM scheduler_runs") == 1


async def test_a_briefly_locked_database_delays_a_move_once(store: Store, db_path: Path) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    locked, unlock = threading.Event(), threading.Event()

    def other_process() -> None:
        conn = sqlite3.connect(db_path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        locked.set()
        unlock.wait(10)
        conn.execute("COMMIT")
        conn.close()

    holder = threading.Thread(target=other_process)
    holder.start()
    await asyncio.to_thread(locked.wait, 10)
    move = asyncio.create_task(store.games.act(game_id, "111", {"type": "inc"}))
    await asyncio.sleep(0.2)
    assert not move.done()  # waiting for the lock (busy timeout), not failed
    # ... in a thread: the event loop goes on answering meanwhile.
    assert await store.db.fetchval("SELECT COUNT(*) FROM games WHERE id = ?", (game_id,)) == 1
    assert not move.done()
    unlock.set()
    moved, _ = await move
    await asyncio.to_thread(holder.join)
    assert moved.version == 2
    row = await store.db.fetchone("SELECT version, state FROM games WHERE id = ?", (game_id,))
    assert row is not None and row["version"] == 2 and '"total":1' in row["state"]


# -- timers ---------------------------------------------------------------------------------


@pytest.fixture
async def running_timers(store: Store, clock: FakeClock) -> Any:
    service = TimerService(store.timers, clock, autorun=True)
    await service.start()
    yield service
    await service.shutdown()


async def test_one_wakeup_follows_the_earliest_timer(
    running_timers: TimerService, clock: FakeClock
) -> None:
    timers = running_timers
    timers.register("t", lambda payload: asyncio.sleep(0))
    soon, later = clock.now() + timedelta(minutes=1), clock.now() + timedelta(minutes=5)
    await timers.schedule("t", later, {}, key="b")
    assert timers.next_wakeup() == later
    await timers.schedule("t", soon, {}, key="a")
    assert timers.next_wakeup() == soon
    await timers.cancel("a")
    assert set(timers.armed()) == {"b"}
    assert timers.scheduler.get_job("timer:b") is None  # no scheduler job per timer


async def test_a_due_timer_runs_from_the_wakeup(
    running_timers: TimerService, clock: FakeClock
) -> None:
    ran = asyncio.Event()

    async def handler(payload: dict[str, Any]) -> None:
        ran.set()

    running_timers.register("t", handler)
    await running_timers.schedule("t", clock.now(), {}, key="now")
    await asyncio.wait_for(ran.wait(), 5)
    for _ in range(100):
        if not await running_timers.pending():
            break
        await asyncio.sleep(0.01)
    assert await running_timers.pending() == []


async def test_due_timers_run_concurrently_and_bounded(store: Store, clock: FakeClock) -> None:
    timers = TimerService(store.timers, clock, autorun=False)
    release = asyncio.Event()
    running = 0
    most = 0

    async def slow(payload: dict[str, Any]) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await release.wait()
        running -= 1

    timers.register("slow", slow)
    total = MAX_CONCURRENT + 4
    for i in range(total):
        await timers.schedule("slow", clock.now(), {}, key=f"k{i}")
    sweep = asyncio.create_task(timers.run_due())
    for _ in range(200):
        if running == MAX_CONCURRENT:
            break
        await asyncio.sleep(0.01)
    assert running == MAX_CONCURRENT  # many at once, never more than the bound
    assert await timers.run_due() == 0  # a second sweep does not start them again
    release.set()
    assert await sweep == total
    assert most == MAX_CONCURRENT
    assert await timers.pending() == []


async def test_the_wal_is_checkpointed_off_the_event_loop_every_so_many_commits(
    store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "CHECKPOINT_EVERY", 3)
    assert await store.db.pragma("wal_autocheckpoint") == 0  # never inside a move
    for n in range(3):
        await store.db.execute("INSERT INTO scheduler_runs VALUES (?, '1', 'x')", (f"r{n}",))
    checkpoint = store.db._checkpoint
    assert checkpoint is not None
    await checkpoint
    # The database file alone (without its WAL) holds the commits.
    alone = db_path.with_name("alone.sqlite3")
    alone.write_bytes(db_path.read_bytes())
    other = sqlite3.connect(alone)
    try:
        assert other.execute("SELECT COUNT(*) FROM scheduler_runs").fetchone()[0] == 3
    finally:
        other.close()


async def test_discord_py_sweeps_its_rate_limit_buckets_once_a_minute_not_per_request() -> None:
    """discord.py scans every bucket for idle ones each time it makes one past 256 (one per
    DM channel): the bot lets that sweep run at most once a minute."""
    import discord

    from bot.client import BUCKET_SWEEP_SECONDS, sweep_buckets_sparingly

    loop = asyncio.get_running_loop()
    http = discord.http.HTTPClient(loop)
    now = [1000.0]
    sweep_buckets_sparingly(http, now=lambda: now[0])
    sweep_buckets_sparingly(http, now=lambda: now[0])  # a second login wraps nothing again

    def idle_buckets(count: int, start: int) -> None:
        for n in range(start, start + count):
            http.get_ratelimit(f"route-{n}")._last_request = loop.time() - 400  # 5 min idle

    idle_buckets(400, 0)
    assert len(http._buckets) == 400  # no sweep yet: less than a minute since the last
    now[0] += BUCKET_SWEEP_SECONDS
    idle_buckets(1, 400)
    assert len(http._buckets) == 1  # one sweep dropped every idle bucket but the new one
    await http.close()


async def test_idle_rate_limit_buckets_go_after_half_a_minute() -> None:
    """A bucket idle for half a minute is dropped at the next sweep (discord.py would keep it
    5 minutes: with hundreds of players, their DM channels' buckets weighed more than their
    games); one used lately, or with its window spent, is kept."""
    import discord

    from bot.client import BUCKET_IDLE_SECONDS, BUCKET_SWEEP_SECONDS, sweep_buckets_sparingly

    loop = asyncio.get_running_loop()
    http = discord.http.HTTPClient(loop)
    now = [1000.0]
    sweep_buckets_sparingly(http, now=lambda: now[0])
    idle = http.get_ratelimit("dm-idle")
    idle._last_request = loop.time() - BUCKET_IDLE_SECONDS - 1
    recent = http.get_ratelimit("dm-recent")
    recent._last_request = loop.time() - BUCKET_IDLE_SECONDS / 2
    spent = http.get_ratelimit("dm-spent")
    spent._last_request = loop.time() - BUCKET_IDLE_SECONDS - 1
    spent.remaining, spent.expires = 0, loop.time() + 60
    busy = http.get_ratelimit("dm-busy")
    busy._last_request = loop.time() - BUCKET_IDLE_SECONDS - 1
    busy.outgoing = 1
    now[0] += BUCKET_SWEEP_SECONDS
    http.get_ratelimit("new")
    assert sorted(http._buckets) == ["dm-busy", "dm-recent", "dm-spent", "new"]
    await http.close()
