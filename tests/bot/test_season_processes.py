"""A season's end on two real bot processes with kills: each podium posted once.

Two ``GamenightBot`` processes run shards 0 and 1 of 2 on one fake Discord and one SQLite
file with the real ``/config`` and boards cogs and one ``FakeClock``. Four servers (two a
shard, four time zones) played rated games in the first quarter; a fifth played casual
games only. The clock goes from the end of March to the 1st of April in random steps, past
every server's midnight; at each step both processes do what their schedulers would (the
due timers, the hourly season job fired in both at once, the sweep). When a server's season
has just ended, a process is killed where it stands (its season job and announcement
handlers held as they start, or right after the post, before the timer is marked done):
its tasks cancelled, its gateway and database dropped without giving its claims back. A new
process for that shard starts on the same database; what the dead one held is taken over
once its lease has passed.

In the end: each rated server's podium was posted once, in its announcement channel, after
its own midnight; the casual server heard nothing; every timer and fire is done, and what
each killed process held was finished by another.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord import FakeDiscord
from bot.fakediscord.models import FakeChannel, FakeGuild, FakeMessage
from bot.fakediscord.ratelimits import Limits
from bot.settings import Settings
from bot.spaye_settings import update_spaye_settings
from cogs.boards._season import ANNOUNCE_KIND, SEASON_JOB
from tests.bot.test_month_processes import Gate, Process, TaskOwners, acting_as, owners  # noqa: F401
from tests.cogs.boards_support import COGS, play, ranked_papayoo  # noqa: F401

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("ranked_papayoo")]

START = datetime(2025, 3, 31, 12, 0, tzinfo=UTC)
END = datetime(2025, 4, 1, 9, 0, tzinfo=UTC)
ZONES = ("Asia/Tokyo", "Europe/Paris", "UTC", "America/New_York")
STEPS = (1, 7, 20, 45, 60, 90)
"""Minutes the clock moves at a step."""
TITLE = "Season Q1 2025 is over: the podiums"


@dataclass
class Server:
    guild: FakeGuild
    zone: ZoneInfo
    news: FakeChannel
    rated: bool

    @property
    def shard(self) -> int:
        return int(self.guild.id >> 22) % 2

    @property
    def midnight(self) -> datetime:
        return datetime(2025, 4, 1, tzinfo=self.zone).astimezone(UTC)


@dataclass
class World:
    fake: FakeDiscord
    db_path: Path
    clock: FakeClock
    rng: random.Random
    owners: TaskOwners
    servers: list[Server] = field(default_factory=list)
    live: dict[int, Process] = field(default_factory=dict)
    born: int = 0
    kills: int = 0
    held: list[tuple[str, int]] = field(default_factory=list)
    """(dead owner, timer id) of every announcement a killed process held."""
    stamps: dict[int, datetime] = field(default_factory=dict)
    after_posts: int = 0
    """Kills right after a post, before its timer was marked done."""

    async def start(self, shard: int) -> Process:
        self.born += 1
        name = f"p{self.born}:shard{shard}"
        settings = Settings(
            database_path=self.db_path, shard_count=2, shard_ids=[shard], rest_calls_per_second=1e4
        )
        with acting_as(name):
            bot = GamenightBot(settings, self.clock, COGS)
            running = self.fake.run_client(bot)
            await running.start()
        self.live[shard] = Process(name, shard, bot, running, self.owners)
        return self.live[shard]

    def do_due_work(self, process: Process) -> None:
        """What its schedulers do at a step: the due timers, the season job's fire, the
        sweep (due timers again, and the fires a dead process held)."""
        process.spawn(process.bot.timers.run_due())
        process.spawn(process.bot.timers._fired(SEASON_JOB))
        process.spawn(process.bot.timers._sweep())

    async def settle(self, process: Process) -> None:
        work, process.work = process.work, []
        for task in work:
            await task
        await process.bot.caught_up()

    async def kill_during_step(self, victim: Process, after_post: bool) -> bool:
        """The victim does the step's work alone, held where the kill cuts it, and dies; a
        new process for its shard starts and catches up. ``False`` (and no kill) when its
        work held nothing (no announcement ran in it)."""
        gate = Gate(after_move=False)
        victim.gate = gate
        handlers = victim.bot.timers._handlers
        handler = handlers[ANNOUNCE_KIND]
        handlers[ANNOUNCE_KIND] = _after(handler, gate) if after_post else gate.wrap(handler)
        self.do_due_work(victim)
        await self.fake.wait_for(victim.stuck, timeout=20)
        if not gate.held:
            handlers[ANNOUNCE_KIND] = handler
            await self.settle(victim)
            return False
        await victim.kill()
        self.kills += 1
        db = self.live[1 - victim.shard].bot.db
        rows = await db.fetchall(
            "SELECT id FROM timers WHERE claimed_by = ? AND done = 0 AND kind = ?",
            (victim.bot.process_id, ANNOUNCE_KIND),
        )
        self.held += [(victim.bot.process_id, row["id"]) for row in rows]
        await self.start(victim.shard)
        return True

    async def step(self) -> None:
        """The clock moves on; while a rated server's season has ended and its podium is
        not armed yet, a process dies at the first step whose work announces it."""
        self.clock.advance(minutes=self.rng.choice(STEPS))
        now = self.clock.now()
        db = self.live[0].bot.db
        claimed = {
            row["job"]
            for row in await db.fetchall(
                "SELECT job FROM scheduler_runs WHERE job LIKE ?", (f"{SEASON_JOB}:%",)
            )
        }
        waiting = [
            s
            for s in self.servers
            if s.rated and s.midnight <= now and f"{SEASON_JOB}:{s.guild.id}" not in claimed
        ]
        if waiting:
            victim = self.live[self.rng.randrange(2)]
            after_post = self.rng.random() < 0.6
            if await self.kill_during_step(victim, after_post=after_post):
                self.after_posts += after_post
        for process in self.live.values():
            self.do_due_work(process)
        for process in list(self.live.values()):
            await self.settle(process)
        for server in self.servers:
            for message in self.fake.channel_messages(server.news):
                self.stamps.setdefault(message.id, self.clock.now())


def _after(func: Callable[..., Awaitable[None]], gate: Gate) -> Callable[..., Awaitable[None]]:
    """``func``, then held at ``gate`` (killed after its work, before it is recorded)."""

    async def then_hold(*args: Any) -> None:
        await func(*args)
        await gate.hold()

    return then_hold


async def set_up(world: World) -> None:
    fake = world.fake
    owner = fake.add_user("Olga")
    users = [fake.add_user(f"U{i}") for i in range(4)]
    for i, zone in enumerate((*ZONES, "UTC")):
        guild = fake.add_guild(f"Office {i}", owner=owner, shard=(i % 2, 2))
        news = fake.add_text_channel(guild, "announcements")
        general = fake.add_text_channel(guild, "general")
        for user in users:
            fake.add_member(guild, user)
        world.servers.append(Server(guild, ZoneInfo(zone), news, rated=i < len(ZONES)))
        bot = world.live[i % 2].bot
        await bot.store.settings.update(guild.id, {"timezone": zone})
        await update_spaye_settings(bot, guild.id, {"announce_channel_id": news.id})
        ids = [u.id for u in users]
        meta = {} if i < len(ZONES) else {"casual": True}
        for turn in range(3):
            ranking = [[ids[(turn + k) % 4]] for k in range(4)]
            await play(bot, guild.id, general.id, ranking, meta=meta)


def podiums(messages: list[FakeMessage]) -> list[FakeMessage]:
    return [m for m in messages if m.embeds and m.embeds[0]["title"] == TITLE]


async def check(world: World) -> None:
    db = world.live[0].bot.db
    for server in world.servers:
        said = world.fake.channel_messages(server.news)
        posted = podiums(said)
        assert len(posted) == (1 if server.rated else 0), (server.guild.name, len(posted))
        assert len(said) == len(posted)
        for message in posted:
            assert world.stamps[message.id] >= server.midnight, server.guild.name
    pending = await db.fetchall(
        "SELECT key FROM timers WHERE kind = ? AND (done = 0 OR claimed_by IS NULL)",
        (ANNOUNCE_KIND,),
    )
    assert [row["key"] for row in pending] == []
    fires = await db.fetchall("SELECT done_at FROM job_runs WHERE job_id = ?", (SEASON_JOB,))
    assert fires and all(row["done_at"] is not None for row in fires)
    claims = await db.fetchall(
        "SELECT job, period FROM scheduler_runs WHERE job LIKE ?", (f"{SEASON_JOB}:%",)
    )
    assert sorted(row["period"] for row in claims) == ["2025-Q1"] * len(ZONES)
    for dead, timer_id in world.held:
        row = await db.fetchone("SELECT done, claimed_by FROM timers WHERE id = ?", (timer_id,))
        assert row is not None and row["done"] == 1 and row["claimed_by"] != dead
    assert world.kills >= 2 and world.held, (world.kills, world.held)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_season_end_on_two_processes_with_kills_posts_each_podium_once(
    fake_discord: FakeDiscord,
    owners: TaskOwners,  # noqa: F811
    tmp_path: Path,
    seed: int,
) -> None:
    fake = fake_discord
    fake.limits = Limits.off("a night of two processes in seconds: pacing would only wait")
    world = World(fake, tmp_path / "season.sqlite3", FakeClock(START), random.Random(seed), owners)
    try:
        for shard in (0, 1):
            await world.start(shard)
        await set_up(world)
        while world.clock.now() < END:
            await world.step()
        world.clock.advance(minutes=5)  # every lease a dead process held has passed
        for _ in range(2):
            for process in world.live.values():
                world.do_due_work(process)
            for process in list(world.live.values()):
                await world.settle(process)
        await check(world)
        print(f"\nseed {seed}: {world.kills} kills ({world.after_posts} right after a post)")
    finally:
        for process in world.live.values():
            await process.running.close()
