"""Closing a guild's Späye day at its closing time (docs/rules/spaye.md, "The day").

One durable timer per day: kind :data:`CLOSE_KIND`, key ``spaye:<game_id>:close``
(:func:`closing_key`), due at :func:`closing_instant`. Its handler applies
``{"type": "close"}`` as SYSTEM (voided when cards remain, finished otherwise), tells the
game's channel and dispatches ``spaye_day_closed(stored, events)``.

The channel's message is sent once, whatever dies when: the closing's transaction also arms
a :data:`POST_KIND` timer, due :data:`POST_DELAY` later, with the closing's events. The
closing posts at once and then drops that timer; if the process died in between, the timer
posts it from any process. Both post with the same nonce (``enforce_nonce``), so Discord
keeps one message even when both got through.
"""

from __future__ import annotations

import logging
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot.clock import month_of
from bot.engine import SYSTEM, Event
from bot.engine.spaye import TITLE_NAMES
from bot.i18n import t
from bot.present import mention
from bot.spaye_settings import spaye_settings
from bot.storage import GameNotFound, StoredGame
from bot.storage.models import ActOutcome
from bot.text import clip
from cogs.spaye._periods import SpayeGuild, closing_instant, guild_settings
from cogs.spaye._render_month import month_label
from cogs.spaye._thread import archive, day_posts, refresh_board, send_in_day

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "CLOSE_KIND",
    "POST_KIND",
    "REMIND_KIND",
    "close_day",
    "close_timer",
    "closed_post_timer",
    "closing_key",
    "closing_text",
    "rearm_closings",
    "remind_timer",
    "reminder_key",
    "schedule_closing",
    "schedule_reminder",
]

log = logging.getLogger("gamenight.spaye.calendar")

CLOSE_KIND = "spaye.close_day"
REMIND_KIND = "spaye.remind_close"
POST_KIND = "spaye.closed_post"
POST_DELAY = timedelta(seconds=30)
"""The closing's message is posted by its timer this long after the closing, if the closing
itself did not (its process died)."""


def post_key(game_id: int) -> str:
    return f"spaye:{game_id}:closed_post"


def closing_key(game_id: int) -> str:
    """The timer key of a day's closing: one per game, so re-arming replaces it."""
    return f"spaye:{game_id}:close"


async def schedule_closing(bot: GamenightBot, guild_id: int, day: date, game_id: int) -> None:
    """Arm (or move) the timer that closes ``game_id`` at the guild's closing time on ``day``.

    ``day`` is the guild-local date the Späye was opened for. A closing time already past
    fires at the next timer run.
    """
    settings = await guild_settings(bot, guild_id)
    await bot.timers.schedule(
        CLOSE_KIND,
        closing_instant(settings, day),
        {"guild_id": guild_id, "day": day.isoformat(), "game_id": game_id},
        key=closing_key(game_id),
    )
    await schedule_reminder(bot, guild_id, day, game_id)


def reminder_key(game_id: int) -> str:
    """The timer key of a day's reminder before closing."""
    return f"spaye:{game_id}:remind"


async def reminder_instant(bot: GamenightBot, guild_id: int, day: date) -> Any:
    """When the reminder of ``day`` is due (``/config spaye-reminder`` before the closing
    instant, an absolute duration whatever the clocks do), or ``None`` when it is off."""
    settings = await guild_settings(bot, guild_id)
    minutes = (await spaye_settings(bot, guild_id)).reminder_minutes
    if minutes is None:
        return None
    return closing_instant(settings, day) - timedelta(minutes=minutes)


async def schedule_reminder(bot: GamenightBot, guild_id: int, day: date, game_id: int) -> None:
    """Arm (or move, or drop when off) the reminder before the day's closing."""
    due = await reminder_instant(bot, guild_id, day)
    if due is None:
        await bot.timers.cancel(reminder_key(game_id))
        return
    await bot.timers.schedule(
        REMIND_KIND,
        due,
        {"guild_id": guild_id, "day": day.isoformat(), "game_id": game_id},
        key=reminder_key(game_id),
    )


