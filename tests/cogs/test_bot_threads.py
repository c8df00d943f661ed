"""The bot's own public threads (a game night's tables): opened once, found again after a
restart instead of opened twice, and the channel itself where the bot may not open one."""

from __future__ import annotations

import pytest

from bot.fakediscord.models import CREATE_PUBLIC_THREADS
from bot.threads import THREAD_NAME_MAX, open_thread
from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e


async def test_a_thread_is_opened_once_and_found_again_after_a_restart(
    office: Office, make_bot: MakeBot
) -> None:
    fake, general = office.fake, office.general
    bot = make_bot([])
    async with fake.run_client(bot) as running:
        await bot.caught_up()
        opened = await open_thread(bot, general.id, "Game night · table 1 (Spit)")
        assert opened.thread
        assert await open_thread(bot, general.id, "Game night · table 1 (Spit)") == opened
        other = await open_thread(bot, general.id, "Game night · table 2 (Spit)")
        assert other.thread and other.channel_id != opened.channel_id
        await running.crash()
    await bot.store.close()
    again = make_bot([])
    async with fake.run_client(again):
        await again.caught_up()
        assert await open_thread(again, general.id, "Game night · table 1 (Spit)") == opened
        assert len(office.guild.active_threads()) == 2
    await again.store.close()


async def test_a_long_name_is_clipped_to_discords_limit(office: Office, make_bot: MakeBot) -> None:
    bot = make_bot([])
    async with office.fake.run_client(bot):
        await bot.caught_up()
        opened = await open_thread(bot, office.general.id, "x" * 300)
        [thread] = office.guild.active_threads()
        assert thread.id == opened.channel_id and len(thread.name) == THREAD_NAME_MAX
    await bot.store.close()


async def test_without_create_public_threads_the_table_stays_in_the_channel(
    office: Office, make_bot: MakeBot
) -> None:
    fake, general = office.fake, office.general
    await fake.deny_bot(general, CREATE_PUBLIC_THREADS)
    bot = make_bot([])
    async with fake.run_client(bot):
        await bot.caught_up()
        opened = await open_thread(bot, general.id, "Game night · table 1")
        assert (opened.channel_id, opened.thread) == (general.id, False)
        assert office.guild.active_threads() == []
    await bot.store.close()
