"""Edits of one message, in order, newest state wins, never under a game's lock.

Every message the seated-game kit keeps up to date (the public table, each private hand)
has a *slot* here. A move submits the message's new content with the game's version; one
worker per slot sends it. While an edit is in flight, newer submissions replace each other,
so a burst of moves costs one more edit, not one per move, and an older state is never
sent after a newer one. An interaction answer that already showed a version (the clicker's
own message, updated in the answer) is noted with :meth:`MessageEditor.shown` so that no
older edit overwrites it.

``min_interval`` spaces the edits of one slot (Discord limits how often a channel's
messages may be edited): moves arriving faster are coalesced into the next edit.

Each submission names its :class:`bot.budget.Priority`: an edit made with the bot's token
waits for its turn in the REST budget (``budget``) *before* it takes the newest content, so
that moves made while it waited are shown by that one edit. ``priority=None`` marks an edit
that goes through an interaction's token (not counted by Discord's global limit): those only
wait for ``limit``, which bounds how many are made at once, so that in a rush the clicks of
players are answered first.

A failed edit is not lost: when Discord is down (5xx, no connection) the slot tries again
after a jittered, growing delay, with the newest state by then; a refusal (403) is reported
once through ``on_refused`` and not retried; any other error is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord

from bot.budget import Dropped, Priority, RestBudget

__all__ = ["MessageEditor"]

log = logging.getLogger("gamenight.seated.editor")

Send = Callable[[], Awaitable[None]]
Refused = Callable[[Hashable, discord.HTTPException], None]
RETRY_FIRST = 2.0
RETRY_MAX = 60.0


@dataclass(slots=True)
class _Slot:
    shown: int = -1
    """The newest version the message shows (sent, or shown by an interaction answer)."""
    pending: tuple[int, Send, Priority | None] | None = None
    worker: asyncio.Task[None] | None = None
    """The task sending its edits while there are any (``None`` once they are out)."""
    last_sent: float = field(default=0.0)
    retry: float = 0.0
    """Seconds before the next try after Discord failed (0: none failed)."""


class MessageEditor:
    """Coalescing, ordered edits per message key."""

    def __init__(
        self,
        *,
        min_interval: float = 0.0,
        limit: asyncio.Semaphore | None = None,
        budget: RestBudget | None = None,
        on_refused: Refused | None = None,
    ) -> None:
        self.min_interval = min_interval
        self.limit = limit
        self.budget = budget
        self.on_refused = on_refused
        self._slots: dict[Hashable, _Slot] = {}
        self.sent = 0
        """How many edits were sent (for benchmarks)."""

    def submit(
        self,
        key: Hashable,
        version: int,
        send: Send,
        priority: Priority | None = Priority.TABLE,
    ) -> None:
        """Show ``version`` on the message ``key`` (``send`` makes the Discord call, at
        ``priority`` in the REST budget; ``None``: through an interaction's token)."""
        slot = self._slots.setdefault(key, _Slot())
        if version <= slot.shown or (slot.pending is not None and version < slot.pending[0]):
            return
        slot.pending = (version, send, priority)
        if slot.worker is None or slot.worker.done():
            slot.worker = asyncio.create_task(self._run(key, slot), name=f"edit:{key}")

    def shown(self, key: Hashable, version: int) -> None:
        """An interaction answer showed ``version`` on ``key``: older pending edits are moot."""
        slot = self._slots.setdefault(key, _Slot())
        slot.shown = max(slot.shown, version)
        if slot.pending is not None and slot.pending[0] <= slot.shown:
            slot.pending = None

    def forget_game(self, game_id: int) -> None:
        """Drop the slots of a finished game (keys are tuples starting with its id)."""
        for key in [k for k in self._slots if isinstance(k, tuple) and k and k[0] == game_id]:
            slot = self._slots.pop(key)
            slot.pending = None

    async def _run(self, key: Hashable, slot: _Slot) -> None:
        try:
            await self._edits(key, slot)
        finally:
            # A done task would keep its coroutine and name as long as the slot lives.
            if slot.worker is asyncio.current_task():
                slot.worker = None

    async def _edits(self, key: Hashable, slot: _Slot) -> None:
        while slot.pending is not None:
            wait = slot.last_sent + max(self.min_interval, slot.retry) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                if slot.pending is None:
                    break
            level = slot.pending[2]
            if level is None or self.budget is None:
                gate: contextlib.AbstractAsyncContextManager[Any] = (
                    self.limit or contextlib.nullcontext()
                )
            else:
                gate = self.budget.turn(level)
            try:
                async with gate:
                    if slot.pending is None:
                        break
                    version, send, level = slot.pending  # the newest, after the wait
                    slot.pending = None
                    if version <= slot.shown:
                        continue
                    await self._send(key, slot, version, send, level)
            except Dropped:
                slot.pending = None  # the guard drops it: nothing is retried
            slot.last_sent = time.monotonic()

    async def _send(
        self, key: Hashable, slot: _Slot, version: int, send: Send, level: Priority | None
    ) -> None:
        try:
            await send()
        except (TimeoutError, discord.DiscordServerError, aiohttp.ClientError) as err:
            # Discord is down or unreachable: the newest state goes once it is back.
            slot.retry = min(RETRY_MAX, max(RETRY_FIRST, slot.retry * 2))
            slot.retry *= random.uniform(0.75, 1.25)
            if slot.pending is None:
                slot.pending = (version, send, level)
            log.warning(
                "could not edit a game message; trying again",
                extra={"key": str(key), "error": type(err).__name__, "in_s": round(slot.retry)},
            )
            return
        except discord.Forbidden as err:
            slot.shown = max(slot.shown, version)
            slot.retry = 0.0
            if self.on_refused is not None:
                self.on_refused(key, err)
            else:
                log.warning(
                    "could not edit a game message",
                    extra={"key": str(key), "status": err.status, "code": err.code},
                )
            return
        except discord.HTTPException as err:
            log.warning(
                "could not edit a game message",
                extra={"key": str(key), "status": err.status, "code": err.code},
            )
        else:
            self.sent += 1
        slot.retry = 0.0
        slot.shown = max(slot.shown, version)

    async def drain(self) -> None:
        """Wait until every submitted edit was sent (tests, shutdown)."""
        while True:
            workers = [s.worker for s in self._slots.values() if s.worker and not s.worker.done()]
            if not workers:
                return
            await asyncio.gather(*workers, return_exceptions=True)

    def games(self) -> set[int]:
        """The games with a slot here (keys are tuples starting with the game's id)."""
        return {int(k[0]) for k in self._slots if isinstance(k, tuple) and k}

    def close(self) -> None:
        for slot in self._slots.values():
            slot.pending = None
            if slot.worker is not None:
                slot.worker.cancel()
        self._slots.clear()

    def busy(self, game_id: int | None = None) -> bool:
        """Whether edits are on their way (of one game's messages, with ``game_id``)."""
        return any(
            s.worker and not s.worker.done()
            for k, s in self._slots.items()
            if game_id is None or (isinstance(k, tuple) and k and k[0] == game_id)
        )
