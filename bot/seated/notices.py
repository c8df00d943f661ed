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

__all__ = ["Notice", "TurnNotices"]

log = logging.getLogger("gamenight.seated.notices")

Sender = Callable[[int, str, bool], Awaitable["discord.Message | None"]]
"""``async (game_id, player, warning) -> message or None``: post the notice."""


Posted = discord.Message | discord.PartialMessage


@dataclass
class Notice:
    task: asyncio.Task[None] | None = None
    message: Posted | None = None
    warned: bool = False


class TurnNotices:
    def __init__(self, send: Sender, *, delay: float = 8.0) -> None:
        self._send = send
        self.delay = delay
        self._notices: dict[tuple[int, str], Notice] = {}
        self.sent = 0
        self.deleted = 0
        self._deleting: set[asyncio.Task[None]] = set()

    def arm(self, game_id: int, players: list[str]) -> None:
        """These players' turn started: notify each unless they act within ``delay``."""
        for player in players:
            key = (game_id, player)
            if key in self._notices:
                continue
            notice = Notice()
            notice.task = asyncio.create_task(self._later(key, notice), name=f"notice:{key}")
            self._notices[key] = notice

    async def _later(self, key: tuple[int, str], notice: Notice) -> None:
        await asyncio.sleep(self.delay)
        await self._post(key, notice, warning=False)

    async def _post(self, key: tuple[int, str], notice: Notice, *, warning: bool) -> None:
        old = notice.message
        try:
            message = await self._send(key[0], key[1], warning)
        except discord.HTTPException:
            log.warning("could not send a turn notice", extra={"game_id": key[0]})
            return
        if self._notices.get(key) is not notice:  # the player acted meanwhile
            await self._delete(message)
            return
        notice.message = message
        self.sent += message is not None
        if old is not None:
            await self._delete(old)

    def adopt(self, game_id: int, player: str, message: Posted) -> None:
        """A notice posted before a restart: deleted like the others once the player acts."""
        self._notices.setdefault((game_id, player), Notice(message=message))

    async def warn(self, game_id: int, players: list[str]) -> None:
        """The timer is about to move for these players: make sure they know."""
        for player in players:
            key = (game_id, player)
            notice = self._notices.setdefault(key, Notice())
            if notice.warned:
                continue
            notice.warned = True
            if notice.task is not None:
                notice.task.cancel()
            await self._post(key, notice, warning=True)

    def clear(self, game_id: int, players: list[str] | None = None) -> None:
        """These players acted or their turn passed (all of the game's when ``None``)."""
        keys = [
            k for k in self._notices if k[0] == game_id and (players is None or k[1] in players)
        ]
        for key in keys:
            notice = self._notices.pop(key)
            if notice.task is not None:
                notice.task.cancel()
            if notice.message is not None:
                task = asyncio.create_task(self._delete(notice.message))
                self._deleting.add(task)
                task.add_done_callback(self._deleting.discard)

    async def _delete(self, message: Posted | None) -> None:
        if message is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await message.delete()
            self.deleted += 1

    def pending(self, game_id: int) -> list[str]:
        return [k[1] for k in self._notices if k[0] == game_id]

    def close(self) -> None:
        for notice in self._notices.values():
            if notice.task is not None:
                notice.task.cancel()
        self._notices.clear()
