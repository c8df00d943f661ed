"""The month's end: titles computed, stored, announced once, and a DM to each titleholder.

Design. One periodic job, :data:`MONTH_JOB`, hourly at :05 UTC and once at start-up (the
bot's catch-up). Each run asks the store for the ``(guild, month)`` pairs where the guild
opened a Späye and whose end was not dealt with yet (``scheduler_runs`` job
``spaye.month_end:<guild_id>``, period ``YYYY-MM``), then keeps, per guild, only the months
before the guild's *current local month* (its time zone, read at that run: a changed zone
counts from the next run). So a month is settled at the first run after midnight of the 1st,
guild time, whatever the guild's zone or a daylight-saving change, and never before.

Settling a month (:func:`settle_month`): running days of that month whose closing time has
passed are closed first (if one can't be, or isn't due yet, the month waits for the next
run). Then, in one transaction, the month is claimed and its titles are awarded from
``month_standings`` over the guild's *finished* days of that month (voided days count
nothing; ties by the rules' tie-breaks; nobody with 0 points gets a title). Their bonuses are
for the month after.

Announcing is a durable timer, :data:`ANNOUNCE_KIND`, one per guild and month
(:func:`ask_announcement`: created unless it exists, so processes that each settle or retry
the same month make one, and it runs in one process at a time, claimed like any timer).
Its handler (:func:`announce_timer`) posts (:func:`announce_month`): an embed with every späyin's three counters as text (for
screen readers and search; the longest months end with "and N more: /spaye board") and
the titles, with the same table as a picture (:mod:`cogs.spaye._picture`: the podium of the
three titles, the columns as bars), in the guild's language, posted to the
announcement channel (``/config announce-channel``); when it is unset or the bot can't post
there, to the channel of the guild's latest Späye. Titles are marked announced and one
durable DM timer per titleholder is armed in the same transaction, so each DM is sent even
after a crash (through ``bot.private``: closed DMs wait for the user's next interaction).
A failed post leaves the titles unannounced: the timer tries again an hour later while that
month is the last one ended. A month with Späyes but none finished gets a short "no Späye
finished" line instead (once, no retry). A guild that played no Späye in a month hears
nothing about it.

Catch-up. After a long downtime, older months than the last one ended are settled silently
(titles stored for the record, nothing posted: their bonus month is already over). Between a
successful post and its commit a crash leaves the announcement's timer to run again (once its
lease has passed): its post carries the same nonce, so Discord gives back the message it
already made when that is within minutes.
"""

from __future__ import annotations

import asyncio
import io
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.clock import month_of
from bot.engine import IllegalAction
from bot.engine.spaye import TITLE_NAMES, month_standings
from bot.i18n import t
from bot.storage import StoredGame
from bot.storage.models import SpayeDay
from bot.ui import message_nonce
from cogs.spaye._periods import (
    SpayeGuild,
    closing_instant,
    guild_settings,
    month_after,
    month_before,
)
from cogs.spaye._picture import month_picture
from cogs.spaye._render_month import (
    COLOUR,
    month_label,
    picture_words,
    ranked_players,
    table_row,
    title_lines,
)

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "ANNOUNCE_KIND",
    "DM_KIND",
    "MONTH_JOB",
    "CloseDay",
    "announce_month",
    "announce_timer",
    "ask_announcement",
    "deliver_title_dm",
    "month_embed",
    "month_end",
    "month_names",
    "settle_month",
    "standings_of",
]

log = logging.getLogger("gamenight.spaye.calendar")

MONTH_JOB = "spaye.month_end"
DM_KIND = "spaye.title_dm"
ANNOUNCE_KIND = "spaye.announce"
ANNOUNCE_RETRY = timedelta(hours=1)
"""After a failed post, the announcement is tried again this much later."""
LATEST_ZONE = timedelta(hours=14)
"""The furthest ahead of UTC a time zone runs (Pacific/Kiritimati)."""

CloseDay = Callable[[int, date], Awaitable[Any]]
"""``(game_id, day)``: close a running day now (raises ``IllegalAction`` if it was closed)."""

