"""Opening on workdays (``/config spaye-opening``, off by default): the bot opens the day's
Späye by itself at the configured time and weekdays, with the default exercise; caught up
once after downtime, never twice, never on a day someone already opened."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.clock import FakeClock
from bot.engine.spaye import SpayeGame
from bot.spaye_settings import SpayeSettings, update_spaye_settings
from bot.storage import GuildSettings
from cogs.spaye._opening import day_meta, next_opening, opening_key, previous_opening
from cogs.spaye._periods import SpayeGuild
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, TODAY

pytestmark = pytest.mark.e2e


def opened_messages(office: Office) -> list[str]:
    return [
        m.text for m in office.fake.channel_messages(office.general) if "workday opening" in m.text
    ]


async def configure(office: Office, options: dict[str, object]) -> str:
    shown = await office.fake.slash(office.owner, office.general, "config spaye-opening", options)
    assert shown.ephemeral
    return shown.text


async def test_the_bot_opens_the_day_at_the_configured_time_on_workdays(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        assert await bot.store.timers.get(opening_key(office.guild.id)) is None  # off
        said = await configure(office, {"time": "09:30", "channel": office.general})
        assert "09:30" in said and "Mon, Tue, Wed, Thu, Fri" in said
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 14, 9, 30, tzinfo=UTC)

        clock.set(datetime(2025, 3, 14, 9, 29, tzinfo=UTC))
        await bot.timers.run_due()
        assert await bot.store.days.get(office.guild.id, TODAY) is None
        clock.set(datetime(2025, 3, 14, 9, 30, tzinfo=UTC))
        await bot.timers.run_due()
        day = await bot.store.days.get(office.guild.id, TODAY)
        assert day is not None and day.status == "active"
        stored = await bot.store.games.require(day.game_id)
        assert stored.game.public_view()["exercise"] == "push-ups"
        assert len(await office.fake.wait_for(lambda: opened_messages(office))) == 1
        # the späyins may still change the exercise before the first däye
        proposed = await office.fake.slash(
            office.bob, office.general, "spaye exercise", {"name": "squats"}
        )
        assert not proposed.ephemeral
        # Friday done: the next one is Monday, the weekend is skipped
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 17, 9, 30, tzinfo=UTC)

        off = await configure(office, {"time": "off"})
        assert "off" in off
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is None or timer.done


async def test_never_on_a_day_someone_already_opened(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await configure(office, {"time": "09:30"})
        opened = await office.fake.slash(office.bob, office.general, "spaye start")
        assert not opened.ephemeral
        clock.set(datetime(2025, 3, 14, 9, 31, tzinfo=UTC))
        await bot.timers.run_due()
        assert len(await bot.store.games.find(kind="spaye", status=None)) == 1
        assert opened_messages(office) == []


async def test_caught_up_once_after_downtime_never_twice(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Down from Friday 09:00 to Tuesday 11:00: Tuesday's Späye opens once at start-up;
    Friday and Monday, gone by, are not opened."""
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await configure(office, {"time": "09:30", "channel": office.general})
    clock.set(datetime(2025, 3, 18, 11, 0, tzinfo=UTC))
    again = make_bot(COGS)
    async with office.fake.run_client(again):
        await office.fake.wait_for(lambda: opened_messages(office))
        await again.timers.run_due()
        games = await again.store.games.find(kind="spaye", status=None)
        assert len(games) == 1 and games[0].meta["day"] == "2025-03-18"
    third = make_bot(COGS)
    async with office.fake.run_client(third):
        await third.timers.run_due()
        assert len(await third.store.games.find(kind="spaye", status=None)) == 1
    assert len(opened_messages(office)) == 1


async def test_not_caught_up_after_closing_time(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await update_spaye_settings(bot, office.guild.id, {"closing_time": "18:00"})
        await configure(office, {"time": "09:30", "channel": office.general})
        clock.set(datetime(2025, 3, 14, 18, 30, tzinfo=UTC))
        await bot.timers.run_due()
        assert await bot.store.games.find(kind="spaye", status=None) == []
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 17, 9, 30, tzinfo=UTC)


