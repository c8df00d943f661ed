"""``/leaderboard [game] [season]``: one board of the server's ratings, paged, the viewer's
own rank always shown, provisional players marked.

Each page is read from the store as it is asked for (``board`` with an offset: a page of
:data:`PAGE_ROWS` rows, the count and the viewer's rank are three indexed queries), so a
page is as fast with 10,000 results as with ten. Its Previous / Next buttons carry the
board in their custom id (``gn:boards:<page>:page:<scope>.<season>``): they work after a
restart and show the clicker's own rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.i18n import LOCALES, Lang, t
from bot.present import mention
from bot.ratings.model import PROVISIONAL_GAMES
from bot.ratings.seasons import is_season_key, season_label
from bot.text import clip, code
from bot.ui import GameButton, GameView
from cogs.boards._scopes import PROVISIONAL_MARK, scope_name, scopes

if TYPE_CHECKING:
    from bot.client import GamenightBot
    from bot.storage.ratings import RatingRow

__all__ = [
    "COLOUR",
    "KIND",
    "PAGE_ROWS",
    "Shown",
    "board_view",
    "leaderboard",
    "parse_board_arg",
    "rating_text",
    "resolve_season",
]

KIND = "boards"
PAGE_ROWS = 10
"""Rows per page."""
COLOUR = discord.Colour.gold()
KNOWN_SHOWN = 8
"""Seasons a refusal names (the newest)."""


@dataclass(frozen=True)
class Shown:
    embed: discord.Embed
    scope: str
    season: str
    page: int
    pages: int


async def resolve_season(bot: GamenightBot, guild_id: int, text: str | None, locale: Lang) -> str:
    """The season a member asked for: a key (``2026-Q4``) or its label in either language
    (``Q4 2026``, ``T4 2026``); nothing asked: the current one. Raises ``ValueError`` with a
    text in ``locale`` for a season this server never rated a game in."""
    current = await bot.store.ratings.current_season(guild_id, bot.clock.now())
    if text is None or not text.strip():
        return current
    wanted = " ".join(text.split()).casefold()
    known = await bot.store.ratings.seasons(guild_id)
    for key in dict.fromkeys([current, *known]):
        names = {key.casefold(), *(season_label(key, lang).casefold() for lang in LOCALES)}
        if wanted in names:
            return key
    if not known:
        raise ValueError(t("boards.bad_season_none", locale, value=code(text, 30)))
    labels = ", ".join(season_label(key, locale) for key in known[:KNOWN_SHOWN])
    raise ValueError(t("boards.bad_season", locale, value=code(text, 30), seasons=labels))


def rating_text(row: RatingRow) -> str:
    """``1234`` or ``1234 🔰`` (provisional)."""
    return f"{row.rating} {PROVISIONAL_MARK}" if row.provisional else str(row.rating)


def _row(rank: int, row: RatingRow, locale: Lang) -> str:
    return t(
        "boards.row",
        locale,
        rank=rank,
        player=mention(row.user_id),
        rating=rating_text(row),
        games=row.games,
        wins=row.wins,
    )


async def leaderboard(
    bot: GamenightBot,
    guild_id: int,
    scope: str,
    season: str,
    locale: Lang,
    *,
    viewer: int,
    page: int = 1,
) -> Shown:
    """Page ``page`` (from 1) of the ``scope`` board of ``season``, with ``viewer``'s rank
    under it when it is on another page. Raises ``ValueError`` with a text in ``locale`` for
    an unknown board or a board nobody is on."""
    if scope not in scopes():
        raise ValueError(t("boards.bad_game", locale, value=code(scope, 30)))
    store = bot.store.ratings
    label, game = season_label(season, locale), scope_name(scope, locale)
    total = await store.count(guild_id, scope, season)
    if total == 0:
        raise ValueError(t("boards.empty", locale, game=game, season=label))
    pages = max(1, -(-total // PAGE_ROWS))
    page = min(max(page, 1), pages)
    first = (page - 1) * PAGE_ROWS
    rows = await store.board(guild_id, scope, season, offset=first, limit=PAGE_ROWS)
    lines = [_row(first + i + 1, row, locale) for i, row in enumerate(rows)]
    if all(row.user_id != viewer for row in rows):
        lines += ["", await _viewer_line(bot, guild_id, scope, season, viewer, locale)]
    embed = discord.Embed(
        title=t("boards.title", locale, game=game, season=label),
        description=clip("\n".join(lines), 4096),
        colour=COLOUR,
    )
    footer = t("boards.legend", locale, mark=PROVISIONAL_MARK, games=PROVISIONAL_GAMES)
    if pages > 1:
        footer = f"{t('boards.page', locale, page=page, pages=pages)} · {footer}"
    embed.set_footer(text=footer)
    return Shown(embed, scope, season, page, pages)


async def _viewer_line(
    bot: GamenightBot, guild_id: int, scope: str, season: str, viewer: int, locale: Lang
) -> str:
    ranked = await bot.store.ratings.rank_of(guild_id, scope, season, viewer)
    if ranked is not None:
        return t("boards.you", locale, row=_row(ranked[0], ranked[1], locale))
    if await bot.store.ratings.is_opted_out(guild_id, viewer):
        return t("boards.you_out", locale)
    return t("boards.you_unrated", locale)


def board_view(shown: Shown, locale: Lang) -> GameView:
    """Previous / Next when the board has several pages (nothing otherwise)."""
    if shown.pages <= 1:
        return GameView()
    arg = f"{shown.scope}.{shown.season}"
    return GameView(
        GameButton(
            KIND,
            shown.page - 1,
            "page",
            arg,
            label=t("boards.previous", locale),
            disabled=shown.page <= 1,
        ),
        GameButton(
            KIND,
            shown.page + 1,
            "page",
            arg,
            label=t("boards.next", locale),
            disabled=shown.page >= shown.pages,
        ),
    )


def parse_board_arg(arg: str | None) -> tuple[str, str] | None:
    """``"papayoo.2026-Q4"`` -> ``("papayoo", "2026-Q4")``; anything else (a forged custom id):
    ``None``."""
    scope, _, season = (arg or "").partition(".")
    if scope not in scopes() or not is_season_key(season):
        return None
    return scope, season