_LOCKS: weakref.WeakKeyDictionary[Any, asyncio.Lock] = weakref.WeakKeyDictionary()


def _lock(bot: GamenightBot) -> asyncio.Lock:
    return _LOCKS.setdefault(bot, asyncio.Lock())


def settle_job(guild_id: int) -> str:
    """The ``scheduler_runs`` job of one guild's month ends."""
    return f"{MONTH_JOB}:{guild_id}"


async def standings_of(bot: GamenightBot, guild_id: int, month: str) -> dict[str, Any]:
    """``month_standings`` over the guild's finished and voided Späyes of ``month`` (a voided
    day counts no point; its späyins are späyins of the month)."""
    games: list[StoredGame] = await bot.store.days.closed_in_month(guild_id, month)
    return month_standings([g.game.result() for g in games])


async def month_end(bot: GamenightBot, close: CloseDay, *, run_timers: bool = True) -> None:
    """Settle and announce every month that ended in its guild's time zone (see above).
    ``run_timers=False`` from inside a timer's handler (the timers run after it anyway)."""
    async with _lock(bot):
        now = bot.clock.now()
        # No guild can have ended a month later than the one before the furthest-ahead zone's.
        through = month_before(month_of((now + LATEST_ZONE).date()))
        pending: dict[int, list[str]] = {}
        for guild_id, month in await bot.store.days.unsettled_months(MONTH_JOB, through):
            pending.setdefault(guild_id, []).append(month)
        running: list[SpayeDay] = await bot.store.days.active()
        for guild_id, months in pending.items():
            try:
                await _end_months(bot, guild_id, months, running, close)
            except Exception:
                log.exception("month end failed", extra={"guild_id": guild_id})
        await _retry_announcements(bot)
    if run_timers:
        await bot.timers.run_due()  # the announcements (then the titleholders' DMs) just armed


async def _end_months(
    bot: GamenightBot,
    guild_id: int,
    months: Sequence[str],
    running: Sequence[SpayeDay],
    close: CloseDay,
) -> None:
    settings = await guild_settings(bot, guild_id)
    now = bot.clock.now()
    current = month_of(settings.today(now))
    for month in sorted(months):
        if month >= current:
            break
        days = [d for d in running if d.guild_id == guild_id and month_of(d.day) == month]
        if not await _close_overdue(settings, days, now, close):
            log.info("month end waits for a running day", extra={"guild_id": guild_id})
            break
        if await settle_month(bot, guild_id, month) is None:
            continue
        if month == month_before(current):
            await ask_announcement(bot, guild_id, month)
        else:
            await bot.store.titles.mark_announced(guild_id, month)
            log.info("old month settled silently", extra={"guild_id": guild_id, "month": month})


async def _close_overdue(
    settings: SpayeGuild, days: Sequence[SpayeDay], now: Any, close: CloseDay
) -> bool:
    """Close the month's days still running past their closing; ``False`` if one is left."""
    for day in days:
        if closing_instant(settings, day.day) > now:
            return False
        try:
            await close(day.game_id, day.day)
        except IllegalAction:
            pass  # closed meanwhile
        except Exception:
            log.exception("could not close a Späye at month end", extra={"game_id": day.game_id})
            return False
    return True


async def settle_month(bot: GamenightBot, guild_id: int, month: str) -> dict[str, Any] | None:
    """Claim the month and award its titles in one transaction; ``None`` if already done."""
    standings = await standings_of(bot, guild_id, month)
    async with bot.db.transaction():
        if not await bot.store.runs.claim(settle_job(guild_id), month):
            return None
        for title, holder in standings["titles"].items():
            if holder is not None:
                await bot.store.titles.award(guild_id, month, title, int(holder))
    log.info(
        "month settled",
        extra={"guild_id": guild_id, "month": month, "titles": str(standings["titles"])},
    )
    return standings


