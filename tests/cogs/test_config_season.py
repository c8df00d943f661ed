"""``/config season period:``: the length of a server's rating seasons (Manage Server only)."""

from __future__ import annotations

import discord
import pytest

from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e


async def test_the_season_period_is_set_by_a_manager_and_confirmed(
    office: Office, make_bot: MakeBot
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    bot = make_bot(["cogs.config"])
    async with fake.run_client(bot):
        shown = await fake.slash(owner, general, "config show")
        assert "Seasons" in shown.text and "Quarter (now Q1 2025)" in shown.text, shown.text
        saved = await fake.slash(owner, general, "config season", {"period": "month"})
        assert saved.ephemeral and "Seasons: **Month (now March 2025)**" in saved.text
        assert await bot.store.ratings.season_period(office.guild.id) == "month"
        with pytest.raises(PermissionError):
            await fake.slash(office.bob, general, "config season", {"period": "year"})
        assert await bot.store.ratings.season_period(office.guild.id) == "month"
    await bot.store.close()


async def test_the_confirmation_is_in_the_managers_language(
    office: Office, make_bot: MakeBot
) -> None:
    fake, general = office.fake, office.general
    zoe = fake.add_user("Zoé", locale="fr")
    fake.add_member(office.guild, zoe, permissions=discord.Permissions(manage_guild=True))
    bot = make_bot(["cogs.config"])
    async with fake.run_client(bot):
        saved = await fake.slash(zoe, general, "config season", {"period": "year"})
        assert "Saisons : **Année (en cours : 2025)**" in saved.text, saved.text
    await bot.store.close()
