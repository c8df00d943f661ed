"""The fake Discord's own time of day: message times, threads' activity and archiving, when a
poll ends and an external event is completed.

``fake.discord_now()`` is the real time (or the clock given to ``follow_clock``, a test's
``FakeClock``) plus ``fake.clock_offset``; the sandbox uses its movable clock instead.
``await fake.advance_clock(seconds)`` moves it and runs what fell due; ``await fake.run_due()``
runs what is due now (the sandbox calls it on each tick). It is not the REST clock of rate
limits and token lifetimes (``fake.rest_clock``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.fakediscord.models import FakeChannel


class WallClockMixin:
    """``discord_now()``, ``follow_clock()``, ``advance_clock()`` and ``run_due()`` of
    :class:`~.server.FakeDiscordServer`."""

    #: Seconds the fake's wall clock is ahead of the real time (``advance_clock``).
    clock_offset: float = 0.0
    #: A clock (anything with ``now()`` giving an aware datetime, as ``bot.clock``'s) the
    #: fake's wall clock follows instead of the real time (``follow_clock``).
    wall_clock: Any = None

    if TYPE_CHECKING:

        async def end_due_polls(self) -> list[Any]: ...

        async def complete_due_events(self) -> list[Any]: ...

        async def sweep_threads(self) -> list[FakeChannel]: ...

    def discord_now(self) -> float:
        """Discord's wall clock, in epoch seconds."""
        base = time.time() if self.wall_clock is None else self.wall_clock.now().timestamp()
        return base + self.clock_offset

    def follow_clock(self, clock: Any) -> None:
        """Make the fake's wall clock the bot's (a test's ``FakeClock``): moving it moves
        Discord's time too; what fell due runs at the next request, user action or
        ``run_due()``."""
        self.wall_clock = clock

    async def advance_clock(self, seconds: float) -> list[FakeChannel]:
        """Move the fake's wall clock forward, then run what fell due (``run_due``). Returns
        the threads that archived. The REST clock and the bot's own clock are not moved."""
        if seconds < 0:
            raise ValueError("the fake's clock only moves forward")
        self.clock_offset += seconds
        return await self.run_due()

    async def run_due(self) -> list[FakeChannel]:
        """End the polls whose time is up, complete the external events that are over and
        archive the threads idle for their ``auto_archive_duration``; returns those threads."""
        await self.end_due_polls()
        await self.complete_due_events()
        return await self.sweep_threads()
