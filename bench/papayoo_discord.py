"""A 4-player Papayoo game through the fake Discord, with the real bot: how fast players
get their answer and how many Discord REST calls each card costs.

Every move is a real interaction (select, button) answered by the bot; the driver does not
wait for any quiet time (``settle=0``), only for the private message that offers the next
player their cards. Prints the median and 99th percentile of the answer time (dispatch to
callback) of every interaction and of card plays alone, and REST calls per card played
(every call from one play to the next: the answer, the table edit, the next player's DM,
and at the end of a trick the finished table plus the new one).

    python -m bench.papayoo_discord --rounds 2
    python -m bench.papayoo_discord --rounds 2 --closed-dms   # Dee does not accept DMs
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.settings import Settings
from tests.cogs.papayoo_support import Table, office
from tests.fakediscord import FakeDiscord


async def play(rounds: int, closed_dms: bool = False) -> None:
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
                started = time.perf_counter()
                await table.open_and_start({"rounds": rounds, "turn_seconds": 90})
                plays: list[float] = []
                calls: list[int] = []
                mark = None
                while True:
                    stored = await table.stored()
                    if not stored.is_active:
                        break
                    view = stored.game.public_view()
                    if view["phase"] == "pass":
                        if mark is not None:  # the round's last card: its summaries and deal
                            await asyncio.sleep(0.1)
                            calls.append(len(fake.calls_since(mark)))
                            mark = None
                        for player in view["to_act"]:
                            await table.pass_cards(player)
                        continue
                    # Calls since the previous play: everything that card caused. The fake
                    # logs a call once it has answered it: give the last one a moment.
                    await asyncio.sleep(0.005)
                    if mark is not None:
                        calls.append(len(fake.calls_since(mark)))
                    mark = fake.mark()
                    result = await table.play_card(view["turn"])
                    plays.append(result.latency)
                await asyncio.sleep(0.2)  # the last card's summaries
                if mark is not None:
                    calls.append(len(fake.calls_since(mark)))
                elapsed = time.perf_counter() - started
    finally:
        await fake.stop()
    every = [x for x in fake.answer_latencies if x is not None]
    print(f"4 players, {rounds} round(s): {len(every)} interactions in {elapsed:.1f} s")
    print(f"answer time, all interactions: {summary(every)}")
    print(f"answer time, {len(plays)} card plays: {summary(plays)}")
    tricks = len(plays) // 4
    print(
        f"REST calls per card played: mean {statistics.fmean(calls):.2f}"
        f" (median {statistics.median(calls):.0f}, max {max(calls)}; {sum(calls)} calls"
        f" for {len(calls)} cards, {tricks} tricks)"
    )
    spread = ", ".join(f"{n} calls: {k} cards" for n, k in sorted(Counter(calls).items()))
    print(f"  {spread}")
    if closed_dms:
        refused = [c for c in fake.failed_calls() if c.status == 403]
        print(f"DMs refused (closed DMs): {len(refused)} in {rounds} round(s)")
    if fake.problems():
        print("fake Discord problems:", *fake.problems(), sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the game (1..20)")
    parser.add_argument(
        "--closed-dms", action="store_true", help="the fourth player does not accept DMs"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(play(args.rounds, args.closed_dms))


if __name__ == "__main__":
    main()
