"""A server's records at size: ``/<game> history``'s page, ``/config export`` and
``/forget-me`` over a SQLite file of finished Spit games among an office of colleagues.

Each game is played by the engine (the timer's moves) up to its last move; the row is then
stored and that last move saved through ``GameStore.act``, so its results and its rating are
written in one transaction, as the bot does. Then it prints:

1. a history page (``count_played`` and ``played``, as ``/spit history`` reads them): the
   median and p99 of the first page and of a middle one;
2. the export of the whole server (``export_lines`` into ``csv_parts``): wall time, rows,
   bytes, files;
3. forgetting the colleague with the most games (``forget_member``, one transaction): wall
   time and what it changed.

    python -m bench.records                  # 30 colleagues, 1,000 games
    python -m bench.records --games 300
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.clock import FakeClock
from bot.engine import new_game
from bot.export import csv_parts
from bot.storage import Database, Store

GUILD = 1
CHANNEL = 10
FILE_BYTES = 10 * 1024 * 1024


def _p99(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.99) - 1)]


async def _store_games(store: Store, clock: FakeClock, games: int, players: int) -> Counter[int]:
    rng = random.Random(7)
    office = [100_000_000_000_000_000 + i for i in range(players)]
    played: Counter[int] = Counter()
    for seed in range(games):
        seats = [str(p) for p in rng.sample(office, 2)]
        whole = new_game("spit", seats, seed, {})
        moves = []
        while not whole.is_over():
            player = whole.to_act()[0]
            moves.append((player, whole.auto_action(player)))
            whole.apply(*moves[-1])
        game = new_game("spit", seats, seed, {})  # the same deal, up to its last move
        for move in moves[:-1]:
            game.apply(*move)
        names = {p: f"Colleague {int(p) % 1000}" for p in seats}
        game_id = await store.games.create("spit", GUILD, CHANNEL, game, {"names": names})
        await store.games.act(game_id, *moves[-1])
        clock.advance(timedelta(minutes=7))
        played.update(int(p) for p in seats)
    return played


async def run(games: int, players: int, reads: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        clock = FakeClock(datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
        store = Store(Database(Path(folder) / "records.sqlite3"), clock)
        await store.open()
        try:
            started = time.perf_counter()
            played = await _store_games(store, clock, games, players)
            print(f"{games} Spit games stored among {players} colleagues in "
                  f"{time.perf_counter() - started:.1f} s")  # fmt: skip

            total = await store.records.count_played(GUILD, "spit")
            for label, offset in (("first page", 0), ("middle page", total // 2)):
                times = []
                for _ in range(reads):
                    t0 = time.perf_counter()
                    await store.records.count_played(GUILD, "spit")
                    await store.records.played(GUILD, "spit", offset=offset, limit=6)
                    times.append((time.perf_counter() - t0) * 1000)
                print(f"history, {label} of {total} games: median {statistics.median(times):.2f} ms,"
                      f" p99 {_p99(times):.2f} ms ({reads} reads)")  # fmt: skip

            t0 = time.perf_counter()
            done = await csv_parts(
                store.records.export_lines(GUILD),
                former="Former member",
                part_bytes=FILE_BYTES - 64 * 1024,
                max_parts=5,
            )
            size = sum(len(p) for p in done.parts)
            print(f"export: {done.rows} rows, {size / 1024:.0f} KiB in {len(done.parts)} file(s),"
                  f" {(time.perf_counter() - t0) * 1000:.0f} ms")  # fmt: skip

            member, games_of = played.most_common(1)[0]
            t0 = time.perf_counter()
            forgotten = await store.records.forget_member(member)
            print(f"forget-me of a colleague with {games_of} games: "
                  f"{(time.perf_counter() - t0) * 1000:.0f} ms, {forgotten.games} games and "
                  f"{forgotten.results} result lines given the stand-in, "
                  f"ratings forgotten in {len(forgotten.guilds)} server(s)")  # fmt: skip
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--reads", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(run(args.games, args.players, args.reads))


if __name__ == "__main__":
    main()
