"""The Späye calendar in the real bot against the fake Discord, time moved by a FakeClock.

Days are stored directly (stacked engine tables played with the engine) and closed, settled
and announced by the calendar's timers and month job: nothing waits for real time.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import cogs.spaye._closing as closing_module
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import IllegalAction
from bot.engine.spaye import SpayeGame, month_standings
from bot.settings import Settings
from bot.spaye_settings import update_spaye_settings
from cogs.spaye._calendar import board_embed, schedule_closing, start_calendar
from cogs.spaye._closing import CLOSE_KIND, close_day, close_timer, closing_key
from cogs.spaye._month import MONTH_JOB
from tests.engine.test_spaye_support import daye, exercise_of, stacked
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage

pytestmark = pytest.mark.e2e

MARCH_14 = date(2025, 3, 14)


class CalendarBot(GamenightBot):
    """The bot with ``/config`` and Späye (whose cog starts the calendar and brings its own
    ``/config`` subcommands)."""


class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.owner = fake.add_user("Olga")
        self.guild = fake.add_guild("Office", owner=self.owner)
        self.general = fake.add_text_channel(self.guild, "general")
        self.news = fake.add_text_channel(self.guild, "announcements")
        self.ana, self.bob = fake.add_user("Ana", locale="fr"), fake.add_user("Bob")
        self.cid, self.dan = fake.add_user("Cid"), fake.add_user("Dan")
        for user in (self.ana, self.bob, self.cid, self.dan):
            fake.add_member(self.guild, user)

    def ids(self) -> tuple[str, str, str, str]:
        return str(self.ana.id), str(self.bob.id), str(self.cid.id), str(self.dan.id)

    def said(self, channel: FakeChannel) -> list[FakeMessage]:
        return [m for m in self.fake.channel_messages(channel) if m.author.id != self.owner.id]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def make_bot(tmp_path: Path, clock: FakeClock) -> Callable[[], CalendarBot]:
    def make() -> CalendarBot:
        return CalendarBot(
            Settings(database_path=tmp_path / "bot.sqlite3"), clock, ["cogs.config", "cogs.spaye"]
        )

    return make


@pytest.fixture
async def world(fake_discord: FakeDiscord) -> AsyncIterator[World]:
    yield World(fake_discord)


# -- days built with the engine ---------------------------------------------------------------


def two_dayes(a: str, b: str, c: str, d: str) -> SpayeGame:
    """A beats B (K vs 2), then the final C, A, D where C draws the nikäye (14 reps to do).

    Confirmed, the day gives A däye 4 victory 1; B däye 1; C däye 3 victory 3 reps 14;
    D däye 3. Not confirmed by closing time, C keeps däye 3 only.
    """
    game = stacked(["KS", "2H", "NK", "5H", "9S"], [a])
    daye(game, a, b)
    daye(game, c, a, d)
    return game


def one_final(nikaye: str, second: str, third: str) -> SpayeGame:
    """Just the final: ``nikaye`` draws the nikäye against 5 and 9 (to confirm: 14 reps)."""
    game = stacked(["NK", "5H", "9S"], [nikaye])
    daye(game, nikaye, second, third)
    return game


def cards_left(a: str, b: str) -> SpayeGame:
    """One däye that ``a`` wins against ``b`` (K against 2); 3 cards are still on the table."""
    game = stacked(["KS", "2H", "NK", "5H", "9S"], [a])
    daye(game, a, b)
    return game


async def open_day(
    bot: GamenightBot, world: World, day: date, game: SpayeGame, *, channel: Any = None
) -> int:
    """Store a day and arm its closing; the reminder before closing is off here (its own
    tests are in ``test_spaye_reminder``), so timer counts are the closings'."""
    await bot.store.game_settings.update(world.guild.id, "spaye", {"reminder_minutes": None})
    game_id = await bot.store.days.open_day(
        world.guild.id, day, (channel or world.general).id, game
    )
    await schedule_closing(bot, world.guild.id, day, game_id)
    return game_id


async def confirm(bot: GamenightBot, game_id: int, player: str) -> None:
    stored = await bot.store.games.require(game_id)
    exercise = exercise_of(stored.game, player)  # type: ignore[arg-type]
    await bot.store.games.act(game_id, player, {"type": "exercise_done", "id": exercise["id"]})


# -- closing ----------------------------------------------------------------------------------


