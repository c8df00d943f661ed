"""What the computer-player benchmarks share: the players of a match, the timing of the
computer levels, a mean with its 95% confidence interval, and the decision times.

A player (``Policy``) is ``(game, player, rnd) -> action``: ``random`` (a seeded random
legal action), ``auto`` (the game's ``auto_action``, the turn timer's move), or a level of
``bot.ai`` (``Timed``, which records the time of each decision).
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any

from bench._latency import percentile
from bot.ai import LEVELS, choose
from bot.engine import Game

Policy = Callable[[Any, str, random.Random], dict[str, Any]]
Times = tuple[list[float], list[float], int]
"""Wall-clock seconds, CPU seconds per decision, and the fallbacks to ``auto_action``."""


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
    """``random``, ``auto`` or a ``bot.ai`` level (its default budget unless ``budget_ms``)."""
    if name == "random":
        return random_policy
    if name == "auto":
        return auto_policy
    return Timed(name, budget_ms or LEVELS[name])


def timed_of(*players: Policy) -> dict[str, Times]:
    """The decision times of those players that are ``bot.ai`` levels (sent back from a
    worker process)."""
    return {p.level: (p.times, p.cpu, p.fallbacks) for p in players if isinstance(p, Timed)}


def mean_ci(values: list[float], fmt: str = "+.3f") -> str:
    """``mean (95% CI low .. high)``: normal approximation over the values."""
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else math.inf
    half = 1.96 * spread / math.sqrt(len(values))
    return f"{mean:{fmt}} (95% CI {mean - half:{fmt}} .. {mean + half:{fmt}})"


def share_ci(values: list[float]) -> str:
    """``share (95% CI low .. high)`` of values in 0..1, as fractions (3 decimals)."""
    return mean_ci(values, ".3f")


def figures(seconds: list[float], digits: int = 1) -> str:
    """p50, p99 and max of durations given in seconds, in milliseconds."""
    ms = sorted(1000 * s for s in seconds)
    return (
        f"p50 {percentile(ms, 0.5):.{digits}f} ms, p99 {percentile(ms, 0.99):.{digits}f} ms,"
        f" max {ms[-1]:.{digits}f} ms"
    )


class Decisions:
    """The decision times of every level over a run, printed at its end."""

    def __init__(self) -> None:
        self.times: dict[str, tuple[list[float], list[float], list[int]]] = {}

    def add(self, timed: dict[str, Times]) -> None:
        for level, (wall, cpu, fallbacks) in timed.items():
            acc = self.times.setdefault(level, ([], [], [0]))
            acc[0].extend(wall)
            acc[1].extend(cpu)
            acc[2][0] += fallbacks

    def print(self, budget_ms: int | None, digits: int = 1) -> None:
        for level in LEVELS:
            if level in self.times:
                wall, cpu, fallbacks = self.times[level]
                budget = budget_ms or LEVELS[level]
                print(
                    f"{level} (budget {budget} ms): {len(wall)} decisions, wall"
                    f" {figures(wall, digits)}; CPU {figures(cpu, digits)};"
                    f" fallbacks {fallbacks[0]}"
                )

    def print_match(self, indent: str = "  ", digits: int = 1) -> None:
        """One line per level of a match: decisions, wall p50 / p99, CPU p50 / p99."""
        for level in LEVELS:
            if level in self.times:
                wall, cpu, fallbacks = self.times[level]
                ms = sorted(1000 * s for s in wall)
                cms = sorted(1000 * s for s in cpu)
                print(
                    f"{indent}{level}: {len(wall)} decisions, wall p50"
                    f" {percentile(ms, 0.5):.{digits}f} ms p99 {percentile(ms, 0.99):.{digits}f}"
                    f" ms; CPU p50 {percentile(cms, 0.5):.{digits}f} ms p99"
                    f" {percentile(cms, 0.99):.{digits}f} ms; fallbacks {fallbacks[0]}",
                    flush=True,
                )


def _busy_loop(table: Callable[[int], object], first: int) -> None:
    for seed in itertools.count(first):
        table(seed)


class Busy:
    """``n`` other tables playing without pause in their own processes while a match is
    measured (the load of a bot whose workers serve other tables): ``with Busy(table, n):``
    where ``table(seed)`` plays one whole game. The processes are stopped on exit."""

    def __init__(self, table: Callable[[int], object], n: int) -> None:
        self.table = table
        self.n = n
        self.procs: list[multiprocessing.Process] = []

    def __enter__(self) -> Busy:
        for k in range(self.n):
            proc = multiprocessing.Process(
                target=_busy_loop, args=(self.table, 10_000_000 * (k + 1)), daemon=True
            )
            proc.start()
            self.procs.append(proc)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        err: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            proc.join()
        self.procs = []