async def _retry_announcements(bot: GamenightBot) -> None:
    """Titles settled but not announced (a crash before the announcement was asked for):
    asked for again while theirs is the month last ended, else given up."""
    now = bot.clock.now()
    waiting = sorted({(x.guild_id, x.month) for x in await bot.store.titles.unannounced()})
    for guild_id, month in waiting:
        try:
            settings = await guild_settings(bot, guild_id)
            last_ended = month_before(month_of(settings.today(now)))
            if month == last_ended:  # its timer may have given up (errors): once more
                await ask_announcement(bot, guild_id, month, again_if_done=True)
            elif month < last_ended:
                await bot.store.titles.mark_announced(guild_id, month)
                log.warning("titles never announced", extra={"guild_id": guild_id, "month": month})
        except Exception:
            log.exception("announcement retry failed", extra={"guild_id": guild_id})


def announce_key(guild_id: int, month: str) -> str:
    return f"spaye:announce:{guild_id}:{month}"


async def ask_announcement(
    bot: GamenightBot, guild_id: int, month: str, *, again_if_done: bool = False
) -> bool:
    """Arm the month's announcement, due now, unless it exists (pending, running in some
    process, or done; ``again_if_done``: pending or running): whether this call armed it."""
    payload = {"guild_id": guild_id, "month": month}
    key = announce_key(guild_id, month)
    return await bot.timers.schedule_once(
        ANNOUNCE_KIND, bot.clock.now(), payload, key, again_if_done=again_if_done
    )


async def announce_timer(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The :data:`ANNOUNCE_KIND` handler: announce the month once, if it is still the last
    one ended and not announced; after a failed post, once more in an hour."""
    guild_id, month = int(payload["guild_id"]), str(payload["month"])
    awarded = await bot.store.titles.of_month(guild_id, month)
    if awarded and all(x.announced for x in awarded):
        return
    settings = await guild_settings(bot, guild_id)
    last_ended = month_before(month_of(settings.today(bot.clock.now())))
    if month != last_ended:
        if awarded:
            await bot.store.titles.mark_announced(guild_id, month)
        log.warning("titles never announced", extra={"guild_id": guild_id, "month": month})
        return
    if not await announce_month(bot, guild_id, month) and awarded:
        due = bot.clock.now() + ANNOUNCE_RETRY
        await bot.timers.schedule(ANNOUNCE_KIND, due, payload, key=announce_key(guild_id, month))


async def month_names(bot: GamenightBot, guild_id: int, month: str) -> dict[str, str]:
    """Display names seen in the guild's Späyes of ``month`` (the latest day's win)."""
    names: dict[str, str] = {}
    for stored in await bot.store.games.find(guild_id=guild_id, kind="spaye", status=None):
        if str(stored.meta.get("day", "")).startswith(month):
            names = {**dict(stored.meta.get("names") or {}), **names}
    return names


def month_embed(
    standings: dict[str, Any], holders: dict[str, str | None], month: str, locale: str
) -> discord.Embed:
    """The month's announcement: every späyin's counters (as many as an embed holds) and
    the titles."""
    head = t(
        "spaye.cal.titles.description",
        locale,
        days=standings["days"],
        next=month_label(month_after(month), locale),
    )
    points: dict[str, dict[str, int]] = standings["points"]
    ranked = ranked_players(points)
    lines = [head, ""]
    for i, player in enumerate(ranked):
        row = table_row(i + 1, player, points[player], holders, locale)
        more = t("spaye.cal.table_more", locale, n=len(ranked) - i, month=month)
        if len("\n".join([*lines, row, more])) > 4000:
            lines.append(more)
            break
        lines.append(row)
    embed = discord.Embed(
        title=t("spaye.cal.titles.title", locale, month=month_label(month, locale)),
        description="\n".join(lines),
        colour=COLOUR,
    )
    embed.add_field(
        name=t("spaye.cal.titles.field", locale),
        value=title_lines(holders, locale, empty=t("spaye.cal.nobody", locale)),
        inline=False,
    )
    return embed


async def announce_month(bot: GamenightBot, guild_id: int, month: str) -> bool:
    """Post the month's titles (or "no Späye finished"); ``True`` once posted."""
    settings = await guild_settings(bot, guild_id)
    locale = settings.locale
    standings = await standings_of(bot, guild_id, month)
    awarded = await bot.store.titles.of_month(guild_id, month)
    if standings["days"] == 0:
        text = t("spaye.cal.titles.none", locale, month=month_label(month, locale))
        return await _post(bot, settings, month, content=text)
    holders: dict[str, str | None] = dict.fromkeys(TITLE_NAMES)
    holders.update({x.title: str(x.user_id) for x in awarded})
    names = await month_names(bot, guild_id, month)
    picture = await asyncio.to_thread(
        month_picture, standings, holders, names, picture_words(month, locale)
    )
    embed = month_embed(standings, holders, month, locale)
    filename = f"spaye-{month}.png"
    embed.set_image(url=f"attachment://{filename}")
    alt = t("spaye.cal.picture.alt", locale)
    if not await _post(bot, settings, month, embed=embed, picture=(filename, picture, alt)):
        return False
    async with bot.db.transaction():
        await bot.store.titles.mark_announced(guild_id, month)
        for user_id in dict.fromkeys(x.user_id for x in awarded):
            await bot.timers.schedule(
                DM_KIND,
                bot.clock.now(),
                {"guild_id": guild_id, "month": month, "user_id": user_id},
                key=f"spaye:titles:{guild_id}:{month}:{user_id}",
            )
    log.info("month announced", extra={"guild_id": guild_id, "month": month})
    return True


