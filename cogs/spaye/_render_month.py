"""Texts shared by the month's announcement and the board: month names, columns, titles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord

from bot.engine.spaye import COLUMNS, TITLE_NAMES, TITLE_OF_COLUMN, TITLES
from bot.i18n import t

__all__ = [
    "COLOUR",
    "TOP",
    "add_columns",
    "mention",
    "month_label",
    "title_lines",
]

TOP = 5
"""Players shown per column."""
COLOUR = discord.Colour.gold()


def mention(user_id: int | str) -> str:
    return f"<@{user_id}>"


def month_label(month: str, locale: str) -> str:
    """``"2025-03"`` -> ``"March 2025"`` / ``"mars 2025"``."""
    year, number = month.split("-")
    name = t(f"spaye.cal.month.{int(number)}", locale)
    return t("spaye.cal.month_label", locale, month=name, year=year)


def _column_rows(
    column: str, points: Mapping[str, Mapping[str, int]], holder: str | None, locale: str
) -> str:
    """The column's best players; the titleholder (decided by the tie rules) heads a tie."""

    def order(player: str) -> tuple[int, int, int]:
        cols = points[player]
        others = sum(n for c, n in cols.items() if c in COLUMNS and c != column)
        return (-cols[column], 0 if player == holder else 1, -others)

    ranked = sorted((p for p in points if points[p][column] > 0), key=order)[:TOP]
    if not ranked:
        return t("spaye.cal.nobody_yet", locale)
    return "\n".join(
        t("spaye.cal.row", locale, rank=i, player=mention(p), points=points[p][column])
        for i, p in enumerate(ranked, start=1)
    )


def add_columns(
    embed: discord.Embed,
    standings: Mapping[str, Any],
    locale: str,
    holders: Mapping[str, str | None] | None = None,
) -> None:
    """One inline field per column (däye, victory, repetition) with its best players."""
    titles = holders if holders is not None else standings["titles"]
    for column in COLUMNS:
        embed.add_field(
            name=t(f"spaye.cal.column.{column}", locale),
            value=_column_rows(
                column, standings["points"], titles.get(TITLE_OF_COLUMN[column]), locale
            ),
            inline=True,
        )


def title_lines(holders: Mapping[str, str | int | None], locale: str, *, empty: str) -> str:
    """``Grand Späyin: @A`` lines in title order; ``empty`` for a title nobody holds."""
    return "\n".join(
        t(
            "spaye.cal.title_line",
            locale,
            title=TITLE_NAMES[title],
            holder=mention(holder) if holder is not None else empty,
        )
        for title in TITLES
        for holder in [holders.get(title)]
    )
