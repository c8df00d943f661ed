"""Posts of one channel (or thread) in the order things happened.

A move is saved, then its message is sent: when a channel's bucket is full (Discord allows
about five messages per five seconds in one channel), the messages of moves made meanwhile
would race each other for the next places, and a result could arrive after a later one, or
after the day's closing. A :class:`Sequencer` sends one channel's posts one at a time, in
the order of their *tickets*:

- :meth:`Sequencer.take` hands out the next ticket. It is synchronous: called right after
  the move's save returned (before any ``await``), tickets follow the order of the saves.
- :meth:`Sequencer.post` gives a ticket its call (it is sent once every earlier ticket was
  sent or skipped), :meth:`Sequencer.skip` gives it up (the move posts nothing after all).
  A ticket neither posted nor skipped within ``hold`` seconds is skipped, so that one lost
  caller never stops the channel; its call, if it comes after all, is sent last (late,
  never lost).
- :meth:`Sequencer.drained` waits until every ticket up to one was dealt with: the closing
  of a day takes its ticket after its own save, so it waits for the day's last result.

One worker per channel sends; each call goes through the REST budget at ``priority`` (the
budget paces the token's global rate; discord.py waits out the channel's bucket, and the
worker sends nothing else meanwhile, so the order holds). A call that fails is logged and
the next one goes: an ordered channel never stalls on one refused message.
:class:`Sequencers` keeps one per channel id while it has work.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from bot.budget import Priority, priority

__all__ = ["HOLD", "Sequencer", "Sequencers"]

log = logging.getLogger("gamenight.sequencer")

HOLD: Final = 30.0
"""Seconds a ticket may wait for its call before it is skipped."""

Send = Callable[[], Awaitable[Any]]
_SKIP: Final = object()


class Sequencer:
    """One channel's posts, sent one by one in ticket order."""

    def __init__(
        self, *, level: Priority = Priority.NOTICE, hold: float = HOLD, name: str = ""
    ) -> None:
        self.level = level
        self.hold = hold
        self.name = name
        self._next = 0
        """The next ticket to hand out."""
        self._done = 0
        """Every ticket below this was sent or skipped."""
        self._calls: dict[int, Any] = {}
        self._results: dict[int, asyncio.Future[Any]] = {}
        self._skipped: set[int] = set()
        """Tickets given up: a call that comes for one after all is sent last."""
        self._changed = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self.sent = 0
        """How many calls were sent (for benchmarks)."""

    @property
    def idle(self) -> bool:
        return self._done == self._next

    def take(self) -> int:
        """The next ticket (synchronous: take it in the order of the saves)."""
        ticket = self._next
        self._next += 1
        self._start()
        return ticket

    def post(self, ticket: int, send: Send) -> asyncio.Future[Any]:
        """Send ``send()`` in its turn; the future has its result (or its exception)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if ticket in self._skipped:
            # its hold ran out (or skip() was called): sent last, never lost
            self._skipped.discard(ticket)
            log.warning("a post came after its turn: sent last", extra={"channel": self.name})
            ticket = self.take()
        elif ticket < self._done or ticket in self._calls:
            future.set_exception(ValueError(f"ticket {ticket} was already posted"))
            return future
        self._calls[ticket] = send
        self._results[ticket] = future
        self._changed.set()
        self._start()
        return future

    def skip(self, ticket: int) -> None:
        """The ticket posts nothing."""
        if ticket >= self._done and ticket not in self._calls:
            self._calls[ticket] = _SKIP
            self._skipped.add(ticket)
            self._changed.set()

    async def send(self, send: Send) -> Any:
        """Take a ticket and post at once (a post nobody saved a move for)."""
        return await self.post(self.take(), send)

    async def drained(self, upto: int | None = None) -> None:
        """Wait until every ticket up to ``upto`` (default: every one taken) is dealt with."""
        last = self._next - 1 if upto is None else upto
        while self._done <= last:
            self._changed.clear()
            await self._changed.wait()

    def _start(self) -> None:
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run(), name=f"sequencer:{self.name}")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._done < self._next:
                ticket = self._done
                if ticket not in self._calls:
                    deadline = loop.time() + self.hold
                    while ticket not in self._calls and loop.time() < deadline:
                        self._changed.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self._changed.wait(), deadline - loop.time())
                    if ticket not in self._calls:
                        log.warning("a post never came: skipped", extra={"channel": self.name})
                        self._calls[ticket] = _SKIP
                        self._skipped.add(ticket)
                call = self._calls.pop(ticket)
                future = self._results.pop(ticket, None)
                if call is not _SKIP:
                    await self._send(call, future)
                self._done += 1
                self._changed.set()
        finally:
            if self._worker is asyncio.current_task():
                self._worker = None

    async def _send(self, call: Send, future: asyncio.Future[Any] | None) -> None:
        try:
            with priority(self.level):
                result = await call()
        except Exception as err:
            log.warning("an ordered post failed", extra={"channel": self.name}, exc_info=True)
            if future is not None and not future.done():
                future.set_exception(err)
        else:
            self.sent += 1
            if future is not None and not future.done():
                future.set_result(result)


class Sequencers:
    """One :class:`Sequencer` per channel id, kept while it has work."""

    def __init__(self, *, level: Priority = Priority.NOTICE, hold: float = HOLD) -> None:
        self.level = level
        self.hold = hold
        self._by_channel: dict[int, Sequencer] = {}

    def of(self, channel_id: int) -> Sequencer:
        for key in [k for k, s in self._by_channel.items() if s.idle and k != channel_id]:
            del self._by_channel[key]  # idle channels are forgotten
        found = self._by_channel.get(channel_id)
        if found is None:
            found = Sequencer(level=self.level, hold=self.hold, name=str(channel_id))
            self._by_channel[channel_id] = found
        return found

    def __len__(self) -> int:
        return len(self._by_channel)