async def test_closing_voids_a_day_with_cards_left_and_tells_the_channel(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"timezone": "Europe/Paris"})
        game_id = await open_day(bot, world, MARCH_14, cards_left(a, b))
        closing = datetime(2025, 3, 14, 22, 59, tzinfo=UTC)  # 23:59 in Paris (CET)
        assert (await bot.store.timers.get(closing_key(game_id))).due_at == closing  # type: ignore[union-attr]

        clock.set(closing - timedelta(seconds=1))
        assert await bot.timers.run_due() == 0
        clock.set(closing)
        assert await bot.timers.run_due() == 1
        stored = await bot.store.games.require(game_id)
        assert stored.status == "voided"
        assert (await bot.store.days.get(world.guild.id, MARCH_14)).status == "voided"  # type: ignore[union-attr]
        assert await bot.store.results.for_game(game_id) == []
        said = await world.fake.wait_for(lambda: world.said(world.general))
        assert len(said) == 1
        assert "voided" in said[0].content and "3 cards" in said[0].content
        assert "23:59" in said[0].content

        # The same closing again is refused by the game and treated as done: no new message.
        payload = {"guild_id": world.guild.id, "day": "2025-03-14", "game_id": game_id}
        with pytest.raises(IllegalAction):
            await close_timer(bot, payload)
        await bot.timers.schedule(CLOSE_KIND, clock.now(), payload, key=closing_key(game_id))
        assert await bot.timers.run_due() == 1
        assert await bot.timers.pending() == []
        assert len(world.said(world.general)) == 1


@pytest.mark.parametrize("dies", ["before posting", "after posting"])
async def test_a_closing_whose_process_dies_is_told_once(
    world: World,
    make_bot: Callable[[], CalendarBot],
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
    dies: str,
) -> None:
    """The closing commits, then its process dies before its message (or after it, before
    dropping the message's timer): the timer posts it 30 s later, with the same nonce, so
    the channel gets one message either way."""
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        game_id = await open_day(bot, world, MARCH_14, cards_left(a, b))
        real_post, real_cancel = closing_module.post_closing, bot.timers.cancel

        async def killed(*args: Any, **kwargs: Any) -> Any:
            raise asyncio.CancelledError  # the process stops here

        if dies == "before posting":
            monkeypatch.setattr(closing_module, "post_closing", killed)
        else:
            monkeypatch.setattr(bot.timers, "cancel", killed)
        clock.set(datetime(2025, 3, 14, 23, 59, tzinfo=UTC))
        with pytest.raises(asyncio.CancelledError):
            await close_day(bot, game_id, MARCH_14)
        assert (await bot.store.games.require(game_id)).status == "voided"
        monkeypatch.setattr(closing_module, "post_closing", real_post)
        monkeypatch.setattr(bot.timers, "cancel", real_cancel)
        posted = len(world.said(world.general))
        assert posted == (0 if dies == "before posting" else 1)

        clock.advance(seconds=closing_module.POST_DELAY.total_seconds())
        assert await bot.timers.run_due() >= 1  # the message's timer (and the closing's, done)
        said = world.said(world.general)
        assert len(said) == 1 and "voided" in said[0].content
        assert await bot.timers.pending() == []


async def test_closing_after_the_table_is_empty_finishes_the_day_in_french(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, c, d = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"locale": "fr"})
        await update_spaye_settings(bot, world.guild.id, {"closing_time": "18:00"})
        game_id = await open_day(bot, world, MARCH_14, two_dayes(a, b, c, d))
        clock.set(datetime(2025, 3, 14, 18, 0, tzinfo=UTC))
        assert await bot.timers.run_due() == 1
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over"
        result = stored.game.result()
        assert result["points"][c] == {"daye": 3, "victory": 0, "reps": 0}  # lapsed exercise
        said = (await world.fake.wait_for(lambda: world.said(world.general)))[0].content
        assert "terminé" in said and "mars 2025" in said and f"<@{c}>" in said
        assert {r.user_id for r in await bot.store.results.for_game(game_id)} == {
            int(p) for p in (a, b, c, d)
        }


