"""A whole game of Spit through the fake Discord, both players clicking as fast as they can.

Both players open their panel (**My controls** on the board); then, each round of the
driver, once the panels show the board as it is, every player who may move clicks their
move on their own panel at the same moment (``asyncio.gather``), as two players racing
would. Prints the answer time (dispatch to callback) median / p99 / max, Discord REST calls
per click (the answer itself counts), of which made with the bot's token (the budget's:
the rest go through the players' interaction tokens), and the moves per second the bot
sustained (each player waits for their panel to show the move before clicking it). Card
emoji uploads, made once at start-up, are not counted among the bot's message calls.

    python -m bench.spit_discord
    python -m bench.spit_discord --seed 3 --games 3
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import bot.seated.start as seated
from bench._latency import percentile, summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.seated import SeatedCog
from bot.settings import Settings
from cogs.spit._render import encode
from tests.fakediscord import FakeDiscord


async def play(seed: int) -> tuple[list[float], int, int, int, float]:
    seated.new_seed = lambda: seed  # type: ignore[assignment]
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bot = GamenightBot(
                Settings(database_path=Path(tmp) / "bench.sqlite3"),
                FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)),
                ["cogs.spit"],
            )
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "games")
            ana, bob = fake.add_user("Ana"), fake.add_user("Bob")
            fake.add_member(guild, ana)
            fake.add_member(guild, bob)
            users = {str(ana.id): ana, str(bob.id): bob}
            async with fake.run_client(bot):
                asked = await fake.slash(ana, channel, "spit challenge", {"opponent": bob})
                board = (await fake.click(bob, asked, label="Accept")).response
                assert board is not None
                cog = bot.get_cog("Spit")
                assert isinstance(cog, SeatedCog)
                await cog.settle()
                game_id = (await bot.store.games.find(kind="spit"))[0].id
                panels = {}
                for p, user in users.items():
                    opened = await fake.click(user, board, f"gn:spit:{game_id}:panel")
                    panels[p] = opened.followups[0]
                await cog.settle()
                first = len(fake.answer_latencies)
                mark = fake.mark()
                started = time.perf_counter()
                moves = 0
                while True:
                    await asyncio.sleep(0)
                    stored = await bot.store.games.require(game_id)
                    if not stored.is_active:
                        break
                    players = stored.game.public_view()["players"]
                    clicks = []
                    for p in stored.game.to_act():
                        action = stored.game.auto_action(p)
                        custom_id = f"gn:spit:{game_id}:do:{players.index(p)}.{encode(action)}"
                        panel = fake.message(panels[p].id)
                        # The player clicks once their panel shows the move.
                        await fake.wait_for(
                            lambda m=panel, c=custom_id: c in [b.custom_id for b in fake.buttons(m)]
                        )
                        clicks.append(fake.click(users[p], panel, custom_id, settle=0))
                    await asyncio.gather(*clicks)
                    moves = (await bot.store.games.require(game_id)).version
                await cog.settle()
                elapsed = time.perf_counter() - started
                made = fake.calls_since(mark)
                calls = len(made)
                by_bot = sum(c.route.startswith("/channels/") for c in made)
                latencies = [x for x in fake.answer_latencies[first:] if x is not None]
    finally:
        await fake.stop()
    return latencies, calls, by_bot, moves, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", type=int, default=1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    for k in range(args.games):
        latencies, calls, by_bot, version, elapsed = asyncio.run(play(args.seed + k))
        clicks = len(latencies)
        print(
            f"game {k + 1} (seed {args.seed + k}): {clicks} clicks, {version} saved moves,"
            f" {elapsed:.1f} s"
        )
        print(f"  answer time: {summary(latencies)}, max {max(latencies) * 1000:.1f} ms")
        print(f"  p90 {percentile(latencies, 0.9) * 1000:.1f} ms")
        print(f"  REST calls per click (answers included): {calls / clicks:.2f}")
        print(f"  of which messages sent or edited with the bot's token: {by_bot / clicks:.2f}")
        print(f"  moves per second: {version / elapsed:.0f} ({clicks / elapsed:.0f} clicks/s)")


if __name__ == "__main__":
    main()
