"""A season's end: the podium of each game and overall, announced once in the server's
announcement channel, with a picture.

Design (the month's titles' in :mod:`cogs.spaye._month`, on the same durable timers).
One periodic job, :data:`SEASON_JOB`, hourly at :10 UTC and once at start-up (the catch-up).
Each run goes through the servers that have finished games, reads each one's current
season (its period and time zone, at that run) and, when the season before it had rated
games, claims that season (``scheduler_runs`` job ``boards.season_end:<guild_id>``, period
the season's key) and arms its announcement in the same transaction: a durable timer,
:data:`ANNOUNCE_KIND`, keyed by server and season. Only one process's claim succeeds,
and a timer runs in one process at a time, so the podium is posted once. A process killed
after posting but before its timer is marked done leaves the timer to run again once its
lease has passed: its post carries the same nonce (the server's season), so Discord gives
back the message it already made. A failed post is tried again an hour later while that
season is still the last one ended. A season without rated games (or whose every player
keeps out of the ratings) posts nothing; after a long downtime only the last season ended
is announced.

Posted to the announcement channel (``/config announce-channel``, the month's titles'),
else to the channel of the server's latest finished game; in the server's language.
"""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.i18n import Lang, t
from bot.present import mention
from bot.ratings.seasons import previous_season, season_label
from bot.spaye_settings import spaye_settings
from bot.timers import cron
from bot.ui import message_nonce
from cogs.boards._board import COLOUR, rating_text
from cogs.boards._picture import Podium, podium_picture
from cogs.boards._scopes import scope_name, scopes

if TYPE_CHECKING:
    from bot.client import GamenightBot
    from bot.storage.ratings import RatingRow

__all__ = [
    "ANNOUNCE_KIND",
    "SEASON_JOB",
    "announce_season",
    "announce_timer",
    "season_end",
    "start_seasons",
]

log = logging.getLogger("gamenight.boards.seasons")

SEASON_JOB = "boards.season_end"
ANNOUNCE_KIND = "boards.season_announce"
ANNOUNCE_RETRY = timedelta(hours=1)
PODIUM = 3
MEDALS = ("🥇", "🥈", "🥉")
NAMES_FROM_GAMES = 200
"""The server's latest finished games whose display names the picture may use."""


def settle_job(guild_id: int) -> str:
    return f"{SEASON_JOB}:{guild_id}"


def announce_key(guild_id: int, season: str) -> str:
    return f"boards:season:{guild_id}:{season}"


def start_seasons(bot: GamenightBot) -> None:
    """Register the announcement's handler and the hourly season job (from ``cog_load``)."""

    async def on_announce(payload: dict[str, Any]) -> None:
        await announce_timer(bot, payload)

    async def on_season_end() -> None:
        await season_end(bot)

    bot.timers.register(ANNOUNCE_KIND, on_announce)
    # Hourly in UTC: each run reads every server's own zone and period.
    bot.timers.add_cron(SEASON_JOB, on_season_end, cron("UTC", minute=10), catch_up=True)


def stop_seasons(bot: GamenightBot) -> None:
    bot.timers.unregister(ANNOUNCE_KIND)
    bot.timers.remove_cron(SEASON_JOB)


async def season_end(bot: GamenightBot, *, run_timers: bool = True) -> None:
    """Claim and arm the announcement of every server's season just ended (see above)."""
    now = bot.clock.now()
    for guild_id in await bot.store.results.guilds():
        try:
            current = await bot.store.ratings.current_season(guild_id, now)
            ended = previous_season(current)
            if ended not in await bot.store.ratings.seasons(guild_id):
                continue  # no rated game: nothing to announce
            async with bot.db.transaction():
                if not await bot.store.runs.claim(settle_job(guild_id), ended):
                    continue
                await bot.timers.schedule_once(
                    ANNOUNCE_KIND,
                    now,
                    {"guild_id": guild_id, "season": ended},
                    announce_key(guild_id, ended),
                )
            log.info("season ended", extra={"guild_id": guild_id, "season": ended})
        except Exception:
            log.exception("season end failed", extra={"guild_id": guild_id})
    if run_timers:
        await bot.timers.run_due()


