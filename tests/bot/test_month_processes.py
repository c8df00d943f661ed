"""A simulated month on two real bot processes with random kills: nothing run twice, nothing
missed.

Two ``GamenightBot`` processes run shards 0 and 1 of 2 on one fake Discord and one SQLite
file, with the real ``/config``, Späye and Papayoo cogs and one ``FakeClock``. Four guilds
(two a shard, four time zones) open their Späye every day by themselves (``/config
spaye-opening``), are reminded before closing time and closed at it; on a few days two däyes
are played, so those days finish and each month's titles are announced in the guild's
announcement channel, with a DM to each titleholder. Papayoo games whose players never play
are moved by their turn timers.

The clock goes forward in random steps over five weeks (two month ends, a daylight-saving
change); after each step both processes do their due work as their schedulers would
(``run_due``, the hourly month job fired in both, the sweep). Now and then (seeded) a process
that has timers due is killed where it stands: its timer handlers and month job held as they
start (or a turn timer right after its first move was committed), its tasks cancelled, its
gateway and database connections dropped without the shutdown that gives claims back. A new
process for the same shard starts on the same database and catches up; what the dead one held
is taken over once its lease has passed.

In the end, from the fake Discord and the database: every guild's every day was opened once
and closed once, each with one message in its time window, and never reminded twice; each
month end was announced once per guild and each titleholder told once; no turn-timer decision
was moved twice and each game holds exactly the moves recorded; every due timer is done, no
periodic job's fire is left claimed, no timer was run to its end twice, and everything a
killed process held was finished by another.

Then two month ends running at once in two processes, by the product's own paths (a sweep
taking over a dead process's fire while the next hour's fire runs elsewhere; an opening on the
1st, which ends the month first, beside the hourly fire): the month is announced once.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import random
import time
import weakref
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

import bot.seated.start as seated_start
from bot.client import GamenightBot
from bot.clock import FakeClock, to_iso
from bot.engine.papayoo import HAND_SIZE
from bot.fakediscord import FakeDiscord, RunningClient
from bot.fakediscord.models import FakeChannel, FakeGuild, FakeMessage, FakeUser
from bot.fakediscord.ratelimits import Limits
from bot.seated import SeatedCog
from bot.settings import Settings
from bot.spaye_settings import update_spaye_settings
from bot.storage import StoredGame
from bot.storage.timers import TimerStore
from bot.timers import LEASE, MAX_CONCURRENT, last_fire_time
from cogs.spaye._calendar import schedule_closing
from cogs.spaye._month import MONTH_JOB, deliver_title_dm
from cogs.spaye._opening import day_meta, opening_key, schedule_opening
from cogs.spaye._periods import wall_instant
from tests.cogs.papayoo_support import Table
from tests.cogs.test_spaye_calendar_e2e import confirm, two_dayes
from tests.cogs.test_spaye_support import COGS as SPAYE_COGS

pytestmark = pytest.mark.e2e

COGS = [*SPAYE_COGS, "cogs.papayoo"]
START = datetime(2025, 3, 27, 12, 0, tzinfo=UTC)
END = datetime(2025, 5, 2, 6, 0, tzinfo=UTC)
"""Five weeks: the ends of March and of April, in every guild's zone."""
OFFICES = (
    ("Europe/Moscow", "13:00"),
    ("Europe/Paris", "12:00"),
    ("UTC", "10:00"),
    ("America/New_York", "09:00"),
)
"""Each guild's zone and opening time. On the 1st every opening comes at least 6 hours after
the last guild's midnight (04:00 UTC, New York): the hourly month job has settled and
announced the month by then, and an opening on the 1st, which runs the month's end first,
finds nothing left to do (two month ends running at once in two processes would announce a
month twice). Each day is open for 11 hours at least: a kill holding its opening (taken over
one or two steps later) still opens it in time."""
CLOSES, REMINDER = "23:59", timedelta(hours=1)
PLAYED = (date(2025, 3, 29), date(2025, 3, 31), date(2025, 4, 8), date(2025, 4, 30))
"""Days on which two däyes empty the table, so they finish (the others are voided)."""
STEPS = (0, 1, 7, 30, 60, 90, 120, 180, 240)
"""Minutes the clock moves at a step (at most 4 hours, well within a day's 11)."""
TURN_SECONDS = 600
GAMES = (2, 1, 1, 2)
"""Rounds of each Papayoo game (two a guild, in the first two guilds: one per shard)."""
KILL_RATE = 0.025
"""The chance, at each step, that a process is doomed (killed at its next step with work)."""

