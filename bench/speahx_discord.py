"""A game of Speahx through the fake Discord, with the real bot: what players feel.

Every player makes the timer's move with their own controls (a button, or a select for a
big hand) as soon as it is their turn. Prints the answer time of every interaction (median,
p99), Discord REST calls per move not counting the interaction answers, and the messages
the game left in the channel and in each player's DMs.

    python -m bench.speahx_discord --players 10 --moves 400
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.seated import SeatedCog
from bot.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

ANSWER = "/interactions/{interaction_id}/{interaction_token}/callback"


async def play(players: int, moves: int) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bot = GamenightBot(
                Settings(database_path=Path(tmp) / "bench.sqlite3"),
                FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)),
                ["cogs.speahx"],
            )
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "games")
            users = []
            for i in range(players):
                user = fake.add_user(f"P{i:02d}")
                fake.add_member(guild, user)
                users.append(user)
            async with fake.run_client(bot):
                seats = Seats(fake, bot, "speahx", channel, users)
                await seats.open_and_start({"turn_seconds": 90})
                first = len(fake.answer_latencies)
                mark = fake.mark()
                started = time.perf_counter()
                made = 0
                while made < moves:
                    stored = await seats.stored()
                    if not stored.is_active:
                        break
                    player = stored.game.to_act()[0]
                    await seats.act(player, stored.game.auto_action(player))
                    made += 1
                elapsed = time.perf_counter() - started
                calls = [c for c in fake.calls_since(mark) if c.route != ANSWER]
                latencies = [x for x in fake.answer_latencies[first:] if x is not None]
                left = {u.name: len([m for m in fake.dms(u) if not m.deleted]) for u in users}
                channel_messages = len(fake.channel_messages(channel))
    finally:
        await fake.stop()
    print(f"{players} players, {made} moves in {elapsed:.1f} s")
    print(f"answer time: {summary(latencies)}")
    print(f"REST calls per move, answers not counted: {len(calls) / made:.2f}")
    print(f"channel messages: {channel_messages}; DMs per player: {sorted(set(left.values()))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--moves", type=int, default=400)
    parser.add_argument(
        "--table-interval",
        type=float,
        default=SeatedCog.TABLE_EDIT_INTERVAL,
        help="seconds between two edits of the table (the bot's default)",
    )
    args = parser.parse_args()
    SeatedCog.TABLE_EDIT_INTERVAL = args.table_interval
    SeatedCog.NOTICE_DELAY = 3600.0
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(play(args.players, args.moves))


if __name__ == "__main__":
    main()