async def _post(
    bot: GamenightBot,
    settings: SpayeGuild,
    month: str,
    *,
    content: str | None = None,
    embed: discord.Embed | None = None,
    picture: tuple[str, bytes, str] | None = None,
) -> bool:
    """Send to the announcement channel, else to the channel of the latest Späye;
    ``picture`` is ``(filename, PNG bytes, alt text)``, attached to each attempt. The nonce
    names the guild's month: a post tried again within minutes (its announcement's process
    died before recording it) gives the same message."""
    nonce = message_nonce("gn-titles-", f"{settings.guild_id}:{month}")
    targets: list[int] = []
    if settings.spaye.announce_channel_id is not None:
        targets.append(settings.spaye.announce_channel_id)
    latest = await bot.store.games.find(
        guild_id=settings.guild_id, kind="spaye", status=None, limit=1
    )
    if latest and latest[0].channel_id not in targets:
        targets.append(latest[0].channel_id)
    for channel_id in targets:
        channel = bot.get_partial_messageable(channel_id, guild_id=settings.guild_id)
        files = []
        if picture is not None:
            name, data, alt = picture
            files.append(discord.File(io.BytesIO(data), filename=name, description=alt))
        try:
            await channel.send(
                content,
                embeds=[embed] if embed is not None else [],
                files=files,
                nonce=nonce,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as err:
            log.warning(
                "could not post the month's titles",
                extra={"guild_id": settings.guild_id, "channel_id": channel_id, "code": err.code},
            )
            continue
        return True
    return False


async def deliver_title_dm(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The ``spaye.title_dm`` handler: tell a titleholder their titles and bonuses."""
    guild_id, month, user_id = int(payload["guild_id"]), str(payload["month"]), payload["user_id"]
    held = await bot.store.titles.held_by(guild_id, month, int(user_id))
    if not held:
        return
    settings = await guild_settings(bot, guild_id)
    locale = settings.locale
    guild = await bot.find_guild(guild_id)
    lines = [
        t(
            "spaye.cal.dm.titles",
            locale,
            guild=guild.name if guild is not None else str(guild_id),
            titles=", ".join(TITLE_NAMES[x.title] for x in held),
            month=month_label(month, locale),
            next=month_label(month_after(month), locale),
        )
    ]
    lines += [t(f"spaye.cal.bonus.{x.title}", locale) for x in held]
    key = f"spaye:titles:{guild_id}:{month}"
    await bot.private.send(
        int(user_id),
        key,
        "\n".join(lines),
        locale=locale,
        nonce=message_nonce("gn-dm-", f"{key}:{user_id}"),
    )
