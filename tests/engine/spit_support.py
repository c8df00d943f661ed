"""Hand-built Spit positions for the engine's and the computer players' tests.

Stock piles are listed bottom first (the last card is face up), spit cards with the next to
turn last, and every card not named goes to the bottom of one spit pile so the 52 cards are
all there.
"""

from __future__ import annotations

import json
from typing import Any

from bot.engine import load_game
from bot.engine.spit import DECK, DEFAULTS, Spit

A, B = "111", "222"


def make(
    stocks: list[list[list[str]]],
    spits: list[list[str]],
    spit_cards: tuple[list[str], list[str]] = ([], []),
    *,
    options: dict[str, Any] | None = None,
    phase: str = "play",
    filler: int = 0,
    **state: Any,
) -> Spit:
    opts = {**DEFAULTS, **(options or {})}
    piles = opts["piles"]
    full = [[list(p) for p in s] + [[] for _ in range(piles - len(s))] for s in stocks]
    centre = [list(p) for p in spits]
    used = [c for s in full for p in s for c in p]
    used += [c for p in centre for c in p] + [c for s in spit_cards for c in s]
    assert len(set(used)) == len(used), "a card named twice"
    centre[filler][:0] = [c for c in DECK if c not in used]
    data = {
        "kind": "spit",
        "players": [A, B],
        "options": opts,
        "rng": 7,
        "phase": phase,
        "stocks": full,
        "spit_cards": [list(s) for s in spit_cards],
        "spits": centre,
        "lone_pile": None,
        "spitter": None,
        "ready": [False, False],
        "emptied": None,
        "reason": "",
        "layouts": 0,
        "last": None,
        "winner": None,
        **state,
    }
    game = load_game(json.dumps(data))
    assert isinstance(game, Spit)
    return game
