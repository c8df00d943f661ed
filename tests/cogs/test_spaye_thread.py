"""A Späye day in its own thread, through the fake Discord with the real bot: the opening
message is the day's board in the channel and starts the day's thread; everything of the
day is posted there; ``/daye`` from elsewhere is answered privately with a link; the
closing comes after the last result and archives the thread; without the permission the
day falls back to the channel and ``/config show`` says so; bad places are answered
privately and lose nothing."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.clock import FakeClock
from bot.fakediscord.models import CREATE_PUBLIC_THREADS, FakeMessage, FakeUser
from bot.fakediscord.ratelimits import Limits
from bot.i18n import t
from cogs.spaye._closing import close_day
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, TODAY, SpayeDriver

pytestmark = pytest.mark.e2e

TABLE = ["KH", "2S", "9C", "3D", NK, "8D", "5C", "4D", "6H"]
"""Däye 1: a winner; däye 2: a winner; däye 3: a nikäye (8 reps); then cards left."""


def results_in(p: SpayeDriver, channel: object) -> list[FakeMessage]:
    return [
        m
        for m in p.fake.channel_messages(channel)  # type: ignore[arg-type]
        if (m.history[0].content if m.history else m.content).startswith("🎴")
    ]


async def draw_out_ties(p: SpayeDriver, *players: FakeUser) -> None:
    """A tie (a day opened with /spaye start has its cards shuffled) leaves the däye under
    way: its players draw again until it is over. A draw answered before it was saved may
    show the däye a moment longer: a draw pressed then is refused and changes nothing."""
    for _ in range(20):
        await asyncio.sleep(0.1)
        if (await p.view())["daye"] is None:
            return
        for player in players:
            await p.draw(player)
    raise AssertionError("the däye is still under way")


async def test_the_day_is_played_in_its_thread(office: Office, make_bot: MakeBot) -> None:
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        opened = await fake.slash(bob, office.general, "spaye start", {})
        assert not opened.ephemeral and opened.response is not None
        board = opened.response
        day = await bot.store.days.get(office.guild.id, TODAY)
        assert day is not None
        p = SpayeDriver(fake, bot, office.guild, office.general)
        p.game_id = day.game_id
        await p.stored()
        thread = p.thread()
        assert thread is not None and fake.thread_of(board) is thread
        assert thread.name == "Späye · Friday 14 March"
        assert thread.auto_archive_duration == 1440

        # /daye in the channel: a private link; the challenge in the thread pings Cid once
        posted = await p.challenge(bob, cid)
        assert posted.ephemeral and f"/channels/{office.guild.id}/{thread.id}/" in posted.text
        invitation = await p.invitation()
        assert invitation.channel is thread and invitation.notified == [cid.id]
        assert cid.id in thread.members  # the mention added them to the thread
        await p.answer(cid, posted)
        await p.draw(bob)
        await p.draw(cid)
        await draw_out_ties(p, bob, cid)
        # the thread's bucket (5 messages per 5 s) may hold the record behind the day's posts
        assert await fake.wait_for(lambda: len(results_in(p, thread)) == 1, timeout=30)

        # /daye in the thread works in place
        here = await p.challenge(dan, ana, where=thread)
        assert not here.ephemeral and here.response is not None
        assert here.response.channel is thread

        # the channel holds the board alone, edited: who played, a link into the thread
        assert fake.channel_messages(office.general) == [board]

        def shown() -> bool:
            text = board.content + str(board.embeds)
            return f"<#{thread.id}>" in text and f"<@{cid.id}>" in text and "Played" in text

        assert await fake.wait_for(shown)
        assert not fake.problems()


async def test_results_come_in_order_and_the_closing_after_them(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """With every Discord limit on (the thread's bucket of 5 messages per 5 s), däyes
    played faster than the thread takes messages are posted in their order, and the closing
    waits for the last of them; then the thread is archived, and a button of the closed day
    is answered privately."""
    fake = office.fake
    fake.limits = Limits()
    ana, bob, cid, dan, eve = office.colleagues
    bot = make_bot(COGS)
    pairs = [(ana, bob), (cid, dan), (eve, ana), (bob, cid), (dan, eve), (ana, cid)]
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general, wait=60.0)
        cards = [
            "KH",
            "2S",
            "9C",
            "3D",
            "JD",
            "4C",
            "QS",
            "5H",
            "10H",
            "6D",
            "AS",
            "7C",
            "8D",
            "4H",
            NK,
        ]
        await p.open_day(cards)
        thread = p.thread()
        assert thread is not None
        for first, second in pairs:
            posted = await p.challenge(first, second, where=thread)
            assert not posted.ephemeral, posted.text
            await p.answer(second, posted)
            await p.draw(first)
            await p.draw(second)

        async def played() -> bool:  # the last draw may be answered before it is saved
            view = await p.view()
            return view["daye"] is None and (view["last_daye"] or {}).get("number") == len(pairs)

        assert await fake.wait_for(played)
        await p.challenge(ana, dan, eve, where=thread)  # the final, left unanswered
        pending = await p.invitation()
        stored = await close_day(bot, p.game_id, TODAY)  # at once: results may still wait
        assert stored is not None and stored.status == "voided"
        channel = fake.channel_messages(office.general)
        assert len(channel) == 2 and channel[1].content.startswith("🕛")
        numbers = [int(m.content.split("#")[1].split(",")[0]) for m in results_in(p, thread)]
        assert numbers == [1, 2, 3, 4, 5, 6]
        assert all(m.id < channel[1].id for m in results_in(p, thread))
        assert await fake.wait_for(lambda: thread.archived)

        # a challenge left unanswered at the closing, clicked the next day: a clear
        # private answer, nothing changed
        clock.advance(timedelta(days=1))
        stale = await p.click(dan, pending, p.custom_id(pending, f"gn:spaye:{p.game_id}:accept:"))
        assert stale.ephemeral and "voided" in stale.text, stale.text
        assert (await p.stored()).status == "voided"


async def test_without_the_permission_the_day_falls_back_to_the_channel(
    office: Office, make_bot: MakeBot
) -> None:
    fake = office.fake
    ana, bob, *_ = office.colleagues
    await fake.deny_bot(office.general, CREATE_PUBLIC_THREADS)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.open_day(TABLE)
        assert p.thread() is None and not fake.threads(office.general)
        posted = await p.challenge(bob, ana)
        assert not posted.ephemeral and posted.response is not None
        assert posted.response.channel is office.general
        # the admins are told, in /config show
        shown = await fake.slash(office.owner, office.general, "config show", {})
        said = str(shown.embeds) + shown.text
        assert shown.ephemeral and t("config.value.refused_create", "en") in said, said


async def test_a_server_may_play_the_day_in_the_channel(office: Office, make_bot: MakeBot) -> None:
    fake = office.fake
    ana, bob, *_ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        saved = await fake.slash(
            office.owner, office.general, "config spaye-place", {"place": "channel"}
        )
        assert saved.ephemeral and "in the channel" in saved.text, saved.text
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.open_day(TABLE)
        assert p.thread() is None and not fake.threads()
        posted = await p.challenge(bob, ana)
        assert not posted.ephemeral


async def test_a_deleted_thread_is_made_again_for_the_rest_of_the_day(
    office: Office, make_bot: MakeBot
) -> None:
    fake = office.fake
    ana, bob, cid, *_ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.open_day(TABLE)
        first = p.thread()
        assert first is not None
        await fake.delete_thread(first)
        posted = await p.challenge(bob, ana)  # typed in the channel: posted in a new thread
        assert posted.ephemeral
        await p.stored()
        again = p.thread()
        assert again is not None and again is not first and again.parent_id == office.general.id
        said = fake.channel_messages(again)
        assert said[0].content == t("spaye.thread.recreated", "en")
        assert said[1] == await p.invitation()
        await p.answer(ana, posted)
        await p.draw(bob)
        await p.draw(ana)
        await draw_out_ties(p, bob, ana)
        assert await fake.wait_for(lambda: len(results_in(p, again)) == 1, timeout=30)
        board = fake.channel_messages(office.general)[0]
        assert await fake.wait_for(lambda: f"<#{again.id}>" in board.content)
        assert cid.id not in again.members


async def test_daye_in_another_days_thread_or_another_thread(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Yesterday's (archived) thread and a thread of another channel: a private answer with
    the link, the challenge made in today's thread."""
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.open_day(TABLE)
        yesterday = p.thread()
        assert yesterday is not None
        await close_day(bot, p.game_id, TODAY)
        assert await fake.wait_for(lambda: yesterday.archived)
        clock.advance(timedelta(days=1))
        await p.open_day(TABLE, day=TODAY + timedelta(days=1))
        today = p.thread()
        assert today is not None and today is not yesterday

        posted = await p.challenge(bob, ana, where=yesterday)
        assert posted.ephemeral and "another day" in posted.text
        assert f"/{today.id}/" in posted.text
        invitation = await p.invitation()
        assert invitation.channel is today
        await p.click(ana, invitation, p.custom_id(invitation, f"gn:spaye:{p.game_id}:decline:"))

        random = fake.add_text_channel(office.guild, "random")
        note = await fake.post_message(cid, random, "lunch?")
        elsewhere = await fake.start_thread(cid, note, "lunch")
        posted = await p.challenge(cid, dan, where=elsewhere)
        assert posted.ephemeral and "not in this thread" in posted.text
        assert (await p.invitation()).channel is today
        assert not fake.channel_messages(elsewhere) and not fake.channel_messages(random)[1:]

        # a day is not opened in a thread (it makes its own)
        clock.advance(timedelta(days=1))
        refused = await fake.slash(ana, elsewhere, "spaye start", {})
        assert refused.ephemeral and "fil" in refused.text  # Ana reads French
        assert await bot.store.days.get(office.guild.id, TODAY + timedelta(days=2)) is None
