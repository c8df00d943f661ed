"""Papayoo computer players on duplicate deals, and their decision times.

A match ``X vs B``: every deal (one round, 4 players unless ``--players``) is played once with ``B`` in every
seat, then once per seat with ``X`` in that seat and ``B`` in the others: the same cards,
the same die, the seats rotated. For each deal the paired difference is the mean over the
seats of (``B``'s points in that seat) - (``X``'s points there): positive when ``X``
takes fewer points than ``B`` would have in the same seat. Prints the mean per round with
a 95% confidence interval (normal approximation over the deals), and the decision time
per move (p50, p99, wall clock and CPU time: the CPU time is what the budget buys, the
wall clock adds whatever else runs on the machine) of each computer level.

Players: ``random`` (a seeded random legal action), ``lowest`` (the old turn timer: the
lowest cards), ``auto`` (``Papayoo.auto_action``, today's turn timer), ``easy``,
``normal``, ``hard`` (``bot.ai.choose``).

    python -m bench.papayoo_ai                      # every match below, 200 deals
    python -m bench.papayoo_ai --match hard:easy --deals 50 --budget-ms 100
    python -m bench.papayoo_ai --match hard:easy --deals 10 --players 8
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from bench._players import Policy, Timed, auto_policy, figures, mean_ci
from bot.ai import LEVELS
from bot.engine import new_game
from bot.engine.papayoo import LOW_ORDER, PASS_SIZE, Papayoo

IDS = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]
PLAYERS = IDS[:4]
"""The seats; ``--players`` changes how many."""
MATCHES = ["auto:random", "lowest:random", "easy:random", "hard:easy", "normal:easy", "hard:normal"]


def random_policy(game: Papayoo, player: str, rnd: random.Random) -> dict[str, Any]:
    legal = game.legal_actions(player)
    if legal[0]["type"] == "pass":
        need = PASS_SIZE[len(PLAYERS)] - len(game.view(player)["passed"])
        return {"type": "pass", "cards": rnd.sample([a["cards"][0] for a in legal], need)}
    return dict(rnd.choice(legal))


def lowest_policy(game: Papayoo, player: str, rnd: random.Random) -> dict[str, Any]:
    """The turn timer before the rule player: the lowest cards, pass and play."""
    legal = game.legal_actions(player)
    if legal[0]["type"] == "pass":
        need = PASS_SIZE[len(PLAYERS)] - len(game.view(player)["passed"])
        cards = sorted((a["cards"][0] for a in legal), key=LOW_ORDER.__getitem__)[:need]
        return {"type": "pass", "cards": cards}
    return dict(min(legal, key=lambda a: LOW_ORDER[a["card"]]))


def play_deal(seed: int, seats: list[Policy]) -> list[int]:
    """One round on deal ``seed``, seat k played by ``seats[k]``; the points of each seat."""
    game = new_game("papayoo", PLAYERS, seed, {"rounds": 1})
    assert isinstance(game, Papayoo)
    rnds = [random.Random(seed * 8 + k) for k in range(len(PLAYERS))]
    while not game.is_over():
        player = game.to_act()[0]
        k = PLAYERS.index(player)
        game.apply(player, seats[k](game, player, rnds[k]))
    points: dict[str, int] = game.result()["rounds"][0]
    return [points[p] for p in PLAYERS]


def match(x: Policy, base: Policy, deals: int, first_seed: int) -> list[float]:
    """The paired differences, one per deal (positive: ``x`` takes fewer points)."""
    diffs: list[float] = []
    n = len(PLAYERS)
    for d in range(deals):
        seed = first_seed + d
        baseline = play_deal(seed, [base] * n)
        gains = []
        for s in range(n):
            seats = [base] * n
            seats[s] = x
            gains.append(baseline[s] - play_deal(seed, seats)[s])
        diffs.append(sum(gains) / n)
    return diffs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per match")
    parser.add_argument("--budget-ms", type=int, default=None, help="budget per move (ms)")
    parser.add_argument(
        "--match", action="append", help=f"X:B, repeatable (default: {' '.join(MATCHES)})"
    )
    parser.add_argument("--seed", type=int, default=1000, help="first deal seed")
    parser.add_argument("--players", type=int, default=4, choices=range(3, 9), help="3 to 8")
    args = parser.parse_args()
    PLAYERS[:] = IDS[: args.players]
    timed = {level: Timed(level, args.budget_ms or LEVELS[level]) for level in LEVELS}
    policies: dict[str, Policy] = {
        "random": random_policy,
        "lowest": lowest_policy,
        "auto": auto_policy,
        **timed,
    }
    n = len(PLAYERS)
    print(f"{args.deals} deals x {n} seatings, {n} players, one round each")
    for spec in args.match or MATCHES:
        x, base = spec.split(":")
        start = time.perf_counter()
        diffs = match(policies[x], policies[base], args.deals, args.seed)
        took = time.perf_counter() - start
        print(f"{x} vs {base}: {mean_ci(diffs, '+.1f')} points/round  [{took:.0f} s]", flush=True)
    for level, t in timed.items():
        if t.times:
            print(
                f"{level} (budget {t.budget_ms} ms): {len(t.times)} decisions, "
                f"wall {figures(t.times)}; CPU {figures(t.cpu)}; fallbacks {t.fallbacks}"
            )


if __name__ == "__main__":
    main()
