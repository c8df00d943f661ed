"""A 4-player Papayoo game through the fake Discord, with the real bot: what players feel.

Every move is a real interaction (the pass select, a card button) answered by the bot; each
player acts once the control for their decision is on their own message (after ``--think``
seconds). Prints, for the whole game:

- the answer time (dispatch to callback) of every interaction: median and p99;
- Discord REST calls per card played, not counting the interaction answers (the table
  edits, the hands of whoever must act next, the records, the start);
- new channel messages per game, and messages left in each player's DMs at the end.

    python -m bench.papayoo_discord --rounds 4
    python -m bench.papayoo_discord --rounds 4 --think 2 --table-interval 1
    python -m bench.papayoo_discord --rounds 1 --closed-dms   # Dee does not accept DMs
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.seated import SeatedCog
from bot.settings import Settings
from tests.cogs.papayoo_support import Table, office
from tests.fakediscord import FakeDiscord

ANSWER = "/interactions/{interaction_id}/{interaction_token}/callback"


async def play(rounds: int, think: float, closed_dms: bool) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bot = GamenightBot(
                Settings(database_path=Path(tmp) / "bench.sqlite3"),
                FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC)),
                ["cogs.papayoo"],
            )
            guild, channel, users = office(fake, ["Ana", "Bob", "Cyd", "Dee"])
            closed = {users[3].id} if closed_dms else set()
            for user in users:
                if user.id in closed:
                    fake.close_dms(user)
            async with fake.run_client(bot):
                table = Table(fake, bot, guild, channel, users, closed=closed, settle=0.0)
                table.wait_quiet = False
                started = time.perf_counter()
                mark = fake.mark()
                await table.open_and_start({"rounds": rounds, "turn_seconds": 90})
                cards = 0
                while True:
                    stored = await table.stored()
                    if not stored.is_active:
                        break
                    await asyncio.sleep(think)
                    view = stored.game.public_view()
                    if view["phase"] == "pass":
                        for player in view["to_act"]:
                            await table.pass_cards(player)
                    else:
                        await table.play_card(view["turn"])
                        cards += 1
                cog = bot.get_cog("Papayoo")
                assert isinstance(cog, SeatedCog)
                await cog.settle()
                elapsed = time.perf_counter() - started
                calls = [c for c in fake.calls_since(mark) if c.route != ANSWER]
                kinds = Counter(f"{c.method} {c.route}" for c in calls)
                channel_messages = len(fake.channel_messages(channel))
                dms = {u.name: len([m for m in fake.dms(u) if not m.deleted]) for u in users}
    finally:
        await fake.stop()
    every = [x for x in fake.answer_latencies if x is not None]
    print(
        f"4 players, {rounds} round(s), think {think} s, table edits at most every"
        f" {SeatedCog.TABLE_EDIT_INTERVAL} s: {len(every)} interactions, {cards} cards,"
        f" {elapsed:.1f} s"
    )
    print(f"answer time, all interactions: {summary(every)}")
    print(
        f"REST calls per card, answers not counted: {len(calls) / cards:.2f} ({len(calls)} calls)"
    )
    for kind, n in kinds.most_common():
        print(f"  {n:5d}  {kind}")
    print(f"new channel messages in the game: {channel_messages}")
    print("messages left in each player's DMs: " + ", ".join(f"{k} {v}" for k, v in dms.items()))
    if fake.problems():
        print("fake Discord problems:", *fake.problems(), sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds of the game (1..20)")
    parser.add_argument("--think", type=float, default=0.0, help="seconds before each move")
    parser.add_argument(
        "--table-interval",
        type=float,
        default=SeatedCog.TABLE_EDIT_INTERVAL,
        help="seconds between two edits of the table (the bot's default)",
    )
    parser.add_argument(
        "--closed-dms", action="store_true", help="the fourth player does not accept DMs"
    )
    args = parser.parse_args()
    SeatedCog.TABLE_EDIT_INTERVAL = args.table_interval
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(play(args.rounds, args.think, args.closed_dms))


if __name__ == "__main__":
    main()