async def test_a_closing_missed_while_down_runs_once_at_start_up(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        game_id = await open_day(bot, world, MARCH_14, cards_left(a, b))
    clock.set(datetime(2025, 3, 15, 8, 0, tzinfo=UTC))  # the bot was down at 23:59

    again = make_bot()
    async with world.fake.run_client(again):
        said = await world.fake.wait_for(lambda: world.said(world.general))
        assert "voided" in said[0].content
        assert (await again.store.games.require(game_id)).status == "voided"
    third = make_bot()
    async with world.fake.run_client(third):
        await third.timers.run_due()
        await third.timers.run_cron(MONTH_JOB)
    assert len(world.said(world.general)) == 1


async def test_changing_the_closing_time_or_zone_moves_todays_closing(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        game_id = await open_day(bot, world, MARCH_14, cards_left(a, b))

        async def due() -> datetime:
            timer = await bot.store.timers.get(closing_key(game_id))
            assert timer is not None and not timer.done
            return timer.due_at

        assert await due() == datetime(2025, 3, 14, 23, 59, tzinfo=UTC)
        await world.fake.slash(world.owner, world.general, "config closing-time", {"time": "17:30"})
        wanted = datetime(2025, 3, 14, 17, 30, tzinfo=UTC)
        await world.fake.wait_for(lambda: _is(due, wanted))
        await world.fake.slash(
            world.owner, world.general, "config timezone", {"zone": "America/New_York"}
        )
        wanted = datetime(2025, 3, 14, 21, 30, tzinfo=UTC)  # 17:30 EDT
        await world.fake.wait_for(lambda: _is(due, wanted))
        # A closing time already past today leaves today's closing alone.
        await world.fake.slash(world.owner, world.general, "config closing-time", {"time": "04:00"})
        assert await due() == wanted

        # A timer armed before a change to a later time re-arms itself instead of closing.
        await update_spaye_settings(bot, world.guild.id, {"closing_time": "23:00"})
        clock.set(wanted)
        assert await bot.timers.run_due() == 1
        assert (await bot.store.games.require(game_id)).is_active
        assert await due() == datetime(2025, 3, 15, 3, 0, tzinfo=UTC)


async def _is(due: Callable[[], Any], wanted: datetime) -> bool:
    return bool(await due() == wanted)


@pytest.mark.parametrize(
    ("zone", "close", "day", "due"),
    [
        # New York went forward at 02:00 that morning: 23:59 EDT, not EST.
        ("America/New_York", "23:59", date(2025, 3, 9), datetime(2025, 3, 10, 3, 59, tzinfo=UTC)),
        # 02:30 is skipped in Paris on 2025-03-30: the day closes as the clock jumps (03:00).
        ("Europe/Paris", "02:30", date(2025, 3, 30), datetime(2025, 3, 30, 1, 0, tzinfo=UTC)),
        # 02:30 happens twice in Paris on 2025-10-26: the first time (CEST) closes.
        ("Europe/Paris", "02:30", date(2025, 10, 26), datetime(2025, 10, 26, 0, 30, tzinfo=UTC)),
    ],
)
async def test_closing_on_daylight_saving_days(
    world: World,
    make_bot: Callable[[], CalendarBot],
    clock: FakeClock,
    zone: str,
    close: str,
    day: date,
    due: datetime,
) -> None:
    a, b, _, _ = world.ids()
    clock.set(datetime.combine(day, datetime.min.time(), tzinfo=UTC) - timedelta(hours=3))
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"timezone": zone})
        await update_spaye_settings(bot, world.guild.id, {"closing_time": close})
        game_id = await open_day(bot, world, day, cards_left(a, b))
        clock.set(due - timedelta(seconds=1))
        assert await bot.timers.run_due() == 0
        clock.set(due)
        assert await bot.timers.run_due() == 1
        assert (await bot.store.games.require(game_id)).status == "voided"


