"""Random playouts of Spit through the engine protocol, on one core.

Each game: 2 players, the options chosen on the command line. Every step picks a random
player in ``to_act()`` (a random interleaving of the two real-time players) and one of
their legal actions (seeded ``random.Random``; a play rather than a fill 4 times out of 5,
as players do), then applies it. Prints games/s and actions/s, the median of several
repeats, and the actions per game.

    python -m bench.spit_engine --games 200 --repeats 5
    python -m bench.spit_engine --piles 4 --alternate-colors --no-slap
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from bot.engine import new_game

PLAYERS = ["p1", "p2"]


def playout(seed: int, rnd: random.Random, options: dict[str, Any]) -> int:
    """One full game with random legal actions; returns the number of actions applied."""
    game = new_game("spit", PLAYERS, seed, options)
    choice = rnd.choice
    draw = rnd.random
    legal_actions = game.legal_actions
    apply = game.apply
    to_act = game.to_act
    actions = 0
    while True:
        acting = to_act()
        if not acting:
            return actions
        player = choice(acting)
        legal = legal_actions(player)
        plays = [a for a in legal if a["type"] == "play"]
        apply(player, choice(plays if plays and draw() < 0.8 else legal))
        actions += 1


def run(games: int, seed: int, options: dict[str, Any]) -> tuple[float, int]:
    """Play ``games`` games; returns (seconds, actions)."""
    rnd = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        actions += playout(seed + i, rnd, options)
    return time.perf_counter() - start, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is kept)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--piles", type=int, default=5, choices=(5, 4))
    parser.add_argument("--alternate-colors", action="store_true")
    parser.add_argument("--no-slap", action="store_true")
    args = parser.parse_args()
    options = {
        "piles": args.piles,
        "alternate_colors": args.alternate_colors,
        "no_slap": args.no_slap,
    }
    run(max(1, args.games // 10), args.seed, options)  # warm-up
    games_per_s: list[float] = []
    actions_per_s: list[float] = []
    per_game: list[float] = []
    for r in range(args.repeats):
        seconds, actions = run(args.games, args.seed + r * args.games, options)
        games_per_s.append(args.games / seconds)
        actions_per_s.append(actions / seconds)
        per_game.append(actions / args.games)
        print(
            f"repeat {r + 1}: {games_per_s[-1]:,.0f} games/s, {actions_per_s[-1]:,.0f} actions/s, "
            f"{per_game[-1]:,.0f} actions/game"
        )
    print(
        f"median of {args.repeats} x {args.games} games ({options}): "
        f"{statistics.median(games_per_s):,.0f} games/s, "
        f"{statistics.median(actions_per_s):,.0f} actions/s, "
        f"{statistics.median(per_game):,.0f} actions/game"
    )


if __name__ == "__main__":
    main()
