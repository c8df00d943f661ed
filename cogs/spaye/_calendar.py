"""Späye's calendar: closing each guild's day and announcing the monthly titles.

Interface used by the Späye cog:

- ``await start_calendar(bot)``: register the timer handlers, the month-end job and the
  settings listener; catch up once (call it from ``cog_load``; calling it again is harmless).
- ``await schedule_closing(bot, guild_id, day, game_id)``: arm the durable timer that closes
  this day's Späye at the guild's closing time.
- ``await board_embed(bot, guild, month, locale)``: the monthly table as an embed; a bad
  ``month`` raises ``ValueError`` whose text, already in ``locale``, is meant for an
  ephemeral reply.

Closing (:mod:`cogs.spaye._closing`). One durable timer per day (kind ``spaye.close_day``,
key ``spaye:<game_id>:close``) due at the guild's ``spaye_close`` on that local date
(:func:`cogs.spaye._periods.closing_instant` for daylight-saving days). It applies
``{"type": "close"}`` as SYSTEM: voided when cards remain (no point counts, bonuses used come
back), finished otherwise (unconfirmed exercises lapse). The game's channel is told in the
guild's language and the bot dispatches ``spaye_day_closed(stored, events)``, so the Späye cog
can refresh its board from an ``on_spaye_day_closed`` listener. A closing missed while the
bot was down runs once at start-up; a second run gets ``IllegalAction`` and counts as done.

Reminder. With the closing, a second durable timer (kind ``spaye.remind_close``, key
``spaye:<game_id>:remind``) is due ``/config spaye-reminder`` before the closing instant
(default one hour; off possible). If cards remain then, the channel is told the day will be
voided. Späye's ``/config`` subcommands (:mod:`cogs.spaye._settings`) dispatch
``spaye_settings_changed(guild_id, settings, field)``: a new reminder moves the running day's
reminder, a new closing time its closing (and reminder).

Opening on workdays (:mod:`cogs.spaye._opening`, off by default): one durable timer per
guild opens the day's Späye at ``/config spaye-opening`` on its weekdays, caught up once
after downtime, never on a day already opened.

Settings. ``/config timezone`` dispatches ``guild_settings_changed(settings, field)`` and
``/config closing-time`` ``spaye_settings_changed``; the calendar then moves the closing of
the guild's running day. A change that would put that closing in the past leaves it as it was
(the running day is not closed by surprise); the new setting applies from the next day.

Month end (:mod:`cogs.spaye._month`): hourly at :05 UTC and once at start-up; each guild's
month is settled after midnight of the 1st in its own zone, announced in the announcement
channel (fallback: the channel of the guild's latest Späye), with a DM to each titleholder.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

import discord

from bot.storage import GuildSettings
from bot.timers import cron
from cogs.spaye._board import board_embed as _board_embed
from cogs.spaye._closing import (
    CLOSE_KIND,
    POST_KIND,
    REMIND_KIND,
    arm_missing_closings,
    close_day,
    close_timer,
    closed_post_timer,
    rearm_closings,
    rearm_reminders,
    remind_timer,
)
from cogs.spaye._closing import schedule_closing as _schedule_closing
from cogs.spaye._month import (
    ANNOUNCE_KIND,
    DM_KIND,
    MONTH_JOB,
    announce_timer,
    deliver_title_dm,
    month_end,
)
from cogs.spaye._opening import OPEN_KIND, arm_openings, opening_timer, schedule_opening

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["board_embed", "run_month_end", "schedule_closing", "start_calendar"]

log = logging.getLogger("gamenight.spaye.calendar")

CLOSING_FIELDS = ("timezone", "closing_time")
"""Settings (the server's time zone, Späye's closing time) whose change moves the running
day's closing."""


@dataclass
class _Calendar:
    listener: Any = None
    spaye_listener: Any = None
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


_CALENDARS: weakref.WeakKeyDictionary[Any, _Calendar] = weakref.WeakKeyDictionary()


async def run_month_end(bot: GamenightBot, *, run_timers: bool = True) -> None:
    """The month-end job (what the hourly trigger and the start-up catch-up run)."""
    await month_end(
        bot, close=lambda game_id, day: close_day(bot, game_id, day), run_timers=run_timers
    )


