"""Turn notices: a ping for a player whose turn it is, unless they are plainly at the table.

When a turn starts, a notice is armed for each colleague who must act; it is sent only if they
have not acted ``delay`` seconds later (someone playing along never gets one). A colleague
with open DMs gets a DM (a new message, so it notifies); one whose DMs are closed gets a
mention in the game's channel (mentions inside embeds do not notify, so it is plain text).
As soon as they act, or the turn passes, the notice is deleted: at the end of a game a
player's DMs hold only their hand. ``warn`` sends (or rewrites) the notice when the turn timer
is about to move for them.

Notices live in memory; the cog also notes each one in its game so that, after a restart,
it can :meth:`TurnNotices.adopt` those still useful and delete the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.budget import Dropped, Priority, priority

__all__ = ["Notice", "TurnNotices"]

log = logging.getLogger("gamenight.seated.notices")

Sender = Callable[[int, str, bool], Awaitable["discord.Message | None"]]
"""``async (game_id, player, warning) -> message or None``: post the notice."""


Posted = discord.Message | discord.PartialMessage


@dataclass(slots=True)
class Notice:
    timer: asyncio.TimerHandle | None = None
    """Until the notice is due (a timer, not a task: most are cancelled by a move)."""
    task: asyncio.Task[None] | None = None
    message: Posted | None = None
    warned: bool = False

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None:
            self.task.cancel()


def _kept(message: Posted | None) -> Posted | None:
    """What is kept of a posted notice until it is deleted: its ids, not the whole message
    Discord sent back (its author, content, embeds...)."""
    if message is None or isinstance(message, discord.PartialMessage):
        return message
    return message.channel.get_partial_message(message.id)


class TurnNotices:
    def __init__(self, send: Sender, *, delay: float = 8.0) -> None:
        self._send = send
        self.delay = delay
        self._notices: dict[int, dict[str, Notice]] = {}
        """Per game, per player: a move touches only its own game's."""
        self.sent = 0
        self.deleted = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def _spawn(self, coro: Awaitable[None], name: str) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def arm(self, game_id: int, players: list[str]) -> None:
        """These players' turn started: notify each unless they act within ``delay``."""
        if not players:
            return
        game = self._notices.setdefault(game_id, {})
        loop = asyncio.get_running_loop()
        for player in players:
            if player in game:
                continue
            notice = game[player] = Notice()
            notice.timer = loop.call_later(self.delay, self._due, (game_id, player), notice)

    def _due(self, key: tuple[int, str], notice: Notice) -> None:
        notice.timer = None
        notice.task = self._spawn(self._post(key, notice, warning=False), f"notice:{key}")

    def _current(self, key: tuple[int, str]) -> Notice | None:
        return self._notices.get(key[0], {}).get(key[1])

    async def _post(self, key: tuple[int, str], notice: Notice, *, warning: bool) -> None:
        old = notice.message
        try:
            with priority(Priority.UNBLOCK if warning else Priority.NOTICE):
                message = await self._send(key[0], key[1], warning)
        except Dropped:
            return  # close to Discord's ban on refused calls: the table still says whose turn
        except discord.HTTPException:
            log.warning("could not send a turn notice", extra={"game_id": key[0]})
            return
        if self._current(key) is not notice:  # the player acted meanwhile
            await self._delete(message)
            return
        notice.message = _kept(message)
        self.sent += message is not None
        if old is not None:
            await self._delete(old)

    def adopt(self, game_id: int, player: str, message: Posted) -> None:
        """A notice posted before a restart: deleted like the others once the player acts."""
        self._notices.setdefault(game_id, {}).setdefault(player, Notice(message=message))

    async def warn(self, game_id: int, players: list[str]) -> None:
        """The timer is about to move for these players: make sure they know."""
        game = self._notices.setdefault(game_id, {})
        for player in players:
            notice = game.setdefault(player, Notice())
            if notice.warned:
                continue
            notice.warned = True
            notice.cancel()
            await self._post((game_id, player), notice, warning=True)

    def clear(self, game_id: int, players: list[str] | None = None) -> None:
        """These players acted or their turn passed (all of the game's when ``None``)."""
        game = self._notices.get(game_id)
        if not game:
            return
        for player in list(game) if players is None else players:
            notice = game.pop(player, None)
            if notice is None:
                continue
            notice.cancel()
            if notice.message is not None:
                self._spawn(self._delete(notice.message), f"notice-delete:{game_id}")
        if not game:
            del self._notices[game_id]

    async def _delete(self, message: Posted | None) -> None:
        if message is None:
            return
        with contextlib.suppress(discord.HTTPException, Dropped), priority(Priority.OPTIONAL):
            await message.delete()
            self.deleted += 1

    def games(self) -> set[int]:
        """The games with a notice armed, posted or warned."""
        return set(self._notices)

    def pending(self, game_id: int) -> list[str]:
        return list(self._notices.get(game_id, {}))

    def close(self) -> None:
        for game in self._notices.values():
            for notice in game.values():
                notice.cancel()
        self._notices.clear()
