"""Speahx computer players on duplicate deals, and their decision times.

A match ``X vs B``: every deal (4 players unless ``--players``) is played once with ``B``
in every seat, then once per seat with ``X`` in that seat and ``B`` in the others: the same
seed, so the same deal and stock, the seats rotated. The loser is the last player holding
cards (RULES.md section 3). For each deal the paired difference is the mean over the seats
of (``B`` lost in that seat) - (``X`` lost there): positive when ``X`` loses less often than
``B`` would in the same seat (``B`` loses 1/n of the seatings, one per deal). Prints how often
``X`` lost against the 1/n of an equal, the mean difference with a 95% confidence interval
(normal approximation over the deals), and the decision time per move (p50, p99, wall
clock and CPU time: the CPU time is what the budget buys, the wall clock adds whatever else
runs on the machine) of each computer level.

Players: ``random`` (a seeded random legal action), ``auto`` (``Speahx.auto_action``, the
turn timer's move), ``easy``, ``normal``, ``hard`` (``bot.ai.choose``).

    python -m bench.speahx_ai                          # every match below, 100 deals
    python -m bench.speahx_ai --match hard:easy --games 500 --jobs 2
    python -m bench.speahx_ai --match easy:random --games 200 --players 6 --jokers
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench._latency import percentile
from bot.ai import LEVELS, choose
from bot.engine import Game, new_game

IDS = [f"p{i}" for i in range(1, 15)]
MATCHES = ["easy:random", "normal:easy", "hard:easy", "hard:normal", "auto:random"]
MAX_ACTIONS = 5_000
"""A game still running after this many actions is stopped: its deal is left out."""

Policy = Callable[[Game, str, random.Random], dict[str, Any]]


def random_policy(game: Game, player: str, rnd: random.Random) -> dict[str, Any]:
    return dict(rnd.choice(game.legal_actions(player)))


def auto_policy(game: Game, player: str, rnd: random.Random) -> dict[str, Any]:
    return game.auto_action(player)


class Timed:
    """A ``bot.ai`` level; records the time of every decision and every fallback."""

    def __init__(self, level: str, budget_ms: int) -> None:
        self.level = level
        self.budget_ms = budget_ms
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.fallbacks = 0

    def __call__(self, game: Game, player: str, rnd: random.Random) -> dict[str, Any]:
        seed = rnd.getrandbits(32)
        start, cpu = time.perf_counter(), time.process_time()
        choice = choose(game, player, level=self.level, seed=seed, budget_ms=self.budget_ms)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.process_time() - cpu)
        self.fallbacks += choice.fallback is not None
        return choice.action


def policy(name: str, budget_ms: int | None) -> Policy:
    if name == "random":
        return random_policy
    if name == "auto":
        return auto_policy
    return Timed(name, budget_ms or LEVELS[name])


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
    timed = {p.level: (p.times, p.cpu, p.fallbacks) for p in (x, base) if isinstance(p, Timed)}
    return {"x_lost": x_lost, "unfinished": unfinished, "timed": timed}


def summary(diffs: list[float]) -> str:
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    return f"{mean:+.3f} (95% CI {mean - half:+.3f} .. {mean + half:+.3f})"


def figures(seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    return (
        f"p50 {percentile(ms, 0.5):.1f} ms, p99 {percentile(ms, 0.99):.1f} ms, max {ms[-1]:.1f} ms"
    )


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
    args = parser.parse_args()
    n = args.players
    print(
        f"{args.games} deals x ({n} + 1) games, {n} players, "
        f"jokers {'on' if args.jokers else 'off'}"
    )
    times: dict[str, tuple[list[float], list[float], list[int]]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for spec in args.match or MATCHES:
            x, base = spec.split(":")
            start = time.perf_counter()
            tasks = [
                (x, base, args.seed + d, n, args.jokers, args.budget_ms) for d in range(args.games)
            ]
            diffs: list[float] = []
            lost = unfinished = 0
            for res in pool.map(deal_task, tasks):
                if res["unfinished"]:  # no loser in one of its games: the deal is left out
                    unfinished += 1
                else:
                    lost += res["x_lost"]
                    diffs.append((1 - res["x_lost"]) / n)
                for level, (wall, cpu, fallbacks) in res["timed"].items():
                    acc = times.setdefault(level, ([], [], [0]))
                    acc[0].extend(wall)
                    acc[1].extend(cpu)
                    acc[2][0] += fallbacks
            took = time.perf_counter() - start
            games = max(1, len(diffs) * n)
            print(
                f"{x} vs {base}: {x} lost {lost}/{games} "
                f"({lost / games:.3f}, an equal {1 / n:.3f}); "
                f"B lost - X lost per seat {summary(diffs)}; "
                f"deals left out (a game past {MAX_ACTIONS} actions) {unfinished}  [{took:.0f} s]",
                flush=True,
            )
    for level in LEVELS:
        if level in times:
            wall, cpu, fallbacks = times[level]
            budget = args.budget_ms or LEVELS[level]
            print(
                f"{level} (budget {budget} ms): {len(wall)} decisions, "
                f"wall {figures(wall)}; CPU {figures(cpu)}; fallbacks {fallbacks[0]}"
            )


if __name__ == "__main__":
    main()
