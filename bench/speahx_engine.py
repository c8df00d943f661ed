"""Random playouts of Speahx through the engine protocol, on one core.

Each game: 4 or 14 players, no jokers. Every step takes the player in ``to_act()``, their
``legal_actions`` and a random one of them (seeded ``random.Random``), then ``apply``. Prints
games/s, actions/s and the mean legal-action list length per player count, the median of
several repeats, and the 4-to-14-player ratio.

    python -m bench.speahx_engine --games 100 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.engine import new_game

COUNTS = (4, 14)


def playout(players: list[str], seed: int, rnd: random.Random) -> tuple[int, int]:
    """One full game with random legal actions; returns (actions applied, legal actions seen)."""
    game = new_game("speahx", players, seed, {})
    choice = rnd.choice
    legal_actions = game.legal_actions
    apply = game.apply
    to_act = game.to_act
    actions = listed = 0
    while True:
        acting = to_act()
        if not acting:
            return actions, listed
        player = acting[0]
        legal = legal_actions(player)
        listed += len(legal)
        apply(player, choice(legal))
        actions += 1


def run(players: list[str], games: int, seed: int) -> tuple[float, int, int]:
    """Play ``games`` games; returns (seconds, actions, legal actions listed)."""
    rnd = random.Random(seed)
    actions = listed = 0
    start = time.perf_counter()
    for i in range(games):
        done, seen = playout(players, seed + i, rnd)
        actions += done
        listed += seen
    return time.perf_counter() - start, actions, listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games per repeat")
    parser.add_argument("--repeats", type=int, default=5, help="repeats (the median is kept)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    medians: dict[int, float] = {}
    for count in COUNTS:
        players = [f"p{i}" for i in range(count)]
        run(players, max(1, args.games // 10), args.seed)  # warm-up
        games_per_s: list[float] = []
        actions_per_s: list[float] = []
        lengths: list[float] = []
        for r in range(args.repeats):
            seconds, actions, listed = run(players, args.games, args.seed + r * args.games)
            games_per_s.append(args.games / seconds)
            actions_per_s.append(actions / seconds)
            lengths.append(listed / actions)
            print(
                f"{count} players, repeat {r + 1}: {games_per_s[-1]:,.1f} games/s, "
                f"{actions_per_s[-1]:,.0f} actions/s, {actions / args.games:,.0f} actions/game"
            )
        medians[count] = statistics.median(games_per_s)
        print(
            f"median of {args.repeats} x {args.games} games ({count} players): "
            f"{medians[count]:,.1f} games/s, {statistics.median(actions_per_s):,.0f} actions/s, "
            f"{statistics.median(lengths):.1f} legal actions per step"
        )
    low, high = COUNTS
    print(f"ratio {low} to {high} players: {medians[low] / medians[high]:.1f}x games/s")


if __name__ == "__main__":
    main()
