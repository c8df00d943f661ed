"""Computer players, pure like the engine: no discord, asyncio, storage or clock.

``decide(kind, view, level=, seed=, budget_ms=)`` from a player's view alone;
``choose(game, player, ...)`` for the bot: checked legal, else the game's ``auto_action``.
Each module of this package is imported here, and a kind's AI registers itself in ``AIS``
with ``@register(kind)``: a new AI is a new module, with no list to keep.
"""

from bot.ai.base import AIS, LEVELS, Choice, NoAI, choose, decide, is_legal, register, timed_out
from bot.engine.games import import_all

import_all(__name__, __path__)

__all__ = [
    "AIS",
    "LEVELS",
    "Choice",
    "NoAI",
    "choose",
    "decide",
    "is_legal",
    "register",
    "timed_out",
]
