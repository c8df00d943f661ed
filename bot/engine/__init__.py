"""The pure game engine: one protocol (docs/engine.md) for every game.

No import of discord, asyncio, the database or the clock here or below.
"""

from bot.engine import games as _games  # noqa: F401 - fills GAMES
from bot.engine.base import GAMES, SYSTEM, Event, Game, IllegalAction, load_game, new_game

__all__ = ["GAMES", "SYSTEM", "Event", "Game", "IllegalAction", "load_game", "new_game"]
