"""Späye's settings on Discord: its eight ``/config`` subcommands and its lines of
``/config show`` (the values live in :mod:`bot.spaye_settings`).

The commands keep the names server admins know (``/config closing-time``, ``/config
spaye-reminder``...) and their French names (``cmd.config.<name>...`` catalog keys): the
Späye cog hands them to the ``Config`` cog (``config_commands``), which adds them under
``/config`` with its Manage Server check. They are built anew for each ``/config`` group, so
a reloaded ``Config`` cog gets its own.

Each saved value is confirmed with its label and shown value (as ``/config show`` shows it)
and dispatched as ``spaye_settings_changed(guild_id, settings, field)``: the calendar moves
the running day's closing and reminder and the next automatic opening.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
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
from bot.text import code
from bot.ui import reply_error, respond
from cogs.spaye._naming import exercise_named

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["config_commands", "describe_spaye", "shown_fields"]

POST_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
"""What the bot needs in a channel it announces titles in or opens the day in."""

OFF_WORDS = ("off", "non", "none", "aucun")

FIELD_LABELS = {
    "closing_time": "config.field.spaye_close",
    "announce_channel_id": "config.field.announce_channel_id",
    "challenge_expiry_minutes": "config.field.challenge_expiry_minutes",
    "committee_role_id": "config.field.committee_role_id",
    "default_exercise": "config.field.default_exercise",
    "reminder_minutes": "config.field.spaye_reminder",
    "open_time": "config.field.spaye_opening",
    "day_place": "config.field.spaye_place",
}
"""Each shown setting and its label's catalog key, in ``/config show`` order."""


def describe_spaye(settings: SpayeSettings, zone: str, locale: Lang) -> dict[str, str]:
    """``{field: shown value}`` of Späye's settings, in :data:`FIELD_LABELS` order."""
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
    announce, role = settings.announce_channel_id, settings.committee_role_id
    return {
        "closing_time": settings.closing_time,
        "announce_channel_id": f"<#{announce}>" if announce else t("config.value.none", locale),
        "challenge_expiry_minutes": t(
            "config.value.minutes", locale, minutes=settings.challenge_expiry_minutes
        ),
        "committee_role_id": f"<@&{role}>" if role else t("config.value.committee_default", locale),
        "default_exercise": settings.default_exercise,
        "reminder_minutes": reminder,
        "open_time": opening,
        "day_place": _place(settings, locale),
    }


def _place(settings: SpayeSettings, locale: Lang) -> str:
    """Thread or channel, and what Discord refused when the day fell back to the channel."""
    shown = t(f"config.value.place_{settings.day_place}", locale)
    refused, where = settings.thread_refused, settings.thread_refused_channel
    if settings.day_place == "thread" and refused is not None:
        what = t(f"config.value.refused_{refused}", locale)
        channel = f"<#{where}>" if where else t("config.value.latest_channel", locale)
        shown += "\n" + t("config.value.place_refused", locale, what=what, channel=channel)
    return shown


def shown_fields(settings: SpayeSettings, zone: str, locale: Lang) -> list[tuple[str, str]]:
    """``[(label, shown value)]`` for ``/config show``."""
    shown = describe_spaye(settings, zone, locale)
    return [(t(key, locale), shown[field]) for field, key in FIELD_LABELS.items()]


def _bot(interaction: discord.Interaction[Any]) -> GamenightBot:
    return cast("GamenightBot", interaction.client)


async def _save(interaction: discord.Interaction[Any], field: str, changes: dict[str, Any]) -> None:
    """Validate and save ``changes``; confirm ``field``'s new value, or refuse (nothing saved)."""
    guild = interaction.guild
    if guild is None:
        raise app_commands.NoPrivateMessage()
    bot = _bot(interaction)
    try:
        new = await update_spaye_settings(bot, guild.id, changes)
    except ValidationError as err:
        reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
        await reply_error(interaction, "config.invalid", reason=reason)
        return
    # The Späye calendar moves today's closing and reminder and the next automatic opening.
    bot.dispatch("spaye_settings_changed", guild.id, new, field)
    locale = locale_for_user(interaction)
    zone = (await bot.guild_settings(guild)).timezone
    label = t(FIELD_LABELS[field], locale)
    shown = describe_spaye(new, zone, locale)[field]
    await respond(
        interaction, t("config.saved", locale, setting=label, value=shown), ephemeral=True
    )


async def _can_post(interaction: discord.Interaction[Any], channel: discord.TextChannel) -> bool:
    """Whether the bot may post in ``channel``; refuses the command (ephemeral) if not."""
    me = channel.guild.me
    if me is None:
        await reply_error(interaction, "config.cannot_check")
        return False
    perms = channel.permissions_for(me)
    missing = [p for p in POST_PERMISSIONS if not getattr(perms, p)]
    if missing:
        locale = locale_for_user(interaction)
        await reply_error(
            interaction,
            "config.channel_no_access",
            channel=channel.mention,
            permissions=", ".join(t(f"perm.{p}", locale) for p in missing),
        )
        return False
    return True


# -- the subcommands (plain functions: each /config group gets its own Command objects) ------


@app_commands.rename(time=_("time"))
@app_commands.describe(time=_("HH:MM in the server's time zone, e.g. 23:59"))
async def closing_time(interaction: discord.Interaction[Any], time: str) -> None:
    try:
        parse_hhmm(time)
    except ValueError:
        await reply_error(interaction, "config.bad_time", value=code(time, 20))
        return
    await _save(interaction, "closing_time", {"closing_time": time})


