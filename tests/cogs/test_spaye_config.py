"""Späye's settings under ``/config``: the subcommands admins know, defined by the game and
added to ``/config`` whichever cog loads first; ``/config show`` shows them all."""

from __future__ import annotations

import pytest

from bot.client import GamenightBot
from bot.i18n import GamenightTranslator
from bot.spaye_settings import spaye_settings
from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e

SPAYE_COMMANDS = {
    "closing-time",
    "announce-channel",
    "challenge-expiry",
    "committee-role",
    "exercise",
    "spaye-reminder",
    "spaye-opening",
}

BUILT_IN = {"show", "timezone", "language", "limits", "season"}
"""``/config``'s own subcommands (the server's settings and its limits)."""


def config_subcommands(bot: GamenightBot) -> set[str]:
    group = bot.tree.get_command("config")
    assert group is not None
    return {c.name for c in group.commands}  # type: ignore[union-attr]


@pytest.mark.parametrize("order", [["cogs.config", "cogs.spaye"], ["cogs.spaye", "cogs.config"]])
async def test_spaye_adds_its_settings_to_config_in_any_load_order(
    office: Office, make_bot: MakeBot, order: list[str]
) -> None:
    bot = make_bot(order)
    async with office.fake.run_client(bot):
        assert config_subcommands(bot) == BUILT_IN | SPAYE_COMMANDS
        payload = await bot.tree.get_command("config").get_translated_payload(  # type: ignore[union-attr]
            bot.tree, GamenightTranslator()
        )
        french = {o["name"]: o["name_localizations"]["fr"] for o in payload["options"]}
        assert french["closing-time"] == "heure-cloture"
        assert french["spaye-reminder"] == "spaye-rappel"
        await bot.unload_extension("cogs.spaye")
        assert config_subcommands(bot) == BUILT_IN


async def test_spaye_settings_through_config(office: Office, make_bot: MakeBot) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    bot = make_bot(["cogs.config", "cogs.spaye"])
    async with fake.run_client(bot):
        late = await fake.slash(owner, general, "config closing-time", {"time": "25:00"})
        assert "HH:MM" in late.text
        ok = await fake.slash(owner, general, "config closing-time", {"time": "22:30"})
        assert ok.ephemeral and "22:30" in ok.text
        expiry = await fake.slash(owner, general, "config challenge-expiry", {"minutes": 15})
        assert "15 min" in expiry.text
        channel = await fake.slash(owner, general, "config announce-channel", {"channel": general})
        assert f"<#{general.id}>" in channel.text
        exercise = await fake.slash(owner, general, "config exercise", {"name": "  squats "})
        assert "squats" in exercise.text
        shown = await fake.slash(owner, general, "config show")
        assert shown.ephemeral and "22:30" in shown.text and "15 min" in shown.text
        assert "squats" in shown.text and "UTC" in shown.text
        with pytest.raises(PermissionError):  # /config's own check guards Späye's commands
            await fake.slash(office.bob, general, "config closing-time", {"time": "20:00"})
        saved = await spaye_settings(bot, office.guild.id)
        assert saved.closing_time == "22:30" and saved.challenge_expiry_minutes == 15
        assert saved.announce_channel_id == general.id and saved.default_exercise == "squats"


async def test_announce_channel_needs_the_bot_to_post(office: Office, make_bot: MakeBot) -> None:
    fake = office.fake
    guild = fake.add_guild("Quiet", owner=office.owner)
    guild.everyone.permissions = 1 << 10 | 1 << 31  # view channels, use commands: no sending
    quiet = fake.add_text_channel(guild, "general")
    bot = make_bot(["cogs.config", "cogs.spaye"])
    async with fake.run_client(bot):
        refused = await fake.slash(
            office.owner, quiet, "config announce-channel", {"channel": quiet}
        )
        assert refused.ephemeral and "Send Messages" in refused.text
        assert (await spaye_settings(bot, guild.id)).announce_channel_id is None
