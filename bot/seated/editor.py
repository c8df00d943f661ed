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

``limit`` (shared by every editor of the bot) bounds how many edits are made at once. In a
rush (hundreds of tables starting, every hand and table to draw) the edits wait there, off
the event loop's queue, so that the clicks of players are answered first; the state an edit
finally sends is the newest one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field

import discord

__all__ = ["MessageEditor"]

log = logging.getLogger("gamenight.seated.editor")

Send = Callable[[], Awaitable[None]]


@dataclass
class _Slot:
    shown: int = -1
    """The newest version the message shows (sent, or shown by an interaction answer)."""
    pending: tuple[int, Send] | None = None
    worker: asyncio.Task[None] | None = None
    last_sent: float = field(default=0.0)


class MessageEditor:
    """Coalescing, ordered edits per message key."""

    def __init__(
        self, *, min_interval: float = 0.0, limit: asyncio.Semaphore | None = None
    ) -> None:
        self.min_interval = min_interval
        self.limit = limit
        self._slots: dict[Hashable, _Slot] = {}
        self.sent = 0
        """How many edits were sent (for benchmarks)."""

    def submit(self, key: Hashable, version: int, send: Send) -> None:
        """Show ``version`` on the message ``key`` (``send`` makes the Discord call)."""
        slot = self._slots.setdefault(key, _Slot())
        if version <= slot.shown or (slot.pending is not None and version < slot.pending[0]):
            return
        slot.pending = (version, send)
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
        while slot.pending is not None:
            wait = slot.last_sent + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
                if slot.pending is None:
                    break
            async with self.limit or contextlib.nullcontext():
                if slot.pending is None:
                    break
                version, send = slot.pending  # the newest, after the wait for a turn
                slot.pending = None
                if version <= slot.shown:
                    continue
                try:
                    await send()
                    self.sent += 1
                except discord.HTTPException as err:
                    log.warning(
                        "could not edit a game message",
                        extra={"key": str(key), "status": err.status, "code": err.code},
                    )
                slot.shown = max(slot.shown, version)
                slot.last_sent = time.monotonic()

    async def drain(self) -> None:
        """Wait until every submitted edit was sent (tests, shutdown)."""
        while True:
            workers = [s.worker for s in self._slots.values() if s.worker and not s.worker.done()]
            if not workers:
                return
            await asyncio.gather(*workers, return_exceptions=True)

    def close(self) -> None:
        for slot in self._slots.values():
            slot.pending = None
            if slot.worker is not None:
                slot.worker.cancel()
        self._slots.clear()

    def busy(self) -> bool:
        return any(s.worker and not s.worker.done() for s in self._slots.values())
