"""The month's table: the picture for 50 späyins, and ``/spaye board`` with 200 späyins.

1. Renders the month-end picture (podium and bars, Pillow) for 50 späyins whose names mix
   scripts, ``--renders`` times; prints the median and the PNG size.
2. Stores a month of 8 finished Späye days played at random by 200 späyins (each day a
   full table: 25 ordinary däyes and the final, every exercise confirmed), then asks
   ``/spaye board`` through the fake Discord with the real bot ``--asks`` times; prints
   the median and p99 answer time (interaction dispatched -> callback received).

    python -m bench.spaye_month [--renders 10] [--asks 30]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import SYSTEM
from bot.engine.spaye import SpayeGame
from bot.limits import RateLimiter
from bot.settings import Settings
from cogs.spaye._opening import day_meta
from cogs.spaye._picture import month_picture
from cogs.spaye._render_month import picture_words
from tests.cogs.test_spaye_support import COGS
from tests.fakediscord import FakeDiscord

NAMES = ["Ana", "李小龍", "محمد", "Ζωή", "Дмитрий", "😀 Zoé", "नमस्ते", "Ünïcödé"]
DAYS = 8
SPAYINS = 200


def render(renders: int) -> None:
    rnd = random.Random(1)
    ids = [str(10**17 + i) for i in range(50)]
    points = {p: {"daye": rnd.randint(0, 30), "victory": rnd.randint(0, 12),
                  "reps": rnd.randint(0, 300)} for p in ids}  # fmt: skip
    standings = {"points": {p: {**c, "total": sum(c.values())} for p, c in points.items()}}
    names = {p: f"{NAMES[i % len(NAMES)]} {i}" for i, p in enumerate(ids)}
    holders = {"grand_spayin": ids[0], "mastaye": ids[1], "tikao": ids[2]}
    words = picture_words("2025-03", "en")
    month_picture(standings, holders, names, words)  # fonts loaded once
    took, size = [], 0
    for _ in range(renders):
        started = time.perf_counter()
        size = len(month_picture(standings, holders, names, words))
        took.append(time.perf_counter() - started)
    print(
        f"picture, 50 späyins: median {statistics.median(took) * 1000:.0f} ms"
        f" over {renders} renders, {size / 1024:.0f} KiB PNG"
    )


def play_to_the_final(rnd: random.Random, pool: list[str], seed: int) -> SpayeGame:
    """A shuffled day played by pairs from ``pool`` up to the final's reveal; the final's
    exercises are left for the store (so the day finishes through ``act``)."""
    game = SpayeGame.new([], seed, {})
    turn = 0
    while game.public_view()["table"] > 3:
        a, b = pool[turn % len(pool)], pool[(turn + 1) % len(pool)]
        turn += 2
        game.apply(a, {"type": "challenge", "target": b})
        game.apply(b, {"type": "accept"})
        while game.public_view()["daye"] is not None:
            view = game.public_view()
            if view["daye"]["recruiting"]:
                c = rnd.choice([p for p in pool if p not in view["daye"]["players"]])
                game.apply(a, {"type": "recruit", "player": c})
                game.apply(c, {"type": "accept"})
                view = game.public_view()
            for p in view["daye"]["waiting"]:
                game.apply(p, {"type": "draw"})
        for ex in game.public_view()["exercises"]:
            game.apply(ex["player"], {"type": "exercise_done", "id": ex["id"]})
    if game.public_view()["table"] == 3:
        a, b, c = rnd.sample(pool, 3)
        game.apply(a, {"type": "challenge", "targets": [b, c]})
        for p in (b, c):
            game.apply(p, {"type": "accept"})
        for p in (a, b, c):
            game.apply(p, {"type": "draw"})
    return game


async def board(asks: int) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = FakeClock(datetime(2025, 3, 28, 9, 0, tzinfo=UTC))
            bot = GamenightBot(Settings(database_path=Path(tmp) / "bench.sqlite3"), clock, COGS)
            bot.actions.limiter = RateLimiter({})  # one member at machine speed: no rate
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "general")
            viewer = fake.add_user("Ana")
            fake.add_member(guild, viewer)
            async with fake.run_client(bot):
                rnd = random.Random(2)
                people = [str(10**17 + i) for i in range(SPAYINS - 1)] + [str(viewer.id)]
                for n in range(DAYS):
                    day = date(2025, 3, 3 + n)
                    pool = people[n * SPAYINS // DAYS : (n + 1) * SPAYINS // DAYS]
                    game = play_to_the_final(rnd, pool, n)
                    game_id = await bot.store.days.open_day(
                        guild.id, day, channel.id, game, day_meta(day)
                    )
                    for ex in game.public_view()["exercises"]:
                        await bot.store.games.act(
                            game_id, ex["player"], {"type": "exercise_done", "id": ex["id"]}
                        )
                    stored = await bot.store.games.require(game_id)
                    if stored.is_active:
                        await bot.store.games.act(game_id, SYSTEM, {"type": "close"})
                seen = set()
                for g in await bot.store.days.finished_in_month(guild.id, "2025-03"):
                    seen.update(g.game.result()["spayins"])
                fake.answer_latencies.clear()
                for _ in range(asks):
                    shown = await fake.slash(viewer, channel, "spaye board", settle=0)
                    assert shown.embed is not None
                took = [x for x in fake.answer_latencies if x is not None]
                await asyncio.sleep(0.3)  # let the last answer finish its work
    finally:
        await fake.stop()
    print(f"/spaye board, {len(seen)} späyins over {DAYS} days: {summary(took)} ({asks} asks)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, default=10, help="picture renders (default 10)")
    parser.add_argument("--asks", type=int, default=30, help="/spaye board asks (default 30)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    render(args.renders)
    asyncio.run(board(args.asks))


if __name__ == "__main__":
    main()
