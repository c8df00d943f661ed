"""The fake Discord's own time of day: when a poll ends and an external event is completed.

``fake.now()`` is the real time plus ``fake.clock_offset`` (the sandbox uses its movable
clock instead). ``await fake.advance_clock(seconds)`` moves it and runs what fell due;
``await fake.run_due()`` runs what is due now (the sandbox calls it on each tick). It is
not the REST clock of rate limits and token lifetimes (``fake.rest_clock``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any


class WallClockMixin:
    """``now()``, ``advance_clock()`` and ``run_due()`` of :class:`~.server.FakeDiscordServer`."""

    clock_offset: float = 0.0

    if TYPE_CHECKING:

        async def end_due_polls(self) -> list[Any]: ...

        async def complete_due_events(self) -> list[Any]: ...

    def now(self) -> float:
        """Epoch seconds on the fake's clock."""
        return time.time() + self.clock_offset

    async def advance_clock(self, seconds: float) -> None:
        """Move the fake's clock forward, then end the polls and events that fell due."""
        if seconds < 0:
            raise ValueError("the fake's clock only moves forward")
        self.clock_offset += seconds
        await self.run_due()

    async def run_due(self) -> None:
        """End the polls whose time is up and complete the external events that are over."""
        await self.end_due_polls()
        await self.complete_due_events()
