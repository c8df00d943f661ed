"""Opening a guild's Späye of the day: by ``/spaye start`` or by itself on workdays.

:func:`open_spaye` is the one way a day is opened (the engine game with last month's
bonuses and the month's späyins, stored with the day's claim, its closing and reminder
armed). The *automatic opening* (``/config spaye-opening``, off by default) is one durable
timer per guild (kind :data:`OPEN_KIND`, key ``spaye:auto_open:<guild_id>``) due at the
next configured weekday's opening time in the guild's zone (:func:`wall_instant` on
daylight-saving days). When it runs, it opens today's Späye with the default exercise if
the latest opening instant by the settings is today, the closing time has not passed and
nobody opened the day already; then it arms the next one. After downtime the overdue timer
runs once at start-up: today's opening is caught up (once), missed days are not.
"""

from __future__ import annotations

import logging
import secrets
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.clock import month_of
from bot.engine import Game, new_game
from bot.storage import DayAlreadyOpened
from cogs.spaye import _render as render
from cogs.spaye._closing import schedule_closing
from cogs.spaye._month import month_names
from cogs.spaye._periods import SpayeGuild, closing_instant, guild_settings, wall_instant
from cogs.spaye._thread import THREAD_PENDING, start_thread

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "OPEN_KIND",
    "announce_day",
    "arm_openings",
    "day_meta",
    "day_options",
    "new_seed",
    "next_opening",
    "open_spaye",
    "opening_key",
    "opening_timer",
    "previous_month",
    "previous_opening",
    "schedule_opening",
]

log = logging.getLogger("gamenight.spaye.calendar")

OPEN_KIND = "spaye.auto_open"


def new_seed() -> int:
    """Each day's table order comes from here."""
    return secrets.randbelow(1 << 62)


def previous_month(day: date) -> str:
    """The month whose titles give bonuses on ``day``."""
    return month_of(day.replace(day=1) - timedelta(days=1))


def day_meta(day: date, names: dict[str, str] | None = None) -> dict[str, Any]:
    """The cog's ``meta`` of a new day: its date, where its bonuses come from, counters of
    invitations and committee requests (they make older buttons stale), and the display
    names of the month's späyins seen so far (menus and the month's picture show them)."""
    return {
        "day": day.isoformat(),
        "bonus_month": previous_month(day),
        "invite": 0,
        "ask": 0,
        "names": dict(names or {}),
    }


async def day_options(
    bot: GamenightBot, guild_id: int, today: date, exercise: str
) -> dict[str, Any]:
    """Bonuses of last month's titles still unused, this month's späyins so far (a voided
    day's too: they played, docs/rules/spaye.md)."""
    titles = await bot.store.titles.of_month(guild_id, previous_month(today))
    bonuses = {x.title: str(x.user_id) for x in titles if x.bonus_available}
    spayins: dict[str, None] = {}
    for stored in await bot.store.days.closed_in_month(guild_id, month_of(today)):
        spayins.update(dict.fromkeys(stored.game.result().get("spayins") or []))
    return {
        "exercise": exercise.strip(),
        "bonuses": bonuses,
        "month_spayins": list(spayins),
        "committee": [],
    }


async def open_spaye(
    bot: GamenightBot,
    guild_id: int,
    channel_id: int,
    today: date,
    exercise: str,
    opener: discord.abc.User | None = None,
) -> tuple[int, Game]:
    """Store today's Späye and arm its closing and reminder; returns ``(game_id, game)``.

    Raises ``ValueError`` for a bad exercise name and :class:`DayAlreadyOpened` when the
    guild had its Späye today (nothing stored either way).
    """
    options = await day_options(bot, guild_id, today, exercise)
    game = new_game("spaye", [], new_seed(), options)
    names = await month_names(bot, guild_id, month_of(today))
    if opener is not None:
        names[str(opener.id)] = opener.display_name
    meta = day_meta(today, names)
    if opener is not None:
        meta["opener"] = str(opener.id)  # the board names who opened the day
    settings = await guild_settings(bot, guild_id)
    # the thread is started once the opening message is posted: until then /daye waits
    meta["thread_id"] = THREAD_PENDING if settings.spaye.day_place == "thread" else None
    game_id: int = await bot.store.days.open_day(guild_id, today, channel_id, game, meta)
    await schedule_closing(bot, guild_id, today, game_id)
    return game_id, game


