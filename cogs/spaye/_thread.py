"""Where a Späye day is played: its thread, its board, its ordered posts.

A calm channel. The day's opening message in the configured channel is the day's *board*
(who played, the leaders, the exercises still to settle, a link into the thread), edited in
place as the day goes (:func:`refresh_board`, coalesced by a
:class:`~bot.seated.editor.MessageEditor`: a burst of moves costs one edit). A public thread
named for the day in the server's language (:func:`thread_name`, auto-archive 24 h) is
started from it (:func:`start_thread`): every däye, draw, reveal, recruit, committee request
and record of the day is posted there. The channel gets the board and the closing summary;
the thread is archived once the day closes (:func:`archive`).

The day's ``meta`` keeps it durably: ``board_message`` (the board's id, in the game's
channel) and ``thread_id`` (``None``: the day is played in the channel: the server chose it
with ``/config spaye-place``, or Discord refused the thread; ``/config show`` then says
what it refused, :func:`note_refused`).

Every message the bot posts with its token for a day goes through the day's
:class:`~bot.sequencer.Sequencer` (:func:`day_posts`): a move takes its ticket right after
its save, so results are posted in the order they happened, one at a time under the
channel's bucket and the REST budget, and the closing (which takes its ticket after its own
save) waits for the day's last result. :func:`send_in_day` sends in the thread; a thread a
moderator deleted is made again for the rest of the day (its first line says so), a thread
the bot may no longer post in falls back to the channel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from datetime import date
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.budget import Priority
from bot.i18n import Lang, t
from bot.present import mentions
from bot.sequencer import Sequencer
from bot.spaye_settings import spaye_settings, update_spaye_settings
from bot.storage import StoredGame
from bot.text import clip
from cogs.spaye import _render as render
from cogs.spaye._periods import SpayeGuild, guild_settings

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = [
    "ARCHIVE_MINUTES",
    "archive",
    "board_embed",
    "day_posts",
    "jump",
    "posts_to",
    "refresh_board",
    "send_in_day",
    "start_thread",
    "thread_name",
]

log = logging.getLogger("gamenight.spaye.thread")

ARCHIVE_MINUTES: Final = 1440
"""The thread's auto-archive: 24 hours without a message."""
UNKNOWN_CHANNEL: Final = 10003
THREAD_PENDING: Final = "pending"
"""``meta["thread_id"]`` of a day whose opening message is not posted yet (its thread is
started from it): ``/daye`` waits for it, up to :data:`PENDING_WAIT` seconds."""
PENDING_WAIT: Final = 5.0


def day_posts(bot: GamenightBot, game_id: int) -> Sequencer:
    """The sequencer of the day ``game_id``'s posts (one per day: its thread, or channel)."""
    return bot.posts.of(game_id)


def thread_name(day: date, locale: Lang) -> str:
    """``Späye · Monday 30 November`` / ``Späye · lundi 30 novembre`` (100 characters at
    most, Discord's limit for a thread's name)."""
    weekdays = t("spaye.thread.weekdays", locale).split(",")
    month = t(f"spaye.cal.month.{day.month}", locale)
    name = t("spaye.thread.name", locale, weekday=weekdays[day.weekday()], day=day.day, month=month)
    return clip(name, 100)


def jump(guild_id: int, channel_id: int, message_id: int | None = None) -> str:
    """A link to a channel (a thread) or a message in it."""
    tail = f"/{message_id}" if message_id is not None else ""
    return f"https://discord.com/channels/{guild_id}/{channel_id}{tail}"


def thread_of(stored: StoredGame) -> int | None:
    found = stored.meta.get("thread_id")
    return found if isinstance(found, int) else None


async def settled_place(bot: GamenightBot, game_id: int) -> StoredGame:
    """The day once its thread is started (or given up), waiting for a day just opened."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + PENDING_WAIT
    stored = await bot.store.games.require(game_id)
    while stored.meta.get("thread_id") == THREAD_PENDING and loop.time() < deadline:
        await asyncio.sleep(0.05)
        stored = await bot.store.games.require(game_id)
    return stored


def posts_to(stored: StoredGame) -> int:
    """Where the day's posts go: its thread, else its channel."""
    return thread_of(stored) or stored.channel_id


# -- the thread ------------------------------------------------------------------------------


async def start_thread(
    bot: GamenightBot, game_id: int, message_id: int, settings: SpayeGuild
) -> int | None:
    """The day's board is ``message_id`` (just posted in the game's channel): start the
    day's thread from it (unless the server plays in the channel) and keep both ids."""
    stored = await bot.store.games.require(game_id)
    day = date.fromisoformat(str(stored.meta.get("day")))
    thread_id: int | None = None
    if settings.spaye.day_place == "thread":
        try:
            data = await bot.http.start_thread_with_message(
                stored.channel_id,
                message_id,
                name=thread_name(day, settings.locale),
                auto_archive_duration=ARCHIVE_MINUTES,
            )
            thread_id = int(data["id"])
        except discord.Forbidden:
            await note_refused(bot, stored.guild_id, "create", stored.channel_id)
        except discord.HTTPException:
            log.warning("could not start the day's thread", extra={"game_id": game_id})
        else:
            await note_refused(bot, stored.guild_id, None, None)
    await bot.store.games.update_meta(
        game_id, {"board_message": message_id, "thread_id": thread_id}
    )
    refresh_board(bot, await bot.store.games.require(game_id))
    return thread_id


