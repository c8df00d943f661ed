"""Speahx computer players on duplicate deals, and their decision times.

A match ``X vs B``: every deal (4 players unless ``--players``) is played once with ``B``
in every seat, then once per seat with ``X`` in that seat and ``B`` in the others: the same
seed, so the same deal and stock, the seats rotated. The loser is the last player holding
cards (docs/rules/speahx.md). For each deal the paired difference is the mean over the seats
of (``B`` lost in that seat) - (``X`` lost there): positive when ``X`` loses less often than
``B`` would in the same seat (``B`` loses 1/n of the seatings, one per deal). Prints, per
match, how often ``X`` lost against the 1/n of an equal with a 95% confidence interval, the
mean difference with its 95% confidence interval (normal approximations over the deals),
and the decision time per move (p50, p99, wall clock and CPU time: the CPU time is what
the budget buys, the wall clock adds whatever else runs on the machine) of each computer
level of the match; at the end, the same times over the whole run. ``--busy N`` keeps N
other tables (all seats ``hard``) playing in their own processes meanwhile, the load of a
bot whose workers serve other tables.

Players: ``random`` (a seeded random legal action), ``auto`` (``Speahx.auto_action``, the
turn timer's move), ``easy``, ``normal``, ``hard`` (``bot.ai.choose``).

    python -m bench.speahx_ai                          # every match below, 100 deals
    python -m bench.speahx_ai --match hard:easy --games 500 --jobs 2
    python -m bench.speahx_ai --match easy:random --games 200 --players 6 --jokers
    python -m bench.speahx_ai --match hard:easy --games 20 --busy 2   # times under load
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench._players import Busy, Decisions, Policy, mean_ci, policy, share_ci, timed_of
from bot.engine import new_game

IDS = [f"p{i}" for i in range(1, 15)]
MATCHES = ["easy:random", "normal:easy", "hard:easy", "hard:normal", "auto:random"]
MAX_ACTIONS = 5_000
"""A game still running after this many actions is stopped: its deal is left out."""


def play_deal(seed: int, seats: list[Policy], jokers: bool) -> int | None:
    """One game on deal ``seed``, seat k played by ``seats[k]``; the loser's seat."""
    players = IDS[: len(seats)]
    game = new_game("speahx", players, seed, {"jokers": jokers})
    rnds = [random.Random(seed * 16 + k) for k in range(len(players))]
    seat = {p: k for k, p in enumerate(players)}
    for _ in range(MAX_ACTIONS):
        if game.is_over():
            return seat[game.result()["loser"]]
        player = game.to_act()[0]
        k = seat[player]
        game.apply(player, seats[k](game, player, rnds[k]))
    return None


def busy_table(seed: int, n: int = 4) -> None:
    """One game with every seat ``hard`` (a table that keeps a worker busy)."""
    play_deal(seed, [policy("hard", None)] * n, False)


def deal_task(task: tuple[str, str, int, int, bool, int | None]) -> dict[str, Any]:
    """One deal of a match: the all-``B`` game and the ``n`` rotated ones (run in a worker)."""
    x_name, b_name, seed, n, jokers, budget = task
    x, base = policy(x_name, budget), policy(b_name, budget)
    baseline = play_deal(seed, [base] * n, jokers)
    x_lost = 0
    unfinished = baseline is None
    for s in range(n):
        seats = [base] * n
        seats[s] = x
        loser = play_deal(seed, seats, jokers)
        unfinished |= loser is None
        x_lost += loser == s
    return {"x_lost": x_lost, "unfinished": unfinished, "timed": timed_of(x, base)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="deals per match")
    parser.add_argument("--budget-ms", type=int, default=None, help="budget per move (ms)")
    parser.add_argument(
        "--match", action="append", help=f"X:B, repeatable (default: {' '.join(MATCHES)})"
    )
    parser.add_argument("--seed", type=int, default=1000, help="first deal seed")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 15), help="2 to 14")
    parser.add_argument("--jokers", action="store_true", help="play with the 2 jokers")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--busy", type=int, default=0, help="other tables (all hard) playing meanwhile"
    )
    args = parser.parse_args()
    n = args.players
    print(
        f"{args.games} deals x ({n} + 1) games, {n} players, "
        f"jokers {'on' if args.jokers else 'off'}"
    )
    decisions = Decisions()
    with ProcessPoolExecutor(args.jobs) as pool, Busy(busy_table, args.busy):
        for spec in args.match or MATCHES:
            x, base = spec.split(":")
            start = time.perf_counter()
            tasks = [
                (x, base, args.seed + d, n, args.jokers, args.budget_ms) for d in range(args.games)
            ]
            diffs: list[float] = []
            shares: list[float] = []
            match = Decisions()
            lost = unfinished = 0
            for res in pool.map(deal_task, tasks):
                if res["unfinished"]:  # no loser in one of its games: the deal is left out
                    unfinished += 1
                else:
                    lost += res["x_lost"]
                    diffs.append((1 - res["x_lost"]) / n)
                    shares.append(res["x_lost"] / n)
                decisions.add(res["timed"])
                match.add(res["timed"])
            took = time.perf_counter() - start
            games = max(1, len(diffs) * n)
            print(
                f"{x} vs {base}: {x} lost {lost}/{games} games, "
                f"{share_ci(shares) if shares else 'n/a'} (an equal {1 / n:.3f}); "
                f"B lost - X lost per seat {mean_ci(diffs)}; "
                f"deals left out (a game past {MAX_ACTIONS} actions) {unfinished}  [{took:.0f} s]",
                flush=True,
            )
            match.print_match()
    print("whole run:")
    decisions.print(args.budget_ms)


if __name__ == "__main__":
    main()
