"""Fair races: moves of one game applied in the order Discord received them.

Two players clicking at once may reach the bot in either order, and the bot may finish
reading them in yet another. A Discord snowflake (the interaction id) carries the time
Discord created it, to the millisecond, so the fair order is the snowflakes' order. Each
move waits ``window`` seconds after it arrived (enough for a move created earlier but
delivered later to arrive too), then the waiting moves of the game run one at a time,
smallest snowflake first. Only the rule check and the commit run in that order: the
Discord answer is sent afterwards, outside it.
"""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["ArrivalOrder", "snowflake_ms"]

T = TypeVar("T")
DISCORD_EPOCH_MS = 1_420_070_400_000


def snowflake_ms(snowflake: int) -> int:
    """When Discord created the object, in milliseconds since the Unix epoch."""
    return (snowflake >> 22) + DISCORD_EPOCH_MS


class _Queue:
    def __init__(self) -> None:
        self.heap: list[int] = []
        self.turn = asyncio.Condition()


class ArrivalOrder:
    """Per game, run moves in snowflake order (see the module docstring)."""

    def __init__(self, *, window: float = 0.015) -> None:
        self.window = window
        self._queues: dict[int, _Queue] = {}

    def games(self) -> set[int]:
        """The games with moves waiting for their turn."""
        return set(self._queues)

    async def run(self, game_id: int, snowflake: int, work: Callable[[], Awaitable[T]]) -> T:
        queue = self._queues.get(game_id)
        if queue is None:
            queue = self._queues[game_id] = _Queue()
        heapq.heappush(queue.heap, snowflake)
        try:
            if self.window:
                await asyncio.sleep(self.window)
            async with queue.turn:
                await queue.turn.wait_for(lambda: queue.heap[0] == snowflake)
                try:
                    return await work()
                finally:
                    heapq.heappop(queue.heap)
                    queue.turn.notify_all()
        except BaseException:
            if snowflake in queue.heap:
                queue.heap.remove(snowflake)
                heapq.heapify(queue.heap)
                async with queue.turn:
                    queue.turn.notify_all()
            raise
        finally:
            if not queue.heap and self._queues.get(game_id) is queue:
                del self._queues[game_id]