async def remind_timer(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The ``spaye.remind_close`` handler: when cards remain, tell the channel the day will
    be voided at closing time. Nothing once the day is over or past its closing."""
    guild_id, game_id = int(payload["guild_id"]), int(payload["game_id"])
    day = date.fromisoformat(payload["day"])
    due = await reminder_instant(bot, guild_id, day)
    now = bot.clock.now()
    if due is None:
        return
    if now < due:  # moved later since it was armed
        await schedule_reminder(bot, guild_id, day, game_id)
        return
    settings = await guild_settings(bot, guild_id)
    closing = closing_instant(settings, day)
    stored = await bot.store.games.get(game_id)
    if stored is None or not stored.is_active or now >= closing:
        return
    table = stored.game.public_view()["table"]
    if not table:
        return
    text = t(
        "spaye.cal.reminder",
        settings.locale,
        time=settings.spaye.closing_time,
        when=f"<t:{int(closing.timestamp())}:R>",
        table=table,
    )

    async def send() -> discord.Message:
        none = discord.AllowedMentions.none()
        return await send_in_day(bot, game_id, content=text, allowed_mentions=none)

    try:
        await day_posts(bot, game_id).send(send)  # in the day's thread, in its order
    except discord.HTTPException:
        log.warning("could not remind the channel", extra={"game_id": game_id})


async def rearm_reminders(bot: GamenightBot, guild_id: int) -> None:
    """The reminder setting changed: move the reminder of the guild's running day(s)."""
    for day in await bot.store.days.active():
        if day.guild_id == guild_id:
            await schedule_reminder(bot, guild_id, day.day, day.game_id)


async def rearm_closings(bot: GamenightBot, guild_id: int) -> int:
    """Move the closing of the guild's running day(s) to its current settings; returns how
    many moved. A closing the change would put in the past is left as it was."""
    settings = await guild_settings(bot, guild_id)
    now = bot.clock.now()
    moved = 0
    for day in await bot.store.days.active():
        if day.guild_id != guild_id or closing_instant(settings, day.day) <= now:
            continue
        await schedule_closing(bot, guild_id, day.day, day.game_id)
        moved += 1
    return moved


async def arm_missing_closings(bot: GamenightBot) -> int:
    """Give every running day a pending closing (armed before this code, or given up)."""
    armed = 0
    for day in await bot.store.days.active():
        timer = await bot.store.timers.get(closing_key(day.game_id))
        if timer is None or timer.done:
            await schedule_closing(bot, day.guild_id, day.day, day.game_id)
            armed += 1
    return armed


async def close_timer(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The ``spaye.close_day`` handler. ``IllegalAction`` (already closed) means done."""
    guild_id, game_id = int(payload["guild_id"]), int(payload["game_id"])
    day = date.fromisoformat(payload["day"])
    settings = await guild_settings(bot, guild_id)
    if bot.clock.now() < closing_instant(settings, day):  # moved later since it was armed
        await schedule_closing(bot, guild_id, day, game_id)
        return
    await close_day(bot, game_id, day)


async def close_day(bot: GamenightBot, game_id: int, day: date) -> StoredGame | None:
    """Close a Späye now (SYSTEM ``close``) and tell its channel; ``None`` if it is unknown.

    Raises ``IllegalAction`` when the day is already finished or voided: nothing is sent.
    """

    async def arm_post(new: StoredGame, events: list[Event]) -> None:
        payload = {"game_id": game_id, "day": day.isoformat(), "events": events}
        due = bot.clock.now() + POST_DELAY
        await bot.timers.schedule(POST_KIND, due, payload, key=post_key(game_id))

    try:
        outcome: ActOutcome = await bot.store.games.act(
            game_id, SYSTEM, {"type": "close"}, in_tx=arm_post
        )
    except GameNotFound:
        log.warning("closing a Späye that does not exist", extra={"game_id": game_id})
        return None
    # the ticket right after the save: the closing is posted after the day's last result
    ticket = day_posts(bot, game_id).take()
    stored, events = outcome
    log.info("Späye day closed", extra={"game_id": game_id, "status": stored.status})
    await post_closing(bot, stored, events, day, ticket)
    await bot.timers.cancel(post_key(game_id))
    refresh_board(bot, stored)
    await archive(bot, stored)
    bot.dispatch("spaye_day_closed", stored, events)
    return stored


async def closed_post_timer(bot: GamenightBot, payload: dict[str, Any]) -> None:
    """The ``spaye.closed_post`` handler: the closing's message, when its closing's process
    died before posting it (or posted it and died before dropping this timer)."""
    stored = await bot.store.games.get(int(payload["game_id"]))
    if stored is not None:
        day = date.fromisoformat(payload["day"])
        await post_closing(bot, stored, list(payload["events"]), day)


async def post_closing(
    bot: GamenightBot,
    stored: StoredGame,
    events: list[Event],
    day: date,
    ticket: int | None = None,
) -> None:
    """Tell the game's channel the day closed (one message: the nonce names the closing),
    in ``ticket``'s turn among the day's posts (after its last result)."""
    posts = day_posts(bot, stored.id)
    settings = await guild_settings(bot, stored.guild_id)
    text = closing_text(events, settings, day)
    if not text:
        if ticket is not None:
            posts.skip(ticket)
        return
    channel = bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)

    async def send() -> discord.Message:
        return await channel.send(
            text, nonce=f"gn-closed-{stored.id}", allowed_mentions=discord.AllowedMentions.none()
        )

    try:
        await (posts.send(send) if ticket is None else posts.post(ticket, send))
    except discord.HTTPException:
        log.warning(
            "could not tell the channel a Späye closed",
            extra={"game_id": stored.id, "channel_id": stored.channel_id},
        )


def closing_text(events: list[Event], settings: SpayeGuild, day: date) -> str:
    """The public message of a closing, in the guild's language."""
    locale, time = settings.locale, settings.spaye.closing_time
    lines: list[str] = []
    for event in events:
        if event["type"] == "day_voided":
            lines.append(t("spaye.cal.closed.voided", locale, time=time, table=event["table"]))
            returned: dict[str, str] = event.get("bonuses_returned") or {}
            if returned:
                bonuses = ", ".join(
                    f"{TITLE_NAMES[title]} ({mention(holder)})"
                    for title, holder in returned.items()
                )
                lines.append(t("spaye.cal.closed.bonuses_returned", locale, bonuses=bonuses))
        elif event["type"] == "day_finished":
            month = month_label(month_of(day), locale)
            lines.append(t("spaye.cal.closed.finished", locale, time=time, month=month))
            scores: dict[str, int] = event.get("scores") or {}
            ranking = ", ".join(
                f"{mention(p)} {scores[p]}"
                for group in event.get("ranking") or []
                for p in group
                if scores.get(p)
            )
            if ranking:
                lines.append(t("spaye.cal.closed.ranking", locale, ranking=ranking))
    lapsed = [mention(e["player"]) for e in events if e["type"] == "exercise_lapsed"]
    if lapsed:
        lines.append(t("spaye.cal.closed.lapsed", locale, players=", ".join(lapsed)))
    return clip("\n".join(lines), 2000)