async def announce_timer(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The :data:`ANNOUNCE_KIND` handler: post the podiums; after a failed post, once more
    in an hour while the season is still the last one ended."""
    guild_id, season = int(payload["guild_id"]), str(payload["season"])
    current = await bot.store.ratings.current_season(guild_id, bot.clock.now())
    if season != previous_season(current):
        log.warning("season never announced", extra={"guild_id": guild_id, "season": season})
        return
    if not await announce_season(bot, guild_id, season):
        due = bot.clock.now() + ANNOUNCE_RETRY
        await bot.timers.schedule(ANNOUNCE_KIND, due, payload, key=announce_key(guild_id, season))


async def podiums(bot: GamenightBot, guild_id: int, season: str) -> dict[str, list[RatingRow]]:
    """``{scope: its best three}`` for every board of the season that has anyone on it."""
    found = {}
    for scope in scopes():
        rows = await bot.store.ratings.board(guild_id, scope, season, limit=PODIUM)
        if rows:
            found[scope] = rows
    return found


async def announce_season(bot: GamenightBot, guild_id: int, season: str) -> bool:
    """Post the season's podiums; ``True`` once posted or when there is nothing to post."""
    best = await podiums(bot, guild_id, season)
    if not best:
        log.info("season without podium", extra={"guild_id": guild_id, "season": season})
        return True
    settings = await bot.store.settings.get(guild_id)
    locale: Lang = settings.locale
    label = season_label(season, locale)
    names = await display_names(bot, guild_id)
    pictured = [
        Podium(
            scope_name(scope, locale),
            [(names.get(row.user_id) or f"#{str(row.user_id)[-4:]}", row.rating) for row in rows],
        )
        for scope, rows in best.items()
    ]
    title = t("boards.season.title", locale, season=label)
    picture = await asyncio.to_thread(podium_picture, title, pictured)
    embed = season_embed(best, season, locale)
    filename = f"season-{season}.png"
    embed.set_image(url=f"attachment://{filename}")
    alt = t("boards.season.alt", locale, season=label)
    return await _post(bot, guild_id, season, embed, (filename, picture, alt))


def season_embed(best: dict[str, list[RatingRow]], season: str, locale: Lang) -> discord.Embed:
    embed = discord.Embed(
        title=t("boards.season.title", locale, season=season_label(season, locale)),
        description=t("boards.season.description", locale),
        colour=COLOUR,
    )
    for scope, rows in best.items():
        lines = [
            f"{MEDALS[i]} {mention(row.user_id)} · {rating_text(row)}" for i, row in enumerate(rows)
        ]
        embed.add_field(name=scope_name(scope, locale), value="\n".join(lines), inline=False)
    return embed


async def display_names(bot: GamenightBot, guild_id: int) -> dict[int, str]:
    """Display names the server's latest finished games saw (the newest first), for the
    picture (a picture cannot show a mention)."""
    names: dict[int, str] = {}
    for stored in await bot.store.games.find(
        guild_id=guild_id, status="over", limit=NAMES_FROM_GAMES
    ):
        for player, name in dict(stored.meta.get("names") or {}).items():
            if str(player).isdigit():
                names.setdefault(int(player), str(name))
    return names


async def _post(
    bot: GamenightBot,
    guild_id: int,
    season: str,
    embed: discord.Embed,
    picture: tuple[str, bytes, str],
) -> bool:
    """Send to the announcement channel, else to the channel of the latest finished game.
    The nonce names the server's season: a post tried again within minutes gives back the
    same message."""
    nonce = message_nonce("gn-season-", f"{guild_id}:{season}")
    targets: list[int] = []
    announce = (await spaye_settings(bot, guild_id)).announce_channel_id
    if announce is not None:
        targets.append(announce)
    latest = await bot.store.games.find(guild_id=guild_id, status="over", limit=1)
    if latest and latest[0].channel_id not in targets:
        targets.append(latest[0].channel_id)
    name, data, alt = picture
    for channel_id in targets:
        channel = bot.get_partial_messageable(channel_id, guild_id=guild_id)
        try:
            await channel.send(
                embed=embed,
                file=discord.File(io.BytesIO(data), filename=name, description=alt),
                nonce=nonce,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as err:
            log.warning(
                "could not post the season's podiums",
                extra={"guild_id": guild_id, "channel_id": channel_id, "code": err.code},
            )
            continue
        log.info("season announced", extra={"guild_id": guild_id, "season": season})
        return True
    return False
