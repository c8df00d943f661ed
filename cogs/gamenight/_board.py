"""The night's board: one message, edited as tables finish.

Pure rendering over plain data (:class:`BoardTable` rows and the night's standings from
:func:`bot.nights.points.standings`): the tables and where each plays, each attendee's night
points and the running standings, the waiting list, and once the night is over its
champion and podium (the picture is :mod:`._picture`). Mentions in an embed never ping.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import discord

from bot.i18n import Lang, t
from bot.nights import Standing, standings
from bot.present import mention, mentions
from bot.text import clip, escape

__all__ = ["BoardTable", "board_embed", "night_standings", "picture_words"]

COLOUR: Final = discord.Colour.gold()
DESCRIPTION_MAX: Final = 4096
FIELD_MAX: Final = 1024


@dataclass(frozen=True, slots=True)
class BoardTable:
    """One table of the night as the board shows it."""

    table_no: int
    game: str
    """The game's kind (``spit``, ``papayoo``...)."""
    channel_id: int | None
    """Where it plays (its thread, or the night's channel); ``None`` before it opened."""
    players: tuple[str, ...]
    ranking: tuple[tuple[str, ...], ...] | None = None
    """The finished table's placements (groups best first, each tied); ``None`` while it
    plays."""
    void: bool = False
    """The table ended without a result (abandoned): it scores nothing."""

    @property
    def done(self) -> bool:
        return self.void or self.ranking is not None


def night_standings(tables: Sequence[BoardTable], attendees: Sequence[str]) -> list[Standing]:
    """The standings of every finished table's ranking (the void ones score nothing)."""
    rankings = [table.ranking for table in tables if table.ranking is not None]
    return standings(rankings, attendees=attendees)


def board_embed(
    title: str,
    tables: Sequence[BoardTable],
    ranked: Sequence[Standing],
    waiting: Sequence[str],
    locale: Lang,
    *,
    closed: bool,
) -> discord.Embed:
    """The board: the standings as its description, a field of the tables and one of the
    people waiting; at the close, the champion and the podium head it."""
    lines: list[str] = []
    if closed:
        champions = [s.player for s in ranked if s.rank == 1 and s.tables]
        if champions:
            lines.append(t("gamenight.board.champion", locale, who=mentions(champions, locale)))
            podium = [s for s in ranked if s.rank in (2, 3) and s.tables]
            for rank in (2, 3):
                there = [s.player for s in podium if s.rank == rank]
                if there:
                    lines.append(
                        t(f"gamenight.board.place{rank}", locale, who=mentions(there, locale))
                    )
        else:
            lines.append(t("gamenight.board.nobody", locale))
        lines.append("")
    lines.append(t("gamenight.board.standings", locale))
    for standing in ranked:
        lines.append(
            t(
                "gamenight.board.line",
                locale,
                rank=standing.rank,
                who=mention(standing.player, locale),
                points=standing.shown(),
                wins=standing.wins,
                tables=standing.tables,
            )
        )
    done = sum(1 for table in tables if table.done)
    heading = t(
        "gamenight.board.closed" if closed else "gamenight.board.playing",
        locale,
        done=done,
        count=len(tables),
    )
    embed = discord.Embed(
        title=clip(t("gamenight.board.title", locale, title=escape(title)), 256),
        description=clip("\n".join([heading, "", *lines]), DESCRIPTION_MAX),
        colour=COLOUR,
    )
    if tables:
        embed.add_field(
            name=t("gamenight.board.tables", locale),
            value=clip("\n".join(_table_line(table, locale) for table in tables), FIELD_MAX),
            inline=False,
        )
    if waiting and not closed:
        embed.add_field(
            name=t("gamenight.board.waiting", locale, count=len(waiting)),
            value=clip(mentions(waiting, locale), FIELD_MAX),
            inline=False,
        )
    return embed


def _table_line(table: BoardTable, locale: Lang) -> str:
    state = "void" if table.void else "done" if table.ranking is not None else "playing"
    where = f"<#{table.channel_id}>" if table.channel_id else "…"
    return t(
        "gamenight.board.table",
        locale,
        n=table.table_no,
        game=t(f"help.{table.game}.title", locale),
        where=where,
        state=t(f"gamenight.board.state.{state}", locale),
        count=len(table.players),
    )


def picture_words(title: str, locale: Lang) -> dict[str, str]:
    """The words of :func:`._picture.night_picture` in ``locale``."""
    return {
        "title": t("gamenight.picture.title", locale, title=title),
        "points": t("gamenight.picture.points", locale),
        "more": t("gamenight.picture.more", locale, n="{n}"),
    }
