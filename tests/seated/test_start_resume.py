"""A start is one durable step: its Discord side (table, call, hands) is finished after a
failure or a restart, the call at most once, each hand exactly once; DM channels are
known across restarts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import discord
import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.seated import SeatedCog
from bot.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.seated.driver import two_colleagues
from tests.seated.toy import install, uninstall

pytestmark = pytest.mark.e2e

CREATE_DM = "/users/@me/channels"


@pytest.fixture(autouse=True)
def toy_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install()
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    yield
    uninstall()


def make_bot(tmp_path: Path, clock: FakeClock) -> GamenightBot:
    return GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )


def cog_of(bot: GamenightBot) -> SeatedCog:
    cog = bot.get_cog("HighCard")
    assert isinstance(cog, SeatedCog)
    return cog


async def test_a_start_cut_short_after_its_hands_is_finished_once_after_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = make_bot(tmp_path, clock)
    async with fake.run_client(bot) as running:
        lobby = await fake.slash(ana, channel, "highcard begin", {})
        await fake.click(bob, lobby, label="Join")
        await fake.click(ana, lobby, label="Start")
        await cog_of(bot).settle()
        [game] = await bot.store.games.find(kind="highcard")
        hands = game.meta["hands"]
        # The bot dies after the call and both hands went out, before it recorded Bob's.
        await bot.store.games.update_meta(
            game.id, {"posted": False, "hands": {str(ana.id): hands[str(ana.id)]}}
        )
        await running.crash()
    await bot.store.close()
    messages, dms = len(fake.channel_messages(channel)), fake.count("POST", CREATE_DM)

    again = make_bot(tmp_path, clock)
    async with fake.run_client(again):
        await again.caught_up()
        for _ in range(3):
            await cog_of(again).settle()
        stored = await again.store.games.require(game.id)
        assert stored.meta["posted"] is True
        assert stored.meta["hands"] == hands  # Bob's hand found again in his DMs
        assert len(fake.channel_messages(channel)) == messages  # no second call
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]  # no second hand
        assert fake.count("POST", CREATE_DM) == dms  # DM channels known from the database
    await again.store.close()


async def test_a_start_that_failed_on_discord_is_finished_by_its_timer(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild, channel, ana, bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = make_bot(tmp_path, clock)
    me = guild.members[fake.bot_user.id]
    async with fake.run_client(bot):
        lobby = await fake.slash(ana, channel, "highcard begin", {})
        await fake.click(bob, lobby, label="Join")
        me.permissions_override = discord.Permissions(view_channel=True).value  # no Send
        started = await fake.click(ana, lobby, label="Start")
        assert started.callback_type == 7  # the lobby became the table all the same
        await cog_of(bot).settle()
        [game] = await bot.store.games.find(kind="highcard")
        assert game.meta["called"] is True and not game.meta["posted"]
        assert [len(fake.dms(u)) for u in (ana, bob)] == [0, 0]
        me.permissions_override = None
        calls = len([m for m in fake.channel_messages(channel) if "highcard" in m.text.lower()])
        clock.advance(seconds=SeatedCog.START_RETRY)
        assert await bot.timers.run_due() >= 1
        await cog_of(bot).settle()
        stored = await bot.store.games.require(game.id)
        assert stored.meta["posted"] is True
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]
        after = len([m for m in fake.channel_messages(channel) if "highcard" in m.text.lower()])
        assert after == calls  # the call is never sent twice (at most once)
        clock.advance(minutes=10)
        await bot.timers.run_due()
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]
    fake.late_interactions.clear()
    await bot.store.close()
