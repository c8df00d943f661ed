"""The rating spread inside a game night's tables: the seating rule against a random split.

Each trial draws a night of colleagues (23 by default) with mixed wishes (some only Spit,
some only Papayoo, some two games, some any) and ratings around 25 (σ 8), seats them with
:func:`bot.nights.seating.seat`, then shuffles each game's same players into tables of the
same sizes (the random split). Prints the mean and the worst spread inside a table
(strongest minus weakest rating) for both, over the tables of the games that needed
several tables (one table's spread is the same however it is made), the share of the spread the rule removes, the
people left waiting and the time a seating takes.

    python -m bench.night_seating --people 23 --trials 500
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.nights.seating import Attendee, Seating, Table, seat, table_games

GAMES = table_games()
WISHES: list[frozenset[str] | None] = [
    frozenset({"spit"}),
    frozenset({"papayoo"}),
    frozenset({"speahx"}),
    frozenset({"papayoo", "speahx"}),
    frozenset({"spit", "speahx"}),
    None,
    None,
]


def night(people: int, rnd: random.Random) -> list[Attendee]:
    return [
        Attendee(10_000 + i, rnd.choice(WISHES), round(rnd.gauss(25.0, 8.0), 2))
        for i in range(people)
    ]


def split_games(seating: Seating) -> list[list[Table]]:
    """The tables of each game that has several (a game at one table has one split)."""
    games = sorted({t.game for t in seating.tables})
    grouped = [[t for t in seating.tables if t.game == g] for g in games]
    return [tables for tables in grouped if len(tables) > 1]


def random_split(seating: Seating, rnd: random.Random) -> list[float]:
    """The spreads when each game's seated people are shuffled into the same table sizes."""
    spreads: list[float] = []
    for tables in split_games(seating):
        ratings = [p.rating for t in tables for p in t.players]
        rnd.shuffle(ratings)
        start = 0
        for table in tables:
            chunk = ratings[start : start + len(table.players)]
            start += len(table.players)
            spreads.append(max(chunk) - min(chunk))
    return spreads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=23)
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--computers", action="store_true", help="allow computer seats")
    args = parser.parse_args()
    rnd = random.Random(args.seed)
    ours: list[float] = []
    theirs: list[float] = []
    waiting: list[int] = []
    tables: list[int] = []
    computers: list[int] = []
    took: list[float] = []
    for trial in range(args.trials):
        people = night(args.people, rnd)
        started = time.perf_counter()
        seating = seat(people, GAMES, computers=args.computers, seed=trial)
        took.append(time.perf_counter() - started)
        ours.extend(t.spread for tables in split_games(seating) for t in tables)
        theirs.extend(random_split(seating, rnd))
        waiting.append(len(seating.waiting))
        tables.append(len(seating.tables))
        computers.append(sum(t.computers for t in seating.tables))
    print(
        f"{args.trials} nights of {args.people} colleagues, computer seats "
        f"{'allowed' if args.computers else 'not allowed'}"
    )
    print(f"tables a night: mean {statistics.mean(tables):.2f}")
    print(f"computer seats a night: mean {statistics.mean(computers):.2f}, worst {max(computers)}")
    print(f"waiting a night: mean {statistics.mean(waiting):.2f}, worst {max(waiting)}")
    print(f"tables of games split in several: {len(ours)} over the trials")
    print(
        f"spread inside a table, seating rule: mean {statistics.mean(ours):.2f}, worst {max(ours):.2f}"
    )
    print(
        f"spread inside a table, random split: mean {statistics.mean(theirs):.2f}, "
        f"worst {max(theirs):.2f}"
    )
    print(f"spread removed: {100 * (1 - statistics.mean(ours) / statistics.mean(theirs)):.0f}%")
    print(
        f"a seating takes: median {1000 * statistics.median(took):.2f} ms, worst {1000 * max(took):.2f} ms"
    )


if __name__ == "__main__":
    main()
