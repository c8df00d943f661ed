"""Späye's calendar arithmetic: guild-local closing instants and months (the day and the
month of docs/rules/spaye.md), and the settings Späye reads (:class:`SpayeGuild`).

Every date here is a guild's calendar date in its IANA zone (``SpayeGuild.zone``), never a
UTC date: the day and the month a Späye belongs to are the guild's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import discord

from bot.clock import at_local, month_of, parse_hhmm
from bot.i18n import Lang, normalize_locale
from bot.spaye_settings import SpayeSettings, spaye_settings
from bot.storage import GuildSettings

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "SpayeGuild",
    "closing_instant",
    "guild_settings",
    "month_after",
    "month_before",
    "parse_month",
    "wall_instant",
    "wall_time_exists",
]

_MONTH = re.compile(r"^(?P<y>\d{4})-(?P<m>0[1-9]|1[0-2])$")


@dataclass(frozen=True, slots=True)
class SpayeGuild:
    """A guild's settings as Späye reads them: the server's own (time zone, language) and
    Späye's (``spaye``: closing time, challenge expiry...)."""

    server: GuildSettings
    spaye: SpayeSettings

    @property
    def guild_id(self) -> int:
        return self.server.guild_id

    @property
    def zone(self) -> ZoneInfo:
        return self.server.zone

    @property
    def timezone(self) -> str:
        return self.server.timezone

    @property
    def locale(self) -> Lang:
        """The language of the guild's public messages."""
        return normalize_locale(self.server.locale)

    def today(self, now: datetime) -> date:
        """The guild's calendar day at instant ``now`` (the key of its Späye day)."""
        return self.server.today(now)


async def guild_settings(bot: GamenightBot, guild: discord.Guild | int) -> SpayeGuild:
    """The guild's settings and Späye's, its language following the guild's own when the
    bot sees it."""
    if isinstance(guild, int):
        seen = await bot.find_guild(guild)
        guild = seen if isinstance(seen, discord.Guild) else guild
    server = await bot.guild_settings(guild)
    return SpayeGuild(server, await spaye_settings(bot, server.guild_id))


def wall_time_exists(day: date, hhmm: str, zone: ZoneInfo) -> bool:
    """Whether the wall-clock ``hhmm`` happens at all on ``day`` (not in a DST gap)."""
    wall = datetime.combine(day, parse_hhmm(hhmm))
    seen = wall.replace(tzinfo=zone).astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return seen == wall


def closing_instant(settings: SpayeGuild, day: date) -> datetime:
    """The UTC instant the guild's Späye of ``day`` closes: ``closing_time`` on ``day``, local.

    Daylight saving time, by the rule's words ("when the closing time passes"):

    - a closing time repeated by a change back (e.g. 02:30 on the last Sunday of October in
      Europe/Paris) closes at its *first* occurrence: that is when it first passes;
    - a closing time skipped by a change forward (02:30 on the last Sunday of March in
      Europe/Paris never shows on the clock) closes at the instant the clock jumps over it
      (03:00 local there): the first instant whose wall time is past the closing time.
    """
    return wall_instant(day, settings.spaye.closing_time, settings.zone)


def wall_instant(day: date, hhmm: str, zone: ZoneInfo) -> datetime:
    """The UTC instant the wall clock of ``zone`` first passes ``hhmm`` on ``day``: its first
    occurrence when repeated, the jump over it when a change forward skips it."""
    first = at_local(day, hhmm, zone)  # fold=0: first occurrence, or past a gap
    if wall_time_exists(day, hhmm, zone):
        return first
    wall = datetime.combine(day, parse_hhmm(hhmm))
    # In a gap, fold=0 reads the wall time with the offset before the change: ``first`` is
    # after the jump by the gap's length. Walk back to the jump itself (gaps are whole minutes).
    instant = first
    while True:
        earlier = instant - timedelta(minutes=1)
        if earlier.astimezone(zone).replace(tzinfo=None) < wall:
            return instant
        instant = earlier


def parse_month(text: str) -> str:
    """``"2025-03"`` -> ``"2025-03"``; anything else raises ``ValueError``."""
    match = _MONTH.match(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a month as YYYY-MM")
    return f"{match['y']}-{match['m']}"


def _first_day(month: str) -> date:
    return date.fromisoformat(f"{parse_month(month)}-01")


def month_before(month: str) -> str:
    """``"2025-01"`` -> ``"2024-12"``."""
    return month_of(_first_day(month) - timedelta(days=1))


def month_after(month: str) -> str:
    """``"2024-12"`` -> ``"2025-01"``."""
    return month_of(_first_day(month) + timedelta(days=31))
