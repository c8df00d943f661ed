"""Texts shared by the month's announcement and the board: month names, columns, titles."""

from __future__ import annotations

from collections.abc import Mapping

import discord

from bot.engine.spaye import COLUMNS, TITLE_NAMES, TITLES
from bot.i18n import t
from bot.present import mention

__all__ = [
    "COLOUR",
    "month_label",
    "picture_words",
    "ranked_players",
    "table_row",
    "title_lines",
]

COLOUR = discord.Colour.gold()


def month_label(month: str, locale: str) -> str:
    """``"2025-03"`` -> ``"March 2025"`` / ``"mars 2025"``."""
    year, number = month.split("-")
    name = t(f"spaye.cal.month.{int(number)}", locale)
    return t("spaye.cal.month_label", locale, month=name, year=year)


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


def ranked_players(points: Mapping[str, Mapping[str, int]]) -> list[str]:
    """Every späyin of the month, most points first (then däye, victory, repetition, then
    the order they first played in): the rows of the month's table."""
    order = {p: i for i, p in enumerate(points)}

    def key(p: str) -> tuple[int, ...]:
        cols = points[p]
        total = sum(cols[c] for c in COLUMNS)
        return (-total, *(-cols[c] for c in COLUMNS), order[p])

    return sorted(points, key=key)


def table_row(
    rank: int,
    player: str,
    cols: Mapping[str, int],
    holders: Mapping[str, str | None],
    locale: str,
) -> str:
    """``3. @Ana · däye 5 · victory 2 · repetition 40 · total 47 🏆``."""
    titles = [TITLE_NAMES[x] for x in TITLES if holders.get(x) == player]
    line = t(
        "spaye.cal.table_row",
        locale,
        rank=rank,
        player=mention(player),
        total=sum(cols[c] for c in COLUMNS),
        **{c: cols[c] for c in COLUMNS},
    )
    return f"{line} · 🏆 {', '.join(titles)}" if titles else line


def picture_words(month: str, locale: str) -> dict[str, str]:
    """The words the month's picture writes, in ``locale``."""
    words = {
        "title": t("spaye.cal.board.title", locale, month=month_label(month, locale)),
        "nobody": t("spaye.cal.nobody", locale),
        "more": t("spaye.cal.picture.more", locale, n="{n}"),
    }
    words.update({c: t(f"spaye.cal.picture.{c}", locale) for c in COLUMNS})
    words.update(TITLE_NAMES)
    return words