async def note_refused(
    bot: GamenightBot, guild_id: int, what: str | None, channel_id: int | None
) -> None:
    """Remember (for ``/config show``) what Discord refused, or that threads work again."""
    now = await spaye_settings(bot, guild_id)
    if now.thread_refused == what and now.thread_refused_channel == channel_id:
        return
    if what is not None:
        log.warning(
            "a Späye day falls back to its channel",
            extra={"guild_id": guild_id, "refused": what, "channel_id": channel_id},
        )
    await update_spaye_settings(
        bot, guild_id, {"thread_refused": what, "thread_refused_channel": channel_id}
    )


async def _recreate(bot: GamenightBot, stored: StoredGame) -> int | None:
    """The day's thread was deleted: a new one for the rest of the day, saying so."""
    settings = await guild_settings(bot, stored.guild_id)
    day = date.fromisoformat(str(stored.meta.get("day")))
    try:
        data = await bot.http.start_thread_without_message(
            stored.channel_id,
            name=thread_name(day, settings.locale),
            auto_archive_duration=ARCHIVE_MINUTES,
            type=discord.ChannelType.public_thread.value,
        )
    except discord.Forbidden:
        await note_refused(bot, stored.guild_id, "create", stored.channel_id)
        return None
    thread_id = int(data["id"])
    await bot.store.games.update_meta(stored.id, {"thread_id": thread_id})
    channel = bot.get_partial_messageable(thread_id, guild_id=stored.guild_id)
    try:
        await channel.send(
            t("spaye.thread.recreated", settings.locale),
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException:
        log.warning("could not say the thread was made again", extra={"game_id": stored.id})
    refresh_board(bot, await bot.store.games.require(stored.id))
    return thread_id


async def send_in_day(bot: GamenightBot, game_id: int, **kwargs: Any) -> discord.Message:
    """Send a message in the day's thread (or channel), now: call it from the day's
    sequencer. A deleted thread is made again; a refused one falls back to the channel.
    A day whose thread is still being started is waited for (a reminder due at its opening
    would otherwise land in the channel)."""
    stored = await settled_place(bot, game_id)
    target = posts_to(stored)
    try:
        return await bot.get_partial_messageable(target, guild_id=stored.guild_id).send(**kwargs)
    except discord.NotFound as err:
        if target == stored.channel_id or err.code != UNKNOWN_CHANNEL:
            raise
        log.warning("the day's thread is gone: making it again", extra={"game_id": game_id})
        target = await _recreate(bot, stored) or stored.channel_id
    except discord.Forbidden:
        if target == stored.channel_id:
            raise
        await note_refused(bot, stored.guild_id, "send", stored.channel_id)
        await bot.store.games.update_meta(game_id, {"thread_id": None})
        target = stored.channel_id
    if target == stored.channel_id:
        await bot.store.games.update_meta(game_id, {"thread_id": None})
    return await bot.get_partial_messageable(target, guild_id=stored.guild_id).send(**kwargs)


def post_in_day(
    bot: GamenightBot, game_id: int, ticket: int, **kwargs: Any
) -> Awaitable[discord.Message]:
    """Send in the day's place when ``ticket``'s turn comes (a future of the message)."""

    async def send() -> discord.Message:
        return await send_in_day(bot, game_id, **kwargs)

    return day_posts(bot, game_id).post(ticket, send)


async def archive(bot: GamenightBot, stored: StoredGame) -> None:
    """The day closed: its thread is archived (its messages and buttons stay)."""
    thread_id = thread_of(stored)
    if thread_id is None:
        return
    try:
        await bot.http.edit_channel(thread_id, archived=True)
    except discord.HTTPException:
        log.warning("could not archive the day's thread", extra={"game_id": stored.id})


# -- the board -------------------------------------------------------------------------------


def board_embed(stored: StoredGame, locale: Lang) -> discord.Embed:
    """The day's board: the status of ``/spaye status`` and who played today."""
    view = stored.game.public_view()
    embed = render.status_embed(view, str(stored.meta.get("day", "")), locale)
    embed.title = t("spaye.board.title", locale)
    played = view["spayins"]
    embed.insert_field_at(
        0,
        name=t("spaye.board.played", locale),
        value=clip(mentions(played, locale), 1024) if played else t("spaye.board.nobody", locale),
        inline=False,
    )
    return embed


def board_text(stored: StoredGame, locale: Lang) -> str:
    view = stored.game.public_view()
    opener = stored.meta.get("opener")
    lines = [render.opened(opener if isinstance(opener, str) else None, view, locale)]
    thread_id = thread_of(stored)
    place = f"<#{thread_id}>" if thread_id is not None else f"<#{stored.channel_id}>"
    if not stored.is_active:
        status = render.status_name(stored.status, locale)
        lines = [
            lines[0].split("\n")[0],
            t("spaye.board.closed", locale, status=status, link=place),
        ]
    elif thread_id is not None:
        lines.append(t("spaye.board.where", locale, link=place))
    return clip("\n".join(lines), 2000)


def refresh_board(bot: GamenightBot, stored: StoredGame) -> None:
    """Edit the day's board to show ``stored`` (coalesced; never a newer state overwritten).
    Synchronous: a move calls it right after its save."""
    board = stored.meta.get("board_message")
    if not isinstance(board, int):
        return
    message = bot.get_partial_messageable(stored.channel_id, guild_id=stored.guild_id)

    async def send() -> None:
        try:
            locale = (await guild_settings(bot, stored.guild_id)).locale
        except Exception:  # the database went away (a shutdown): the next move redraws it
            log.warning("could not redraw the day's board", extra={"game_id": stored.id})
            return
        content, embed = board_text(stored, locale), board_embed(stored, locale)
        await message.get_partial_message(board).edit(
            content=content, embed=embed, allowed_mentions=discord.AllowedMentions.none()
        )

    bot.boards.submit(("spaye-board", stored.id), stored.version, send, Priority.TABLE)