async def test_starting_the_calendar_again_once_ready_catches_up_once(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    """A cog reload calls start_calendar on a ready bot: it re-arms and catches up itself."""
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        game_id = await bot.store.days.open_day(
            world.guild.id, MARCH_14, world.general.id, cards_left(a, b)
        )
        clock.set(datetime(2025, 3, 15, 1, 0, tzinfo=UTC))
        await start_calendar(bot)
        await start_calendar(bot)
        said = await world.fake.wait_for(lambda: world.said(world.general))
        assert "voided" in said[0].content
        assert (await bot.store.games.require(game_id)).status == "voided"
        await world.fake.slash(world.owner, world.general, "config closing-time", {"time": "20:00"})
        assert len(world.said(world.general)) == 1


# -- month end --------------------------------------------------------------------------------


async def test_month_end_awards_announces_and_dms_once(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, c, d = world.ids()
    world.fake.close_dms(world.ana)
    clock.set(datetime(2025, 3, 3, 9, 0, tzinfo=UTC))
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"timezone": "Europe/Paris"})
        await update_spaye_settings(bot, world.guild.id, {"announce_channel_id": world.news.id})
        first = await open_day(bot, world, date(2025, 3, 3), two_dayes(a, b, c, d))
        await confirm(bot, first, c)
        clock.set(datetime(2025, 3, 4, 9, 0, tzinfo=UTC))
        second = await open_day(bot, world, date(2025, 3, 4), one_final(b, d, a))
        await confirm(bot, second, b)
        clock.set(datetime(2025, 3, 5, 9, 0, tzinfo=UTC))
        await open_day(bot, world, date(2025, 3, 5), cards_left(d, a))  # D wins, then voided
        clock.set(datetime(2025, 3, 31, 21, 30, tzinfo=UTC))  # 23:30 in Paris (CEST)
        assert await bot.timers.run_due() == 3  # the three closings; only the 5th had work
        assert await bot.timers.run_cron(MONTH_JOB)
        assert world.said(world.news) == []
        assert await bot.store.titles.of_month(world.guild.id, "2025-03") == []

        clock.set(datetime(2025, 3, 31, 22, 5, tzinfo=UTC))  # 00:05 on April 1st in Paris
        assert await bot.timers.run_cron(MONTH_JOB)
        # A: däye 7 victory 1; B: däye 4 victory 3 reps 14; C: däye 3 victory 3 reps 14;
        # D: däye 6. Mastäye and Tikäo: B and C tie; B has more in the other two columns.
        finished = await bot.store.days.finished_in_month(world.guild.id, "2025-03")
        expected = month_standings([g.game.result() for g in finished])["titles"]
        assert expected == {"grand_spayin": a, "mastaye": b, "tikao": b}
        stored = {
            x.title: str(x.user_id)
            for x in await bot.store.titles.of_month(world.guild.id, "2025-03")
        }
        assert stored == expected
        assert all(x.announced for x in await bot.store.titles.of_month(world.guild.id, "2025-03"))

        news = await world.fake.wait_for(lambda: world.said(world.news))
        assert len(news) == 1 and world.said(world.general)[-1].content.count("voided") == 1
        embed = news[0].embeds[0]
        assert embed["title"] == "🏆 Späye titles of March 2025"
        assert [f["name"] for f in embed["fields"]] == ["Titles"]
        rows = embed["description"].splitlines()[2:]  # every späyin's counters, as text
        assert rows == [
            f"1. <@{b}> · däye 4 · victory 3 · repetition 14 · total 21 · 🏆 Mastäye, Tikäo",
            f"2. <@{c}> · däye 3 · victory 3 · repetition 14 · total 20",
            f"3. <@{a}> · däye 7 · victory 1 · repetition 0 · total 8 · 🏆 Grand Späyin",
            f"4. <@{d}> · däye 6 · victory 0 · repetition 0 · total 6",
        ]
        assert f"**Grand Späyin**: <@{a}>" in embed["fields"][0]["value"]
        assert f"**Tikäo**: <@{b}>" in embed["fields"][0]["value"]
        # ... and as a picture
        assert embed["image"]["url"] == "attachment://spaye-2025-03.png"
        (attachment,) = news[0].attachments
        assert attachment["filename"] == "spaye-2025-03.png"
        assert (
            "Finished Späyes counted: 2" in embed["description"] and "April" in embed["description"]
        )

        bob_dms = await world.fake.wait_for(lambda: world.fake.dms(world.bob))
        assert "Mastäye, Tikäo" in bob_dms[0].content and "April 2025" in bob_dms[0].content
        assert "double" not in bob_dms[0].content and "twice" in bob_dms[0].content
        # One spelling of the card, as the rules name it.
        assert "nikäyé" not in bob_dms[0].content and "draw a nikäye" in bob_dms[0].content
        assert world.fake.dms(world.ana) == []  # closed: kept for her next interaction
        kept = await bot.store.private.pending(world.ana.id)
        assert len(kept) == 1 and "Grand Späyin" in (kept[0].content or "")
        assert world.fake.dms(world.cid) == [] and world.fake.dms(world.dan) == []

        assert await bot.timers.run_cron(MONTH_JOB)
        assert len(world.said(world.news)) == 1

    clock.advance(hours=30)
    again = make_bot()
    async with world.fake.run_client(again):
        await again.timers.run_cron(MONTH_JOB)
        await again.timers.run_due()
    assert len(world.said(world.news)) == 1
    assert len(world.fake.dms(world.bob)) == 1


