"""One REST budget for every call made with the bot's token.

Discord gives a bot token about 50 REST calls per second across all routes (the answer to an
interaction, and follow-ups and edits made with the interaction's token, are not counted);
refused calls (401, 403, 429) past 10,000 in 10 minutes get the bot's address banned for
about an hour. discord.py waits out the per-route buckets it is told about, but nothing in it
keeps a busy bot under the global limit. :class:`RestBudget` does, for every request the
bot's HTTP session makes:

- **Pacing.** A request that counts against the global limit waits for a place among
  ``rate`` calls (``REST_CALLS_PER_SECOND``, 80% of Discord's 50 by default). A place is held
  while the request is in flight and for one second after its answer: Discord counts a
  request when it arrives, somewhere between the two, so however the network delays them,
  no second at Discord sees more than ``rate`` of them. Interaction endpoints never wait.
- **Priorities.** Waiting requests go out by :class:`Priority` (then in order of arrival):
  what unblocks a player (the next player's controls, a start's table and hands) before
  table refreshes, those before notices and records. A coroutine names its priority with
  ``with priority(Priority.TABLE): ...``; the default is :attr:`Priority.UNBLOCK`.
- **Coalescing** is the callers' part (:class:`bot.seated.editor.MessageEditor`): an edit
  takes its place with :meth:`RestBudget.turn` *before* it reads the newest content, so
  that what waited is sent once, newest state, and a superseded edit is never sent.
- **Far from the ban.** Every 401, 403 and 429 of the last 10 minutes is counted; past
  ``OPTIONAL_GUARD`` optional calls are dropped (:class:`Dropped`), past ``NOTICE_GUARD``
  notices too. A global 429 (which the pacing should never meet) pauses every request for
  its ``retry_after``.
- **Outages.** A 5xx answer or a connection error pauses the budget with a jittered,
  growing backoff (one request probes at a time), so that the bot does not retry in a
  burst when Discord comes back.
- **Capacity.** :meth:`RestBudget.congested` says when waiting requests already need more
  than a couple of seconds: new tables then wait in their lobby (running games first).
- **Shared by processes.** Discord's global limit is per token, however many processes
  (shards) use it: each process paces at its ``share`` of the rate (``REST_SHARE``, by
  default its part of the shards), so that the processes together stay under the limit.

It plugs into discord.py as an ``aiohttp.TraceConfig`` (``http_trace``): its start hook runs
before each request (discord.py's retries included) is sent. One log line a minute says how
much of the budget was used.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import random
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import IntEnum
from types import SimpleNamespace
from typing import Any

import aiohttp

__all__ = [
    "DISCORD_GLOBAL_LIMIT",
    "Dropped",
    "Priority",
    "RestBudget",
    "counts_globally",
    "priority",
]

log = logging.getLogger("gamenight.budget")

DISCORD_GLOBAL_LIMIT = 50
"""Requests per second Discord allows one bot token across all routes."""
DEFAULT_SHARE = 0.8
"""The part of the global limit the budget uses by default (the rest is headroom)."""
WINDOW = 1.0
"""Seconds of the sliding window the rate is counted over."""
INVALID_WINDOW = 600.0
"""Discord bans an address after 10,000 refused requests in this many seconds."""
OPTIONAL_GUARD = 1_000
"""Refused requests in 10 minutes past which optional calls are dropped."""
NOTICE_GUARD = 3_000
"""... past which notices and records are dropped too (only what players wait for goes)."""
CONGESTED_SECONDS = 3.0
"""Waiting requests needing more than this (at the budget's rate) mean the bot is busy."""
BACKOFF_MIN = 1.0
"""The first pause after Discord answers 5xx or cannot be reached; it doubles up to the max."""
BACKOFF_MAX = 30.0
FLIGHT_MAX = 300.0
"""A place held by a request that neither answered nor failed in this long (aiohttp's own
time-out) is freed."""
REPORT_EVERY = 60.0


class Priority(IntEnum):
    """Which waiting request goes first (lower first)."""

    UNBLOCK = 0
    """A player waits for it: the next player's controls, a start's table, hands and call."""
    TABLE = 1
    """A table others watch, a hand whose owner is not to act."""
    NOTICE = 2
    """Turn notices, round records, tidying a lobby."""
    OPTIONAL = 3
    """Nice to have (deleting a turn notice): the first to be dropped."""


_PRIORITY: ContextVar[Priority] = ContextVar("rest_priority", default=Priority.UNBLOCK)
_PREPAID: ContextVar[list[int] | None] = ContextVar("rest_prepaid", default=None)


@contextlib.contextmanager
def priority(level: Priority) -> Iterator[None]:
    """Requests made inside (by this task and the tasks it starts) wait at ``level``."""
    token = _PRIORITY.set(level)
    try:
        yield
    finally:
        _PRIORITY.reset(token)


def counts_globally(url: aiohttp.typedefs.StrOrURL) -> bool:
    """Whether a request counts against the bot token's global limit: REST calls, except the
    interaction endpoints (callbacks, and webhooks driven by an interaction's token)."""
    path = getattr(url, "path", None) or str(url)
    if "/api/" not in path:
        return False  # the gateway's websocket, attachments
    return "/interactions/" not in path and "/webhooks/" not in path


class Dropped(Exception):
    """An optional request was not sent: the bot is close to Discord's ban on refusals."""


@dataclass(order=True)
class _Waiter:
    level: int
    seq: int
    future: asyncio.Future[None] = field(compare=False)


@dataclass
class BudgetFigures:
    """What the budget did since it started (benches, the minute's log line)."""

    sent: int = 0
    exempt: int = 0
    waited: int = 0
    wait_seconds: float = 0.0
    max_wait: float = 0.0
    dropped: int = 0
    refused: dict[int, int] = field(default_factory=dict)
    global_429: int = 0
    route_429: int = 0
    server_errors: int = 0


class RestBudget:
    """Paces the bot token's REST calls (see the module's docstring)."""

    def __init__(
        self,
        rate: float = DISCORD_GLOBAL_LIMIT * DEFAULT_SHARE,
        *,
        share: float = 1.0,
        now: Callable[[], float] = time.monotonic,
        report_every: float = REPORT_EVERY,
    ) -> None:
        if rate <= 0:
            raise ValueError("the REST budget needs a positive rate")
        if not 0 < share <= 1:
            raise ValueError("a process's share of the REST budget is in (0, 1]")
        self.share = share
        """This process's part of the token's rate (the other processes on the token have
        the rest)."""
        self.rate = rate * share
        self.capacity = max(1, int(self.rate * WINDOW))
        """Requests in one window: this process's share of the rate, never the token's whole."""
        self._now = now
        self._sent: deque[float] = deque()
        """When requests in the last second were answered (their places free up after it)."""
        self._flights: deque[float] = deque()
        """When each request in flight took its place (oldest first)."""
        self._waiters: list[_Waiter] = []
        self._seq = itertools.count()
        self._wake: asyncio.TimerHandle | None = None
        self._paused_until = 0.0
        self._backoff = 0.0
        self._probing = False
        self._invalid: deque[float] = deque()
        self.figures = BudgetFigures()
        self._report_every = report_every
        self._last_report = now()
        self._window_sent = 0
        self._worst_second: dict[int, int] = {}

    # -- the trace config discord.py's HTTP session runs -------------------------------------

    def trace_config(self) -> aiohttp.TraceConfig:
        trace = aiohttp.TraceConfig()
        trace.on_request_start.append(self._on_start)
        trace.on_request_end.append(self._on_end)
        trace.on_request_exception.append(self._on_exception)
        return trace

    async def _on_start(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        if not counts_globally(params.url):
            self.figures.exempt += 1
            return
        prepaid = _PREPAID.get()
        if prepaid is not None and prepaid[0] > 0:
            prepaid[0] -= 1
        else:
            await self.acquire(_PRIORITY.get())
        ctx.paced = True

    async def _on_end(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        if getattr(ctx, "paced", False):
            ctx.paced = False
            self.release()
        status = params.response.status
        if status in (401, 403, 429):
            scope = params.response.headers.get("X-RateLimit-Scope", "")
            if not (status == 429 and scope == "shared"):
                self._invalid.append(self._now())
            self.figures.refused[status] = self.figures.refused.get(status, 0) + 1
            if status == 429:
                if params.response.headers.get("X-RateLimit-Global"):
                    self.figures.global_429 += 1
                    retry = _retry_after(params.response.headers)
                    self._pause(retry)
                    log.warning("Discord's global rate limit was met", extra={"retry_after": retry})
                else:
                    self.figures.route_429 += 1
        if status >= 500:
            self._failed()
        elif counts_globally(params.url):
            self._recovered()

    async def _on_exception(
        self, session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
    ) -> None:
        if getattr(ctx, "paced", False):
            ctx.paced = False
            self.release()
        if isinstance(params.exception, asyncio.CancelledError):
            self._probing = False  # a task stopped: Discord said nothing
            with contextlib.suppress(RuntimeError):
                self._schedule()
            return
        if counts_globally(params.url):
            self._failed()

    # -- pacing ------------------------------------------------------------------------------

    async def acquire(self, level: Priority = Priority.UNBLOCK) -> None:
        """Wait for a place (raises :class:`Dropped` for a request the guard drops); the
        place is held until :meth:`release` (the trace calls it when the answer came)."""
        if self.dropping(level):
            self.figures.dropped += 1
            raise Dropped(f"{level.name} request dropped: {self.invalid_requests()} refused")
        if not self._waiters and self._free():
            self._take()
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(int(level), next(self._seq), future)
        heapq.heappush(self._waiters, waiter)
        started = self._now()
        self._schedule()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._give_back()
            else:
                future.cancel()
            raise
        waited = self._now() - started
        self.figures.waited += 1
        self.figures.wait_seconds += waited
        self.figures.max_wait = max(self.figures.max_wait, waited)

    @contextlib.asynccontextmanager
    async def turn(self, level: Priority) -> Any:
        """Wait for a place, then run the block: its first global request uses that place
        (read the newest content inside, so that what waited is sent once)."""
        await self.acquire(level)
        prepaid = [1]
        token = _PREPAID.set(prepaid)
        try:
            with priority(level):
                yield
        finally:
            _PREPAID.reset(token)
            if prepaid[0] > 0:
                self._give_back()

    def _free(self) -> bool:
        now = self._now()
        if now < self._paused_until or self._probing:
            return False
        while self._sent and self._sent[0] <= now - WINDOW:
            self._sent.popleft()
        while self._flights and self._flights[0] <= now - FLIGHT_MAX:
            self._flights.popleft()  # never answered nor failed: not held forever
        return len(self._sent) + len(self._flights) < self.capacity

    def _take(self) -> None:
        now = self._now()
        self._flights.append(now)
        self.figures.sent += 1
        second = int(now)
        self._worst_second[second] = self._worst_second.get(second, 0) + 1
        if self._backoff:
            self._probing = True  # one request at a time until Discord answers again
        self._maybe_report()

    def release(self) -> None:
        """A request that held a place was answered: its place frees up a second later."""
        if self._flights:
            self._flights.popleft()
        self._sent.append(self._now())
        with contextlib.suppress(RuntimeError):
            self._schedule()

    def _give_back(self) -> None:
        """A place taken but not used (the edit went through an interaction's token)."""
        if self._flights:
            self._flights.pop()
        self.figures.sent -= 1
        self._probing = False  # a probe not sent: the next request probes
        self._schedule()

    def _schedule(self) -> None:
        """Wake waiters now if there is room, else when the window next has room."""
        while self._waiters and self._free():
            waiter = heapq.heappop(self._waiters)
            if waiter.future.done():
                continue
            self._take()
            waiter.future.set_result(None)
        self._waiters = [w for w in self._waiters if not w.future.done()]
        heapq.heapify(self._waiters)
        if not self._waiters or (self._wake is not None and not self._wake.cancelled()):
            return
        now = self._now()
        at = now + 0.05
        if now < self._paused_until:
            at = self._paused_until
        elif self._sent and len(self._sent) + len(self._flights) >= self.capacity:
            at = self._sent[0] + WINDOW
        loop = asyncio.get_running_loop()
        self._wake = loop.call_later(max(0.0, at - now) + 0.001, self._woken)

    def _woken(self) -> None:
        self._wake = None
        self._schedule()

    def _pause(self, seconds: float) -> None:
        self._paused_until = max(self._paused_until, self._now() + seconds)

    def _failed(self) -> None:
        """Discord answered 5xx or could not be reached: back off, jittered, growing."""
        self.figures.server_errors += 1
        probe = self._probing
        self._probing = False
        if not probe and self._now() < self._paused_until:
            return  # requests sent before the pause failed too: one failure, one backoff
        self._backoff = min(BACKOFF_MAX, max(BACKOFF_MIN, self._backoff * 2))
        self._pause(self._backoff * random.uniform(0.5, 1.0))

    def _recovered(self) -> None:
        if self._backoff or self._probing:
            self._backoff = 0.0
            self._probing = False
            with contextlib.suppress(RuntimeError):
                self._schedule()

    # -- the guard and capacity --------------------------------------------------------------

    def invalid_requests(self) -> int:
        """Requests Discord refused (401, 403, 429) in the last 10 minutes."""
        horizon = self._now() - INVALID_WINDOW
        while self._invalid and self._invalid[0] < horizon:
            self._invalid.popleft()
        return len(self._invalid)

    def dropping(self, level: Priority) -> bool:
        """Whether a request at ``level`` would be dropped now (callers may skip it)."""
        if level >= Priority.OPTIONAL:
            return self.invalid_requests() >= OPTIONAL_GUARD
        if level >= Priority.NOTICE:
            return self.invalid_requests() >= NOTICE_GUARD
        return False

    def backlog(self, level: Priority = Priority.TABLE) -> int:
        """Requests waiting at ``level`` or more urgent."""
        return sum(1 for w in self._waiters if w.level <= level and not w.future.done())

    def congested(self) -> bool:
        """Whether the requests players wait for already need more than a couple of
        seconds: new tables should wait (running games keep the budget)."""
        return self.backlog(Priority.TABLE) > self.rate * CONGESTED_SECONDS or (
            self._now() < self._paused_until
        )

    # -- the minute's report -----------------------------------------------------------------

    def _maybe_report(self) -> None:
        now = self._now()
        if now - self._last_report < self._report_every:
            return
        seconds = now - self._last_report
        sent = self.figures.sent - self._window_sent
        worst = max(self._worst_second.values(), default=0)
        log.info(
            "rest budget",
            extra={
                "calls_per_s": round(sent / seconds, 1),
                "worst_second": worst,
                "limit_per_s": round(self.rate, 2),
                "share": self.share,
                "used_pct": round(100 * sent / seconds / self.rate),
                "waiting": len(self._waiters),
                "max_wait_ms": round(self.figures.max_wait * 1000),
                "global_429": self.figures.global_429,
                "route_429": self.figures.route_429,
                "refused_10min": self.invalid_requests(),
                "dropped": self.figures.dropped,
            },
        )
        self._last_report = now
        self._window_sent = self.figures.sent
        self._worst_second.clear()
        self.figures.max_wait = 0.0


def _retry_after(headers: Any) -> float:
    for name in ("X-RateLimit-Reset-After", "Retry-After"):
        value = headers.get(name)
        if value:
            with contextlib.suppress(ValueError):
                return float(value)
    return 1.0