_PROCESS: contextvars.ContextVar[str | None] = contextvars.ContextVar("process", default=None)


# -- processes ----------------------------------------------------------------------------------


class TaskOwners:
    """Tags each asyncio task with the process whose code created it (a task inherits its
    creator's context), so that a kill stops exactly that process's tasks."""

    def __init__(self) -> None:
        self.tasks: defaultdict[str, weakref.WeakSet[asyncio.Task[Any]]] = defaultdict(
            weakref.WeakSet
        )

    def factory(
        self, loop: asyncio.AbstractEventLoop, coro: Any, *, context: Any = None
    ) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, context=context)
        owner = _PROCESS.get() if context is None else context.get(_PROCESS)
        if owner is not None:
            self.tasks[owner].add(task)
        return task

    def alive(self, owner: str) -> list[asyncio.Task[Any]]:
        return [t for t in self.tasks[owner] if not t.done()]


@contextmanager
def acting_as(name: str) -> Iterator[None]:
    """Tasks created in this block belong to process ``name``."""
    token = _PROCESS.set(name)
    try:
        yield
    finally:
        _PROCESS.reset(token)


class Gate:
    """Where a process about to be killed holds its work: each timer handler and the month
    job wait here as they start (with ``after_move``, a turn timer right after its first
    committed move instead), so that the kill cuts them at a known point."""

    def __init__(self, after_move: bool) -> None:
        self.after_move = after_move
        self.held: set[asyncio.Task[Any]] = set()

    async def hold(self) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.held.add(task)
        await asyncio.Event().wait()  # until the kill

    def wrap(self, func: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        async def holding(*args: Any) -> None:
            await self.hold()
            await func(*args)

        return holding


@dataclass
class Process:
    """One bot process: its bot, its connection to the fake Discord, the work it was given."""

    name: str
    shard: int
    bot: GamenightBot
    running: RunningClient
    owners: TaskOwners
    work: list[asyncio.Task[Any]] = field(default_factory=list)
    gate: Gate | None = None

    def spawn(self, work: Awaitable[Any]) -> None:
        with acting_as(self.name):
            self.work.append(asyncio.ensure_future(work))

    def do_due_work(self, minutes: int) -> None:
        """What its schedulers do when ``minutes`` have passed: run the due timers, fire the
        hourly month job, and (every minute) sweep: due timers again, and the periodic jobs'
        fires a dead process held."""
        self.spawn(self.bot.timers.run_due())
        self.spawn(self.bot.timers._fired(MONTH_JOB))
        if minutes >= 1:
            self.spawn(self.bot.timers._sweep())

    async def settle(self) -> None:
        work, self.work = self.work, []
        for result in await asyncio.gather(*work, return_exceptions=True):
            if isinstance(result, BaseException):
                raise result
        await self.bot.caught_up()
        await self.bot.get_cog("Papayoo").settle()  # type: ignore[union-attr]

    def hold_work(self, gate: Gate) -> None:
        """From now on its timer handlers and the month job stop at ``gate``."""
        self.gate = gate
        turn_timer = self.bot.get_cog("Papayoo").turn_timer()  # type: ignore[union-attr]
        handlers = self.bot.timers._handlers
        for kind, handler in handlers.items():
            if not (gate.after_move and kind == turn_timer):
                handlers[kind] = gate.wrap(handler)
        crons = self.bot.timers._crons
        crons[MONTH_JOB] = dataclasses.replace(
            crons[MONTH_JOB], func=gate.wrap(crons[MONTH_JOB].func)
        )

    def stuck(self) -> bool:
        """Whether each piece of its work is done, held at its gate, or waits only for
        timers held there (or for a slot among ``MAX_CONCURRENT`` all held)."""
        assert self.gate is not None
        held = self.gate.held
        running = set(self.bot.timers._running.values())
        full = len(held & running) >= MAX_CONCURRENT

        def blocked(task: asyncio.Future[Any]) -> bool:
            if task in held or (full and task in running):
                return True
            waits_for = getattr(task, "_fut_waiter", None)  # e.g. run_due's gather
            waiting = [c for c in getattr(waits_for, "_children", ()) if not c.done()]
            return bool(waiting) and all(blocked(child) for child in waiting)

        return all(task.done() or blocked(task) for task in self.work)

    async def kill(self) -> None:
        """Die where it stands (as ``Process.kill`` in test_exactly_once, with the bot's own
        tasks, gateway and connections): every task it made cancelled, the gateway dropped
        without a close, the database connections gone; nothing gives its claims back, they
        stay in the database until their leases pass."""
        while tasks := self.owners.alive(self.name):
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        self.work = []
        await self.running.crash()
        await self.bot.store.close()


# -- the world ----------------------------------------------------------------------------------


@dataclass
class Office:
    """A guild in one time zone: its Späye channel, its announcement channel, four
    colleagues who play Späye (Papayoo players are others)."""

    guild: FakeGuild
    zone: ZoneInfo
    opens: str
    owner: FakeUser
    general: FakeChannel
    news: FakeChannel
    colleagues: list[FakeUser]

    @property
    def shard(self) -> int:
        return int(self.guild.id >> 22) % 2

    def at(self, day: date, hhmm: str) -> datetime:
        return wall_instant(day, hhmm, self.zone)

    def today(self, now: datetime) -> date:
        return now.astimezone(self.zone).date()

    def days(self, now: datetime) -> tuple[list[date], list[date]]:
        """The days that opened after the start: those closed by ``now``, the running one."""
        closed: list[date] = []
        running: list[date] = []
        day = START.date() - timedelta(days=1)
        while self.at(day, self.opens) <= now:
            if self.at(day, self.opens) > START:
                (closed if self.at(day, CLOSES) <= now else running).append(day)
            day += timedelta(days=1)
        return closed, running


@dataclass(frozen=True)
class Claim:
    """What a killed process held: a timer's row, or a periodic job's fire."""

    owner: str
    kind: str
    timer: int | None = None
    fire: str | None = None


@dataclass(frozen=True)
class Move:
    """A turn timer's move: the game, for whom, and the version it was decided on."""

    game_id: int
    player: str
    decided: int


@dataclass
class Month:
    """The world, its processes, and what they did."""

    fake: FakeDiscord
    db_path: Path
    clock: FakeClock
    rng: random.Random
    owners: TaskOwners
    offices: list[Office] = field(default_factory=list)
    tables: list[tuple[Table, int]] = field(default_factory=list)
    """Each Papayoo game and its rounds."""
    live: dict[int, Process] = field(default_factory=dict)
    born: int = 0
    gates: dict[GamenightBot, Gate] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    marked_done: Counter[int] = field(default_factory=Counter)
    """Timer row -> runs of it that reached their end (``mark_done``)."""
    stamps: dict[int, datetime] = field(default_factory=dict)
    """Message id -> the fake clock at the step that posted it."""
    played: set[tuple[int, date]] = field(default_factory=set)
    fires: set[datetime] = field(default_factory=set)
    held: list[Claim] = field(default_factory=list)
    """What killed processes held."""
    doomed: int | None = None
    """The shard whose process is killed at the next step where it has timers due (away
    from a month's end)."""
    recovering: list[Claim] = field(default_factory=list)
    """What the last killed process held and nobody has taken over yet (no kill meanwhile)."""
    kills: int = 0
    cut: list[int] = field(default_factory=list)
    """For each kill, the handlers (and month job) it cut where they were held."""
    cut_moves: int = 0
    """Turn timers cut right after their first move was committed."""
    steps: int = 0

    # -- processes ------------------------------------------------------------------------

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

    def other(self, process: Process) -> Process:
        return self.live[1 - process.shard]

    def of(self, office: Office) -> Process:
        return self.live[office.shard]

    async def kill(self, victim: Process) -> Process:
        """Kill ``victim``, note the claims it held, start the process that replaces it."""
        await victim.kill()
        self.kills += 1
        owner, db = victim.bot.process_id, self.other(victim).bot.db
        timers = await db.fetchall(
            "SELECT id, kind FROM timers WHERE claimed_by = ? AND done = 0", (owner,)
        )
        jobs = await db.fetchall(
            "SELECT job_id, fire_time FROM job_runs WHERE claimed_by = ? AND done_at IS NULL",
            (owner,),
        )
        self.recovering = [Claim(owner, row["kind"], timer=row["id"]) for row in timers]
        self.recovering += [Claim(owner, row["job_id"], fire=row["fire_time"]) for row in jobs]
        self.held += self.recovering
        return await self.start(victim.shard)

    async def taken_over(self, claim: Claim) -> bool:
        """Whether another process finished what a killed one held."""
        db = self.live[0].bot.db
        if claim.timer is not None:
            row = await db.fetchone(
                "SELECT done, claimed_by FROM timers WHERE id = ?", (claim.timer,)
            )
            # A turn timer's row is replaced when its game moves on: taken over too.
            return row is None or (row["done"] == 1 and row["claimed_by"] != claim.owner)
        row = await db.fetchone(
            "SELECT claimed_by, done_at FROM job_runs WHERE job_id = ? AND fire_time = ?",
            (claim.kind, claim.fire),
        )
        assert row is not None
        return row["done_at"] is not None and row["claimed_by"] != claim.owner

    # -- the month ------------------------------------------------------------------------

    async def step(self) -> None:
        self.steps += 1
        minutes = self.rng.choice(STEPS)
        self.clock.advance(minutes=minutes)
        trigger = self.live[0].bot.timers._crons[MONTH_JOB].trigger
        self.fires.add(last_fire_time(trigger, self.clock.now()))  # type: ignore[arg-type]
        await self.play_days()
        self.recovering = [c for c in self.recovering if not await self.taken_over(c)]
        if self.doomed is None and not self.recovering and self.rng.random() < KILL_RATE:
            self.doomed = self.rng.randrange(2)
        victim = None if self.doomed is None else self.live[self.doomed]
        now = self.clock.now()
        if victim and await victim.bot.store.timers.due(now):
            self.doomed = None
            await self.kill_during(victim, minutes)
        else:
            for process in self.live.values():
                process.do_due_work(minutes)
        for process in list(self.live.values()):
            await process.settle()
        self.stamp_messages()

    async def kill_during(self, victim: Process, minutes: int) -> None:
        """The victim starts this step's work alone and is killed once all of it is held;
        the process replacing it catches up while the other one does its work."""
        gate = Gate(after_move=self.rng.random() < 0.5)
        self.gates[victim.bot] = gate
        victim.hold_work(gate)
        victim.do_due_work(minutes)
        await self.fake.wait_for(victim.stuck, timeout=20)
        self.cut.append(len(gate.held))
        successor = await self.kill(victim)
        self.other(successor).do_due_work(minutes)

    async def finish(self) -> None:
        """Past every lease: the live processes' sweeps take what a dead one held."""
        self.clock.advance(seconds=LEASE.total_seconds() + 1)
        for _ in range(2):
            for process in self.live.values():
                process.spawn(process.bot.timers._sweep())
            for process in self.live.values():
                await process.settle()
        self.stamp_messages()

    async def play_days(self) -> None:
        """A played day, before its opening: stored with two däyes played (by the engine,
        as the calendar tests store theirs), its closing armed, by the guild's process."""
        now = self.clock.now()
        for office in self.offices:
            today = office.today(now)
            if today not in PLAYED or (office.guild.id, today) in self.played:
                continue
            assert now < office.at(today, office.opens)
            self.played.add((office.guild.id, today))
            bot = self.of(office).bot
            ids = [str(u.id) for u in office.colleagues]
            k = PLAYED.index(today)
            game = two_dayes(*ids[k:], *ids[:k])
            game_id = await bot.store.days.open_day(
                office.guild.id, today, office.general.id, game, day_meta(today)
            )
            await schedule_closing(bot, office.guild.id, today, game_id)

    def stamp_messages(self) -> None:
        now = self.clock.now()
        for message_id in self.fake.messages:
            self.stamps.setdefault(message_id, now)


# -- recording ----------------------------------------------------------------------------------


@pytest.fixture
async def owners() -> AsyncIterator[TaskOwners]:
    loop = asyncio.get_running_loop()
    before = loop.get_task_factory()
    tagged = TaskOwners()
    loop.set_task_factory(tagged.factory)
    try:
        yield tagged
    finally:
        loop.set_task_factory(before)


@pytest.fixture(autouse=True)
def month_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seated games at test speed (as in tests/cogs), the same deals every run."""
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
    monkeypatch.setattr(seated_start, "new_seed", lambda: 20250327)


def record(monkeypatch: pytest.MonkeyPatch, month: Month) -> None:
    """Every turn timer's move and every timer run's end, in every process; a process being
    killed with ``after_move`` holds its turn timer right after its first move."""
    real_move = SeatedCog._bot_move
    real_done = TimerStore.mark_done

    async def bot_move(cog: SeatedCog, stored: StoredGame, player: str) -> Any:
        done = await real_move(cog, stored, player)
        if done is not None:
            month.moves.append(Move(stored.id, player, stored.version))
            gate = month.gates.get(cog.bot)
            if gate is not None and gate.after_move:
                month.cut_moves += 1
                await gate.hold()
        return done

    async def mark_done(store: TimerStore, timer_id: int) -> bool:
        changed = await real_done(store, timer_id)
        month.marked_done[timer_id] += 1
        return changed

    monkeypatch.setattr(SeatedCog, "_bot_move", bot_move)
    monkeypatch.setattr(TimerStore, "mark_done", mark_done)


# -- setting up ---------------------------------------------------------------------------------


def build_offices(fake: FakeDiscord) -> list[Office]:
    offices = []
    for i, (zone, opens) in enumerate(OFFICES):
        owner = fake.add_user(f"Owner{i}")
        guild = fake.add_guild(f"Office {zone}", owner=owner, shard=(i % 2, 2))
        colleagues = [fake.add_user(f"S{i}{k}") for k in range(4)]
        for user in colleagues:
            fake.add_member(guild, user)
        general = fake.add_text_channel(guild, "general")
        news = fake.add_text_channel(guild, "announcements")
        offices.append(Office(guild, ZoneInfo(zone), opens, owner, general, news, colleagues))
    return offices


async def set_up(month: Month) -> None:
    """Each guild's zone and announcement channel; its opening every day, by ``/config
    spaye-opening``; two Papayoo games in each of the first two guilds (one per shard),
    started through their lobbies."""
    fake = month.fake
    for office in month.offices:
        bot = month.of(office).bot
        await bot.store.settings.update(office.guild.id, {"timezone": office.zone.key})
        await update_spaye_settings(bot, office.guild.id, {"announce_channel_id": office.news.id})
        options = {"time": office.opens, "weekdays": "mon-sun", "channel": office.general}
        shown = await fake.slash(office.owner, office.general, "config spaye-opening", options)
        assert shown.ephemeral, shown.text
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is not None and timer.due_at == office.at(office.days(END)[0][0], office.opens)
    for n, rounds in enumerate(GAMES):
        office = month.offices[n // 2]
        channel = fake.add_text_channel(office.guild, f"papayoo-{n}")
        players = [fake.add_user(f"P{n}{k}") for k in range(4)]
        for user in players:
            fake.add_member(office.guild, user)
        table = Table(fake, month.of(office).bot, office.guild, channel, players)
        await table.open_and_start({"rounds": rounds, "turn_seconds": TURN_SECONDS})
        month.tables.append((table, rounds))
    for process in month.live.values():
        await process.settle()
    month.stamp_messages()


# -- what happened ------------------------------------------------------------------------------


def kind_of(message: FakeMessage) -> str:
    text = message.content or ""
    if "(workday opening)" in text:
        return "opening"
    if text.startswith("⏰ Today's Späye closes"):
        return "reminder"
    if text.startswith("🕛 Closing time"):
        return "closing"
    return "other"


def moves_applied(stored: StoredGame) -> int:
    """The moves a Papayoo game's engine has applied: a pass and a hand of cards per player
    each round."""
    view = stored.game.public_view()
    players = len(view["players"])
    cards = players * HAND_SIZE[players]
    moves = len(view["history"]) * (players + cards)
    if view["phase"] == "pass":
        moves += len(view["pass_locked"])
    elif view["phase"] == "play":
        moves += players + cards - sum(view["hand_sizes"].values())
    return moves


async def check_days(month: Month, office: Office) -> None:
    """Each day opened once (by the bot, unless played) and closed once, each message at a
    time that says which day it is for; no day reminded twice."""
    now, fake, stamps = month.clock.now(), month.fake, month.stamps
    closed, running = office.days(now)
    played = {day for guild, day in month.played if guild == office.guild.id}
    assert played == set(PLAYED)
    rows = await month.live[0].bot.db.fetchall(
        "SELECT day, status FROM spaye_days WHERE guild_id = ?", (office.guild.id,)
    )
    status = {date.fromisoformat(row["day"]): row["status"] for row in rows}
    assert status == {
        **{day: "over" if day in played else "voided" for day in closed},
        **dict.fromkeys(running, "active"),
    }, office.guild.name

    # the channel has each day's board and closing; the day's thread its reminder
    threads = [m for x in fake.threads(office.general) for m in fake.channel_messages(x)]
    said = sorted(fake.channel_messages(office.general) + threads, key=lambda m: m.id)
    by_kind: dict[str, list[FakeMessage]] = defaultdict(list)
    for message in said:
        by_kind[kind_of(message)].append(message)
    assert by_kind["other"] == [], [m.content for m in by_kind["other"]]
    closings = by_kind["closing"]
    assert len(closings) == len(closed), (office.guild.name, len(closings), len(closed))
    for day, message in zip(closed, closings, strict=True):
        closes = office.at(day, CLOSES)
        assert closes <= stamps[message.id] < closes + timedelta(days=1), (day, message.content)
        assert ("**finished**" in message.content) == (day in played), (day, message.content)
    opened = [day for day in closed + running if day not in played]
    openings = by_kind["opening"]
    assert len(openings) == len(opened), (office.guild.name, len(openings), len(opened))
    for day, message in zip(opened, openings, strict=True):
        assert office.at(day, office.opens) <= stamps[message.id] < office.at(day, CLOSES)
    reminded = Counter(office.today(stamps[m.id]) for m in by_kind["reminder"])
    assert reminded and set(reminded.values()) == {1}, reminded
    for message in by_kind["reminder"]:
        day = office.today(stamps[message.id])
        closes = office.at(day, CLOSES)
        assert day in opened and closes - REMINDER <= stamps[message.id] < closes


async def check_titles(month: Month, office: Office) -> None:
    """Each month's end announced once in the announcement channel, after the guild's own
    midnight; each titleholder told once per month."""
    news = month.fake.channel_messages(office.news)
    titles = [m.embeds[0]["title"] if m.embeds else m.content for m in news]
    assert titles == ["🏆 Späye titles of March 2025", "🏆 Späye titles of April 2025"], titles
    for message, first in zip(news, (date(2025, 4, 1), date(2025, 5, 1)), strict=True):
        assert month.stamps[message.id] >= office.at(first, "00:00")
    rows = await month.live[0].bot.db.fetchall(
        "SELECT DISTINCT month, user_id FROM month_titles WHERE guild_id = ?", (office.guild.id,)
    )
    months = {"2025-03": "March 2025", "2025-04": "April 2025"}
    for user in office.colleagues:
        held = sorted(months[row["month"]] for row in rows if row["user_id"] == user.id)
        told = [m.content or "" for m in month.fake.dms(user)]
        of = sorted(label for label in months.values() for text in told if f"of {label}!" in text)
        assert of == held, (user.name, told)


async def check_moves(month: Month) -> None:
    """No turn-timer decision moved twice; each game holds exactly the recorded moves, and
    every game was moved by its timers to its end."""
    decisions = Counter((move.game_id, move.decided) for move in month.moves)
    assert [d for d, n in decisions.items() if n > 1] == []
    per_game = Counter(move.game_id for move in month.moves)
    for table, rounds in month.tables:
        stored = await month.live[0].bot.store.games.require(table.game_id)
        assert per_game[table.game_id] == moves_applied(stored), table.game_id
        assert stored.status == "over" and len(stored.game.public_view()["history"]) == rounds


async def check_timers(month: Month) -> Counter[str]:
    """Every due timer done, no claim or fire left open, every hourly fire run, no timer
    run to its end twice, every claim of a dead process taken over; returns how many."""
    db, now = month.live[0].bot.db, month.clock.now()
    due = await db.fetchall(
        "SELECT key FROM timers WHERE done = 0 AND (due_at <= ? OR claimed_by IS NOT NULL)",
        (to_iso(now),),
    )
    assert [row["key"] for row in due] == []
    fires = await db.fetchall(
        "SELECT fire_time, done_at FROM job_runs WHERE job_id = ?", (MONTH_JOB,)
    )
    assert [row["fire_time"] for row in fires if row["done_at"] is None] == []
    ran = {row["fire_time"] for row in fires}
    assert [f for f in sorted(month.fires) if to_iso(f) not in ran] == []
    assert [timer for timer, runs in month.marked_done.items() if runs > 1] == []
    taken: Counter[str] = Counter()
    for claim in month.held:
        taken[claim.kind] += await month.taken_over(claim)
    assert taken.total() == len(month.held), month.held
    return taken


async def check(month: Month) -> Counter[str]:
    """Everything once; returns the claims of killed processes taken over, by kind."""
    for office in month.offices:
        await check_days(month, office)
        await check_titles(month, office)
    await check_moves(month)
    taken = await check_timers(month)
    assert month.kills >= 5 and min(month.cut) >= 1 and taken.total() >= 1, (month.cut, taken)
    return taken


# -- the test -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
async def test_a_month_on_two_processes_with_kills_does_everything_once(
    fake_discord: FakeDiscord,
    owners: TaskOwners,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
) -> None:
    fake = fake_discord
    fake.limits = Limits.off(
        "five weeks of two processes in seconds: pacing them would only wait for real time"
    )
    month = Month(fake, tmp_path / "month.sqlite3", FakeClock(START), random.Random(seed), owners)
    record(monkeypatch, month)
    month.offices = build_offices(fake)
    started = time.monotonic()
    try:
        for shard in (0, 1):
            await month.start(shard)
        await set_up(month)
        while month.clock.now() < END:
            await month.step()
        await month.finish()
        taken = await check(month)
    finally:
        for process in month.live.values():
            await process.running.close()
    print(
        f"\nseed {seed}: {month.steps} steps, {month.kills} kills cutting {sum(month.cut)}"
        f" handlers ({month.cut_moves} right after a move), claims taken over {dict(taken)},"
        f" {len(month.moves)} turn-timer moves, {time.monotonic() - started:.1f} s"
    )


# -- two month ends at once ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["a sweep takes over a fire", "an opening on the 1st"])
async def test_two_month_ends_at_once_announce_the_month_once(
    fake_discord: FakeDiscord, tmp_path: Path, path: str
) -> None:
    from tests.bot.test_shards import both_running, make_process

    fake = fake_discord
    fake.limits = Limits.off("two processes' timers at machine speed")
    owner = fake.add_user("Olga")
    guild = fake.add_guild("Office", owner=owner, shard=(1, 2))
    other = fake.add_guild("Other", owner=owner, shard=(0, 2))
    general = fake.add_text_channel(guild, "general")
    news = fake.add_text_channel(guild, "news")
    other_general = fake.add_text_channel(other, "general")
    users = [fake.add_user(f"U{i}") for i in range(4)]
    for user in users:
        fake.add_member(guild, user)
        fake.add_member(other, user)
    clock = FakeClock(datetime(2025, 3, 20, 9, 0, tzinfo=UTC))
    a = make_process(tmp_path / "x.sqlite3", clock, 0, SPAYE_COGS)
    b = make_process(tmp_path / "x.sqlite3", clock, 1, SPAYE_COGS)
    async with both_running(fake, a, b):
        await update_spaye_settings(b.bot, guild.id, {"announce_channel_id": news.id})
        day = date(2025, 3, 20)
        players = [str(u.id) for u in users]
        game_id = await b.bot.store.days.open_day(
            guild.id, day, general.id, two_dayes(*players), day_meta(day)
        )
        await confirm(b.bot, game_id, players[2])  # C's reps: C and A hold titles
        await schedule_closing(b.bot, guild.id, day, game_id)
        clock.set(datetime(2025, 3, 21, 0, 0, tzinfo=UTC))
        await b.bot.timers.run_due()  # the day finishes
        if path == "a sweep takes over a fire":
            # A process claimed the 23:05 fire of March 31 and died holding it; at 00:05 on
            # the 1st, A's scheduler fires the hour while B's sweep takes the dead one's fire.
            fire = datetime(2025, 3, 31, 23, 5, tzinfo=UTC)
            clock.set(fire)
            assert await a.bot.store.timers.jobs.claim(MONTH_JOB, fire, "dead", fire, fire + LEASE)
            clock.set(datetime(2025, 4, 1, 0, 5, tzinfo=UTC))
            await asyncio.gather(a.bot.timers._fired(MONTH_JOB), b.bot.timers._sweep())
        else:
            # The other guild opens at 00:06: on the 1st its opening ends the month first,
            # in B, while A's scheduler fires the month job.
            opening = {
                "open_time": "00:06",
                "open_weekdays": list(range(7)),
                "open_channel_id": other_general.id,
            }
            await update_spaye_settings(a.bot, other.id, opening)
            await schedule_opening(a.bot, other.id)
            clock.set(datetime(2025, 4, 1, 0, 6, tzinfo=UTC))
            await asyncio.gather(b.bot.timers.run_due(), a.bot.timers._fired(MONTH_JOB))
        for process in (a, b, a, b):  # what either armed meanwhile (the DMs), then quiet
            await process.bot.timers.run_due()
        announced = [m for m in fake.channel_messages(news) if m.embeds]
        assert len(announced) == 1, [m.embeds[0]["title"] for m in announced]
        holders = {x.user_id for x in await a.bot.store.titles.of_month(guild.id, "2025-03")}
        assert len(holders) == 2  # each told once, and not one for the other
        # A title DM run again (its process died after sending, before recording it).
        holder = min(holders)
        again = {"guild_id": guild.id, "month": "2025-03", "user_id": holder}
        await deliver_title_dm(a.bot, again)
        told = Counter(u.id for u in users for m in fake.dms(u) if "🏆" in m.content)
        assert told == dict.fromkeys(holders, 1)