async def test_month_end_follows_each_guilds_own_zone(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    west = world.fake.add_guild("West office", owner=world.owner)
    west_general = world.fake.add_text_channel(west, "general")
    for user in (world.ana, world.bob, world.cid):
        world.fake.add_member(west, user)
    clock.set(datetime(2025, 3, 20, 18, 0, tzinfo=UTC))
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"timezone": "Europe/Paris"})
        await bot.store.settings.update(west.id, {"timezone": "America/Los_Angeles"})
        paris = await open_day(bot, world, date(2025, 3, 20), one_final(a, b, str(world.cid.id)))
        await confirm(bot, paris, a)
        west_day = await bot.store.days.open_day(
            west.id, date(2025, 3, 20), west_general.id, one_final(b, a, str(world.cid.id))
        )
        await confirm(bot, west_day, b)

        clock.set(datetime(2025, 4, 1, 6, 5, tzinfo=UTC))  # Paris: April 1st; LA: March 31st
        await bot.timers.run_cron(MONTH_JOB)
        paris_said = await world.fake.wait_for(lambda: world.said(world.general))
        assert "March 2025" in paris_said[-1].embeds[0]["title"]  # fallback: the Späye's channel
        assert world.said(west_general) == []
        assert await bot.store.titles.of_month(west.id, "2025-03") == []

        clock.set(datetime(2025, 4, 1, 7, 5, tzinfo=UTC))  # 00:05 on April 1st in LA (PDT)
        await bot.timers.run_cron(MONTH_JOB)
        west_said = await world.fake.wait_for(lambda: world.said(west_general))
        assert "March 2025" in west_said[0].embeds[0]["title"]
        assert [x.user_id for x in await bot.store.titles.of_month(west.id, "2025-03")] == [
            world.bob.id
        ] * 3
        # April has no ended month for anybody yet: nothing more is said.
        clock.set(datetime(2025, 4, 20, 7, 5, tzinfo=UTC))
        await bot.timers.run_cron(MONTH_JOB)
        assert len(world.said(world.general)) == 1 and len(world.said(west_general)) == 1


