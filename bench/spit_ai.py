"""Spit computer players on duplicate deals, and their decision times.

A match ``X vs B``: every deal is played twice with the same seed (the same deal and the
same reshuffles as far as the moves allow), ``X`` in seat 0 then in seat 1. Both players
are equally fast: at each step a seeded coin picks which of the players in ``to_act()``
acts next, and that player acts with its own policy on the current board (the race of
two players who see and click as fast). Prints ``X``'s win rate over all games with a 95%
confidence interval (normal approximation over the deals, each deal's two games paired;
a draw counts half), and, per match, the decision time per move (p50, p99: wall clock
and CPU time) of each computer level of the match; at the end, the same over the whole
run. ``--busy N`` keeps N other tables (``hard`` against ``hard``) playing in their own
processes meanwhile, the load of a bot whose workers serve other tables.

The cog gives each level its own reaction time; here both players are equally fast, so
the win rate measures the levels' skill alone.

Players: ``random`` (a seeded random legal action), ``auto`` (``Spit.auto_action``, what a
computer seat did before it had an AI), ``easy``, ``normal``, ``hard`` (``bot.ai.choose``).

    python -m bench.spit_ai                        # every match below, 100 deals
    python -m bench.spit_ai --match hard:auto --games 300 --jobs 2
    python -m bench.spit_ai --match easy:auto --piles 4 --alternate-colors --no-slap
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench._players import Busy, Decisions, Policy, mean_ci, policy, timed_of
from bot.engine import new_game
from bot.engine.spit import DEFAULTS

IDS = ["p1", "p2"]
MATCHES = ["hard:easy", "normal:easy", "hard:normal", "easy:random", "hard:auto", "auto:random"]
MAX_ACTIONS = 20_000
"""A game still running after this many actions is stopped: its deal is left out."""


def play_deal(seed: int, seats: list[Policy], options: dict[str, Any]) -> float | None:
    """One game on deal ``seed``, seat k played by ``seats[k]``: seat 0's result (1 won,
    0 lost, 0.5 a draw), None when it ran past ``MAX_ACTIONS``."""
    game = new_game("spit", IDS, seed, options)
    race = random.Random(seed)  # the same coin in both games of a deal
    rnds = [random.Random(seed * 4 + k) for k in range(2)]
    seat = {p: k for k, p in enumerate(IDS)}
    for _ in range(MAX_ACTIONS):
        acting = game.to_act()
        if not acting:
            ranking = game.result()["ranking"]
            return 0.5 if len(ranking[0]) > 1 else float(ranking[0][0] == IDS[0])
        player = acting[0] if len(acting) == 1 else race.choice(acting)
        k = seat[player]
        game.apply(player, seats[k](game, player, rnds[k]))
    return None


def busy_table(seed: int) -> None:
    """One game, ``hard`` against ``hard`` (a table that keeps a worker busy)."""
    play_deal(seed, [policy("hard", None), policy("hard", None)], dict(DEFAULTS))


def deal_task(task: tuple[str, str, int, dict[str, Any], int | None]) -> dict[str, Any]:
    """Both games of one deal (run in a worker): ``X``'s mean result, or None."""
    x_name, b_name, seed, options, budget = task
    x, base = policy(x_name, budget), policy(b_name, budget)
    first = play_deal(seed, [x, base], options)
    second = play_deal(seed, [base, x], options)
    result = None if first is None or second is None else (first + 1 - second) / 2
    return {"x": result, "timed": timed_of(x, base)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="deals per match (2 games each)")
    parser.add_argument("--budget-ms", type=int, default=None, help="budget per move (ms)")
    parser.add_argument(
        "--match", action="append", help=f"X:B, repeatable (default: {' '.join(MATCHES)})"
    )
    parser.add_argument("--seed", type=int, default=1000, help="first deal seed")
    parser.add_argument("--piles", type=int, default=5, choices=(5, 4))
    parser.add_argument("--alternate-colors", action="store_true")
    parser.add_argument("--no-slap", action="store_true")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--busy", type=int, default=0, help="other tables (hard:hard) playing meanwhile"
    )
    args = parser.parse_args()
    options = {
        "piles": args.piles,
        "alternate_colors": args.alternate_colors,
        "no_slap": args.no_slap,
    }
    print(f"{args.games} deals x 2 games (seats swapped), options {options}")
    decisions = Decisions()
    with ProcessPoolExecutor(args.jobs) as pool, Busy(busy_table, args.busy):
        for spec in args.match or MATCHES:
            x, base = spec.split(":")
            start = time.perf_counter()
            tasks = [(x, base, args.seed + d, options, args.budget_ms) for d in range(args.games)]
            results: list[float] = []
            match = Decisions()
            unfinished = 0
            for res in pool.map(deal_task, tasks):
                if res["x"] is None:
                    unfinished += 1
                else:
                    results.append(res["x"])
                decisions.add(res["timed"])
                match.add(res["timed"])
            took = time.perf_counter() - start
            print(
                f"{x} vs {base}: {x} wins {mean_ci(results, '.3f') if results else 'n/a'} "
                f"over {2 * len(results)} games; deals left out (a game past "
                f"{MAX_ACTIONS} actions) {unfinished}  [{took:.0f} s]",
                flush=True,
            )
            match.print_match(digits=2)
    print("whole run:")
    decisions.print(args.budget_ms, digits=2)


if __name__ == "__main__":
    main()
