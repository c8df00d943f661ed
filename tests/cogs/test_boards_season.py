"""A season's end through the fake Discord with the real bot: the podium of each game and of
all games posted once in the announcement channel, after the server's own midnight, with
its picture; nothing for a season without rated games; a failed post tried again."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image

from bot.clock import FakeClock
from bot.spaye_settings import update_spaye_settings
from cogs.boards._picture import WIDTH
from cogs.boards._season import SEASON_JOB
from tests.cogs.boards_support import COGS, play, ranked_papayoo  # noqa: F401
from tests.cogs.conftest import MakeBot, Office
from tests.fakediscord.models import SEND_MESSAGES, FakeMessage

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("ranked_papayoo")]

PARIS_MIDNIGHT = datetime(2025, 3, 31, 22, 0, tzinfo=UTC)
"""1 April 2025, 00:00 in Paris: the end of Q1 there."""


def podiums(messages: list[FakeMessage]) -> list[FakeMessage]:
    return [m for m in messages if m.embeds and "is over" in m.embeds[0]["title"]]


async def test_the_season_end_posts_each_podium_once_with_its_picture(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    news = fake.add_text_channel(office.guild, "announcements")
    quiet = fake.add_guild("Quiet", owner=office.owner)
    quiet_general = fake.add_text_channel(quiet, "general")
    for user in office.colleagues:
        fake.add_member(quiet, user)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        guild = office.guild.id
        await bot.store.settings.update(guild, {"timezone": "Europe/Paris"})
        await update_spaye_settings(bot, guild, {"announce_channel_id": news.id})
        names = {u.id: u.name for u in office.colleagues}
        ana, bob, cid, dan = (u.id for u in office.colleagues[:4])
        for _ in range(3):
            await play(bot, guild, office.general.id, [[ana], [bob], [cid], [dan]], names=names)
        # The quiet server plays casual games only: its season has no rated game.
        await play(bot, quiet.id, quiet_general.id, [[ana], [bob]], meta={"casual": True})

        clock.set(PARIS_MIDNIGHT - timedelta(minutes=50))
        assert await bot.timers.run_cron(SEASON_JOB)
        assert podiums(fake.channel_messages(news)) == []  # still March in Paris

        clock.set(PARIS_MIDNIGHT + timedelta(minutes=10))
        for _ in range(2):  # the hour's fire, then the next one: once
            assert await bot.timers.run_cron(SEASON_JOB)
        [posted] = podiums(fake.channel_messages(news))
        embed = posted.embeds[0]
        assert embed["title"] == "Season Q1 2025 is over: the podiums"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert list(fields) == ["All games", "Papayoo"]
        lines = fields["Papayoo"].splitlines()
        assert [line.split(" · ")[0] for line in lines] == [
            f"🥇 <@{ana}>",
            f"🥈 <@{bob}>",
            f"🥉 <@{cid}>",
        ]
        assert posted.notified == []  # mentions that ping nobody
        [attachment] = posted.attachments
        assert attachment["filename"] == "season-2025-Q1.png"
        assert embed["image"]["url"] == "attachment://season-2025-Q1.png"
        picture = Image.open(io.BytesIO(fake.attachment_data[int(attachment["id"])]))
        assert picture.format == "PNG" and picture.width == WIDTH
        assert fake.channel_messages(quiet_general) == []

    restarted = make_bot(COGS)  # the start-up catch-up runs the job again: nothing more
    async with fake.run_client(restarted):
        await restarted.caught_up()
        assert await restarted.timers.run_cron(SEASON_JOB)
        assert len(podiums(fake.channel_messages(news))) == 1
        assert fake.channel_messages(quiet_general) == []


async def test_a_month_season_in_french_falls_back_to_the_latest_games_channel(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        guild = office.guild.id
        await bot.store.settings.update(guild, {"locale": "fr"})
        await bot.store.ratings.set_season_period(guild, "month")
        await play(bot, guild, office.general.id, [[office.ana.id], [office.bob.id]])
        clock.set(datetime(2025, 4, 1, 0, 10, tzinfo=UTC))
        assert await bot.timers.run_cron(SEASON_JOB)
        [posted] = [m for m in fake.channel_messages(office.general) if m.embeds]
        assert posted.embeds[0]["title"] == "La saison mars 2025 est finie : les podiums"
        assert [f["name"] for f in posted.embeds[0]["fields"]] == ["Tous les jeux", "Papayoo"]


async def test_a_failed_post_is_tried_again_an_hour_later(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    news = fake.add_text_channel(office.guild, "announcements")
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        guild = office.guild.id
        await update_spaye_settings(bot, guild, {"announce_channel_id": news.id})
        await play(bot, guild, office.general.id, [[office.ana.id], [office.bob.id]])
        member = office.guild.members[fake.bot_user.id]
        member.permissions_override = member.permissions & ~SEND_MESSAGES  # nowhere, for now
        clock.set(datetime(2025, 4, 1, 0, 10, tzinfo=UTC))
        assert await bot.timers.run_cron(SEASON_JOB)
        assert podiums(fake.channel_messages(news)) == []
        member.permissions_override = None
        clock.advance(timedelta(minutes=59))
        await bot.timers.run_due()
        assert podiums(fake.channel_messages(news)) == []
        clock.advance(timedelta(minutes=2))
        await bot.timers.run_due()
        assert len(podiums(fake.channel_messages(news))) == 1
        assert podiums(fake.channel_messages(office.general)) == []
