"""Computer seats: what they play (off the event loop, within their level's budget) and
when (at a human pace, :meth:`ComputerRoom.computer_delay`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bot import computers
from bot.ai import LEVELS as AI_BUDGETS
from bot.ai import timed_out
from bot.engine.lobby import is_computer
from bot.seated.timers import TimerRoom
from bot.storage import StoredGame

__all__ = ["ComputerRoom"]

log = logging.getLogger("gamenight.seated")


class ComputerRoom(TimerRoom):
    """Computer seats move like the timer does for a late colleague, decided by the AI."""

    def _level(self, stored: StoredGame, player: str) -> str:
        return str((stored.meta.get("computers") or {}).get(player, "normal"))

    async def _think(self, stored: StoredGame, player: str) -> dict[str, Any]:
        """A computer seat's move, decided off the event loop within its level's budget.
        An AI error, an illegal answer or a late one falls back to the timer's move (logged),
        so a computer never stalls a game."""
        level = self._level(stored, player)
        budget = AI_BUDGETS.get(level, AI_BUDGETS["normal"])
        seed = (stored.id * 1_000_003 + stored.version) & 0x7FFF_FFFF
        game = stored.game
        try:
            choice = await computers.think(
                game,
                player,
                level=level,
                seed=seed,
                budget_ms=budget,
                timeout=budget / 1000 + self.AI_GRACE,
            )
        except TimeoutError:
            choice = timed_out(game, player)
        if choice.fallback not in (None, "no_ai"):
            log.warning(
                "a computer player fell back to the timer's move",
                extra={"game_id": stored.id, "why": choice.fallback, "error": repr(choice.error)},
            )
        return dict(choice.action)

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """How long a computer seat takes before its move appears (a real-time game makes it
        a reaction time that depends on the level and on the options it sees)."""
        return self.COMPUTER_DELAY

    async def _computer_move(self, stored: StoredGame, player: str) -> None:
        """A computer seat moves, shown like a colleague's move."""
        before = stored.game.to_act()
        done = await self._bot_move(stored, player)
        if done is not None:
            after, events, _ = done
            self._publish(after, events, before=before, actor=player)

    async def _computers(self, game_id: int) -> None:
        """Computer seats move, at a human pace, while it is their turn. Each decides on the
        board it saw before its delay; if the board changed meanwhile, its move is dropped
        quietly and it looks again."""
        while True:
            stored = await self.bot.store.games.get(game_id)
            if stored is None or not stored.is_active:
                return
            waiting = [p for p in stored.game.to_act() if is_computer(p)]
            if not waiting:
                return
            await asyncio.sleep(self.computer_delay(stored, waiting[0]))
            try:
                await self._computer_move(stored, waiting[0])
            except Exception:
                log.exception("a computer seat could not move", extra={"game_id": game_id})
                return
