"""Computer players, pure like the engine: no discord, asyncio, storage or clock.

``decide(kind, view, level=, seed=, budget_ms=)`` from a player's view alone;
``choose(game, player, ...)`` for the bot: checked legal, else the game's ``auto_action``.
Each kind's AI registers itself in ``AIS`` (today: Papayoo, Speahx and Spit).
"""

from bot.ai import papayoo as _papayoo  # noqa: F401 - fills AIS
from bot.ai import speahx as _speahx  # noqa: F401 - fills AIS
from bot.ai import spit as _spit  # noqa: F401 - fills AIS
from bot.ai.base import AIS, LEVELS, Choice, NoAI, choose, decide, is_legal, register, timed_out

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
