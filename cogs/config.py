"""``/config``: a server's Gamenight settings (Manage Server only).

The server's own settings (time zone, language) are defined here; each game brings its own
subcommands and its lines of ``/config show``, so a game's settings live with the game.

How a game adds its settings to ``/config`` (cogs never import each other, so it is a
convention, :class:`GameSettings`): its cog offers

- ``config_commands()``: fresh ``app_commands.Command`` objects (new ones at each call),
  added as ``/config`` subcommands. They get ``/config``'s Manage Server check from the group
  itself, and their French names from the ``cmd.config.<name>...`` catalog keys as any
  subcommand;
- ``async config_fields(guild, locale)``: ``[(label, shown value)]`` for ``/config show``;

and calls ``add_game(self)`` on the ``Config`` cog from its ``cog_load`` when that cog is
loaded already (``remove_game(self)`` from ``cog_unload``); the ``Config`` cog collects the
games loaded before it by itself. See ``cogs/spaye/_settings.py``.

Every subcommand validates before saving: a bad value gets a clear ephemeral refusal and
changes nothing; a saved one is confirmed with the new value and dispatched as an event
(here ``guild_settings_changed(settings, field)``, ``on_guild_settings_changed`` listeners).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands
from pydantic import ValidationError

from bot.i18n import Lang, locale_for_user, t
from bot.limits import LIMIT_FIELDS, MemberLimits, member_limits, update_member_limits
from bot.ratings.seasons import season_label
from bot.storage import SETTING_FIELDS, GuildSettings
from bot.storage.models import is_known_timezone
from bot.text import code
from bot.ui import reply_error, respond

if TYPE_CHECKING:
    from bot.client import GamenightBot

ANNOUNCE_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
"""What the bot needs in a channel it is asked to post in (kept for games that import it
through their own copy; Späye checks the same three)."""


@runtime_checkable
class GameSettings(Protocol):
    """What a game's cog offers ``/config`` (see the module docstring)."""

    def config_commands(self) -> Sequence[app_commands.Command[Any, ..., Any]]: ...

    async def config_fields(
        self, guild: discord.Guild, locale: Lang
    ) -> Sequence[tuple[str, str]]: ...


@lru_cache(maxsize=1)
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z and not z.startswith("Etc/")))


def describe(settings: GuildSettings, locale: Lang) -> dict[str, tuple[str, str]]:
    """``{field: (label, shown value)}`` for every setting, in :data:`SETTING_FIELDS` order."""
    language = t(f"config.language.{settings.locale}", locale)
    values = {
        "timezone": settings.timezone,
        "locale": language
        if settings.locale_explicit
        else t("config.value.locale_auto", locale, language=language),
    }
    return {field: (t(f"config.field.{field}", locale), values[field]) for field in SETTING_FIELDS}


def describe_limits(limits: MemberLimits, locale: Lang) -> dict[str, tuple[str, str]]:
    """``{field: (label, shown value)}`` of the server's limits (:mod:`bot.limits`)."""
    return {
        field: (t(f"config.field.{field}", locale), str(getattr(limits, field)))
        for field in LIMIT_FIELDS
    }


def managers_only(interaction: discord.Interaction[Any]) -> bool:
    """``/config`` is for members who may manage the server (``default_permissions`` only
    hides the command: an admin can grant it to anyone)."""
    if interaction.guild is None:
        raise app_commands.NoPrivateMessage()
    if not interaction.permissions.manage_guild:
        raise app_commands.MissingPermissions(["manage_guild"])
    return True


