"""A Späye day of 30 colleagues through the fake Discord with every one of Discord's limits
on (the channel's bucket of 5 messages per 5 s included), read as the office sees it.

The day opens as a workday opening does (the board posted in #general, its thread started
from it) on a stacked table: 25 däyes (a tie redrawn in the second, three nikäyes and
their reinsertion, a tie in the last ordinary däye that leaves the final 3 cards, so its
two späyins recruit a third colleague, who first declines, then another one accepts), one
exercise asked of the committee and approved, the others confirmed but the final's, which
lapses at the closing. Colleagues take turns
in pairs; every other challenge is typed in #general (answered privately with a link, the
challenge posted in the thread), the others in the thread. Nobody waits for the bot more
than a person would: a colleague acts once their own answer came. Then the closing time
comes and the day closes.

Prints: bot messages in #general and in the thread (per däye), results (reveals) out of
order and after the closing, and pings per colleague. Used by ``bench.transcripts``
(``--games spaye``); alone: ``python -m bench.spaye_day``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine.cards import NIKAYE, standard_deck, value
from bot.fakediscord import FakeDiscord
from bot.fakediscord.models import FakeChannel, FakeMessage, FakeUser
from bot.fakediscord.ratelimits import Limits
from bot.limits import RateLimiter
from bot.settings import Settings
from cogs.spaye._closing import close_day
from tests.cogs.test_spaye import FULL_DAY_FINAL, FULL_DAY_ROUNDS
from tests.cogs.test_spaye_support import COGS, TODAY, SpayeDriver

COLLEAGUES = 30
RESULT = re.compile(r"^🎴 .*?#(\d+)")
"""A reveal's record starts with its däye's number (the daye's own message never does)."""


def day_table() -> list[str]:
    """The stacked table: the end-to-end day's first five däyes, 19 däyes of two different
    values, a tie that leaves the final three cards, and the final's three cards."""
    used = [c for rnd in FULL_DAY_ROUNDS for c in rnd] + list(FULL_DAY_FINAL)
    rest = sorted((c for c in standard_deck() if c not in used), key=value)
    tie = next((a, b) for a, b in itertools.pairwise(rest) if value(a) == value(b))
    rest = [c for c in rest if c not in tie]
    half = len(rest) // 2
    pairs = [(rest[i], rest[i + half]) for i in range(half)]
    assert len(pairs) == 19 and all(value(a) != value(b) for a, b in pairs)
    table = [c for rnd in FULL_DAY_ROUNDS for c in rnd]
    table += [c for p in pairs for c in p] + list(tie) + list(FULL_DAY_FINAL)
    assert len(table) == 55 and table.count(NIKAYE) == 3
    return table


@dataclass
class DayFigures:
    dayes: int = 0
    typed_in_channel: int = 0
    typed_in_thread: int = 0
    links: int = 0
    refusals: list[str] = field(default_factory=list)


class SpayeDay:
    """The office's day, colleague by colleague."""

    def __init__(self, fake: FakeDiscord, bot: GamenightBot, p: SpayeDriver) -> None:
        self.fake, self.bot, self.p = fake, bot, p
        self.users = p.guild_users
        self.by_id = {str(u.id): u for u in self.users}
        self.figures = DayFigures()
        self.asked = False

    def thread(self) -> FakeChannel | None:
        """The day's thread as the fake knows it (``None``: the day is in the channel)."""
        return self.p.thread()

    async def challenge(self, n: int, by: FakeUser, *targets: FakeUser) -> FakeMessage:
        """``/daye``: every other one typed in #general, the others in the thread."""
        thread = self.thread()
        where = self.p.channel if n % 2 == 0 or thread is None else thread
        before = (await self.p.stored()).meta.get("invite", 0)
        if where is self.p.channel:
            self.figures.typed_in_channel += 1
        else:
            self.figures.typed_in_thread += 1
        posted = await self.p.challenge(by, *targets, where=where)
        if posted.ephemeral:
            self.figures.links += 1
        invite = (await self.p.stored()).meta.get("invite", 0)
        assert invite == before + 1, posted.text
        return await self.p.invitation()

    async def settle(self) -> None:
        """Every pending exercise: the first one of more than a rep asks the committee
        (approved by the other späyin), all are confirmed."""
        for ex in (await self.p.view())["exercises"]:
            user = self.by_id[ex["player"]]
            if not self.asked and ex["origin"] == "nikaye" and ex["reps"] > 1:
                self.asked = True
                request = await self.p.ask_committee(user, ex["id"], str(ex["reps"] - 1), "squats")
                stored = await self.p.stored()
                pending = next(
                    e for e in stored.game.public_view()["exercises"] if e["id"] == ex["id"]
                )
                approver = self.by_id[pending["request"]["approvers"][0]]
                ask = stored.meta["ask"]
                await self.p.click(approver, request, self.p.cid("approve", f"{ex['id']}-{ask}"))
            await self.p.exercise(user, ex["id"])

    async def play(self) -> None:
        n = 0
        while (await self.p.view())["table"] > 0:
            view = await self.p.view()
            first, second = self.users[(2 * n) % COLLEAGUES], self.users[(2 * n + 1) % COLLEAGUES]
            third = self.users[(2 * n + 2) % COLLEAGUES]
            if view["final_next"]:
                invitation = await self.challenge(n, first, second, third)
                for player in (second, third):
                    await self.p.click(
                        player, invitation, self.p.custom_id(invitation, _accept(self.p))
                    )
                for player in (first, second, third):
                    await self.p.draw(player)
            else:
                invitation = await self.challenge(n, first, second)
                await self.p.click(
                    second, invitation, self.p.custom_id(invitation, _accept(self.p))
                )
                while (daye := (await self.p.view())["daye"]) is not None:
                    if daye["recruiting"]:
                        await self.recruit(n, first)
                        continue
                    for player in [self.by_id[x] for x in daye["waiting"]]:
                        await self.p.draw(player)
            n += 1
            if (await self.p.view())["table"] > 0:
                await self.settle()  # the final's exercise is left to lapse at the closing
        self.figures.dayes = int((await self.p.view())["dayes"])

    async def recruit(self, n: int, by: FakeUser) -> None:
        """The tie left 3 cards: a colleague declines, the next one accepts."""
        menu = await self.p.wait_newest(self.p.cid("recruit", "", "gnu").rstrip(":"))
        custom_id = self.p.custom_id(menu, f"gnu:spaye:{self.p.game_id}:recruit:")
        for k, answer in ((3, "decline"), (4, "accept")):
            colleague = self.users[(2 * n + k) % COLLEAGUES]
            await self.p.pick(by, menu, custom_id, colleague)
            offer = await self.p.invitation()
            prefix = f"gn:spaye:{self.p.game_id}:{answer}:"
            await self.p.click(colleague, offer, self.p.custom_id(offer, prefix))
            if answer == "decline":
                await self.fake.wait_for(lambda: bool(self.fake.selects(menu)), timeout=60)
        daye = (await self.p.view())["daye"]
        assert daye is not None and not daye["recruiting"]
        for player in [self.by_id[x] for x in daye["waiting"]]:
            await self.p.draw(player)


def _accept(p: SpayeDriver) -> str:
    return f"gn:spaye:{p.game_id}:accept:"


def results(messages: list[FakeMessage]) -> list[int]:
    """The däye numbers of the reveals' records, in the order they were posted."""
    found = []
    for m in sorted(messages, key=lambda m: m.id):
        first = m.history[0].content if m.history else m.content
        match = RESULT.match(first or "")
        if match:
            found.append(int(match.group(1)))
    return found


def out_of_order(numbers: list[int]) -> int:
    """Results posted after a later däye's."""
    late, highest = 0, 0
    for number in numbers:
        if number < highest:
            late += 1
        highest = max(highest, number)
    return late


async def run_day(quiet: bool = False) -> dict[str, Any]:
    fake = FakeDiscord(limits=Limits())  # every one of Discord's limits
    await fake.start()
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
            bot = GamenightBot(Settings(database_path=Path(tmp) / "day.sqlite3"), clock, COGS)
            bot.actions.limiter = RateLimiter({})  # colleagues at machine speed: no rate
            owner = fake.add_user("Olga")
            guild = fake.add_guild("Office", owner=owner)
            general = fake.add_text_channel(guild, "general")
            users = [fake.add_user(f"C{i:02d}") for i in range(COLLEAGUES)]
            for user in users:
                fake.add_member(guild, user)
            async with fake.run_client(bot):
                p = SpayeDriver(fake, bot, guild, general, settle=0.0, wait=120.0)
                p.guild_users = users
                await p.open_day(day_table(), day=TODAY)
                day = SpayeDay(fake, bot, p)
                await day.play()
                # the closing time comes: the day closes (its timer's own handler)
                clock.set(datetime(2025, 3, 14, 23, 0, tzinfo=UTC))
                await close_day(bot, p.game_id, TODAY)
                stored = await p.stored()
                await asyncio.sleep(6.0)  # anything the bot still had to post
            elapsed = time.perf_counter() - started
            await bot.store.close()
    finally:
        await fake.stop()
    mine = [m for m in fake.messages.values() if m.author is fake.bot_user and m.visible_to is None]
    in_channel = [m for m in mine if m.channel is general]
    elsewhere = [m for m in mine if m.channel is not general and m.channel.guild is guild]
    everything = in_channel + elsewhere
    closing = [
        m for m in in_channel if (m.history[0].content if m.history else m.content).startswith("🕛")
    ]
    closed_at = min((m.id for m in closing), default=None)
    numbers = results(everything)
    after = sum(
        1
        for m in everything
        if closed_at is not None
        and m.id > closed_at
        and RESULT.match(m.history[0].content if m.history else m.content)
    )
    pings = Counter(uid for m in everything for uid in m.notified)
    per = [pings.get(u.id, 0) for u in users]
    figures = {
        "dayes": day.figures.dayes,
        "status": stored.status,
        "channel": len(in_channel),
        "thread": len(elsewhere),
        "results": len(numbers),
        "out_of_order": out_of_order(numbers),
        "after_closing": after,
        "closing": closed_at is not None,
        "pings": per,
        "typed": (day.figures.typed_in_channel, day.figures.typed_in_thread),
        "links": day.figures.links,
        "elapsed": elapsed,
        "problems": fake.problems(),
        "board_edits": len(in_channel[0].history) if in_channel else 0,
    }
    if not quiet:
        print(report(figures))
    return figures


def report(f: dict[str, Any]) -> str:
    per = f["pings"]
    lines = [
        f"Späye: a day of {COLLEAGUES} colleagues, every Discord limit on: {f['dayes']} däyes,"
        f" {f['status']}, {f['elapsed']:.1f} s",
        f"  /daye typed in #general {f['typed'][0]}× (answered with a link {f['links']}×),"
        f" in the thread {f['typed'][1]}×",
        f"  bot messages in #general: {f['channel']} (the board edited {f['board_edits']}×)",
        f"  bot messages in the thread: {f['thread']}, {f['thread'] / max(1, f['dayes']):.2f}"
        " per däye",
        f"  results: {f['results']}; out of order: {f['out_of_order']}; after the closing:"
        f" {f['after_closing']} (closing posted: {f['closing']})",
        f"  pings per colleague: mean {statistics.fmean(per):.2f}, max {max(per)}, min {min(per)}",
    ]
    if f["problems"]:
        lines.append("  fake Discord problems: " + "; ".join(map(str, f["problems"][:5])))
    return "\n".join(lines)


def main() -> None:
    logging.basicConfig(level=logging.ERROR)
    asyncio.run(run_day())


if __name__ == "__main__":
    main()
