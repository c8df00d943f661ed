"""The runtime against the fake Discord: start-up, commands, buttons, DMs, timers, restart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.settings import Settings
from tests.fakediscord import FakeDiscord

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("counter_kind")]

COGS = ["cogs.config", "cogs.help", "tests.bot.counter_cog"]


@pytest.fixture
def make_bot(db_path: Path, clock: FakeClock) -> Callable[[], GamenightBot]:
    def make() -> GamenightBot:
        return GamenightBot(Settings(database_path=db_path), clock, COGS)

    return make


class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.owner = fake.add_user("Olga")
        self.guild = fake.add_guild("Office", owner=self.owner)
        self.general = fake.add_text_channel(self.guild, "general")
        self.ana = fake.add_user("Ana", locale="fr")
        self.bob = fake.add_user("Bob")
        fake.add_member(self.guild, self.ana)
        fake.add_member(self.guild, self.bob)


@pytest.fixture
async def world(fake_discord: FakeDiscord) -> AsyncIterator[World]:
    yield World(fake_discord)


async def test_start_sync_help_and_clean_shutdown(
    world: World, make_bot: Callable[[], GamenightBot]
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        assert bot.db.is_open and bot.failed_cogs == []
        names = {name for name, _ in fake.global_commands}
        assert {"config", "help", "counter"} <= names
        schema = fake.global_commands[("help", 1)]
        assert schema["name_localizations"] == {"fr": "aide"}

        english = await fake.slash(world.bob, world.general, "help")
        assert english.ephemeral and english.embed is not None
        assert english.embed["title"] == "Gamenight: the games"
        french = await fake.slash(world.ana, world.general, "help", {"game": "spaye"})
        assert french.embeds[0]["title"] == "Späye"
        assert "[R]" in french.embeds[1]["description"]
        assert "nikäye" in french.embeds[0]["description"]
    assert not bot.db.is_open
    assert not bot.timers.running
    assert bot.is_closed()


async def test_config_validates_and_confirms(
    world: World, make_bot: Callable[[], GamenightBot]
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        bad = await fake.slash(world.owner, world.general, "config timezone", {"zone": "Mars/Base"})
        assert bad.ephemeral and "Unknown time zone `Mars/Base`" in bad.text
        assert (await bot.store.settings.get(world.guild.id)).timezone == "UTC"

        good = await fake.slash(
            world.owner, world.general, "config timezone", {"zone": "Europe/Paris"}
        )
        assert good.ephemeral and "Europe/Paris" in good.text
        lang = await fake.slash(world.owner, world.general, "config language", {"language": "fr"})
        assert "Français" in lang.text
        shown = await fake.slash(world.owner, world.general, "config show")
        assert shown.ephemeral and "Europe/Paris" in shown.text

        choices = await fake.autocomplete(
            world.owner, world.general, "config timezone", {"zone": "paris"}, "zone"
        )
        assert {"name": "Europe/Paris", "value": "Europe/Paris"} in choices

        with pytest.raises(PermissionError):
            await fake.slash(world.bob, world.general, "config show")
    settings = await reopen_settings(bot, world.guild.id)
    assert settings.timezone == "Europe/Paris" and settings.locale == "fr"


async def reopen_settings(bot: GamenightBot, guild_id: int):  # type: ignore[no-untyped-def]
    await bot.store.open()
    try:
        return await bot.store.settings.get(guild_id)
    finally:
        await bot.store.close()


async def test_buttons_double_click_and_restart(
    world: World, make_bot: Callable[[], GamenightBot]
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        started = await fake.slash(world.bob, world.general, "counter", {"opponent": world.ana})
        board = started.response
        assert board is not None and board.content is not None
        assert board.content.endswith(": 0")
        inc = next(b.custom_id for b in fake.buttons(board) if b.label == "+1")
        first, second = await asyncio.gather(
            fake.click(world.bob, board, inc), fake.click(world.bob, board, inc)
        )
        results = sorted([first, second], key=lambda r: r.callback_type or 0)
        assert [r.callback_type for r in results] == [4, 7]  # one refusal, one board update
        assert results[0].ephemeral and "not your turn" in results[0].text
        assert fake.message(board.id).content.endswith(": 1")

        wrong = await fake.click(world.bob, board, inc)
        assert wrong.ephemeral and "not your turn" in wrong.text

    # The process is gone; a new one on the same database takes the old buttons.
    again = make_bot()
    async with fake.run_client(again):
        moved = await fake.click(world.ana, board, inc)
        assert moved.callback_type == 7
        assert fake.message(board.id).content.endswith(": 2")
        hand = await fake.click(world.ana, board, label="Voir ma main")
        assert hand.ephemeral and "Your view of" in hand.text
        await fake.click(world.bob, board, inc)
        assert fake.message(board.id).content.endswith(": 3 (over)")
        stored = await again.store.games.require(int(inc.split(":")[2]))
        assert stored.status == "over" and stored.version == 4
        results = await again.store.results.for_game(stored.id)
        assert [r.user_id for r in results if r.won] == [world.bob.id]


async def test_closed_dms_reach_the_user_on_their_next_interaction(
    world: World, make_bot: Callable[[], GamenightBot]
) -> None:
    fake = world.fake
    fake.close_dms(world.ana)
    bot = make_bot()
    async with fake.run_client(bot):
        await fake.slash(world.bob, world.general, "counter", {"opponent": world.ana})
        assert [m.content for m in fake.dms(world.bob)] == [fake_counter_dm(1)]
        assert fake.dms(world.ana) == []
        later = await fake.slash(world.ana, world.general, "help")
        texts = [m.content or "" for m in later.followups]
        assert any(t.startswith("📭") and t.endswith(fake_counter_dm(1)) for t in texts)
        assert all(m.ephemeral for m in later.followups)
        quiet = await fake.slash(world.ana, world.general, "help")
        assert quiet.followups == []


def fake_counter_dm(game_id: int) -> str:
    return f"You play counter #{game_id}."


async def test_timers_fire_by_the_clock(
    world: World, make_bot: Callable[[], GamenightBot], clock: FakeClock
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        await fake.slash(world.bob, world.general, "counter", {"opponent": world.ana})
        assert await bot.timers.run_due() == 0
        clock.advance(minutes=5)
        assert await bot.timers.run_due() == 1
        nudge = await fake.wait_for_message(world.general, lambda m: "waiting" in (m.content or ""))
        assert nudge.content == "Counter #1 is waiting for a move."


async def test_unexpected_errors_get_a_generic_answer(
    world: World, make_bot: Callable[[], GamenightBot], caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        failed = await fake.slash(world.ana, world.general, "boom")
        assert failed.ephemeral and failed.text.startswith("Quelque chose s'est mal passé")
    assert "unhandled error" in caplog.text and "boom" in caplog.text


async def test_a_crash_loses_no_committed_move(
    world: World, make_bot: Callable[[], GamenightBot]
) -> None:
    fake = world.fake
    bot = make_bot()
    running = fake.run_client(bot)
    await running.start()
    started = await fake.slash(world.bob, world.general, "counter", {"opponent": world.ana})
    board = started.response
    assert board is not None
    inc = next(b.custom_id for b in fake.buttons(board) if b.label == "+1")
    moved = await fake.click(world.bob, board, inc)
    assert moved.callback_type == 7
    await running.crash()  # no close(): the database is never closed properly

    again = make_bot()
    async with fake.run_client(again):
        stored = await again.store.games.require(1)
        assert stored.version == 2 and stored.game.public_view()["total"] == 1
        refused = await fake.click(world.bob, board, inc)
        assert "not your turn" in refused.text
        assert (await fake.click(world.ana, board, inc)).callback_type == 7
    await bot.store.close()


async def test_timers_due_while_down_fire_once_ready(
    world: World, make_bot: Callable[[], GamenightBot], clock: FakeClock
) -> None:
    fake = world.fake
    bot = make_bot()
    async with fake.run_client(bot):
        await fake.slash(world.bob, world.general, "counter", {"opponent": world.ana})
    clock.advance(hours=1)
    again = make_bot()
    async with fake.run_client(again):
        nudge = await fake.wait_for_message(world.general, lambda m: "waiting" in (m.content or ""))
        assert nudge.content == "Counter #1 is waiting for a move."
        await again.caught_up()  # the timer is marked done once its handler returned
        assert await again.timers.pending() == []


async def test_dev_guild_gets_the_commands_at_once(
    world: World, db_path: Path, clock: FakeClock
) -> None:
    fake = world.fake
    bot = GamenightBot(
        Settings(database_path=db_path, dev_guild_id=world.guild.id), clock, ["cogs.help"]
    )
    async with fake.run_client(bot):
        assert fake.global_commands == {}
        assert {name for name, _ in fake.guild_commands[world.guild.id]} == {"help"}
        shown = await fake.slash(world.bob, world.general, "help")
        assert shown.ephemeral
        settings = await bot.guild_settings(bot.get_guild(world.guild.id))  # type: ignore[arg-type]
        assert settings.locale == "en" and settings.timezone == "UTC"
