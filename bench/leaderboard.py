"""``/leaderboard`` and ``/profile`` through the fake Discord with the real bot, with many
results stored: how fast a member gets their answer.

An office of ``--members`` colleagues finishes ``--games`` rated games (three to five
players each, over the three seated games, through ``bot.store.games.act`` as a real game
ends: results and ratings in one transaction), all in one season. Then a colleague in the
middle of the board asks ``/leaderboard`` (every board in turn), clicks Next and Previous,
and asks ``/profile`` of another colleague (with the chart and the head-to-head). Prints
the median and 99th percentile of the answer time (interaction dispatched -> its callback
received by the fake) for each, how long storing took, and the query plans of the board's
queries (each must search an index, never scan a table).

    python -m bench.leaderboard [--games 10000] [--members 300] [--asks 200]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES, SYSTEM
from bot.limits import RateLimiter
from bot.ratings.ledger import OVERALL, RATED_KINDS
from bot.settings import Settings
from tests.bot.test_ratings_storage import RankedGame
from tests.cogs.boards_support import COGS
from tests.fakediscord import FakeDiscord

STAND_INS = {kind: type(f"Ranked_{kind}", (RankedGame,), {"kind": kind}) for kind in RATED_KINDS}
"""Each rated game as the ratings store's stand-in, which ends with the ranking given."""
BOARD_QUERIES = {
    "board": "SELECT user_id FROM ratings WHERE guild_id = ? AND scope = ? AND season = ?"
    " AND user_id NOT IN (SELECT user_id FROM rating_opt_outs WHERE guild_id = ?)"
    " ORDER BY rating DESC, games DESC, user_id LIMIT 10 OFFSET 100",
    "rank": "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND scope = ? AND season = ?"
    " AND (rating > ? OR (rating = ? AND games > ?) OR (rating = ? AND games = ? AND user_id < ?))",
    "placements": "SELECT kind, rank, COUNT(*) FROM game_results WHERE guild_id = ?"
    " AND kind IN (?, ?) AND user_id = ? GROUP BY kind, rank",
    "head_to_head": "SELECT a.rank, b.rank FROM game_results AS a JOIN game_results AS b"
    " ON b.game_id = a.game_id AND b.user_id = ? WHERE a.guild_id = ? AND a.user_id = ?",
    "history": "SELECT game_id, at, rating FROM rating_points"
    " WHERE guild_id = ? AND user_id = ? AND scope = ? ORDER BY seq",
}


async def store_games(bot: GamenightBot, guild_id: int, channel_id: int, members: list[int],
                      games: int, clock: FakeClock) -> None:  # fmt: skip
    rnd = random.Random(7)
    skill = {m: rnd.random() for m in members}
    for n in range(games):
        players = rnd.sample(members, rnd.randint(3, 5))
        ranked = sorted(players, key=lambda p: -(skill[p] + rnd.random()))
        kind = RATED_KINDS[n % len(RATED_KINDS)]
        ids = [str(p) for p in ranked]
        table = STAND_INS[kind](ids, 99)
        game_id = await bot.store.games.create(kind, guild_id, channel_id, table)
        await bot.store.games.act(
            game_id, SYSTEM, {"type": "finish", "ranking": [[p] for p in ids]}
        )
        clock.advance(timedelta(minutes=10))


async def plans(bot: GamenightBot) -> list[str]:
    lines = []
    for name, sql in BOARD_QUERIES.items():
        params = tuple(1 for _ in range(sql.count("?")))
        rows = await bot.db.fetchall(f"EXPLAIN QUERY PLAN {sql}", params)
        steps = [str(row["detail"]) for row in rows]
        scans = [s for s in steps if s.startswith("SCAN") and "USING" not in s]
        lines.append(f"  {name}: {'; '.join(steps)}" + ("  <-- SCAN" if scans else ""))
    return lines


async def run(games: int, members: int, asks: int) -> None:
    for kind in RATED_KINDS:  # a stand-in ends each game with the ranking it is given
        GAMES[kind] = STAND_INS[kind]
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = FakeClock(datetime(2025, 1, 2, 9, 0, tzinfo=UTC))
            bot = GamenightBot(Settings(database_path=Path(tmp) / "bench.sqlite3"), clock, COGS)
            bot.actions.limiter = RateLimiter({})  # one member at machine speed: no rate
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "general")
            viewer, other = fake.add_user("Ana"), fake.add_user("Bob")
            for user in (viewer, other):
                fake.add_member(guild, user)
            people = [10**17 + i for i in range(members - 2)] + [viewer.id, other.id]
            async with fake.run_client(bot):
                started = time.perf_counter()
                await store_games(bot, guild.id, channel.id, people, games, clock)
                stored = time.perf_counter() - started
                results = await bot.db.fetchval("SELECT COUNT(*) FROM game_results")
                timings: dict[str, list[float]] = {"first page": [], "next page": [],
                                                   "profile": []}  # fmt: skip
                boards = [None, *RATED_KINDS]
                for n in range(asks):
                    game = boards[n % len(boards)]
                    options = {} if game is None else {"game": game}
                    mark = len(fake.answer_latencies)
                    shown = await fake.slash(viewer, channel, "leaderboard", options, settle=0)
                    assert shown.embed is not None, shown.text
                    timings["first page"] += [x for x in fake.answer_latencies[mark:] if x]
                    mark = len(fake.answer_latencies)
                    scope = game or OVERALL
                    clicked = await fake.click(
                        viewer, shown, f"gn:boards:2:page:{scope}.2025-Q1", settle=0
                    )
                    assert clicked.embed is not None, clicked.text
                    timings["next page"] += [x for x in fake.answer_latencies[mark:] if x]
                    if n % 4 == 0:
                        mark = len(fake.answer_latencies)
                        seen = await fake.slash(
                            viewer, channel, "profile", {"colleague": other}, settle=0
                        )
                        assert seen.embed is not None, seen.text
                        timings["profile"] += [x for x in fake.answer_latencies[mark:] if x]
                explained = await plans(bot)
                await asyncio.sleep(0.3)  # let the last answer finish its work
    finally:
        await fake.stop()
    print(f"{games} rated games ({results} results) of {members} members stored in {stored:.1f} s")
    for name, took in timings.items():
        print(f"/{'profile' if name == 'profile' else 'leaderboard'} {name}: {summary(took)}"
              f" ({len(took)} answers)")  # fmt: skip
    print("query plans:", *explained, sep="\n")
    problems = fake.problems()
    if problems:
        print("fake Discord saw problems:", *problems, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="rated games (default 10000)")
    parser.add_argument("--members", type=int, default=300, help="colleagues (default 300)")
    parser.add_argument("--asks", type=int, default=200, help="/leaderboard asks (default 200)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args.games, args.members, args.asks))


if __name__ == "__main__":
    main()