@app_commands.rename(channel=_("channel"))
@app_commands.describe(channel=_("A channel I can post in; leave empty to unset"))
async def announce_channel(
    interaction: discord.Interaction[Any], channel: discord.TextChannel | None = None
) -> None:
    if channel is not None and not await _can_post(interaction, channel):
        return
    channel_id = channel.id if channel else None
    await _save(interaction, "announce_channel_id", {"announce_channel_id": channel_id})


@app_commands.rename(minutes=_("minutes"))
@app_commands.describe(minutes=_("From 1 to 1440 (default 10)"))
async def challenge_expiry(
    interaction: discord.Interaction[Any], minutes: app_commands.Range[int, 1, 1440]
) -> None:
    await _save(interaction, "challenge_expiry_minutes", {"challenge_expiry_minutes": minutes})


@app_commands.rename(role=_("role"))
@app_commands.describe(role=_("Leave empty: the other players of the däye decide"))
async def committee_role(
    interaction: discord.Interaction[Any], role: discord.Role | None = None
) -> None:
    role_id = role.id if role else None
    await _save(interaction, "committee_role_id", {"committee_role_id": role_id})


@app_commands.rename(name=_("name"))
@app_commands.describe(name=_("For example push-ups, squats, burpees"))
async def exercise(
    interaction: discord.Interaction[Any], name: app_commands.Range[str, 1, 100]
) -> None:
    named = await exercise_named(interaction, name, locale_for_user(interaction))
    if named is not None:
        await _save(interaction, "default_exercise", {"default_exercise": named})


@app_commands.rename(before=_("before"))
@app_commands.describe(before=_("How long before closing, H:MM (default 1:00), or off"))
async def spaye_reminder(interaction: discord.Interaction[Any], before: str) -> None:
    try:
        minutes = parse_reminder(before)
    except ValueError:
        await reply_error(interaction, "config.bad_reminder", value=code(before, 20))
        return
    await _save(interaction, "reminder_minutes", {"reminder_minutes": minutes})


@app_commands.rename(time=_("time"), weekdays=_("weekdays"), channel=_("channel"))
@app_commands.describe(
    time=_("HH:MM in the server's time zone, or off"),
    weekdays=_("For example mon-fri or mon,wed,fri (default mon-fri)"),
    channel=_("Where to open it (default: where the latest Späye was played)"),
)
async def spaye_opening(
    interaction: discord.Interaction[Any],
    time: str,
    weekdays: str | None = None,
    channel: discord.TextChannel | None = None,
) -> None:
    changes: dict[str, Any] = {}
    if time.strip().lower() in OFF_WORDS:
        changes["open_time"] = None
    else:
        try:
            changes["open_time"] = parse_hhmm(time).strftime("%H:%M")
        except ValueError:
            await reply_error(interaction, "config.bad_time", value=code(time, 20))
            return
    if weekdays is not None:
        try:
            changes["open_weekdays"] = list(parse_weekdays(weekdays))
        except ValueError:
            await reply_error(interaction, "config.bad_weekdays", value=code(weekdays, 40))
            return
    if channel is not None:
        if not await _can_post(interaction, channel):
            return
        changes["open_channel_id"] = channel.id
    await _save(interaction, "open_time", changes)


@app_commands.rename(place=_("place"))
@app_commands.describe(place=_("thread (default) or channel"))
@app_commands.choices(
    place=[
        app_commands.Choice(name=_("thread", key="spaye.place.thread"), value="thread"),
        app_commands.Choice(name=_("channel", key="spaye.place.channel"), value="channel"),
    ]
)
async def spaye_place(interaction: discord.Interaction[Any], place: str) -> None:
    changes: dict[str, Any] = {"day_place": place}
    if place == "thread":  # tried again from the next day on
        changes |= {"thread_refused": None, "thread_refused_channel": None}
    await _save(interaction, "day_place", changes)


_COMMANDS: tuple[tuple[str, str, Callable[..., Coroutine[Any, Any, None]]], ...] = (
    ("closing-time", "When an unfinished Späye is voided", closing_time),
    ("announce-channel", "Where monthly titles are announced", announce_channel),
    ("challenge-expiry", "Minutes before a däye challenge expires", challenge_expiry),
    ("committee-role", "Who may approve exercise adjustments", committee_role),
    ("exercise", "The exercise a Späye opens with by default", exercise),
    (
        "spaye-reminder",
        "Remind the channel before closing time if cards remain",
        spaye_reminder,
    ),
    ("spaye-opening", "Open the day's Späye by itself on workdays (or off)", spaye_opening),
    ("spaye-place", "Play the day's Späye in a thread of its own, or in the channel", spaye_place),
)


def config_commands() -> list[app_commands.Command[Any, ..., None]]:
    """Späye's ``/config`` subcommands, new objects at each call."""
    return [
        app_commands.Command(name=name, description=description, callback=callback)
        for name, description, callback in _COMMANDS
    ]


async def config_fields(
    bot: GamenightBot, guild: discord.Guild, locale: Lang
) -> list[tuple[str, str]]:
    """Späye's lines of ``/config show``."""
    zone = (await bot.guild_settings(guild)).timezone
    return shown_fields(await spaye_settings(bot, guild.id), zone, locale)
