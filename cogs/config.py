"""``/config``: a server's Gamenight settings (Manage Server only).

Every subcommand validates before saving: a bad value gets a clear ephemeral refusal and
changes nothing; a saved one is confirmed with the new value and dispatched as the event
``guild_settings_changed(settings, field)`` (``on_guild_settings_changed`` listeners).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands
from pydantic import ValidationError

from bot.clock import parse_hhmm
from bot.i18n import Lang, locale_for_user, t
from bot.spaye_settings import (
    SpayeSettings,
    parse_reminder,
    parse_weekdays,
    spaye_settings,
    update_spaye_settings,
    weekday_names,
)
from bot.storage import SETTING_FIELDS, GuildSettings
from bot.storage.models import is_known_timezone
from bot.ui import reply_error, respond

if TYPE_CHECKING:
    from bot.client import GamenightBot

ANNOUNCE_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
"""What the bot needs in the announcement channel to post titles there."""


@lru_cache(maxsize=1)
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z and not z.startswith("Etc/")))


def describe(settings: GuildSettings, locale: Lang) -> dict[str, tuple[str, str]]:
    """``{field: (label, shown value)}`` for every setting, in :data:`SETTING_FIELDS` order."""
    language = t(f"config.language.{settings.locale}", locale)
    channel, role = settings.announce_channel_id, settings.committee_role_id
    values = {
        "timezone": settings.timezone,
        "spaye_close": settings.spaye_close,
        "announce_channel_id": f"<#{channel}>" if channel else t("config.value.none", locale),
        "challenge_expiry_minutes": t(
            "config.value.minutes", locale, minutes=settings.challenge_expiry_minutes
        ),
        "committee_role_id": f"<@&{role}>" if role else t("config.value.committee_default", locale),
        "default_exercise": settings.default_exercise,
        "locale": language
        if settings.locale_explicit
        else t("config.value.locale_auto", locale, language=language),
    }
    return {field: (t(f"config.field.{field}", locale), values[field]) for field in SETTING_FIELDS}


def describe_spaye(settings: SpayeSettings, zone: str, locale: Lang) -> dict[str, tuple[str, str]]:
    """``{field: (label, shown value)}`` of the Späye settings kept in the per-game store."""
    off = t("config.value.off", locale)
    minutes = settings.reminder_minutes
    reminder = (
        off
        if minutes is None
        else t("config.value.before_closing", locale, time=f"{minutes // 60}:{minutes % 60:02d}")
    )
    days = weekday_names(settings.open_weekdays, t("config.weekdays", locale).split(","))
    channel = settings.open_channel_id
    opening = (
        off
        if settings.open_time is None
        else t(
            "config.value.opening",
            locale,
            time=settings.open_time,
            zone=zone,
            days=days,
            channel=f"<#{channel}>" if channel else t("config.value.latest_channel", locale),
        )
    )
    return {
        "reminder_minutes": (t("config.field.spaye_reminder", locale), reminder),
        "open_time": (t("config.field.spaye_opening", locale), opening),
    }


class ConfigCog(commands.Cog, name="Config"):
    """Server settings for Gamenight."""

    config = app_commands.Group(
        name="config",
        description="Gamenight settings for this server",
        guild_only=True,
        default_permissions=discord.Permissions(manage_guild=True),
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # default_permissions only hides the command; an admin can grant it to anyone.
        if interaction.guild is None:
            raise app_commands.NoPrivateMessage()
        if not interaction.permissions.manage_guild:
            raise app_commands.MissingPermissions(["manage_guild"])
        return True

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
        for label, value in describe(settings, locale).values():
            embed.add_field(name=label, value=value, inline=True)
        spaye = await spaye_settings(self.bot, interaction.guild.id)
        for label, value in describe_spaye(spaye, settings.timezone, locale).values():
            embed.add_field(name=label, value=value, inline=True)
        await respond(interaction, embed=embed, ephemeral=True)

    @config.command(name="timezone", description="Time zone of the server's days and months")
    @app_commands.rename(zone=_("zone"))
    @app_commands.describe(zone=_("An IANA time zone such as Europe/Paris"))
    async def timezone(self, interaction: discord.Interaction[Any], zone: str) -> None:
        zone = zone.strip()
        if not is_known_timezone(zone):
            await reply_error(interaction, "config.unknown_timezone", zone=zone[:64])
            return
        await self._save(interaction, "timezone", zone)

    @timezone.autocomplete("zone")
    async def _zone_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.strip().lower().replace(" ", "_")
        return [app_commands.Choice(name=z, value=z) for z in _zones() if needle in z.lower()][:25]

    @config.command(name="closing-time", description="When an unfinished Späye is voided")
    @app_commands.rename(time=_("time"))
    @app_commands.describe(time=_("HH:MM in the server's time zone, e.g. 23:59"))
    async def closing_time(self, interaction: discord.Interaction[Any], time: str) -> None:
        try:
            parse_hhmm(time)
        except ValueError:
            await reply_error(interaction, "config.bad_time", value=time[:20])
            return
        await self._save(interaction, "spaye_close", time)

    @config.command(name="announce-channel", description="Where monthly titles are announced")
    @app_commands.rename(channel=_("channel"))
    @app_commands.describe(channel=_("A channel I can post in; leave empty to unset"))
    async def announce_channel(
        self, interaction: discord.Interaction[Any], channel: discord.TextChannel | None = None
    ) -> None:
        if channel is not None:
            guild = channel.guild
            if guild.me is None:
                await reply_error(interaction, "config.cannot_check")
                return
            perms = channel.permissions_for(guild.me)
            missing = [p for p in ANNOUNCE_PERMISSIONS if not getattr(perms, p)]
            if missing:
                locale = locale_for_user(interaction)
                await reply_error(
                    interaction,
                    "config.channel_no_access",
                    channel=channel.mention,
                    permissions=", ".join(t(f"perm.{p}", locale) for p in missing),
                )
                return
        await self._save(interaction, "announce_channel_id", channel.id if channel else None)

    @config.command(name="challenge-expiry", description="Minutes before a däye challenge expires")
    @app_commands.rename(minutes=_("minutes"))
    @app_commands.describe(minutes=_("From 1 to 1440 (default 10)"))
    async def challenge_expiry(
        self, interaction: discord.Interaction[Any], minutes: app_commands.Range[int, 1, 1440]
    ) -> None:
        await self._save(interaction, "challenge_expiry_minutes", minutes)

    @config.command(name="committee-role", description="Who may approve exercise adjustments")
    @app_commands.rename(role=_("role"))
    @app_commands.describe(role=_("Leave empty: the other players of the däye decide"))
    async def committee_role(
        self, interaction: discord.Interaction[Any], role: discord.Role | None = None
    ) -> None:
        await self._save(interaction, "committee_role_id", role.id if role else None)

    @config.command(name="exercise", description="The exercise a Späye opens with by default")
    @app_commands.rename(name=_("name"))
    @app_commands.describe(name=_("For example push-ups, squats, burpees"))
    async def exercise(
        self, interaction: discord.Interaction[Any], name: app_commands.Range[str, 1, 100]
    ) -> None:
        await self._save(interaction, "default_exercise", name)

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

    # -- Späye's own settings (the per-game store) -------------------------------------------

    async def _save_spaye(
        self, interaction: discord.Interaction[Any], field: str, changes: dict[str, Any]
    ) -> None:
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        try:
            new = await update_spaye_settings(self.bot, guild.id, changes)
        except ValidationError as err:
            reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
            await reply_error(interaction, "config.invalid", reason=reason)
            return
        # The Späye calendar moves today's reminder and the next automatic opening.
        self.bot.dispatch("spaye_settings_changed", guild.id, new)
        locale = locale_for_user(interaction)
        zone = (await self.bot.guild_settings(guild)).timezone
        label, shown = describe_spaye(new, zone, locale)[field]
        await respond(
            interaction, t("config.saved", locale, setting=label, value=shown), ephemeral=True
        )

    @config.command(
        name="spaye-reminder", description="Remind the channel before closing time if cards remain"
    )
    @app_commands.rename(before=_("before"))
    @app_commands.describe(before=_("How long before closing, H:MM (default 1:00), or off"))
    async def spaye_reminder(self, interaction: discord.Interaction[Any], before: str) -> None:
        try:
            minutes = parse_reminder(before)
        except ValueError:
            await reply_error(interaction, "config.bad_reminder", value=before[:20])
            return
        await self._save_spaye(interaction, "reminder_minutes", {"reminder_minutes": minutes})

    @config.command(
        name="spaye-opening", description="Open the day's Späye by itself on workdays (or off)"
    )
    @app_commands.rename(time=_("time"), weekdays=_("weekdays"), channel=_("channel"))
    @app_commands.describe(
        time=_("HH:MM in the server's time zone, or off"),
        weekdays=_("For example mon-fri or mon,wed,fri (default mon-fri)"),
        channel=_("Where to open it (default: where the latest Späye was played)"),
    )
    async def spaye_opening(
        self,
        interaction: discord.Interaction[Any],
        time: str,
        weekdays: str | None = None,
        channel: discord.TextChannel | None = None,
    ) -> None:
        changes: dict[str, Any] = {}
        if time.strip().lower() in ("off", "non", "none", "aucun"):
            changes["open_time"] = None
        else:
            try:
                changes["open_time"] = parse_hhmm(time).strftime("%H:%M")
            except ValueError:
                await reply_error(interaction, "config.bad_time", value=time[:20])
                return
        if weekdays is not None:
            try:
                changes["open_weekdays"] = list(parse_weekdays(weekdays))
            except ValueError:
                await reply_error(interaction, "config.bad_weekdays", value=weekdays[:40])
                return
        if channel is not None:
            if channel.guild.me is None:
                await reply_error(interaction, "config.cannot_check")
                return
            perms = channel.permissions_for(channel.guild.me)
            missing = [p for p in ANNOUNCE_PERMISSIONS if not getattr(perms, p)]
            if missing:
                locale = locale_for_user(interaction)
                await reply_error(
                    interaction,
                    "config.channel_no_access",
                    channel=channel.mention,
                    permissions=", ".join(t(f"perm.{p}", locale) for p in missing),
                )
                return
            changes["open_channel_id"] = channel.id
        await self._save_spaye(interaction, "open_time", changes)


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(ConfigCog(bot))
