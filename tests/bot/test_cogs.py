"""Every cog: found, loaded, distinct command names, French localisations (help texts: test_help)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import discord
import pytest
from discord import app_commands

from bot.client import INTENTS, GamenightBot
from bot.clock import FakeClock
from bot.extensions import discover_cogs
from bot.i18n import GamenightTranslator
from bot.seated import SeatedCog
from bot.settings import Settings
from cogs.config import ConfigCog
from tests.bot.fakes import FakeInteraction
from tests.fakediscord import FakeDiscord

NAME = re.compile(r"^[-_\w]{1,32}$")


@pytest.fixture
async def bot(db_path: Path, clock: FakeClock) -> AsyncIterator[GamenightBot]:
    instance = GamenightBot(Settings(database_path=db_path), clock)
    await instance.load_cogs()
    yield instance
    await instance.close()


def test_discovery_finds_only_modules_with_setup(tmp_path: Path) -> None:
    (tmp_path / "game.py").write_text("async def setup(bot):\n    pass\n")
    (tmp_path / "helpers.py").write_text("def other():\n    pass\n")
    (tmp_path / "_private.py").write_text("async def setup(bot):\n    pass\n")
    (tmp_path / "broken.py").write_text("def setup(:\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from x import y\n\nasync def setup(bot): ...\n")
    assert discover_cogs(tmp_path, "x") == ["x.game", "x.pkg"]


def test_default_cogs_include_the_shared_ones() -> None:
    found = discover_cogs()
    assert {"cogs.config", "cogs.help"} <= set(found)
    assert all(name.startswith("cogs.") for name in found)


def test_minimal_intents() -> None:
    assert INTENTS.guilds
    assert not (INTENTS.members or INTENTS.message_content or INTENTS.presences)


async def test_every_cog_loads_and_command_names_are_distinct(bot: GamenightBot) -> None:
    assert bot.failed_cogs == []
    assert set(bot.extensions) == set(discover_cogs())
    names = [command.name for command in bot.tree.get_commands()]
    assert len(names) == len(set(names)), names
    assert {"config", "help"} <= set(names)


async def test_every_command_has_french_names_and_descriptions(bot: GamenightBot) -> None:
    translator = GamenightTranslator()
    for command in bot.tree.get_commands():
        payload = await command.get_translated_payload(bot.tree, translator)
        for node in walk(payload):
            where = node["name"]
            assert "fr" in node.get("name_localizations", {}), f"{where}: no French name"
            assert NAME.match(node["name_localizations"]["fr"]), where
            assert "fr" in node.get("description_localizations", {}), f"{where}: no French"
            for choice in node.get("choices", []):
                assert "fr" in choice.get("name_localizations", {}), f"{where}: {choice}"


def walk(node: dict[str, object]) -> list[dict[str, object]]:
    found = [node]
    for child in node.get("options", []) or []:  # type: ignore[union-attr]
        found.extend(walk(child))  # type: ignore[arg-type]
    return found


async def test_config_is_for_managers_only(bot: GamenightBot) -> None:
    group = ConfigCog.config
    assert group.guild_only
    assert group.default_permissions == discord.Permissions(manage_guild=True)
    cog = bot.get_cog("Config")
    assert cog is not None and type(cog).__name__ == "ConfigCog"  # loaded as its own module
    guild = SimpleNamespace(id=1, preferred_locale=discord.Locale.french)
    member = FakeInteraction(guild=guild, permissions=discord.Permissions(send_messages=True))
    with pytest.raises(app_commands.MissingPermissions):
        await cog.interaction_check(member)  # type: ignore[arg-type]
    with pytest.raises(app_commands.NoPrivateMessage):
        await cog.interaction_check(FakeInteraction())  # type: ignore[arg-type]
    admin = FakeInteraction(guild=guild, permissions=discord.Permissions(manage_guild=True))
    assert await cog.interaction_check(admin)  # type: ignore[arg-type]


async def test_typing_a_seated_games_name_offers_starting_a_game_first(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    """Discord lists a group's subcommands alphabetically and Enter runs the first: for every
    seated game, as registered on Discord, the command that opens a table comes first in
    English and in French (``/papayoo`` then Enter never ends a game)."""
    bot = GamenightBot(Settings(database_path=db_path), clock)
    async with fake_discord.run_client(bot):
        seated = [cog for cog in bot.cogs.values() if isinstance(cog, SeatedCog)]
        assert {cog.kind for cog in seated} >= {"papayoo", "speahx", "spit"}
        for cog in seated:
            group = bot.tree.get_command(cog.kind)
            assert isinstance(group, app_commands.Group)
            start = next(c for c in group.commands if c.callback.__name__ == "new")
            schema = fake_discord.global_commands[(cog.kind, 1)]
            subcommands = schema["options"]
            registered = next(o for o in subcommands if o["name"] == start.name)
            for lang in ("en", "fr"):
                names = [
                    o["name"] if lang == "en" else o["name_localizations"]["fr"]
                    for o in subcommands
                ]
                first = (
                    registered["name"] if lang == "en" else registered["name_localizations"]["fr"]
                )
                listed = sorted(names, key=str.casefold)
                assert listed[0] == first, (cog.kind, lang, listed)
                assert sorted(names)[0] == first
                assert {"history", "historique"} & set(names), (cog.kind, lang, names)
            ending = next(c for c in group.commands if c.callback.__name__ == "abandon")
            assert ending.name == "end" and start.name == "begin"
