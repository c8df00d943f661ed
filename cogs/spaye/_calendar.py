"""Späye's calendar: closing each guild's day and announcing the monthly titles.

Interface used by the Späye cog (filled in by the calendar work):

- ``await start_calendar(bot)``: register the timer handlers and cron jobs, run catch-up once.
- ``await schedule_closing(bot, guild_id, day, game_id)``: arm the durable timer that closes
  this day's Späye at the guild's closing time.
- ``await board_embed(bot, guild, month, locale)``: the monthly table as an embed.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import discord


async def start_calendar(bot: Any) -> None:
    """Register timer handlers and cron jobs; run missed closings and announcements once."""


async def schedule_closing(bot: Any, guild_id: int, day: date, game_id: int) -> None:
    """Arm the timer that closes ``game_id`` at the guild's closing time on ``day``."""


async def board_embed(
    bot: Any, guild: discord.Guild, month: str | None, locale: str
) -> discord.Embed:
    """The month's three columns, titles and bonuses left (today's points provisional)."""
    return discord.Embed(title="Späye")
