"""The reminder before closing time (``/config spaye-reminder``): one channel message when
cards remain, on time on daylight-saving and month-end days; bad settings change nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.clock import FakeClock
from bot.spaye_settings import update_spaye_settings
from cogs.spaye._closing import closing_key, reminder_key
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver

pytestmark = pytest.mark.e2e


def reminders(office: Office) -> list[str]:
    return [m.text for m in office.fake.channel_messages(office.general) if "⏰" in m.text]


async def test_a_reminder_an_hour_before_closing_when_cards_remain(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        p = SpayeDriver(office.fake, bot, office.guild, office.general)
        await p.store_day([NK, "4C", "5C"])
        timer = await bot.store.timers.get(reminder_key(p.game_id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 14, 22, 59, tzinfo=UTC)
        clock.set(datetime(2025, 3, 14, 22, 58, tzinfo=UTC))
        await bot.timers.run_due()
        assert reminders(office) == []
        clock.set(datetime(2025, 3, 14, 22, 59, 30, tzinfo=UTC))
        await bot.timers.run_due()
        said = await office.fake.wait_for(lambda: reminders(office))
        assert len(said) == 1 and "23:59" in said[0] and "3" in said[0]
        await bot.timers.run_due()
        assert len(reminders(office)) == 1


async def test_no_reminder_once_the_table_is_empty(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    ana, bob, cid = office.ana, office.bob, office.cid
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        p = SpayeDriver(office.fake, bot, office.guild, office.general)
        await p.store_day([NK, "4C", "5C"])
        await p.daye([ana, bob, cid])  # the final: the table is empty, an exercise is open
        clock.set(datetime(2025, 3, 14, 23, 0, tzinfo=UTC))
        await bot.timers.run_due()
        assert reminders(office) == []


async def test_the_reminder_setting_moves_or_drops_todays_reminder(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day([NK, "4C", "5C"])
        saved = await fake.slash(
            office.owner, office.general, "config spaye-reminder", {"before": "0:30"}
        )
        assert saved.ephemeral and "0:30" in saved.text
        timer = await bot.store.timers.get(reminder_key(p.game_id))
        assert timer is not None and timer.due_at == datetime(2025, 3, 14, 23, 29, tzinfo=UTC)

        for bad in ("soon", "25:00", "0:00", "-1:00"):
            refused = await fake.slash(
                office.owner, office.general, "config spaye-reminder", {"before": bad}
            )
            assert refused.ephemeral and "Nothing was changed" in refused.text, bad
        assert (await bot.store.game_settings.get(office.guild.id, "spaye"))[
            "reminder_minutes"
        ] == 30
        with pytest.raises(PermissionError):  # Manage Server only
            await fake.slash(office.bob, office.general, "config spaye-reminder", {"before": "off"})

        off = await fake.slash(
            office.owner, office.general, "config spaye-reminder", {"before": "off"}
        )
        assert off.ephemeral and "off" in off.text
        timer = await bot.store.timers.get(reminder_key(p.game_id))
        assert timer is None or timer.done
        clock.set(datetime(2025, 3, 14, 23, 30, tzinfo=UTC))
        await bot.timers.run_due()
        assert reminders(office) == []
        shown = await fake.slash(office.owner, office.general, "config show")
        assert "Späye reminder" in shown.text


@pytest.mark.parametrize(
    ("day", "close", "closing_utc"),
    [
        # spring forward in Paris: 02:30 never shows; the day closes at the jump (01:00 UTC)
        (date(2025, 3, 30), "02:30", datetime(2025, 3, 30, 1, 0, tzinfo=UTC)),
        # fall back: 02:30 happens twice; the first one (00:30 UTC) closes the day
        (date(2025, 10, 26), "02:30", datetime(2025, 10, 26, 0, 30, tzinfo=UTC)),
        # the month's last day: the reminder is that evening, before the month changes
        (date(2025, 3, 31), "23:59", datetime(2025, 3, 31, 21, 59, tzinfo=UTC)),
    ],
)
async def test_the_reminder_on_daylight_saving_and_month_end_days(
    office: Office,
    make_bot: MakeBot,
    clock: FakeClock,
    day: date,
    close: str,
    closing_utc: datetime,
) -> None:
    """An hour of real time before the closing instant, whatever the clocks do."""
    clock.set(datetime.combine(day, datetime.min.time(), tzinfo=UTC) - timedelta(hours=3))
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await bot.store.settings.update(office.guild.id, {"timezone": "Europe/Paris"})
        await update_spaye_settings(bot, office.guild.id, {"closing_time": close})
        p = SpayeDriver(office.fake, bot, office.guild, office.general)
        await p.store_day([NK, "4C", "5C"], day=day)
        closing = await bot.store.timers.get(closing_key(p.game_id))
        reminder = await bot.store.timers.get(reminder_key(p.game_id))
        assert closing is not None and reminder is not None
        assert closing.due_at == closing_utc
        assert reminder.due_at == closing_utc - timedelta(hours=1)
        clock.set(reminder.due_at)
        await bot.timers.run_due()
        assert len(await office.fake.wait_for(lambda: reminders(office))) == 1
