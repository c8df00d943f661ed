"""The pass a Papayoo hand suggests: the computer player's own.

At the pass a player is offered the cards a computer player of the ``normal`` level would
pass from their hand (:mod:`bot.ai.papayoo`: the most dangerous cards, the pass the turn
timer also makes for a late player), to take in one click or to change. It depends on the
hand alone, so every copy of the hand, before and after a restart, suggests the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.ai import decide

LEVEL: Final = "normal"
"""The computer player whose pass is suggested (``hard`` weighs a few swaps by playing
rounds out: some 150 ms per hand shown, for a gain within the noise)."""


def suggested_pass(view: Mapping[str, Any]) -> list[str]:
    """The cards ``view``'s player is suggested to pass now; none when they have no pass
    to make."""
    you = view.get("you") or {}
    legal = you.get("legal_actions") or []
    if view.get("phase") != "pass" or not legal:
        return []
    action = decide("papayoo", dict(view), level=LEVEL, seed=0, budget_ms=0)
    return [str(c) for c in action.get("cards") or []]
