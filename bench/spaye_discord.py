"""A full Späye day through the fake Discord, with the real bot: how fast colleagues get
their answer.

The day is stored on the stacked table of the end-to-end test (26 ordinary rounds with a
tie, three nikäyes and their reinsertion, then the final of three), then played only with
interactions: ``/daye``, Accept, Draw, Done (and Ask the committee / Approve for one
exercise). The driver does not wait for quiet time (``settle=0``). Prints the median and
99th percentile of the answer time (interaction dispatched -> its callback received by the
fake) over every interaction, and how many there were; then how many new messages the day
made per däye in the day's thread (the challenge and the reveal, nothing else) and in the
channel (the day's board). Discord's limits are all on: a record the thread's bucket holds
back is waited for as long as a colleague would, not 5 s.

    python -m bench.spaye_discord [--days 3]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from bench._latency import summary
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.limits import RateLimiter
from bot.settings import Settings
from tests.cogs.test_spaye import FULL_DAY_FINAL, FULL_DAY_ROUNDS
from tests.cogs.test_spaye_support import COGS, SpayeDriver, rounds_table
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeUser

PAIRS = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]


async def settle_exercises(p: SpayeDriver, users: dict[str, FakeUser], asked: set[int]) -> None:
    """Every pending exercise: the first one asks the committee (approved), all are done."""
    for ex in (await p.view())["exercises"]:
        user = users[ex["player"]]
        if not asked and ex["origin"] == "nikaye" and ex["reps"] > 1:
            asked.add(ex["id"])
            request = await p.ask_committee(user, ex["id"], str(ex["reps"] - 1), "squats")
            stored = await p.stored()
            pending = next(e for e in stored.game.public_view()["exercises"] if e["id"] == ex["id"])
            approver = users[pending["request"]["approvers"][0]]
            ask = stored.meta["ask"]
            await p.click(approver, request, p.cid("approve", f"{ex['id']}-{ask}"))
        await p.exercise(user, ex["id"])


async def play_day(p: SpayeDriver, users: list[FakeUser], day: date) -> int:
    """Play a whole day; returns its number of däyes."""
    by_id = {str(u.id): u for u in users}
    await p.open_day(rounds_table(FULL_DAY_ROUNDS, FULL_DAY_FINAL, fillers=20), day=day)
    asked: set[int] = set()
    turn = 0
    while (await p.view())["table"] > 3:
        i, j = PAIRS[turn % len(PAIRS)]
        first, second = users[i], users[j]
        turn += 1
        posted = await p.challenge(first, second)
        await p.answer(second, posted)
        while (await p.view())["daye"] is not None:
            await p.draw(first)
            await p.draw(second)
        await settle_exercises(p, by_id, asked)
    await p.daye(users[:3])
    await settle_exercises(p, by_id, asked)
    stored = await p.stored()
    assert stored.status == "over"
    return int(stored.game.result()["dayes"])


async def run(days: int) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = FakeClock(datetime(2025, 3, 3, 9, 0, tzinfo=UTC))
            bot = GamenightBot(Settings(database_path=Path(tmp) / "bench.sqlite3"), clock, COGS)
            bot.actions.limiter = RateLimiter({})  # one member at machine speed: no rate
            guild = fake.add_guild("Office")
            channel = fake.add_text_channel(guild, "general")
            users = [fake.add_user(name) for name in ("Ana", "Bob", "Cid", "Dan")]
            for user in users:
                fake.add_member(guild, user)
            async with fake.run_client(bot):
                p = SpayeDriver(fake, bot, guild, channel, settle=0.0, wait=60.0)
                started = time.perf_counter()
                dayes = 0
                for n in range(days):
                    dayes += await play_day(p, users, clock.now().date())
                    clock.advance(timedelta(days=1))
                    assert n + 1 == len(await bot.store.games.find(kind="spaye", status="over"))
                elapsed = time.perf_counter() - started
                await asyncio.sleep(0.5)  # messages posted after the last answer
                messages = len(fake.channel_messages(channel))
                threads = fake.threads(channel)
                in_threads = sum(len(fake.channel_messages(x)) for x in threads)
    finally:
        await fake.stop()
    every = [x for x in fake.answer_latencies if x is not None]
    print(f"{days} Späye day(s), {len(every)} interactions in {elapsed:.1f} s")
    print(f"answer time: {summary(every)}, max {max(every) * 1000:.1f} ms")
    print(
        f"new messages in the days' threads: {in_threads} for {dayes} däyes,"
        f" {in_threads / dayes:.2f} per däye ({len(threads)} thread(s));"
        f" in the channel: {messages} ({messages / days:.1f} a day)"
    )
    problems = fake.problems()
    if problems:
        print("fake Discord saw problems:", *problems, sep="\n  ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=1, help="full days to play (default 1)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    asyncio.run(run(args.days))


if __name__ == "__main__":
    main()