async def start_calendar(bot: GamenightBot) -> None:
    """Register timer handlers, the month-end job and the settings listener; catch up once.

    Called before the bot is ready (``cog_load``), the bot's start-up catch-up runs the
    closings that fell due while it was down, then the month-end job. Called once the bot
    is ready (a cog reload), it runs that catch-up itself, in the background.
    """
    calendar = _CALENDARS.setdefault(bot, _Calendar())

    async def on_close(payload: dict[str, Any]) -> None:
        await close_timer(bot, payload)

    async def on_closed_post(payload: dict[str, Any]) -> None:
        await closed_post_timer(bot, payload)

    async def on_remind(payload: dict[str, Any]) -> None:
        await remind_timer(bot, payload)

    async def on_spaye_settings(guild_id: int, new: Any, changed: str | None = None) -> None:
        try:
            if changed in CLOSING_FIELDS:
                await rearm_closings(bot, guild_id)
            else:
                await rearm_reminders(bot, guild_id)
            await schedule_opening(bot, guild_id)
        except Exception:
            log.exception("could not move a reminder or an opening", extra={"guild_id": guild_id})

    async def on_open(payload: dict[str, Any]) -> None:
        await opening_timer(bot, payload, before=lambda: run_month_end(bot, run_timers=False))

    async def on_title_dm(payload: dict[str, Any]) -> None:
        await deliver_title_dm(bot, payload)

    async def on_announce(payload: dict[str, Any]) -> None:
        await announce_timer(bot, payload)

    async def on_month_end() -> None:
        await run_month_end(bot)

    async def on_settings_changed(settings: GuildSettings, changed: str) -> None:
        if changed not in CLOSING_FIELDS:
            return
        try:
            await rearm_closings(bot, settings.guild_id)
            await schedule_opening(bot, settings.guild_id)
        except Exception:
            log.exception("could not move a closing", extra={"guild_id": settings.guild_id})

    bot.timers.register(CLOSE_KIND, on_close)
    bot.timers.register(POST_KIND, on_closed_post)
    bot.timers.register(REMIND_KIND, on_remind)
    bot.timers.register(OPEN_KIND, on_open)
    bot.timers.register(DM_KIND, on_title_dm)
    bot.timers.register(ANNOUNCE_KIND, on_announce)
    # Hourly in UTC: each run reads every guild's own local date, so any zone, a zone
    # changed by an admin and daylight-saving days need no per-guild job.
    bot.timers.add_cron(MONTH_JOB, on_month_end, cron("UTC", minute=5), catch_up=True)
    if calendar.listener is not None:
        bot.remove_listener(calendar.listener, "on_guild_settings_changed")
    calendar.listener = on_settings_changed
    bot.add_listener(on_settings_changed, "on_guild_settings_changed")
    if calendar.spaye_listener is not None:
        bot.remove_listener(calendar.spaye_listener, "on_spaye_settings_changed")
    calendar.spaye_listener = on_spaye_settings
    bot.add_listener(on_spaye_settings, "on_spaye_settings_changed")
    await arm_missing_closings(bot)
    await arm_openings(bot)
    if bot.is_ready():
        task = asyncio.create_task(_catch_up(bot), name="spaye-calendar-catch-up")
        calendar.tasks.add(task)
        task.add_done_callback(calendar.tasks.discard)


async def _catch_up(bot: GamenightBot) -> None:
    try:
        await bot.timers.run_due()
        await run_month_end(bot)
    except Exception:
        log.exception("Späye calendar catch-up failed")


async def schedule_closing(bot: GamenightBot, guild_id: int, day: date, game_id: int) -> None:
    """Arm the timer that closes ``game_id`` at the guild's closing time on ``day``."""
    await _schedule_closing(bot, guild_id, day, game_id)


async def board_embed(
    bot: GamenightBot, guild: discord.Guild, month: str | None, locale: str
) -> discord.Embed:
    """The month's three columns, titles and bonuses left (today's points provisional).

    ``month`` is ``YYYY-MM`` (default: the guild's current month). Anything else raises
    ``ValueError`` with a text in ``locale``: the cog shows it as an ephemeral reply.
    """
    return await _board_embed(bot, guild, month, locale)
