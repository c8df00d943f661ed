"""``/profile [colleague]``: a member's games here, game by game (games, wins, places), their
ratings now (provisional marked) and over time (a chart), and how they fare against the
member who asks."""

from __future__ import annotations

import asyncio
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.i18n import Lang, t
from bot.present import mention
from bot.ratings.seasons import season_label
from bot.storage import Placements
from bot.text import clip, escape
from cogs.boards._board import COLOUR, rating_text
from cogs.boards._picture import Series, rating_chart
from cogs.boards._scopes import OVERALL, game_scopes, scope_name

if TYPE_CHECKING:
    from bot.client import GamenightBot
    from bot.storage.ratings import RatingRow

__all__ = ["CHART_FILE", "Profile", "profile"]

CHART_FILE = "rating.png"
SHOWN_PLACES = 3
"""Places counted one by one; the others together."""


@dataclass(frozen=True)
class Profile:
    embed: discord.Embed
    chart: bytes | None
    """The rating chart's PNG (``None``: no rated game yet), shown as :data:`CHART_FILE`."""

    def files(self, locale: Lang) -> list[discord.File]:
        if self.chart is None:
            return []
        alt = t("boards.profile.chart_alt", locale)
        return [discord.File(io.BytesIO(self.chart), filename=CHART_FILE, description=alt)]


def _kinds(scope: str) -> tuple[str, str]:
    """Where a game's results are kept: among colleagues, and with computer seats."""
    return (scope, f"{scope}.computers")


def _merged(found: dict[str, Placements], scope: str) -> Placements | None:
    parts = [found[k] for k in _kinds(scope) if k in found]
    if not parts:
        return None
    places: dict[int, int] = {}
    for part in parts:
        for place, games in part.places.items():
            places[place] = places.get(place, 0) + games
    return Placements(
        games=sum(p.games for p in parts), wins=sum(p.wins for p in parts), places=places
    )


def _places_text(placed: Placements, locale: Lang) -> str:
    parts = [
        t("boards.profile.place", locale, place=t(f"boards.place.{p}", locale), n=placed.places[p])
        for p in range(1, SHOWN_PLACES + 1)
        if placed.places.get(p)
    ]
    others = sum(n for p, n in placed.places.items() if p > SHOWN_PLACES)
    if others:
        parts.append(
            t("boards.profile.place", locale, place=t("boards.place.other", locale), n=others)
        )
    return " · ".join(parts) or "—"


async def profile(
    bot: GamenightBot, guild_id: int, member: discord.abc.User, viewer: int, locale: Lang
) -> Profile:
    """``member``'s profile as ``viewer`` sees it. Raises ``ValueError`` with a text in
    ``locale`` for a bot, a member who keeps out of the ratings or one who never finished a
    game here."""
    name = escape(member.display_name)
    if member.bot:
        raise ValueError(t("boards.profile.bot", locale, name=name))
    ratings = bot.store.ratings
    if await ratings.is_opted_out(guild_id, member.id):
        key = "boards.profile.you_out" if member.id == viewer else "boards.profile.out"
        raise ValueError(t(key, locale, name=name))
    games = game_scopes()
    kinds = [k for scope in games for k in _kinds(scope)]
    found = await bot.store.results.placements(guild_id, member.id, kinds)
    played = {scope: p for scope in games if (p := _merged(found, scope)) is not None}
    if not played:
        key = "boards.profile.you_never" if member.id == viewer else "boards.profile.never"
        raise ValueError(t(key, locale, name=name))
    season = await ratings.current_season(guild_id, bot.clock.now())
    now = {row.scope: row for row in await ratings.player(guild_id, member.id, season)}
    embed = discord.Embed(
        title=t("boards.profile.title", locale, name=name),
        description=t(
            "boards.profile.description",
            locale,
            player=mention(member.id),
            season=season_label(season, locale),
        ),
        colour=COLOUR,
    )
    for scope, placed in played.items():
        embed.add_field(
            name=scope_name(scope, locale), value=_game_text(placed, now.get(scope), locale)
        )
    if OVERALL in now:
        embed.add_field(
            name=scope_name(OVERALL, locale),
            value=t("boards.profile.rating", locale, rating=rating_text(now[OVERALL])),
            inline=False,
        )
    if member.id != viewer:
        embed.add_field(
            name=t("boards.profile.versus", locale),
            value=await _versus(bot, guild_id, viewer, member.id, list(played), locale),
            inline=False,
        )
    series = []
    # One game only: its line is the overall one, drawn once.
    for scope in (OVERALL, *played) if len(played) > 1 else tuple(played):
        points = await ratings.history(guild_id, scope, member.id)
        if points:
            series.append(Series(scope_name(scope, locale), [(p.at, p.rating) for p in points]))
    chart = None
    if series:
        title = t("boards.profile.chart", locale, name=member.display_name)
        chart = await asyncio.to_thread(rating_chart, series, title=title)
        embed.set_image(url=f"attachment://{CHART_FILE}")
    return Profile(embed, chart)


def _game_text(placed: Placements, rated: RatingRow | None, locale: Lang) -> str:
    lines = [
        t("boards.profile.games", locale, games=placed.games, wins=placed.wins),
        _places_text(placed, locale),
        t("boards.profile.rating", locale, rating=rating_text(rated))
        if rated is not None
        else t("boards.profile.unrated", locale),
    ]
    return clip("\n".join(lines), 1024)


async def _versus(
    bot: GamenightBot, guild_id: int, viewer: int, other: int, scopes: list[str], locale: Lang
) -> str:
    """The viewer's games with ``other``, all together and game by game."""
    lines = []
    for scope in (None, *scopes):
        duel = await bot.store.ratings.head_to_head(guild_id, viewer, other, scope=scope)
        if duel.games == 0:
            continue
        game = scope_name(scope or OVERALL, locale)
        lines.append(
            t(
                "boards.profile.versus_line",
                locale,
                game=game,
                games=duel.games,
                ahead=duel.ahead,
                behind=duel.behind,
                tied=duel.tied,
            )
        )
        if scope is None and len(scopes) == 1:
            break  # one game only: the total says it all
    return clip("\n".join(lines), 1024) or t("boards.profile.versus_none", locale)
