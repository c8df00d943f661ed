"""A simulated office: 30 colleagues with hidden skills play Papayoo, Speahx and Spit;
how well do the ratings find who is good?

The games are real: the engines of ``bot.engine`` deal and score them, and each move of a
colleague is the computer player's (``bot.ai``, level ``normal`` at ``--budget-ms``) with
probability ``q``, else a random legal move. ``q`` is the colleague's hidden skill: ten
around each of the levels' thirds (``easy`` 1/3, ``normal`` 2/3, ``hard`` 1) plus noise
(normal, sd 0.1, kept within [0.05, 1]). The tables are drawn at random (Papayoo 3 to 5
players, one round; Speahx 3 to 5; Spit 2), one kind after the other; the games are played
in ``--workers`` processes, then rated in order.

Prints:

1. Kendall's tau between the hidden skills and the ratings (the displayed number,
   ``mu - 3 sigma``, and ``mu``) once the office has played 10, 20 and 50 games a player
   (mean; the fewest games anyone has then in brackets), for OpenSkill's Plackett-Luce
   (the bot's model) and the other models, on the same games: which model to use.
2. The same games stored through ``GameStore.act`` (each game's last move, so its result
   and its rating are written in one transaction, as the bot does) into a SQLite file:
   the median time of such a move, then ``python -m bot ratings rebuild``'s work
   (``RatingStore.rebuild``): its wall time and whether it gives the live ratings again,
   twice.
3. Späye's däyes, drawn as the engine draws them (two cards at random from the day's
   table; the higher value wins, a nikäye means no winner, equal values draw again),
   rated pairwise: the split-half agreement (tau between the ratings of the odd and of
   the even däyes) says whether they measure anything a rating could show.
4. The computer levels, each playing every move of one seat at tables of colleagues,
   rated like them per game: where a fixed-strength computer would stand, game by game.

    python -m bench.office                       # 30 players, 2,000 games
    python -m bench.office --games 300 --workers 1
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

from bot.ai import choose
from bot.clock import FakeClock
from bot.engine import load_game, new_game
from bot.engine.spaye.rules import NIKAYE_VALUE, spaye_deck
from bot.engine.spaye.rules import card_value as spaye_value
from bot.ratings.model import MU, SIGMA, Skill, ordinal, placements, ranks_of, rate
from bot.storage import Database, Store

GUILD = 77
FIRST_ID = 1000
"""Colleague ``k`` is the member ``FIRST_ID + k`` (a numeric id, as Discord's)."""
CHECKPOINTS = (10, 20, 50)
TABLES: dict[str, tuple[int, int, dict[str, Any]]] = {
    "papayoo": (3, 5, {"rounds": 1}),
    "speahx": (3, 5, {}),
    "spit": (2, 2, {}),
}
MODELS: dict[str, Callable[[], Any]] = {
    "PlackettLuce": lambda: PlackettLuce(mu=MU, sigma=SIGMA),
    "BradleyTerryFull": lambda: BradleyTerryFull(mu=MU, sigma=SIGMA),
    "BradleyTerryPart": lambda: BradleyTerryPart(mu=MU, sigma=SIGMA),
    "ThurstoneMostellerFull": lambda: ThurstoneMostellerFull(mu=MU, sigma=SIGMA),
    "ThurstoneMostellerPart": lambda: ThurstoneMostellerPart(mu=MU, sigma=SIGMA),
}


@dataclass(frozen=True)
class Played:
    """One game played: who sat, the ranks, and what the store needs to finish it again."""

    number: int
    kind: str
    players: tuple[str, ...]
    ranks: dict[str, int]
    before_last: str
    """The engine state just before the last move (``dumps()``)."""
    last_player: str
    last_action: dict[str, Any]


def hidden_skills(count: int, seed: int) -> list[float]:
    rnd = random.Random(seed)
    centres = [1 / 3, 2 / 3, 1.0]
    return [min(1.0, max(0.05, centres[k * 3 // count] + rnd.gauss(0, 0.1))) for k in range(count)]


def schedule(
    count: int, games: int, seed: int, *, computers: bool = False
) -> list[tuple[int, str, list[int | str]]]:
    """``(number, kind, seats)`` of every game: kinds in turn, tables drawn at random;
    ``computers``: one seat of each table is a computer level (in turn)."""
    rnd = random.Random(seed + computers)
    kinds = list(TABLES)
    levels = list(LEVEL_IDS)
    out: list[tuple[int, str, list[int | str]]] = []
    for number in range(games):
        kind = kinds[number % len(kinds)]
        low, high, _ = TABLES[kind]
        size = rnd.randint(low, high) - computers
        seats: list[int | str] = list(rnd.sample(range(count), size))
        if computers:
            seats.insert(rnd.randrange(len(seats) + 1), levels[number // len(kinds) % 3])
        out.append((number, kind, seats))
    return out


def computer_anchors(games: Sequence[Played]) -> dict[str, dict[str, Skill]]:
    """Per game, the rating each computer level gets among the office (colleagues and
    computers rated alike, one rating per game kind)."""
    by_kind: dict[str, dict[str, Skill]] = {k: {} for k in TABLES}
    for game in games:
        skills = by_kind[game.kind]
        places = placements({p: game.ranks.get(p) for p in game.players})
        after = rate([skills.get(p, Skill()) for p in game.players],
                     [places[p] for p in game.players])  # fmt: skip
        for p, new in zip(game.players, after, strict=True):
            skills[p] = new
    return {
        k: {LEVEL_IDS[p]: s for p, s in v.items() if p in LEVEL_IDS} for k, v in by_kind.items()
    }


LEVEL_IDS: dict[str, str] = {"900": "easy", "901": "normal", "902": "hard"}
"""Seats played by a computer level itself, every move (``--computer-games``)."""


def play(job: tuple[int, str, list[int | str], list[float], int, int]) -> Played:
    """One game through its engine; colleague ``k`` plays the computer's move with
    probability ``skills[k]``, else a random legal one; a seat of :data:`LEVEL_IDS` is that
    computer level."""
    number, kind, seats, skills, budget_ms, seed = job
    rnd = random.Random(seed * 1_000_003 + number)
    players = [k if isinstance(k, str) else str(FIRST_ID + k) for k in seats]
    skill = {p: 1.0 if p in LEVEL_IDS else skills[int(p) - FIRST_ID] for p in players}
    game = new_game(kind, players, rnd.getrandbits(32), TABLES[kind][2])
    before, last = game.dumps(), ("", {})
    while not game.is_over():
        player = game.to_act()[0]
        if rnd.random() < skill[player]:
            level = LEVEL_IDS.get(player, "normal")
            action = choose(
                game, player, level=level, seed=rnd.getrandbits(32), budget_ms=budget_ms
            ).action
        else:
            action = dict(rnd.choice(game.legal_actions(player)))
        before, last = game.dumps(), (player, action)
        game.apply(player, action)
    ranks = ranks_of(game.result()["ranking"])
    return Played(number, kind, tuple(players), ranks, before, last[0], last[1])


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Kendall's tau-b of two equally long sequences."""
    concordant = discordant = ties_x = ties_y = 0
    n = len(xs)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return (concordant - discordant) / denominator if denominator else 0.0


def replay(
    games: Sequence[Played], skills: Sequence[float], model: Any
) -> list[tuple[int, float, int, float, float]]:
    """Rate the games in order (overall: every game); at each checkpoint ``(games a player,
    games played, fewest games of anyone, tau of mu - 3 sigma, tau of mu)``."""
    ids = [str(FIRST_ID + k) for k in range(len(skills))]
    skill = {p: Skill() for p in ids}
    played = dict.fromkeys(ids, 0)
    seats = 0
    out = []
    pending = list(CHECKPOINTS)
    for number, game in enumerate(games, 1):
        places = placements({p: game.ranks.get(p) for p in game.players})
        after = rate([skill[p] for p in game.players], [places[p] for p in game.players], model)
        for p, new in zip(game.players, after, strict=True):
            skill[p] = new
            played[p] += 1
        seats += len(game.players)
        while pending and seats / len(ids) >= pending[0]:
            out.append(
                (
                    pending.pop(0),
                    float(number),
                    min(played.values()),
                    kendall_tau(skills, [ordinal(skill[p].mu, skill[p].sigma) for p in ids]),
                    kendall_tau(skills, [skill[p].mu for p in ids]),
                )
            )
    return out


async def store_and_rebuild(
    games: Sequence[Played], skills: Sequence[float], folder: Path
) -> dict[str, Any]:
    """Every game finished through ``GameStore.act`` (result and rating in one
    transaction), then the rebuild, twice; the figures."""
    clock = FakeClock(datetime(2026, 1, 1, 8, tzinfo=UTC))
    store = Store(Database(folder / "office.sqlite3"), clock)
    await store.open()
    moves: list[float] = []
    try:
        for game in games:
            clock.advance(timedelta(minutes=50))
            game_id = await store.games.create(
                game.kind, GUILD, 1, load_game(game.before_last), meta={}
            )
            start = time.perf_counter()
            outcome = await store.games.act(game_id, game.last_player, game.last_action)
            moves.append(time.perf_counter() - start)
            assert outcome.game.status == "over"
        live = await _snapshot(store)
        season = await store.ratings.current_season(GUILD, clock.now())
        board = {
            row.user_id: row
            for row in await store.ratings.board(GUILD, "overall", season, limit=1000)
        }
        ids = [FIRST_ID + k for k in range(len(skills))]
        newcomer = Skill().rating
        tau_live = kendall_tau(skills, [board[p].rating if p in board else newcomer for p in ids])
        walls = []
        same = []
        for _ in range(2):
            start = time.perf_counter()
            report = await store.ratings.rebuild()
            walls.append(time.perf_counter() - start)
            same.append(await _snapshot(store) == live)
        return {
            "move_ms": statistics.median(moves) * 1000,
            "rebuild_s": walls,
            "same": same,
            "rows": report.rows,
            "games": report.games,
            "tau_live": tau_live,
            "season": season,
        }
    finally:
        await store.close()


async def _snapshot(store: Store) -> list[tuple[Any, ...]]:
    rows = await store.db.fetchall(
        "SELECT scope, season, user_id, mu, sigma, rating, games, wins, career, last_seq"
        " FROM ratings ORDER BY scope, season, user_id"
    )
    points = await store.db.fetchall(
        "SELECT game_id, scope, user_id, mu, sigma, rating FROM rating_points"
        " ORDER BY game_id, scope, user_id"
    )
    return [tuple(r) for r in rows] + [tuple(r) for r in points]


def dayes(count: int, total: int, seed: int) -> tuple[float, float]:
    """Späye's däyes between random pairs, as the engine draws them; the split-half tau
    (odd däyes' ratings against even däyes') and the share of däyes with a winner."""
    rnd = random.Random(seed)
    halves = [[Skill() for _ in range(count)] for _ in range(2)]
    table: list[str] = []
    decided = 0
    for number in range(total):
        if len(table) < 3:
            table = spaye_deck()
            rnd.shuffle(table)
        a, b = rnd.sample(range(count), 2)
        while True:
            ca, cb = table.pop(), table.pop()
            va, vb = spaye_value(ca), spaye_value(cb)
            if va == NIKAYE_VALUE or vb == NIKAYE_VALUE:
                places = None  # no winner: the nikäyé does the exercise
                break
            if va != vb:
                places = [1, 2] if va > vb else [2, 1]
                break
            if len(table) < 2:
                places = None
                break
        if places is None:
            continue
        decided += 1
        half = halves[number % 2]
        half[a], half[b] = rate([half[a], half[b]], places)
    odd = [ordinal(s.mu, s.sigma) for s in halves[1]]
    even = [ordinal(s.mu, s.sigma) for s in halves[0]]
    return kendall_tau(odd, even), decided / total


def split_half(games: Sequence[Played], count: int) -> float:
    """The seated games' split-half tau, for comparison with the däyes'."""
    halves = [{str(FIRST_ID + k): Skill() for k in range(count)} for _ in range(2)]
    for game in games:
        half = halves[game.number % 2]
        places = placements({p: game.ranks.get(p) for p in game.players})
        after = rate([half[p] for p in game.players], [places[p] for p in game.players])
        for p, new in zip(game.players, after, strict=True):
            half[p] = new
    ids = [str(FIRST_ID + k) for k in range(count)]
    return kendall_tau(
        [ordinal(halves[1][p].mu, halves[1][p].sigma) for p in ids],
        [ordinal(halves[0][p].mu, halves[0][p].sigma) for p in ids],
    )


def play_all(
    jobs: Sequence[tuple[int, str, list[int | str], list[float], int, int]], workers: int
) -> list[Played]:
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            return pool.map(play, jobs, chunksize=8)
    return [play(job) for job in jobs]


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.office", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget-ms", type=int, default=2, help="the computer's work budget per move"
    )
    parser.add_argument("--workers", type=int, default=2, help="processes playing the games")
    parser.add_argument("--dayes", type=int, default=20000, help="Späye däyes to rate")
    parser.add_argument(
        "--computer-games",
        type=int,
        default=450,
        help="games with one computer seat, to rate the computer levels",
    )
    args = parser.parse_args()

    skills = hidden_skills(args.players, args.seed)
    jobs = [
        (number, kind, seats, skills, args.budget_ms, args.seed)
        for number, kind, seats in schedule(args.players, args.games, args.seed)
    ]
    start = time.perf_counter()
    games = play_all(jobs, args.workers)
    wall = time.perf_counter() - start
    seats = sum(len(g.players) for g in games)
    print(
        f"{len(games)} games played through the engines in {wall:.0f} s ({args.workers}"
        f" process(es)): {seats / args.players:.0f} games a player on average"
    )
    by_kind = {k: sum(g.kind == k for g in games) for k in TABLES}
    print("  " + ", ".join(f"{k} {n}" for k, n in by_kind.items()))

    print("\n1. Kendall's tau, hidden skill vs rating (all games, one overall rating)")
    print(f"   {'model':24} " + "  ".join(f"{c:>2} games/player" for c in CHECKPOINTS))
    for name, make in MODELS.items():
        figures = replay(games, skills, make())
        cells = [f"{t_ord:.3f} (mu {t_mu:.3f}, min {low})" for _, _, low, t_ord, t_mu in figures]
        print(f"   {name:24} " + "  ".join(cells))

    print("\n2. Stored as the bot stores them, then rebuilt")
    with tempfile.TemporaryDirectory() as folder:
        stored = asyncio.run(store_and_rebuild(games, skills, Path(folder)))
    print(
        f"   the last move of each game with its result and rating: median"
        f" {stored['move_ms']:.2f} ms"
    )
    print(
        f"   tau of the live overall board ({stored['season']}) after every game:"
        f" {stored['tau_live']:.3f}"
    )
    walls = ", ".join(f"{w:.2f} s" for w in stored["rebuild_s"])
    print(
        f"   rebuild of {stored['games']} games ({stored['rows']} ratings): {walls};"
        f" equal to the live ratings: {stored['same']}"
    )

    print("\n3. Späye's däyes as a rating (split-half agreement: 1 = the same order twice)")
    tau_dayes, decided = dayes(args.players, args.dayes, args.seed)
    print(
        f"   {args.dayes} däyes ({decided:.0%} with a winner): tau(odd, even) = {tau_dayes:.3f};"
        f" the seated games above: {split_half(games, args.players):.3f}"
    )

    if args.computer_games:
        print(
            f"\n4. The computer levels rated among the office ({args.computer_games} games,"
            " one computer seat each; mu, sigma and the rating shown, per game)"
        )
        extra = [
            (number, kind, seats, skills, args.budget_ms, args.seed)
            for number, kind, seats in schedule(
                args.players, args.computer_games, args.seed, computers=True
            )
        ]
        anchors = computer_anchors(play_all(extra, args.workers))
        for kind, levels in anchors.items():
            cells = [
                f"{level} {s.mu:.1f} ± {s.sigma:.1f} ({s.rating})"
                for level, s in sorted(levels.items(), key=lambda item: item[1].mu)
            ]
            print(f"   {kind:8} " + ", ".join(cells))


if __name__ == "__main__":
    main()