async def test_month_end_closes_a_day_still_running_before_counting(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    """March 31st's day lost its closing (given up): the month job closes it, then counts it."""
    a, b, c, d = world.ids()
    clock.set(datetime(2025, 3, 31, 9, 0, tzinfo=UTC))
    bot = make_bot()
    async with world.fake.run_client(bot):
        await bot.store.settings.update(world.guild.id, {"timezone": "Europe/Paris"})
        game_id = await open_day(bot, world, date(2025, 3, 31), two_dayes(a, b, c, d))
        await bot.store.timers.cancel(closing_key(game_id))
        clock.set(datetime(2025, 4, 2, 8, 0, tzinfo=UTC))
        await bot.timers.run_cron(MONTH_JOB)
        messages = await world.fake.wait_for(
            lambda: len(world.said(world.general)) >= 2 and world.said(world.general)
        )
        assert "finished" in messages[0].content
        assert messages[1].embeds[0]["title"] == "🏆 Späye titles of March 2025"
        titles = await bot.store.titles.of_month(world.guild.id, "2025-03")
        assert {x.title: str(x.user_id) for x in titles} == {"grand_spayin": a, "mastaye": a}


async def test_a_running_day_without_closing_gets_one_at_start_up(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        game_id = await bot.store.days.open_day(
            world.guild.id, MARCH_14, world.general.id, cards_left(a, b)
        )
        assert await bot.store.timers.get(closing_key(game_id)) is None
    clock.set(datetime(2025, 3, 16, 9, 0, tzinfo=UTC))
    again = make_bot()
    async with world.fake.run_client(again):
        said = await world.fake.wait_for(lambda: world.said(world.general))
        assert "voided" in said[0].content
        assert (await again.store.games.require(game_id)).status == "voided"


async def test_a_month_with_no_finished_day_says_so_once(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, _, _ = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        await open_day(bot, world, MARCH_14, cards_left(a, b))
        clock.set(datetime(2025, 4, 1, 0, 5, tzinfo=UTC))
        await bot.timers.run_due()
        await bot.timers.run_cron(MONTH_JOB)
        await bot.timers.run_cron(MONTH_JOB)
        said = [m.content for m in world.said(world.general)]
        assert len(said) == 2 and "No Späye was finished in March 2025" in said[1]
        assert await bot.store.titles.of_month(world.guild.id, "2025-03") == []


async def test_an_announcement_given_up_after_errors_is_asked_for_again_next_hour(
    world: World,
    make_bot: Callable[[], CalendarBot],
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The announcement's timer fails three times (retried after 1, then 2 minutes) and
    gives up; the next hourly run asks for it again, and the month is announced once."""
    a, b, c, d = world.ids()
    bot = make_bot()
    async with world.fake.run_client(bot):
        first = await open_day(bot, world, MARCH_14, two_dayes(a, b, c, d))
        await confirm(bot, first, c)
        # The module the running cog uses: unloading an extension drops its modules, so an
        # earlier test's bot may have left this file's import behind.
        live = importlib.import_module("cogs.spaye._month")
        real = live.announce_month
        failures = 0

        async def broken(*args: Any) -> bool:
            nonlocal failures
            failures += 1
            raise RuntimeError("the picture could not be drawn")

        monkeypatch.setattr(live, "announce_month", broken)
        clock.set(datetime(2025, 4, 1, 0, 5, tzinfo=UTC))
        await bot.timers.run_due()
        await bot.timers.run_cron(MONTH_JOB)
        for minutes in (1, 2):
            clock.advance(minutes=minutes)
            await bot.timers.run_due()
        assert failures == 3
        given_up = await bot.store.timers.get(live.announce_key(world.guild.id, "2025-03"))
        assert given_up is not None and given_up.done and given_up.attempts == 3
        assert not any(m.embeds for m in world.said(world.general))  # nothing announced

        monkeypatch.setattr(live, "announce_month", real)
        clock.set(datetime(2025, 4, 1, 1, 5, tzinfo=UTC))
        await bot.timers.run_cron(MONTH_JOB)
        await bot.timers.run_cron(MONTH_JOB)
        announced = [m for m in world.said(world.general) if m.embeds]
        assert len(announced) == 1
        assert all(x.announced for x in await bot.store.titles.of_month(world.guild.id, "2025-03"))


# -- the board --------------------------------------------------------------------------------


async def test_board_columns_titles_bonuses_and_provisional_today(
    world: World, make_bot: Callable[[], CalendarBot], clock: FakeClock
) -> None:
    a, b, c, d = world.ids()
    gid = world.guild.id
    clock.set(datetime(2025, 3, 3, 9, 0, tzinfo=UTC))
    bot = make_bot()
    async with world.fake.run_client(bot):
        guild = bot.get_guild(gid)
        assert guild is not None
        for title, holder in (("grand_spayin", world.cid), ("mastaye", world.dan)):
            await bot.store.titles.award(gid, "2025-02", title, holder.id)  # type: ignore[arg-type]
        first = await open_day(bot, world, date(2025, 3, 3), two_dayes(a, b, c, d))
        await confirm(bot, first, c)
        await bot.store.titles.use_bonus(gid, "2025-02", "mastaye", first)
        clock.set(datetime(2025, 3, 4, 9, 0, tzinfo=UTC))
        await open_day(bot, world, date(2025, 3, 4), cards_left(d, a))

        embed = await board_embed(bot, guild, None, "en")
        assert embed.title == "Späye · March 2025"
        fields = {f.name: f.value for f in embed.fields}
        assert embed.description is not None
        rows = embed.description.splitlines()[3:]
        assert len(rows) == 4 and rows[0].startswith(
            f"1. <@{c}> · däye 3 · victory 3 · repetition 14"
        )
        assert f"<@{a}> · däye 4" in embed.description
        assert f"**Mastäye**: <@{c}>" in fields["Leaders so far"]
        assert fields["Bonuses left in March 2025"] == f"**Grand Späyin**: <@{c}>"
        today = fields["Today's Späye (provisional)"]
        assert today.splitlines()[0] == f"<@{d}>: däye 1 · victory 1 · repetition 0"
        assert "voided if cards remain at 23:59" in today

        french = await board_embed(bot, guild, "2025-02", "fr")
        assert french.title == "Späye · février 2025"
        names = [f.name for f in french.fields]
        assert "Titres" in names and "Späye du jour (provisoire)" not in names
        assert "**Tikäo** : personne" in french.fields[0].value
        with pytest.raises(ValueError, match="AAAA-MM"):
            await board_embed(bot, guild, "mars", "fr")
        with pytest.raises(ValueError, match="YYYY-MM"):
            await board_embed(bot, guild, "2025-13", "en")
