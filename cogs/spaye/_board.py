"""``/spaye board [month]``: a month's three columns, titles, bonuses left and today's points."""

from __future__ import annotations

from typing import Any

import discord

from bot.clock import month_of
from bot.engine.spaye import COLUMNS, TITLE_NAMES
from bot.i18n import t
from bot.storage import GuildSettings
from cogs.spaye._month import settle_job, standings_of
from cogs.spaye._periods import month_before, parse_month
from cogs.spaye._render_month import COLOUR, add_columns, mention, month_label, title_lines

__all__ = ["board_embed"]

TODAY_ROWS = 10
_NOBODY = {
    "spaye.cal.board.leaders": "spaye.cal.nobody_yet",
    "spaye.cal.board.titles": "spaye.cal.nobody",
}


def _month(text: str | None, current: str, locale: str) -> str:
    if text is None or not text.strip():
        return current
    try:
        return parse_month(text)
    except ValueError:
        raise ValueError(t("spaye.cal.bad_month", locale, value=text.strip()[:20])) from None


async def board_embed(
    bot: Any, guild: discord.Guild, month: str | None, locale: str
) -> discord.Embed:
    """The board of ``month`` (``YYYY-MM``, default the guild's current month).

    Fields: the three columns over the month's finished Späyes; the titles (stored once the
    month is settled, otherwise the leaders so far by the same tie rules); the bonuses left
    in that month (titles of the month before whose bonus is unused); for the current month,
    today's running Späye as a separate *provisional* field. Raises ``ValueError`` with a
    text in ``locale`` for a month that is not ``YYYY-MM``.
    """
    settings: GuildSettings = await bot.guild_settings(guild)
    today = settings.today(bot.clock.now())
    current = month_of(today)
    month = _month(month, current, locale)
    standings = await standings_of(bot, guild.id, month)

    holders: dict[str, str | None] = dict(standings["titles"])
    heading = "spaye.cal.board.leaders" if month >= current else "spaye.cal.board.titles"
    if await bot.store.runs.has_run(settle_job(guild.id), month):
        holders = dict.fromkeys(TITLE_NAMES)
        holders.update(
            {x.title: str(x.user_id) for x in await bot.store.titles.of_month(guild.id, month)}
        )
        heading = "spaye.cal.board.titles"

    embed = discord.Embed(
        title=t("spaye.cal.board.title", locale, month=month_label(month, locale)),
        description=t("spaye.cal.board.days", locale, days=standings["days"]),
        colour=COLOUR,
    )
    add_columns(embed, standings, locale, holders)
    embed.add_field(
        name=t(heading, locale),
        value=title_lines(holders, locale, empty=t(_NOBODY[heading], locale)),
        inline=False,
    )
    embed.add_field(
        name=t("spaye.cal.board.bonuses", locale, month=month_label(month, locale)),
        value=await _bonuses_left(bot, guild.id, month, locale),
        inline=False,
    )
    if month == current:
        provisional = await _today(bot, settings, locale)
        if provisional is not None:
            embed.add_field(
                name=t("spaye.cal.board.today", locale), value=provisional, inline=False
            )
    return embed


async def _bonuses_left(bot: Any, guild_id: int, month: str, locale: str) -> str:
    earned = await bot.store.titles.of_month(guild_id, month_before(month))
    left = {x.title: x.user_id for x in earned if x.bonus_available}
    if not left:
        return t("spaye.cal.board.no_bonus", locale)
    return "\n".join(
        t("spaye.cal.title_line", locale, title=TITLE_NAMES[title], holder=mention(holder))
        for title, holder in left.items()
    )


async def _today(bot: Any, settings: GuildSettings, locale: str) -> str | None:
    """Today's running Späye's points, marked provisional; ``None`` when none is running."""
    day = await bot.store.days.get(settings.guild_id, settings.today(bot.clock.now()))
    if day is None or day.status != "active":
        return None
    stored = await bot.store.games.get(day.game_id)
    if stored is None or not stored.is_active:
        return None
    points: dict[str, dict[str, int]] = stored.game.public_view()["points"]
    scored = sorted(
        (p for p, cols in points.items() if any(cols.get(c, 0) for c in COLUMNS)),
        key=lambda p: -sum(points[p].get(c, 0) for c in COLUMNS),
    )[:TODAY_ROWS]
    lines = [
        t(
            "spaye.cal.board.today_line",
            locale,
            player=mention(p),
            **{c: points[p].get(c, 0) for c in COLUMNS},
        )
        for p in scored
    ] or [t("spaye.cal.board.today_empty", locale)]
    lines.append(t("spaye.cal.board.today_note", locale, time=settings.spaye_close))
    return "\n".join(lines)[:1024]
