"""A table the bot seats itself (a game night's): opened in a channel with every seat taken,
started at once through the lobby's own start, exactly once by its key (a failure or a
restart half-way neither loses nor doubles it)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.clock import FakeClock
from bot.engine import IllegalAction
from bot.seated.spec import LOBBY_KIND, SeatedTable
from bot.storage.games import GameStore
from tests.fakediscord import FakeDiscord
from tests.seated.driver import two_colleagues
from tests.seated.test_start_resume import cog_of, make_bot, toy_kind

__all__ = ["toy_kind"]  # the toy game installed around every test here, as there

pytestmark = pytest.mark.e2e


async def test_a_table_opens_full_and_started_and_again_finds_the_same_game(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild, channel, ana, bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = make_bot(tmp_path, clock)
    table = SeatedTable(
        "night:1:1", guild.id, channel.id, (str(ana.id), str(bob.id)), ("easy",), call=False
    )
    async with fake.run_client(bot):
        await bot.caught_up()
        cog = cog_of(bot)
        game = await cog.open_table(table, "en")
        await cog.settle()
        assert game.kind == "highcard" and game.is_active
        assert game.game.public_view()["players"][:2] == [str(ana.id), str(bob.id)]
        assert len(game.game.public_view()["players"]) == 3  # the computer seat
        stored = await bot.store.games.require(game.id)
        assert stored.meta["posted"] is True and stored.meta["seated_key"] == table.key
        [message] = fake.channel_messages(channel)  # the lobby message became the table
        assert message.id == stored.meta["table_id"] and message.mentions == []
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]

        again = await cog.open_table(table, "en")
        await cog.settle()
        assert again.id == game.id
        assert len(fake.channel_messages(channel)) == 1
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]
    await bot.store.close()


async def test_a_table_cut_short_before_its_start_is_started_once_after_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    guild, channel, ana, bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    table = SeatedTable("night:1:2", guild.id, channel.id, (str(ana.id), str(bob.id)))
    bot = make_bot(tmp_path, clock)
    real_act = GameStore.act

    async def killed(self: GameStore, *args: object, **kwargs: object) -> object:
        raise ConnectionError("killed before the start")

    async with fake.run_client(bot) as running:
        await bot.caught_up()
        monkeypatch.setattr(GameStore, "act", killed)
        with pytest.raises(ConnectionError):
            await cog_of(bot).open_table(table, "en")
        monkeypatch.setattr(GameStore, "act", real_act)
        [lobby] = await bot.store.games.find(kind=LOBBY_KIND)
        assert lobby.meta["table_id"]  # the lobby and its message were made
        await running.crash()
    await bot.store.close()

    again = make_bot(tmp_path, clock)
    async with fake.run_client(again):
        await again.caught_up()
        game = await cog_of(again).open_table(table, "en")
        await cog_of(again).settle()
        assert [g.id for g in await again.store.games.find(kind="highcard")] == [game.id]
        assert game.meta["lobby_id"] == lobby.id and game.meta["posted"] is True
        table_messages = [m for m in fake.channel_messages(channel) if not m.mentions]
        assert [m.id for m in table_messages] == [lobby.meta["table_id"]]
        calls = [m for m in fake.channel_messages(channel) if m.mentions]
        assert len(calls) == 1  # the kit's call, once
        assert [len(fake.dms(u)) for u in (ana, bob)] == [1, 1]
    await again.store.close()


async def test_a_table_too_small_is_refused_before_anything_is_written(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild, channel, ana, _bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = make_bot(tmp_path, clock)
    async with fake.run_client(bot):
        await bot.caught_up()
        with pytest.raises(IllegalAction):
            await cog_of(bot).open_table(
                SeatedTable("night:1:3", guild.id, channel.id, (str(ana.id),)), "en"
            )
        assert await bot.store.games.find(status=None) == []
        assert fake.channel_messages(channel) == []
    await bot.store.close()
