"""A public thread the bot opens for something of its own (a game night's table), found
again rather than opened twice, with its fallback: where the bot may not create threads
(no Create Public Threads, or the channel takes none), the thing sits in the channel.

Exactly once by name: a thread the bot opened under that channel with that name, still
active, is the one it opened before (a failure or a restart between Discord's answer and
the caller's record of it). The bot knows its threads from the gateway (the ``guilds``
intent sends every thread created and, at start-up, every active thread), so finding one
costs no REST call.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Final

import discord

from bot.budget import Priority, priority
from bot.text import clip

__all__ = ["THREAD_NAME_MAX", "Opened", "may_open_threads", "open_thread"]

log = logging.getLogger("gamenight.threads")

THREAD_NAME_MAX: Final = 100
ARCHIVE_MINUTES: Final = 1440


@dataclass(frozen=True, slots=True)
class Opened:
    """Where the thing sits: the thread's id, or the channel's own when ``thread`` is
    ``False`` (the bot may not create threads there)."""

    channel_id: int
    thread: bool


def may_open_threads(channel: discord.abc.GuildChannel | discord.Thread | None) -> bool:
    """Whether the bot may open a public thread in ``channel`` (a text channel in which it
    has Create Public Threads and Send Messages in Threads)."""
    if not isinstance(channel, discord.TextChannel):
        return False
    me = channel.guild.me
    if me is None:
        return False
    allowed = channel.permissions_for(me)
    return allowed.create_public_threads and allowed.send_messages_in_threads


async def open_thread(client: discord.Client, channel_id: int, name: str) -> Opened:
    """The public thread ``name`` (clipped to Discord's 100 characters) under
    ``channel_id``, opened now or found again; the channel itself when the bot may not open
    one there (refused by Discord too: the permission changed meanwhile)."""
    name = clip(name, THREAD_NAME_MAX)
    channel = client.get_channel(channel_id)
    if not isinstance(channel, discord.TextChannel) or not may_open_threads(channel):
        return Opened(channel_id, False)
    me = client.user.id if client.user is not None else None
    for thread in channel.threads:
        if thread.name == name and thread.owner_id == me and not thread.archived:
            return Opened(thread.id, True)
    try:
        with priority(Priority.TABLE):
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=ARCHIVE_MINUTES,
            )
    except discord.Forbidden:
        log.warning("could not open a thread", extra={"channel_id": channel_id})
        return Opened(channel_id, False)
    return Opened(thread.id, True)
