"""``/spaye board [month]``: the month's table of every späyin's three counters (paged),
the caller's own row always shown, the titles (or leaders so far), the bonuses still
unused and today's running Späye, provisional."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.clock import month_of
from bot.engine.spaye import COLUMNS, TITLE_NAMES
from bot.i18n import t
from bot.present import mention
from bot.text import clip, code
from bot.ui import GameButton, GameView
from cogs.spaye._month import settle_job, standings_of
from cogs.spaye._periods import SpayeGuild, guild_settings, month_before, parse_month
from cogs.spaye._render_month import (
    COLOUR,
    month_label,
    ranked_players,
    table_row,
    title_lines,
)

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["PAGE_ROWS", "Board", "board", "board_embed", "board_view", "parse_board_arg"]

PAGE_ROWS = 20
"""Rows of the table per page."""
TODAY_ROWS = 10
_NOBODY = {
    "spaye.cal.board.leaders": "spaye.cal.nobody_yet",
    "spaye.cal.board.titles": "spaye.cal.nobody",
}


@dataclass(frozen=True)
class Board:
    embed: discord.Embed
    month: str
    page: int
    pages: int


def _month(text: str | None, current: str, locale: str) -> str:
    if text is None or not text.strip():
        return current
    try:
        month = parse_month(text)
    except ValueError:
        raise ValueError(t("spaye.cal.bad_month", locale, value=code(text, 20))) from None
    if month > current:
        raise ValueError(t("spaye.cal.future_month", locale, month=month_label(month, locale)))
    return month


async def board(
    bot: GamenightBot,
    guild: discord.Guild | int,
    month: str | None,
    locale: str,
    *,
    viewer: str | None = None,
    page: int = 1,
) -> Board:
    """The board of ``month`` (``YYYY-MM``, default the guild's current month).

    The table lists every späyin of the month (a voided day's späyins too, with what they
    scored elsewhere), most points first, :data:`PAGE_ROWS` a page (``page`` from 1); a
    ``viewer`` whose row is on another page gets it under the table. Raises ``ValueError`` with a text in ``locale`` for a month that is not ``YYYY-MM``
    or has not started.
    """
    settings = await guild_settings(bot, guild)
    guild_id = settings.guild_id
    today = settings.today(bot.clock.now())
    current = month_of(today)
    month = _month(month, current, locale)
    standings = await standings_of(bot, guild_id, month)

    holders: dict[str, str | None] = dict(standings["titles"])
    heading = "spaye.cal.board.leaders" if month >= current else "spaye.cal.board.titles"
    if await bot.store.runs.has_run(settle_job(guild_id), month):
        holders = dict.fromkeys(TITLE_NAMES)
        holders.update(
            {x.title: str(x.user_id) for x in await bot.store.titles.of_month(guild_id, month)}
        )
        heading = "spaye.cal.board.titles"

    points: dict[str, dict[str, int]] = standings["points"]
    ranked = ranked_players(points)
    pages = max(1, -(-len(ranked) // PAGE_ROWS))
    page = min(max(page, 1), pages)
    first = (page - 1) * PAGE_ROWS
    rows = [
        table_row(first + i + 1, p, points[p], holders, locale)
        for i, p in enumerate(ranked[first : first + PAGE_ROWS])
    ]
    if viewer in ranked and viewer not in ranked[first : first + PAGE_ROWS]:
        me = table_row(ranked.index(viewer) + 1, viewer, points[viewer], holders, locale)
        rows += ["", t("spaye.cal.board.you", locale, row=me)]
    table = "\n".join(rows) or t("spaye.cal.board.nobody", locale)
    description = "\n".join(
        [
            t("spaye.cal.board.days", locale, days=standings["days"]),
            "",
            f"**{t('spaye.cal.board.table', locale)}**",
            table,
        ]
    )
    embed = discord.Embed(
        title=t("spaye.cal.board.title", locale, month=month_label(month, locale)),
        description=clip(description, 4096),
        colour=COLOUR,
    )
    embed.add_field(
        name=t(heading, locale),
        value=title_lines(holders, locale, empty=t(_NOBODY[heading], locale)),
        inline=False,
    )
    embed.add_field(
        name=t("spaye.cal.board.bonuses", locale, month=month_label(month, locale)),
        value=await _bonuses_left(bot, guild_id, month, locale),
        inline=False,
    )
    if month == current:
        provisional = await _today(bot, settings, locale)
        if provisional is not None:
            embed.add_field(
                name=t("spaye.cal.board.today", locale), value=provisional, inline=False
            )
    if pages > 1:
        embed.set_footer(text=t("spaye.cal.board.page", locale, page=page, pages=pages))
    return Board(embed, month, page, pages)


async def board_embed(
    bot: GamenightBot, guild: discord.Guild | int, month: str | None, locale: str
) -> discord.Embed:
    """The first page of :func:`board`."""
    return (await board(bot, guild, month, locale, page=1)).embed


def board_view(shown: Board, locale: str) -> GameView:
    """Previous / Next when the table has several pages (nothing otherwise)."""
    if shown.pages <= 1:
        return GameView()
    return GameView(
        GameButton(
            "spaye",
            0,
            "board",
            f"{shown.month}.{shown.page - 1}",
            label=t("spaye.btn.previous", locale),
            disabled=shown.page <= 1,
        ),
        GameButton(
            "spaye",
            0,
            "board",
            f"{shown.month}.{shown.page + 1}",
            label=t("spaye.btn.next", locale),
            disabled=shown.page >= shown.pages,
        ),
    )


def parse_board_arg(arg: str | None) -> tuple[str, int] | None:
    """``"2025-03.2"`` -> ``("2025-03", 2)``; anything else ``None``."""
    month, _, page = (arg or "").partition(".")
    try:
        return parse_month(month), int(page)
    except ValueError:
        return None


async def _bonuses_left(bot: GamenightBot, guild_id: int, month: str, locale: str) -> str:
    earned = await bot.store.titles.of_month(guild_id, month_before(month))
    left = {x.title: x.user_id for x in earned if x.bonus_available}
    if not left:
        return t("spaye.cal.board.no_bonus", locale)
    return "\n".join(
        t("spaye.cal.title_line", locale, title=TITLE_NAMES[title], holder=mention(holder))
        for title, holder in left.items()
    )


async def _today(bot: GamenightBot, settings: SpayeGuild, locale: str) -> str | None:
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
    lines.append(t("spaye.cal.board.today_note", locale, time=settings.spaye.closing_time))
    return clip("\n".join(lines), 1024)