async def announce_day(bot: GamenightBot, game_id: int) -> None:
    """Post the opening of a day the bot opened by itself in its channel: the day's board,
    and the day's thread started from it."""
    stored = await bot.store.games.require(game_id)
    settings = await guild_settings(bot, stored.guild_id)
    channel = bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)
    try:
        board = await channel.send(render.opened(None, stored.game.public_view(), settings.locale))
    except discord.HTTPException:
        log.warning("could not announce an automatic opening", extra={"game_id": game_id})
        await bot.store.games.update_meta(game_id, {"thread_id": None})  # played in the channel
        return
    await start_thread(bot, game_id, board.id, settings)


# -- the automatic opening ---------------------------------------------------------------------


def opening_key(guild_id: int) -> str:
    return f"spaye:auto_open:{guild_id}"


def _openings(settings: SpayeGuild, around: date, days: range) -> list[tuple[date, datetime]]:
    spaye = settings.spaye
    if spaye.open_time is None:
        return []
    found = []
    for k in days:
        day = around + timedelta(days=k)
        if day.weekday() in spaye.open_weekdays:
            found.append((day, wall_instant(day, spaye.open_time, settings.zone)))
    return found


def next_opening(settings: SpayeGuild, after: datetime) -> tuple[date, datetime] | None:
    """The first configured opening strictly after ``after``: ``(local day, UTC instant)``."""
    today = settings.today(after)
    return next(
        ((d, at) for d, at in _openings(settings, today, range(-1, 9)) if at > after),
        None,
    )


def previous_opening(settings: SpayeGuild, now: datetime) -> tuple[date, datetime] | None:
    """The latest configured opening at or before ``now``."""
    today = settings.today(now)
    past = [(d, at) for d, at in _openings(settings, today, range(-8, 2)) if at <= now]
    return past[-1] if past else None


async def schedule_opening(bot: GamenightBot, guild_id: int) -> None:
    """Arm the guild's next automatic opening (or drop it when the setting is off)."""
    settings = await guild_settings(bot, guild_id)
    upcoming = next_opening(settings, bot.clock.now())
    if upcoming is None:
        await bot.timers.cancel(opening_key(guild_id))
        return
    day, at = upcoming
    await bot.timers.schedule(
        OPEN_KIND, at, {"guild_id": guild_id, "day": day.isoformat()}, key=opening_key(guild_id)
    )


async def arm_openings(bot: GamenightBot) -> None:
    """At start-up: every guild with an automatic opening has its timer (a pending one,
    overdue or not, is left for the catch-up to run once)."""
    for guild_id, raw in (await bot.store.game_settings.guilds("spaye")).items():
        if raw.get("open_time") is None:
            continue
        timer = await bot.store.timers.get(opening_key(guild_id))
        if timer is None or timer.done:
            await schedule_opening(bot, guild_id)


async def opening_timer(bot: GamenightBot, payload: dict[str, Any], before: Any = None) -> None:
    """The ``spaye.auto_open`` handler (see the module docstring). ``before`` is awaited
    first on the 1st of a month, so last month's titles (and bonuses) are settled."""
    guild_id = int(payload["guild_id"])
    try:
        settings = await guild_settings(bot, guild_id)
        now = bot.clock.now()
        today = settings.today(now)
        latest = previous_opening(settings, now)
        due_today = latest is not None and latest[0] == today
        if due_today and now < closing_instant(settings, today):
            if today.day == 1 and before is not None:
                await before()
            await _open_today(bot, settings, today)
    finally:
        await schedule_opening(bot, guild_id)


async def _open_today(bot: GamenightBot, settings: SpayeGuild, today: date) -> None:
    guild_id, spaye = settings.guild_id, settings.spaye
    if await bot.store.days.get(guild_id, today) is not None:
        log.info("automatic opening: the day is open already", extra={"guild_id": guild_id})
        return
    channel_id = spaye.open_channel_id
    if channel_id is None:
        latest = await bot.store.games.find(guild_id=guild_id, kind="spaye", status=None, limit=1)
        channel_id = latest[0].channel_id if latest else settings.spaye.announce_channel_id
    if channel_id is None:
        log.warning("automatic opening: no channel to open in", extra={"guild_id": guild_id})
        return
    try:
        game_id, _ = await open_spaye(bot, guild_id, channel_id, today, spaye.default_exercise)
    except DayAlreadyOpened:
        return
    await announce_day(bot, game_id)
    log.info("Späye opened automatically", extra={"guild_id": guild_id, "game_id": game_id})