class SettingsGroup(app_commands.Group):
    """``/config``: its check guards every subcommand, a game's included."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return managers_only(interaction)


class ConfigCog(commands.Cog, name="Config"):
    """Server settings for Gamenight."""

    config = SettingsGroup(
        name="config",
        description="Gamenight settings for this server",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self._games: dict[str, list[str]] = {}

    async def cog_load(self) -> None:
        for cog in list(self.bot.cogs.values()):
            self.add_game(cog)

    def add_game(self, cog: object) -> None:
        """Add a game's settings subcommands to ``/config`` (once per game)."""
        if not isinstance(cog, GameSettings) or not isinstance(cog, commands.Cog):
            return
        if cog.qualified_name in self._games:
            return
        added = []
        for command in cog.config_commands():
            if self.config.get_command(command.name) is None:
                self.config.add_command(command)
                added.append(command.name)
        self._games[cog.qualified_name] = added

    def remove_game(self, cog: commands.Cog) -> None:
        for name in self._games.pop(cog.qualified_name, []):
            self.config.remove_command(name)

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return managers_only(interaction)

    async def _save(
        self, interaction: discord.Interaction[Any], field: str, value: Any
    ) -> GuildSettings | None:
        guild = interaction.guild
        if guild is None:  # interaction_check already refused it
            raise app_commands.NoPrivateMessage()
        try:
            new = await self.bot.store.settings.update(
                guild.id, {field: value}, preferred_locale=str(guild.preferred_locale)
            )
        except ValidationError as err:
            reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
            await reply_error(interaction, "config.invalid", reason=reason)
            return None
        # Listeners react to the new value, e.g. the Späye calendar moves today's closing.
        self.bot.dispatch("guild_settings_changed", new, field)
        locale = locale_for_user(interaction)
        label, shown = describe(new, locale)[field]
        await respond(
            interaction, t("config.saved", locale, setting=label, value=shown), ephemeral=True
        )
        return new

    @config.command(name="show", description="Show this server's Gamenight settings")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        settings = await self.bot.guild_settings(interaction.guild)
        embed = discord.Embed(title=t("config.title", locale), colour=discord.Colour.blurple())
        fields = list(describe(settings, locale).values())
        limits = await member_limits(self.bot.store, interaction.guild.id)
        fields += describe_limits(limits, locale).values()
        fields.append(await describe_season(self.bot, interaction.guild.id, locale))
        for cog in list(self.bot.cogs.values()):
            if cog.qualified_name in self._games and isinstance(cog, GameSettings):
                fields += await cog.config_fields(interaction.guild, locale)
        for label, value in fields:
            embed.add_field(name=label, value=value, inline=True)
        await respond(interaction, embed=embed, ephemeral=True)

    @config.command(name="timezone", description="Time zone of the server's days and months")
    @app_commands.rename(zone=_("zone"))
    @app_commands.describe(zone=_("An IANA time zone such as Europe/Paris"))
    async def timezone(self, interaction: discord.Interaction[Any], zone: str) -> None:
        zone = zone.strip()
        if not is_known_timezone(zone):
            await reply_error(interaction, "config.unknown_timezone", zone=code(zone, 64))
            return
        await self._save(interaction, "timezone", zone)

    @timezone.autocomplete("zone")
    async def _zone_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower().replace(" ", "_")
        return [app_commands.Choice(name=z, value=z) for z in _zones() if needle in z.lower()][:25]

    @config.command(name="language", description="Language of the bot's public messages")
    @app_commands.rename(language=_("language"))
    @app_commands.describe(language=_("Automatic follows the server's language"))
    @app_commands.choices(
        language=[
            app_commands.Choice(name=_("English", key="choice.language.en"), value="en"),
            app_commands.Choice(name=_("Français", key="choice.language.fr"), value="fr"),
            app_commands.Choice(
                name=_("Automatic (server language)", key="choice.language.auto"), value="auto"
            ),
        ]
    )
    async def language(
        self, interaction: discord.Interaction[Any], language: app_commands.Choice[str]
    ) -> None:
        await self._save(
            interaction, "locale", None if language.value == "auto" else language.value
        )

    @config.command(name="limits", description="What one member, channel and server may hold")
    @app_commands.rename(
        lobbies_per_member=_("lobbies-per-member"),
        lobbies_per_channel=_("lobbies-per-channel"),
        lobbies_per_server=_("lobbies-per-server"),
        live_games_per_member=_("live-games-per-member"),
    )
    @app_commands.describe(
        lobbies_per_member=_("Open tables one member may host at once (1 to 25, default 3)"),
        lobbies_per_channel=_("Open tables in one channel at once (1 to 100, default 10)"),
        lobbies_per_server=_("Open tables in the server at once (1 to 5000, default 50)"),
        live_games_per_member=_(
            "Games and open tables one member may sit in at once (1 to 25, default 5)"
        ),
    )
    async def limits(
        self,
        interaction: discord.Interaction[Any],
        lobbies_per_member: app_commands.Range[int, 1, 25] | None = None,
        lobbies_per_channel: app_commands.Range[int, 1, 100] | None = None,
        lobbies_per_server: app_commands.Range[int, 1, 5000] | None = None,
        live_games_per_member: app_commands.Range[int, 1, 25] | None = None,
    ) -> None:
        """Change the limits given (the others stay); none given: show them."""
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        given = {
            "lobbies_per_member": lobbies_per_member,
            "lobbies_per_channel": lobbies_per_channel,
            "lobbies_per_server": lobbies_per_server,
            "live_games_per_member": live_games_per_member,
        }
        changes = {field: value for field, value in given.items() if value is not None}
        try:
            limits = (
                await update_member_limits(self.bot.store, guild.id, changes)
                if changes
                else await member_limits(self.bot.store, guild.id)
            )
        except ValidationError as err:
            reason = "; ".join(e["msg"] for e in err.errors())
            await reply_error(interaction, "config.invalid", reason=reason)
            return
        shown = describe_limits(limits, locale)
        lines = [
            t(
                "config.saved" if field in changes else "config.kept",
                locale,
                setting=label,
                value=value,
            )
            for field, (label, value) in shown.items()
        ]
        await respond(interaction, "\n".join(lines), ephemeral=True)

    @config.command(name="season", description="How long a season of ratings lasts")
    @app_commands.rename(period=_("period"))
    @app_commands.describe(period=_("A calendar month, quarter (the default) or year"))
    @app_commands.choices(
        period=[
            app_commands.Choice(name=_("Month", key="choice.season.month"), value="month"),
            app_commands.Choice(name=_("Quarter", key="choice.season.quarter"), value="quarter"),
            app_commands.Choice(name=_("Year", key="choice.season.year"), value="year"),
        ]
    )
    async def season(
        self, interaction: discord.Interaction[Any], period: app_commands.Choice[str]
    ) -> None:
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        ratings = self.bot.store.ratings
        try:
            await ratings.set_season_period(guild.id, period.value)  # type: ignore[arg-type]
        except ValidationError as err:
            reason = "; ".join(e["msg"] for e in err.errors())
            await reply_error(interaction, "config.invalid", reason=reason)
            return
        locale = locale_for_user(interaction)
        label, shown = await describe_season(self.bot, guild.id, locale)
        await respond(
            interaction, t("config.saved", locale, setting=label, value=shown), ephemeral=True
        )


async def describe_season(bot: GamenightBot, guild_id: int, locale: Lang) -> tuple[str, str]:
    """``(label, shown value)`` of the server's season period, with the season now."""
    ratings = bot.store.ratings
    period = await ratings.season_period(guild_id)
    now = await ratings.current_season(guild_id, bot.clock.now())
    shown = t("config.value.season", locale, period=t(f"choice.season.{period}", locale),
              season=season_label(now, locale))  # fmt: skip
    return t("config.field.season", locale), shown


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(ConfigCog(bot))
