"""Random playouts of Papayoo through the engine protocol, on one core.

Each game: 4 players, 4 rounds, pass included. Every step picks the first player in
``to_act()`` and a random legal action (seeded ``random.Random``), then applies it.
Prints games/s and actions/s, the median of several repeats.

    python -m bench.papayoo_engine --games 300 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.engine import new_game

PLAYERS = ["p1", "p2", "p3", "p4"]
OPTIONS = {"rounds": 4}


def playout(seed: int, rnd: random.Random) -> int:
    """One full game with random legal actions; returns the number of actions applied."""
    game = new_game("papayoo", PLAYERS, seed, OPTIONS)
    choice = rnd.choice
    legal_actions = game.legal_actions
    apply = game.apply
    to_act = game.to_act
    actions = 0
    while True:
        acting = to_act()
        if not acting:
            return actions
        player = acting[0]
        apply(player, choice(legal_actions(player)))
        actions += 1


def run(games: int, seed: int) -> tuple[float, int]:
    """Play ``games`` games; returns (seconds, actions)."""
    rnd = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    for i in range(games):
        actions += playout(seed + i, rnd)
    return time.perf_counter() - start, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is kept)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    run(max(1, args.games // 10), args.seed)  # warm-up
    games_per_s: list[float] = []
    actions_per_s: list[float] = []
    for r in range(args.repeats):
        seconds, actions = run(args.games, args.seed + r * args.games)
        games_per_s.append(args.games / seconds)
        actions_per_s.append(actions / seconds)
        print(f"repeat {r + 1}: {games_per_s[-1]:,.0f} games/s, {actions_per_s[-1]:,.0f} actions/s")
    print(
        f"median of {args.repeats} x {args.games} games (4 players, 4 rounds, pass included): "
        f"{statistics.median(games_per_s):,.0f} games/s, "
        f"{statistics.median(actions_per_s):,.0f} actions/s"
    )


if __name__ == "__main__":
    main()