async def test_bad_opening_settings_change_nothing(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await configure(office, {"time": "09:30"})
        for options in (
            {"time": "9h30"},
            {"time": "25:00"},
            {"time": "09:30", "weekdays": "someday"},
            {"time": "09:30", "weekdays": "mon-tue-wed"},
        ):
            said = await configure(office, options)
            assert "Nothing was changed" in said, options
        saved = await bot.store.game_settings.get(office.guild.id, "spaye")
        assert saved["open_time"] == "09:30" and saved["open_weekdays"] == [0, 1, 2, 3, 4]
        with pytest.raises(PermissionError):
            await office.fake.slash(
                office.bob, office.general, "config spaye-opening", {"time": "off"}
            )


async def test_an_opening_on_the_first_of_the_month_comes_with_last_months_bonuses(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """00:00 on April 1st in Paris: the month's end is settled first, so March's titles
    give their bonuses to April's first Späye."""
    ana, bob, cid = office.ana, office.bob, office.cid
    clock.set(datetime(2025, 3, 31, 12, 0, tzinfo=UTC))
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await bot.store.settings.update(office.guild.id, {"timezone": "Europe/Paris"})
        final = SpayeGame.with_table([NK, "4C", "5C"])
        a, b, c = (str(u.id) for u in (ana, bob, cid))
        final.apply(a, {"type": "challenge", "targets": [b, c]})
        for who in (b, c):
            final.apply(who, {"type": "accept"})
        for who in (a, b, c):
            final.apply(who, {"type": "draw"})
        march = date(2025, 3, 31)
        game_id = await bot.store.days.open_day(
            office.guild.id, march, office.general.id, final, day_meta(march)
        )
        await bot.store.games.act(game_id, a, {"type": "exercise_done", "id": 1})
        await configure(office, {"time": "00:00", "weekdays": "mon-sun"})
        timer = await bot.store.timers.get(opening_key(office.guild.id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 31, 22, 0, tzinfo=UTC)
        clock.set(datetime(2025, 3, 31, 22, 0, tzinfo=UTC))
        await bot.timers.run_due()
        day = await bot.store.days.get(office.guild.id, date(2025, 4, 1))
        assert day is not None
        stored = await bot.store.games.require(day.game_id)
        assert stored.game.public_view()["bonuses"]["grand_spayin"] == a


PARIS = GuildSettings(guild_id=1, timezone="Europe/Paris")


@pytest.mark.parametrize(
    ("now", "time", "expected"),
    [
        # spring forward (Sunday 30 March): 02:30 is skipped; it opens at the jump
        (
            datetime(2025, 3, 29, 12, 0, tzinfo=UTC),
            "02:30",
            datetime(2025, 3, 30, 1, 0, tzinfo=UTC),
        ),
        # fall back (Sunday 26 October): 02:30 happens twice; the first one opens
        (
            datetime(2025, 10, 25, 12, 0, tzinfo=UTC),
            "02:30",
            datetime(2025, 10, 26, 0, 30, tzinfo=UTC),
        ),
        # across a month end and the weekday list
        (
            datetime(2025, 5, 30, 12, 0, tzinfo=UTC),
            "09:00",
            datetime(2025, 5, 31, 7, 0, tzinfo=UTC),
        ),
    ],
)
def test_openings_on_daylight_saving_and_month_end_days(
    now: datetime, time: str, expected: datetime
) -> None:
    paris = SpayeGuild(PARIS, SpayeSettings(open_time=time, open_weekdays=(5, 6)))
    upcoming = next_opening(paris, now)
    assert upcoming is not None and upcoming[1] == expected
    assert previous_opening(paris, expected) == upcoming
    assert next_opening(paris, expected) != upcoming  # never the same one twice
