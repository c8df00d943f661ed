"""``/help [game]``: the games and their rules as this bot plays them, rulings [R] included.

The texts live in the catalogs (``help.<game>.title|summary|rules|rulings``) in English and
French; a game counts as playable here when its cog (``cogs.<game>``) is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import Lang, locale_for_user, t
from bot.ui import respond

if TYPE_CHECKING:
    from bot.client import GamenightBot

HELP_GAMES = ("spaye", "papayoo", "speahx", "spit")
"""Every game the bot explains, in the order shown."""


def overview_embed(locale: Lang, playable: set[str]) -> discord.Embed:
    """The list of games, with a line each and whether it can be played here yet."""
    embed = discord.Embed(
        title=t("help.title", locale),
        description=t("help.overview", locale),
        colour=discord.Colour.blurple(),
    )
    for game in HELP_GAMES:
        status = t("help.playable" if game in playable else "help.coming", locale)
        embed.add_field(
            name=f"{t(f'help.{game}.title', locale)} · {status}",
            value=t(f"help.{game}.summary", locale),
            inline=False,
        )
    embed.set_footer(text=t("help.footer", locale))
    return embed


def game_embeds(game: str, locale: Lang) -> list[discord.Embed]:
    """A game's rules, then the bot's rulings (the choices marked [R])."""
    rules = discord.Embed(
        title=t(f"help.{game}.title", locale),
        description=t(f"help.{game}.rules", locale),
        colour=discord.Colour.blurple(),
    )
    rulings = discord.Embed(
        title=t("help.rulings_title", locale),
        description=t(f"help.{game}.rulings", locale),
        colour=discord.Colour.dark_grey(),
    )
    return [rules, rulings]


class HelpCog(commands.Cog, name="Help"):
    """How Gamenight plays its games."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    def playable(self) -> set[str]:
        return {game for game in HELP_GAMES if f"cogs.{game}" in self.bot.extensions}

    @app_commands.command(
        name="help", description="The games and their rules as this bot plays them"
    )
    @app_commands.rename(game=_("game"))
    @app_commands.describe(game=_("The game to explain; leave empty for the list"))
    @app_commands.choices(
        game=[
            app_commands.Choice(name="Späye", value="spaye"),
            app_commands.Choice(name="Papayoo", value="papayoo"),
            app_commands.Choice(name="Speahx", value="speahx"),
            app_commands.Choice(name="Spit", value="spit"),
        ]
    )
    async def help(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str] | None = None
    ) -> None:
        locale = locale_for_user(interaction)
        if game is None:
            await respond(
                interaction, embed=overview_embed(locale, self.playable()), ephemeral=True
            )
        else:
            await respond(interaction, embeds=game_embeds(game.value, locale), ephemeral=True)


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(HelpCog(bot))
