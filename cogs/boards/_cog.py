"""``/leaderboard [game] [season]`` and ``/profile [colleague]``: the server's ratings as
boards and as one member's record; and the season's podiums announced at its end.

Both answer privately, as ``/spaye board`` does: a board is browsed page by page with its
own buttons, and a profile holds the viewer's own head-to-head. Members are shown as
mentions inside embeds (they never ping); the season's announcement is the public one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import locale_for_user, t
from bot.ratings.seasons import season_label
from bot.ui import Press, auto_defer, respond, say, update_message
from cogs.boards._board import KIND, board_view, leaderboard, parse_board_arg, resolve_season
from cogs.boards._profile import profile
from cogs.boards._scopes import OVERALL, scope_name, scopes
from cogs.boards._season import start_seasons, stop_seasons

if TYPE_CHECKING:
    from bot.client import GamenightBot

AUTOCOMPLETE_CHOICES = 25
"""Discord shows at most 25 choices."""


class BoardsCog(commands.Cog, name="Boards"):
    """Leaderboards, profiles and the season's podiums."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.actions.register(KIND, self.on_page, action="page", games=False)
        start_seasons(self.bot)

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(KIND)
        stop_seasons(self.bot)

    # -- /leaderboard -------------------------------------------------------------------------

    @app_commands.command(
        name=_("leaderboard", key="boards.cmd.leaderboard.name"),
        description=_(
            "The ratings of a game (or all games) this season",
            key="boards.cmd.leaderboard.description",
        ),
    )
    @app_commands.guild_only()
    @app_commands.rename(
        game=_("game", key="boards.cmd.leaderboard.game.name"),
        season=_("season", key="boards.cmd.leaderboard.season.name"),
    )
    @app_commands.describe(
        game=_("A game (default: all games)", key="boards.cmd.leaderboard.game.description"),
        season=_("A season (default: this one)", key="boards.cmd.leaderboard.season.description"),
    )
    @app_commands.choices(
        game=[
            app_commands.Choice(
                name=_(scope_name(scope, "en"), key=f"boards.choice.{scope}"), value=scope
            )
            for scope in scopes()
        ]
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str] | None = None,
        season: app_commands.Range[str, 1, 30] | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        async with auto_defer(interaction, ephemeral=True):
            try:
                key = await resolve_season(self.bot, guild_id, season, locale)
                shown = await leaderboard(
                    self.bot,
                    guild_id,
                    game.value if game is not None else OVERALL,
                    key,
                    locale,
                    viewer=interaction.user.id,
                )
            except ValueError as err:
                await say(interaction, str(err))
                return
            await respond(
                interaction, embed=shown.embed, view=board_view(shown, locale), ephemeral=True
            )

    @leaderboard.autocomplete("season")
    async def season_choices(
        self, interaction: discord.Interaction[Any], typed: str
    ) -> list[app_commands.Choice[str]]:
        """The seasons with rated games, newest first, named in the member's language."""
        if interaction.guild_id is None:
            return []
        locale = locale_for_user(interaction)
        store = self.bot.store.ratings
        current = await store.current_season(interaction.guild_id, self.bot.clock.now())
        keys = dict.fromkeys([current, *await store.seasons(interaction.guild_id)])
        wanted = typed.strip().casefold()
        choices = [
            app_commands.Choice(name=label, value=key)
            for key in keys
            if wanted in (label := season_label(key, locale)).casefold() or wanted in key.casefold()
        ]
        return choices[:AUTOCOMPLETE_CHOICES]

    async def on_page(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Previous / Next under a board (``gn:boards:<page>:page:<scope>.<season>``)."""
        locale = locale_for_user(interaction)
        wanted = parse_board_arg(press.arg)
        if interaction.guild_id is None or wanted is None:
            await say(interaction, t("errors.unknown_button", locale))
            return
        async with auto_defer(interaction):
            try:
                shown = await leaderboard(
                    self.bot,
                    interaction.guild_id,
                    wanted[0],
                    wanted[1],
                    locale,
                    viewer=interaction.user.id,
                    page=press.game_id,
                )
            except ValueError as err:
                await say(interaction, str(err))
                return
            await update_message(interaction, embed=shown.embed, view=board_view(shown, locale))

    # -- /profile -----------------------------------------------------------------------------

    @app_commands.command(
        name=_("profile", key="boards.cmd.profile.name"),
        description=_(
            "A colleague's games, places and ratings here", key="boards.cmd.profile.description"
        ),
    )
    @app_commands.guild_only()
    @app_commands.rename(colleague=_("colleague", key="boards.cmd.profile.colleague.name"))
    @app_commands.describe(
        colleague=_(
            "Whose profile (default: yours)", key="boards.cmd.profile.colleague.description"
        )
    )
    async def profile(
        self, interaction: discord.Interaction[Any], colleague: discord.User | None = None
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        member = colleague or interaction.user
        async with auto_defer(interaction, ephemeral=True):
            try:
                shown = await profile(self.bot, guild_id, member, interaction.user.id, locale)
            except ValueError as err:
                await say(interaction, str(err))
                return
            await respond(interaction, embed=shown.embed, files=shown.files(locale), ephemeral=True)
